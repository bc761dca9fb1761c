"""TensorFlow-differential tests: every snippet of tests/tfdiff/ on every backend, against
TensorFlow 2's own result stored in tests/data/tfdiff/ (scripts/make_tf_diff_fixtures.py).

A test runs one group of snippets (the part of their ids before '/') in one call, so a
browser target costs one round trip per group; a failure lists every differing snippet
with its id, file and source. Values match within the backend's tolerance, shapes and
dtypes exactly (after tfdiff_check.DTYPE_NARROWING), errors by TensorFlow's class name
and the words the snippet's `match` names.
"""

import texflow as tf
import tfdiff_check
from harness import each_backend

FIXTURES = tfdiff_check.load_fixtures()
GROUPS = tfdiff_check.groups(FIXTURES)

# (rtol, atol) per backend: numpy computes float32 with correctly rounded basics, as
# TensorFlow's CPU kernels do, but sums in another order; GPU kernels use their own
# transcendentals. A snippet's rtol/atol options scale these.
TOLERANCE = {"numpy": (2e-6, 1e-6), "wgpu": (2e-5, 1e-5), "webgl": (2e-5, 1e-5),
             "webgpu": (2e-5, 1e-5)}


def _report(sid, fixture, lines):
    source = "\n".join("    | " + line for line in fixture["source"].splitlines())
    details = "\n".join("    " + line for line in lines)
    return f"snippet {sid} ({fixture['file']}):\n{source}\n{details}"


@each_backend(group=sorted(GROUPS))
def test_matches_tensorflow(group):
    rtol, atol = TOLERANCE[tf.get_backend()]
    failures = []
    for sid in GROUPS[group]:
        fixture = FIXTURES[sid]
        options = fixture["options"]
        try:
            with tf.scope():
                got = tfdiff_check.outcome(tf, fixture["source"])
            lines = tfdiff_check.compare(fixture["result"], got, rtol * options.get("rtol", 1),
                                         atol * options.get("atol", 1),
                                         options.get("match", ()))
        except Exception as e:  # noqa: BLE001  (reported with the snippet below)
            lines = [f"reading the result failed: {type(e).__name__}: {e}"]
        if lines:
            failures.append(_report(sid, fixture, lines))
    assert not failures, (f"{len(failures)} of {len(GROUPS[group])} snippets differ from "
                          "TensorFlow:\n" + "\n".join(failures))
