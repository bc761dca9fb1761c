"""The TensorFlow-differential check: run a snippet, encode its result, compare two results.

A snippet (tests/tfdiff/snippets_*.py) is a small program valid under both
`import tensorflow as tf` and `import texflow as tf` (with `np`); the value of
its last line is its result, or it raises. scripts/make_tf_diff_fixtures.py
runs every snippet in TensorFlow and stores the encoded results under
tests/data/tfdiff/; tests/backend/test_tfdiff.py runs them in texflow on every
backend and compares with `compare`. This module is shared by both sides (it
runs under TensorFlow's venv, natively and inside Pyodide), so it imports
neither library.

Encoded results are JSON: a tensor is {"kind": "tensor", "dtype", "shape",
"values"} (flat, float32 values as the shortest decimal that reads back to
the same float32); numpy data is the same with kind "numpy"; Python values are
{"kind": "python", "type", "value"}; tuples, lists, named tuples and dicts
nest; dtypes and TensorShapes are {"kind": "dtype", "name"} and {"kind":
"shape", "dims"}; an exception is {"kind": "error", "class", "message"}.
"""

import ast
import json
import math
import textwrap
from pathlib import Path

import numpy as np

# The deviations the GPU forces: TensorFlow's dtype -> the dtype texflow gives
# instead (WebGL2 and WGSL have no 64-bit types). The only dtype deviations the
# comparison accepts; README.md's "TensorFlow 2 compatibility" table lists them.
DTYPE_NARROWING = {"int64": "int32", "float64": "float32", "uint8": "int32", "int8": "int32",
                   "int16": "int32", "uint16": "int32"}

# Snippet options (besides the source): rtol/atol multiply the backend's
# tolerance; match lists words both TensorFlow's and texflow's error messages
# must contain (the value a message names).
OPTIONS = ("rtol", "atol", "match")

# Largest result (elements) a fixture stores: keep snippets small.
MAX_ELEMENTS = 20000
# A snippet template for the snippet files: `body(v)`'s values and its gradients, eagerly
# and in a tf.function (two calls), on the `x` the snippet defines first.
VALUES_AND_GRADIENTS = """
def grads(v):
    with tf.GradientTape() as t:
        t.watch(v)
        y = body(v)
        loss = tf.add_n([tf.reduce_sum(u * u) for u in tf.nest.flatten(y)])
    return y, t.gradient(loss, v)
f = tf.function(grads)
(grads(x), f(x), f(x * 2))
"""

FIXTURES = Path(__file__).resolve().parent / "data" / "tfdiff"


def normalize(snippets):
    """{id: source or (source, options)} as {id: {"source", "options"}}, validated."""
    out = {}
    for sid, spec in snippets.items():
        if "/" not in sid:
            raise ValueError(f"snippet id {sid!r} must be 'group/name'")
        source, options = (spec, {}) if isinstance(spec, str) else spec
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ValueError(f"snippet {sid!r}: unknown options {unknown}")
        out[sid] = {"source": textwrap.dedent(source).strip(), "options": dict(options)}
    return out


def run_snippet(tf, source):
    """Runs `source` with `tf` and `np`; returns the value of its last line if that
    line is an expression, else None."""
    tree = ast.parse(source, mode="exec")
    env = {"tf": tf, "np": np}
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, "<snippet>", "exec"), env)
    if last is None:
        return None
    return eval(compile(ast.Expression(last.value), "<snippet>", "eval"), env)


def outcome(tf, source):
    """The encoded result of running `source`, or the encoded exception it raised.

    An error while encoding the result (an unsupported type) propagates: it is no
    result of the snippet's.
    """
    try:
        result = run_snippet(tf, source)
    except Exception as e:  # noqa: BLE001  (an error is a result to compare)
        return {"kind": "error", "class": type(e).__name__,
                "classes": [c.__name__ for c in type(e).__mro__], "message": str(e)}
    return encode(result)


def _dtype_name(dtype):
    name = getattr(dtype, "name", None)
    return name if isinstance(name, str) else str(dtype)


def _floats(values):
    # float32 -> the shortest decimal reading back to the same float32 (compact JSON)
    return [float(str(np.float32(v))) if math.isfinite(v) else float(v)
            for v in values.astype(np.float64).tolist()]


def _array(kind, data, dtype):
    data = np.asarray(data)
    if data.size > MAX_ELEMENTS:
        raise ValueError(f"a result of {data.size} elements is too large for a fixture "
                         f"(at most {MAX_ELEMENTS}); reduce it in the snippet")
    flat = data.reshape(-1)
    if flat.dtype.kind == "f":
        values = _floats(flat)
    elif flat.dtype.kind == "b":
        values = [bool(v) for v in flat.tolist()]
    elif flat.dtype.kind in "iu":
        values = [int(v) for v in flat.tolist()]
    else:
        values = [v.decode() if isinstance(v, bytes) else str(v) for v in flat.tolist()]
    return {"kind": kind, "dtype": dtype, "shape": list(data.shape), "values": values}


def encode(x):
    """The JSON description of a snippet's result (see the module docstring)."""
    kind = type(x).__name__
    if kind == "DType":
        return {"kind": "dtype", "name": _dtype_name(x)}
    if kind in ("TensorShape", "UnknownShape"):  # texflow's class of TensorShape(None)
        dims = x.as_list() if getattr(x, "rank", 0) is not None else None
        return {"kind": "shape", "dims": dims}
    if x is None or isinstance(x, (bool, int, float, str)):
        value = x if not isinstance(x, float) or math.isfinite(x) else repr(x)
        return {"kind": "python", "type": type(x).__name__, "value": value}
    if isinstance(x, bytes):
        return {"kind": "python", "type": "bytes", "value": x.decode("latin-1")}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return {"kind": "namedtuple", "fields": list(x._fields),
                "items": [encode(v) for v in x]}
    if isinstance(x, (list, tuple)):
        return {"kind": type(x).__name__, "items": [encode(v) for v in x]}
    if isinstance(x, dict):
        return {"kind": "dict", "items": {str(k): encode(v) for k, v in x.items()}}
    if isinstance(x, (np.ndarray, np.generic)):
        return _array("numpy", x, str(np.asarray(x).dtype))
    if hasattr(x, "numpy") and hasattr(x, "dtype") and hasattr(x, "shape"):
        return _array("tensor", x.numpy(), _dtype_name(x.dtype))
    raise TypeError(f"cannot encode a snippet result of type {type(x).__module__}.{kind}")


# -- comparison -------------------------------------------------------------------------

def expected_dtype(tf_dtype):
    """The dtype texflow must give where TensorFlow gives `tf_dtype`."""
    return DTYPE_NARROWING.get(tf_dtype, tf_dtype)


def compare(expected, got, rtol, atol, match=(), path="result"):
    """Differences between TensorFlow's encoded result and texflow's, as a list of lines
    (empty when they agree)."""
    if expected["kind"] == "error":
        return _compare_error(expected, got, match, path)
    if got["kind"] == "error":
        return [f"{path}: raised {got['class']}: {got['message']}; TensorFlow gives "
                f"{_describe(expected)}"]
    if got["kind"] != expected["kind"]:
        return [f"{path}: a {_describe(got)}, TensorFlow gives a {_describe(expected)}"]
    kind = expected["kind"]
    if kind in ("tensor", "numpy"):
        return _compare_arrays(expected, got, rtol, atol, path)
    if kind == "python":
        return _compare_python(expected, got, rtol, atol, path)
    if kind == "dtype":
        # a DType object is TensorFlow's own (tf.int64 stays tf.int64); a tensor's dtype
        # may be the narrowed one
        want = expected_dtype(expected["name"])
        return [] if got["name"] in (expected["name"], want) else [
            f"{path}: dtype {got['name']}, expected {want}"]
    if kind == "shape":
        return [] if got["dims"] == expected["dims"] else [
            f"{path}: TensorShape {got['dims']}, expected {expected['dims']}"]
    if kind == "dict":
        if sorted(got["items"]) != sorted(expected["items"]):
            return [f"{path}: keys {sorted(got['items'])}, expected {sorted(expected['items'])}"]
        return [line for k in expected["items"] for line in compare(
            expected["items"][k], got["items"][k], rtol, atol, match, f"{path}[{k!r}]")]
    if kind == "namedtuple" and got["fields"] != expected["fields"]:
        return [f"{path}: fields {got['fields']}, expected {expected['fields']}"]
    if len(got["items"]) != len(expected["items"]):
        return [f"{path}: {len(got['items'])} items, expected {len(expected['items'])}"]
    return [line for i, (e, g) in enumerate(zip(expected["items"], got["items"]))
            for line in compare(e, g, rtol, atol, match, f"{path}[{i}]")]


def _describe(r):
    if r["kind"] in ("tensor", "numpy"):
        return f"{r['kind']} {r['dtype']}{r['shape']}"
    if r["kind"] == "error":
        return f"{r['class']} ({r['message'][:200]})"
    if r["kind"] == "python":
        return f"Python {r['type']} {r['value']!r}"
    return r["kind"]


def _compare_error(expected, got, match, path):
    if got["kind"] != "error":
        return [f"{path}: returned a {_describe(got)}; TensorFlow raises "
                f"{expected['class']}: {expected['message'][:300]}"]
    lines = []
    if expected["class"] not in got["classes"]:
        lines.append(f"{path}: raised {got['class']} (classes {got['classes']}); TensorFlow "
                     f"raises {expected['class']}")
    if "OpError" in expected.get("classes", ()) and "TexflowError" not in got["classes"]:
        lines.append(f"{path}: raised {got['class']}, not a TexflowError (TensorFlow's "
                     f"{expected['class']} is an OpError)")
    missing = [w for w in match if w not in got["message"]]
    if missing:
        lines.append(f"{path}: the message {got['message']!r} does not name {missing} "
                     f"(TensorFlow's: {expected['message'][:300]!r})")
    return lines


def _compare_python(expected, got, rtol, atol, path):
    if got["type"] != expected["type"]:
        return [f"{path}: Python {got['type']} {got['value']!r}, expected "
                f"{expected['type']} {expected['value']!r}"]
    e, g = expected["value"], got["value"]
    if expected["type"] == "float":
        e, g = float(e), float(g)
        same = (math.isnan(e) and math.isnan(g)) or e == g or (
            math.isfinite(e) and abs(g - e) <= atol + rtol * abs(e))
    else:
        same = e == g
    return [] if same else [f"{path}: {g!r}, expected {e!r}"]


def _compare_arrays(expected, got, rtol, atol, path):
    want = expected_dtype(expected["dtype"])
    lines = []
    # numpy data may keep TensorFlow's own dtype (tf.data computes on the host)
    exact = expected["kind"] == "numpy" and got["dtype"] == expected["dtype"]
    if got["dtype"] != want and not exact:
        narrowed = f" (TensorFlow's {expected['dtype']}, narrowed)" \
            if want != expected["dtype"] else ""
        lines.append(f"{path}: dtype {got['dtype']}, expected {want}{narrowed}")
    if got["shape"] != expected["shape"]:
        lines.append(f"{path}: shape {got['shape']}, expected {expected['shape']}")
        return lines
    e, g = np.asarray(expected["values"]), np.asarray(got["values"])
    if e.dtype.kind == "f" or g.dtype.kind == "f":
        e, g = e.astype(np.float64), g.astype(np.float64)
        with np.errstate(invalid="ignore"):
            finite = np.isfinite(e) & np.isfinite(g)
            bad = (np.isnan(e) != np.isnan(g)) | (~finite & ~np.isnan(e) & (e != g)) | (
                finite & (np.abs(g - e) > atol + rtol * np.abs(e)))
    else:
        bad = e != g
    bad = np.flatnonzero(bad)
    if bad.size:
        shape = tuple(expected["shape"])
        first = ", ".join(
            f"{tuple(int(k) for k in np.unravel_index(i, shape)) if shape else ()}: "
            f"{g[i]!r} vs {e[i]!r}" for i in bad[:4])
        lines.append(f"{path}: {bad.size} of {e.size} values differ (texflow vs "
                     f"TensorFlow): {first}")
    return lines


# -- fixtures -----------------------------------------------------------------------------

def fixture_path(snippet_file):
    """tests/data/tfdiff/<name>.json for tests/tfdiff/snippets_<name>.py."""
    return FIXTURES / (Path(snippet_file).stem.replace("snippets_", "", 1) + ".json")


def load_fixtures():
    """{snippet id: fixture} over every fixture file, each with its file's name added."""
    out = {}
    for path in sorted(FIXTURES.glob("*.json")):
        data = json.loads(path.read_text())
        for sid, fixture in data["snippets"].items():
            if sid in out:
                raise ValueError(f"snippet id {sid!r} is in {path.name} and "
                                 f"{out[sid]['file']}")
            out[sid] = dict(fixture, file=path.name)
    return out


def groups(fixtures):
    """{group: [snippet ids]}: the part of each id before '/'."""
    out = {}
    for sid in fixtures:
        out.setdefault(sid.split("/", 1)[0], []).append(sid)
    return out
