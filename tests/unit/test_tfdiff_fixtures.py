"""The TensorFlow-differential fixtures are current, and the comparison can fail.

tests/data/tfdiff/<name>.json must hold exactly the snippets of
tests/tfdiff/snippets_<name>.py, with the same source and options: a snippet edited
or added without rerunning scripts/make_tf_diff_fixtures.py fails here, by id.
"""

import importlib.util
import json
from pathlib import Path

import pytest

import tfdiff_check

SNIPPETS = Path(__file__).resolve().parents[1] / "tfdiff"
RERUN = "rerun `$TF_PYTHON scripts/make_tf_diff_fixtures.py {}`"


def _snippet_files():
    return sorted(SNIPPETS.glob("snippets_*.py"))


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tfdiff_check.normalize(module.SNIPPETS)


@pytest.mark.parametrize("path", _snippet_files(), ids=lambda p: p.stem)
def test_fixtures_match_their_snippets(path):
    name = path.stem.replace("snippets_", "", 1)
    fixture_file = tfdiff_check.fixture_path(path)
    assert fixture_file.exists(), f"no {fixture_file.name}: {RERUN.format(name)}"
    stored = json.loads(fixture_file.read_text())["snippets"]
    snippets = _load(path)
    stale = sorted(sid for sid, s in snippets.items() if sid in stored and (
        stored[sid]["source"], stored[sid]["options"]) != (s["source"], s["options"]))
    missing = sorted(set(snippets) - set(stored))
    extra = sorted(set(stored) - set(snippets))
    assert not (stale or missing or extra), (
        f"{fixture_file.name} is out of date (changed: {stale}, without a fixture: "
        f"{missing}, removed: {extra}); {RERUN.format(name)}")


def test_every_fixture_file_has_snippets():
    names = {tfdiff_check.fixture_path(p).name for p in _snippet_files()}
    orphans = sorted(p.name for p in tfdiff_check.FIXTURES.glob("*.json") if p.name not in names)
    assert not orphans, f"fixture files without a snippet file: {orphans}"


def _tensor(values, dtype="float32", shape=None):
    return {"kind": "tensor", "dtype": dtype, "shape": shape or [len(values)],
            "values": values}


def _error(cls, message, classes=None):
    return {"kind": "error", "class": cls, "classes": classes or [cls, "Exception"],
            "message": message}


def test_compare_accepts_equal_results_and_the_documented_narrowing():
    assert tfdiff_check.compare(_tensor([1.0, float("nan")]), _tensor([1.0 + 1e-7,
                                                                        float("nan")]),
                                1e-6, 0.0) == []
    assert tfdiff_check.compare(_tensor([1, 2], "int64"), _tensor([1, 2], "int32"), 0, 0) == []
    assert tfdiff_check.compare(_tensor([1.5], "float64"), _tensor([1.5], "float32"),
                                0, 0) == []
    assert tfdiff_check.compare(_error("ValueError", "bad axis 3"),
                                _error("ShapeError", "bad axis 3", ["ShapeError", "ValueError"]),
                                0, 0, match=["3"]) == []


@pytest.mark.parametrize("expected, got, fragment", [
    (_tensor([1.0, 2.0]), _tensor([1.0, 2.1]), "values differ"),
    (_tensor([1.0, float("nan")]), _tensor([1.0, 0.0]), "values differ"),
    (_tensor([float("inf")]), _tensor([-float("inf")]), "values differ"),
    (_tensor([1, 2], "int32"), _tensor([1.0, 2.0]), "dtype float32, expected int32"),
    (_tensor([1, 2], "int64"), _tensor([1, 2], "int64"), "dtype int64, expected int32"),
    (_tensor([1, 2], "int32", [2]), _tensor([1, 2], "int32", [2, 1]), "shape [2, 1]"),
    (_tensor([1.0]), _error("ValueError", "no"), "raised ValueError"),
    (_error("InvalidArgumentError", "x"), _tensor([1.0]), "TensorFlow raises"),
    (_error("InvalidArgumentError", "x"), _error("ShapeError", "x", ["ShapeError",
                                                                     "ValueError"]),
     "TensorFlow raises InvalidArgumentError"),
    ({"kind": "python", "type": "int", "value": 3}, {"kind": "python", "type": "float",
                                                     "value": 3.0}, "expected int"),
    ({"kind": "tuple", "items": [_tensor([1.0])]}, {"kind": "tuple", "items": []}, "0 items"),
])
def test_compare_reports_differences(expected, got, fragment):
    lines = tfdiff_check.compare(expected, got, 1e-6, 1e-6)
    assert any(fragment in line for line in lines), lines


def test_compare_checks_message_words():
    lines = tfdiff_check.compare(_error("InvalidArgumentError", "index 7 out of range"),
                                 _error("InvalidArgumentError", "index out of range"),
                                 0, 0, match=["7"])
    assert lines and "['7']" in lines[0]


def test_snippets_run_their_last_expression():
    import numpy as np
    assert tfdiff_check.run_snippet(None, "a = np.arange(3)\na.sum()") == 3
    assert tfdiff_check.outcome(None, "1 / 0")["class"] == "ZeroDivisionError"
    encoded = tfdiff_check.encode((np.float32(0.1), [True, None], {"k": "s"}))
    assert encoded["items"][0] == {"kind": "numpy", "dtype": "float32", "shape": [],
                                   "values": [0.1]}
