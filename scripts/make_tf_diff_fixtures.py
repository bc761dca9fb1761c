#!/usr/bin/env python3
"""Runs every TensorFlow-differential snippet in TensorFlow and stores the results.

Run by hand with the reference TensorFlow (never a test dependency), from the
repository root:

    $TF_PYTHON scripts/make_tf_diff_fixtures.py          # every file
    $TF_PYTHON scripts/make_tf_diff_fixtures.py ops      # snippets_ops.py

For each tests/tfdiff/snippets_<name>.py it writes tests/data/tfdiff/<name>.json:
per snippet id its source, options and TensorFlow's eager result (values,
dtype, shape; or the error's class and message), so the test suite
(tests/backend/test_tfdiff.py) needs no TensorFlow. It checks that every
`match` word of a snippet is in TensorFlow's error message, so the words a
test asks texflow's message for are the ones TensorFlow's names.
"""

import importlib.util
import json
import os
import re
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import tfdiff_check  # noqa: E402


def snippet_files(names):
    files = sorted((ROOT / "tests" / "tfdiff").glob("snippets_*.py"))
    if names:
        files = [f for f in files if f.stem.replace("snippets_", "", 1) in names]
        if len(files) != len(names):
            raise SystemExit(f"no snippet file for some of {names}")
    return files


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tfdiff_check.normalize(module.SNIPPETS)


_FILE = re.compile(r'File "(?:[^"]*/)?([^"/]*)"')


def without_paths(result):
    """`result` with the tracebacks TensorFlow puts in some messages naming files by
    their base names: a fixture holds no path of the machine that wrote it."""
    if result.get("kind") == "error":
        result = dict(result, message=_FILE.sub(r'File "\1"', result["message"]))
    return result


def main(names):
    import tensorflow as tf

    tfdiff_check.FIXTURES.mkdir(parents=True, exist_ok=True)
    problems = []
    for path in snippet_files(names):
        out = {}
        for sid, snippet in load(path).items():
            result = without_paths(tfdiff_check.outcome(tf, snippet["source"]))
            match = snippet["options"].get("match", ())
            if match and (result["kind"] != "error" or
                          any(w not in result["message"] for w in match)):
                problems.append(f"{sid}: TensorFlow's outcome does not contain {match}: "
                                f"{result}")
            out[sid] = dict(snippet, result=result)
        target = tfdiff_check.fixture_path(path)
        text = json.dumps({"tensorflow": tf.__version__, "snippets": out}, indent=1,
                          sort_keys=True)
        tmp = target.with_suffix(".tmp")
        tmp.write_text(text + "\n")
        os.replace(tmp, target)  # atomic: a failed run leaves the old fixtures
        errors = sum(r["result"]["kind"] == "error" for r in out.values())
        print(f"{target.relative_to(ROOT)}: {len(out)} snippets ({errors} raise)")
    if problems:
        raise SystemExit("\n".join(problems))


if __name__ == "__main__":
    main(sys.argv[1:])
