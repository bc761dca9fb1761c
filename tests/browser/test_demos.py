"""The demos as users run them: pages (Python in a Web Worker), run-browser, native."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("backend", ["webgl", "webgpu"])
def test_intro_page_trains_in_a_worker(page, demo_server, backend):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(demo_server.url + "/intro/")
    page.select_option("#backend", backend)
    page.click("#run")
    page.wait_for_selector("body[data-exit-code]", timeout=180_000)
    text = page.inner_text("#out")
    assert page.get_attribute("body", "data-exit-code") == "0", text
    assert f"NDArrayMathGPU on '{backend}'" in text
    assert "average: 1.5" in text
    assert "arrays alive after the scope: 2" in text
    assert "converged after" in text and "value: 0.4" in text
    assert not errors, errors


def test_core_page_runs(page, demo_server):
    page.goto(demo_server.url + "/core/")
    page.wait_for_selector("#run:not([disabled])", timeout=120_000)
    page.select_option("#backend", "webgl")
    page.click("#run")
    page.wait_for_function("document.getElementById('out').textContent.includes('[exit code')",
                           timeout=120_000)
    text = page.inner_text("#out")
    assert "[exit code 0]" in text and "mean squared difference: 1.5" in text, text


def test_intro_runs_natively():
    done = subprocess.run([sys.executable, str(ROOT / "demos/intro/intro.py"), "numpy"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "converged after" in done.stdout and "value: 0.4" in done.stdout


def test_index_page_says_what_each_demo_shows(page, demo_server):
    page.goto(demo_server.url + "/")
    assert page.title() == "texflow demos"
    links = page.eval_on_selector_all("#demos dt a", "els => els.map(a => a.getAttribute('href'))")
    assert {"intro/", "core/"} <= set(links)
    text = page.inner_text("#demos")
    assert "deeplearn.js introduction" in text and "NDArrayMathGPU" in text


FAILING = """
import texflow as tf

def read(x):
    return x[5]

read(tf.zeros([3]))
"""


def test_a_traceback_hides_texflow_frames_and_marks_the_error(page, demo_server, browser_session):
    text = browser_session.page.evaluate(
        """async (src) => {
            pyodide.globals.set("failing_source", src);
            return (await pyodide.runPythonAsync(`
import contextlib, io, sys
from texflow import _browser
buf = io.StringIO()
argv = sys.argv
with contextlib.redirect_stderr(buf):
    code = await _browser.run_source(failing_source, "demo.py", ["demo.py"])
sys.argv = argv
[code, buf.getvalue()]
`)).toJs();
        }""", FAILING)
    code, err = text
    assert code == 1
    assert 'File "demo.py", line 7, in <module>' in err and "return x[5]" in err
    assert "frames inside texflow hidden]" in err and "texflow/ops" not in err
    assert err.rstrip().endswith("slice index 5 of dimension 0 out of bounds (size 3).")
    page.goto(demo_server.url + "/")
    page.add_script_tag(url="/texflow/web/console.js")
    marked = page.evaluate("""(err) => {
        const pre = document.createElement("pre");
        document.body.appendChild(pre);
        const panel = texflowConsole(pre);
        panel.stdout("ok\\n");
        for (const piece of err.match(/[\\s\\S]{1,7}/g)) panel.stderr(piece);  // any chunking
        panel.flush();
        const pick = (cls) => [...pre.querySelectorAll("." + cls)].map(e => e.textContent);
        return [pick("tf-error-line"), pick("tf-source-line"), pick("tf-hidden-frames"),
                pre.textContent];
    }""", err)
    errors, sources, hidden, whole = marked
    assert len(errors) == 1 and "InvalidArgumentError: slice index 5" in errors[0]
    assert any("return x[5]" in s for s in sources) and len(hidden) == 1
    assert whole == "ok\n" + err
