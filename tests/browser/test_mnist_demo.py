"""The MNIST demo as users run it: the page (training in a Web Worker, live charts, the
drawing pad), `python demos/mnist/train.py` natively and under run-browser; and its
MNIST-style preprocessing of drawings. Quick mode throughout: a few batches of training."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
TRAIN = ROOT / "demos" / "mnist" / "train.py"
BAR = re.compile(r"^(\d+)/\1 \[=+\] - \d+s \d+m?s/step - loss: \d\.\d{4} - accuracy: \d\.\d{4}$",
                 re.M)
RESULT = re.compile(r"test loss \d+\.\d{4}, test accuracy (\d\.\d{4}) "
                    r"\(on 250 of the 1000 test images\)")


@pytest.fixture(scope="module")
def demo():
    sys.path.insert(0, str(TRAIN.parent))
    try:
        import train
        yield train
    finally:
        sys.path.remove(str(TRAIN.parent))


def _draw(page, strokes):
    """Mouse strokes on the pad; each stroke is a list of (x, y) in pad pixels (of 280)."""
    pad = page.locator("#pad")
    pad.scroll_into_view_if_needed()
    box = pad.bounding_box()
    at = lambda x, y: (box["x"] + x * box["width"] / 280, box["y"] + y * box["height"] / 280)
    for stroke in strokes:
        page.mouse.move(*at(*stroke[0]))
        page.mouse.down()
        for x, y in stroke[1:]:
            page.mouse.move(*at(x, y), steps=4)
        page.mouse.up()


def test_page_trains_charts_and_reads_a_drawn_digit(page, demo_server, demo):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(demo_server.url + "/mnist/?backend=webgl&epochs=1&steps=3&test=250")
    page.click("#start")
    page.wait_for_selector("body[data-state=done], body[data-state=error]", timeout=300_000)
    assert page.get_attribute("body", "data-state") == "done", page.inner_text("#status")
    assert page.inner_text("#shown-backend") == "webgl"
    batch = page.evaluate("Chart.getChart('batch-chart').data.datasets.map(d => d.data)")
    epoch = page.evaluate("Chart.getChart('epoch-chart').data.datasets.map(d => d.data)")
    assert [len(d) for d in batch] == [3, 3] and [len(d) for d in epoch] == [1, 1, 1]
    assert [p["x"] for p in batch[0]] == [1, 2, 3]
    assert all(0 < p["y"] < 10 for p in batch[0]) and all(0 <= p["y"] <= 1 for p in batch[1])
    shown = page.inner_text("#test-accuracy")
    assert shown.endswith(", 250 images)"), shown
    accuracy = float(shown.split()[0])
    assert epoch[2][0]["y"] == pytest.approx(accuracy, abs=1e-4) and 0 <= accuracy <= 1
    assert re.fullmatch(r"\d+ ms \(median of the last 10\)", page.inner_text("#shown-step"))
    assert re.match(r"\d+ arrays, [\d.]+ [kM]B, \d+ GPU objects", page.inner_text("#shown-memory"))

    _draw(page, [[(90, 60), (190, 60), (130, 230)], [(100, 140), (170, 140)]])  # a 7
    page.wait_for_function("(pad => pad.dataset.requested && pad.dataset.answered === "
                           "pad.dataset.requested)(document.getElementById('pad'))",
                           timeout=60_000)
    probabilities = page.evaluate(
        "[...document.querySelectorAll('#probabilities li')].map(li => Number(li.dataset.p))")
    assert len(probabilities) == 10 and sum(probabilities) == pytest.approx(1, abs=1e-5)
    assert page.inner_text("#prediction") == str(int(np.argmax(probabilities)))
    # what the worker saw is the pad's ink through the same preprocessing as natively
    ink = np.array(page.evaluate("""() => {
        const pad = document.getElementById('pad');
        const data = pad.getContext('2d').getImageData(0, 0, pad.width, pad.height).data;
        return Array.from({length: data.length / 4}, (_, i) => 1 - data[4 * i] / 255);
    }"""), np.float32).reshape(280, 280)
    seen = np.array(page.evaluate("""() => Array.from(document.getElementById('seen')
        .getContext('2d').getImageData(0, 0, 28, 28).data.filter((_, i) => i % 4 == 0))"""))
    expected = demo.to_mnist(ink).reshape(-1)
    assert np.abs((255 - seen) / 255 - expected).max() <= 1 / 255 + 1e-6
    page.click("#clear")
    assert page.inner_text("#prediction") == "–"
    assert not errors, errors


def _check_output(out, steps, epochs):
    bars = BAR.findall(out)
    assert bars == [str(steps)] * epochs, out
    if epochs > 1:
        assert [f"Epoch {i}/{epochs}" for i in range(1, epochs + 1)] == \
            re.findall(r"^Epoch \d+/\d+$", out, re.M), out
    found = RESULT.search(out)
    assert found, out
    return float(found.group(1))


def test_train_py_runs_natively_in_quick_mode():
    done = subprocess.run([sys.executable, str(TRAIN), "--epochs", "2", "--steps", "2",
                           "--test-images", "250", "--seed", "1"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "on 'numpy': 9000 training and 1000 test images" in done.stdout
    assert 0 <= _check_output(done.stdout, 2, 2) <= 1


def test_train_py_runs_under_run_browser():
    done = subprocess.run([sys.executable, "-m", "texflow.cli", "run-browser", str(TRAIN),
                           "--backend", "webgl", "--", "--epochs", "1", "--steps", "2",
                           "--test-images", "250"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "on 'webgl': 9000 training and 1000 test images" in done.stdout
    assert 0 <= _check_output(done.stdout, 2, 1) <= 1


def test_bad_flags_are_refused():
    done = subprocess.run([sys.executable, str(TRAIN), "--epochs", "0"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "--epochs must be positive, received 0" in done.stderr


def test_drawings_become_mnist_digits(demo):
    """MNIST digits drawn large anywhere on a pad come back as they were: the bounding box
    scaled into 20x20, the centre of mass on pixel (14, 14)."""
    _, (x_test, _) = demo.load_data()
    for k in range(50):
        digit = x_test[k, ..., 0]
        pad = np.zeros((330, 300), np.float32)
        top, left = 5 + 3 * (k % 7), 2 + 2 * (k % 5)
        pad[top:top + 280, left:left + 280] = np.kron(digit, np.ones((10, 10), np.float32))
        image = demo.to_mnist(pad)
        assert image.shape == (28, 28) and image.dtype == np.float32
        assert np.abs(image - digit).mean() < 0.07, k
        rows, cols = np.nonzero(image > 0.01)
        assert max(np.ptp(rows), np.ptp(cols)) + 1 in (20, 21, 22), k
        mass = image.sum()
        centre = [(image.sum(axis=a) @ np.arange(28)) / mass for a in (1, 0)]
        assert np.allclose(centre, 14, atol=0.01), (k, centre)
    assert demo.to_mnist(np.zeros((50, 40))) is None
    with pytest.raises(ValueError, match=r"\(height, width\) image, received shape \(4,\)"):
        demo.to_mnist(np.zeros(4))
    tall = np.zeros((200, 200), np.float32)
    tall[20:180, 95:105] = 1.0  # a "1": 160 tall, 10 wide -> 20 tall, 1.25 wide
    image = demo.to_mnist(tall)
    assert np.isclose(image.sum(), 20 * 1.25, rtol=0.02) and image.max() <= 1.0
