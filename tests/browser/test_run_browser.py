"""`texflow run-browser` and `texflow serve`, as a user runs them from a terminal."""

import json
import subprocess
import sys
import textwrap
import urllib.request
import zipfile
import io

import pytest

from texflow.serve import Server

SCRIPT = textwrap.dedent("""
    import asyncio, sys
    import texflow as tf
    print("argv", sys.argv[1:])
    print("backend", tf.get_backend())
    await asyncio.sleep(0)
    x = tf.mul(tf.array([1.0, 2.0]), 3.0)
    print("values", (await x.data()).tolist(), flush=True)
    print("to stderr", file=sys.stderr)
    import js, time  # cross-origin isolated (serve.py): a clock finer than 0.1 ms
    ticks = [time.perf_counter() for _ in range(20000)]
    step = min(b - a for a, b in zip(ticks, ticks[1:]) if b > a)
    print("isolated", js.crossOriginIsolated, "fine clock", step < 50e-6)
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    if mode == "exit":
        sys.exit(3)
    if mode == "raise":
        raise ValueError("the script failed")
""")


def _run(tmp_path, backend, *args):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    cmd = [sys.executable, "-m", "texflow.cli", "run-browser", str(script), "--backend", backend]
    if args:
        cmd += ["--", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("backend", ["webgl", "webgpu", "numpy"])
def test_runs_a_file_with_the_backend_argv_and_top_level_await(tmp_path, backend):
    done = _run(tmp_path, backend, "ok", "--flag")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "argv ['ok', '--flag']" in lines
    assert f"backend {backend}" in lines
    assert "values [3.0, 6.0]" in lines
    assert "to stderr" in done.stderr
    assert "isolated True fine clock True" in lines


def test_exit_codes_and_tracebacks(tmp_path):
    done = _run(tmp_path, "numpy", "exit")
    assert done.returncode == 3
    done = _run(tmp_path, "numpy", "raise")
    assert done.returncode == 1
    assert "ValueError: the script failed" in done.stderr
    assert "Traceback" in done.stderr


def test_missing_file_is_an_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "texflow.cli", "run-browser",
                           str(tmp_path / "nope.py")], capture_output=True, text=True)
    assert done.returncode == 2 and "no such file" in done.stderr


def test_serve_routes(tmp_path):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "index.html").write_text("<p>demo</p>")
    server = Server(root=tmp_path).start()
    try:
        get = lambda path: urllib.request.urlopen(server.url + path, timeout=10)  # noqa: E731
        assert b"demo" in get("/demo/").read()
        wheel = json.load(get("/texflow/wheel.json"))["wheel"]
        with zipfile.ZipFile(io.BytesIO(get(wheel).read())) as z:
            names = z.namelist()
        assert "texflow/__init__.py" in names
        assert any(n.startswith("texflow/_assets/shaders/") for n in names)
        assert "texflow/_assets/web/boot.js" in names
        assert any(n.endswith(".dist-info/RECORD") for n in names)
        assert get("/texflow/pyodide/pyodide.asm.wasm").headers["Content-Type"] == \
            "application/wasm"
        assert b"texflowBoot" in get("/texflow/web/boot.js").read()
        for bad in ("/texflow/web/../../pyproject.toml", "/nope.html", "/texflow/unknown/x"):
            with pytest.raises(urllib.error.HTTPError):
                get(bad)
    finally:
        server.stop()


def test_the_scripts_folder_is_available(tmp_path):
    (tmp_path / "helper_mod.py").write_text("VALUE = 42\n")
    (tmp_path / "data.csv").write_text("a,1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("NAME = 'pkg'\n")
    (tmp_path / "main.py").write_text(
        "import os, helper_mod, pkg\n"
        "print(helper_mod.VALUE, pkg.NAME, open('data.csv').read().strip(),\n"
        "      os.path.basename(__file__))\n")
    done = subprocess.run([sys.executable, "-m", "texflow.cli", "run-browser",
                           str(tmp_path / "main.py"), "--backend", "numpy"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "42 pkg a,1 main.py" in done.stdout


def test_served_pages_are_isolated_yet_load_other_origins(tmp_path, page):
    # serve.py's headers: cross-origin isolated (a 5 us clock), with COEP credentialless,
    # so a user's page may still load a script from another origin that sends no
    # Cross-Origin-Resource-Policy (require-corp would block it)
    import functools
    import http.server
    import threading

    other = tmp_path / "other"
    other.mkdir()
    (other / "x.js").write_text("window.otherLoaded = 1;")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(other))
    plain = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=plain.serve_forever, daemon=True).start()
    (tmp_path / "index.html").write_text(
        f'<script src="http://127.0.0.1:{plain.server_address[1]}/x.js"></script>')
    server = Server(root=tmp_path).start()
    try:
        page.goto(server.url + "/index.html")
        assert page.evaluate("crossOriginIsolated") is True
        assert page.evaluate("window.otherLoaded") == 1
    finally:
        server.stop()
        plain.shutdown()
