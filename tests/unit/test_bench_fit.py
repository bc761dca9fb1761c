"""`texflow bench`'s Keras fit cases, without timing anything: the tables, the case choice,
the TensorFlow side's start-up errors, and that the texflow side really trains."""

import sys
from types import SimpleNamespace

import numpy as np
import pytest

from texflow import bench
from texflow.bench import fit


def test_fit_table_gives_ratios_and_says_whether_the_step_meets_its_target():
    out = []
    rows = {fit.FIT_STEP: (30.0, 10.0), fit.FIT_EPOCH: (3000.0, 1500.0)}
    bench._print_fit("title", "TensorFlow Keras", rows, (1.5, "<= 1.5x Keras"), out)
    assert out[1] == "title" and out[3] == "| case | texflow | TensorFlow Keras | ratio | target |"
    assert out[5] == f"| {fit.FIT_STEP} |      30.0 |      10.0 |  3.00x | <= 1.5x Keras: NOT met |"
    assert out[6].endswith("|  2.00x |  |")  # the epoch has no target of its own
    out = []
    bench._print_fit("t", "tfjs-layers", {fit.FIT_STEP: (2.0, 5.0)}, (0.5, "<= 0.5x"), out)
    assert out[-1].endswith("|  0.40x | <= 0.5x: met |")


@pytest.mark.parametrize("cases", ["", "fit,speed", "all"])
def test_unknown_cases_are_refused_naming_the_value(cases):
    args = SimpleNamespace(collective=False, backends="", cases=cases, quick=True,
                           tf_python=None)
    with pytest.raises(SystemExit, match=f"--cases takes ops, fit.*received {cases!r}"):
        bench.main(args)


@pytest.mark.parametrize("backends", ["numpy", "webgl,wgpu", "WebGL"])
def test_unknown_browser_backends_are_refused_naming_the_value(backends):
    args = SimpleNamespace(collective=False, backends=backends, cases="ops", quick=True,
                           tf_python=None)
    with pytest.raises(SystemExit, match=f"--backends takes .*received {backends!r}"):
        bench.main(args)


def test_a_python_without_tensorflow_is_skipped_with_a_note():
    out = []
    bench._native_fit(SimpleNamespace(tf_python=sys.executable, quick=True), out)
    assert "TensorFlow is not importable by" in out[-1] and sys.executable in out[-1]


def test_the_keras_side_that_cannot_start_is_a_clear_error(tmp_path):
    with pytest.raises(RuntimeError, match="did not start: it printed ''; is TensorFlow"):
        fit.KerasProcess(sys.executable, tmp_path / "missing.npz")


def test_alternate_takes_turns_and_keeps_the_median():
    calls = []
    sides = {"a": lambda: calls.append("a") or len(calls),
             "b": lambda: calls.append("b") or 10 * len(calls)}
    assert fit.alternate(sides, 3) == {"a": 3, "b": 40}
    assert calls == ["a", "b"] * 3


def test_texflow_side_trains_the_seed_cnn_on_numpy():
    x, y = fit.mnist()
    assert x.shape == (9000, 28, 28, 1) and x.dtype == np.float32 and 0 <= x.min() < x.max() <= 1
    side = fit.FitBench("numpy", x[:fit.BATCH * 2 + 40], y[:fit.BATCH * 2 + 40])
    assert [layer.__class__.__name__ for layer in side.model.layers] == [
        "Conv2D", "MaxPooling2D", "Flatten", "Dense", "Dense"]
    before = [w.copy() for w in side.model.get_weights()]
    assert side.steps(2) > 0
    assert all(not np.array_equal(a, b) for a, b in zip(before, side.model.get_weights()))
