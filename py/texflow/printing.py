"""`tf.print`: TensorFlow's formatting of tensors and structures.

`tf.print(tf.constant([1, 2, 3]))` prints `[1 2 3]`: elements separated by
spaces, rows on new lines indented like numpy's, `summarize` elements at each
end of an axis longer than twice that (`...` between; -1 prints everything),
floats in the shortest of 6 or 9 significant digits that reads back to the same
float32, bools as 1 and 0. Lists, tuples and dicts print with their tensors
formatted in place.
"""

import sys

import numpy as np

from .engine.ndarray import NDArray
from .engine.trace import dry, fresh_each_call


def _number(v):
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (np.floating, float)):
        f = np.float32(v)
        if np.isnan(f):
            return "nan"
        if np.isinf(f):
            return "inf" if f > 0 else "-inf"
        text = "%.6g" % f
        return text if np.float32(float(text)) == f else "%.9g" % f
    return str(v)


def format_array(values, summarize=3):
    """TensorFlow's text for numpy `values` (what tf.print writes for a tensor)."""
    values = np.asarray(values)
    if values.ndim == 0:
        return _number(values.item() if values.dtype.kind != "f" else values[()])
    if values.size == 0:
        return "[]"
    limit = None if summarize is None or summarize < 0 else summarize
    return _format(values, 0, values.ndim, limit)


def _format(values, depth, rank, limit):
    n = values.shape[0]
    elide = limit is not None and n > 2 * limit
    picks = list(range(limit)) + [None] + list(range(n - limit, n)) if elide else range(n)
    if depth == rank - 1:
        return "[" + " ".join("..." if i is None else _number(values[i]) for i in picks) + "]"
    sep = "\n" * (rank - depth - 1) + " " * (depth + 1)
    return "[" + sep.join("..." if i is None else _format(values[i], depth + 1, rank, limit)
                          for i in picks) + "]"


def _text(x, summarize, top):
    if isinstance(x, NDArray):
        return format_array(x.numpy(), summarize)
    if hasattr(x, "numpy") and hasattr(x, "dtype") and hasattr(x, "shape"):
        return format_array(np.asarray(x.numpy()), summarize)
    if isinstance(x, str):
        return x if top else repr(x)
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {_text(v, summarize, False)}" for k, v in x.items()) + "}"
    if isinstance(x, list):
        return "[" + ", ".join(_text(v, summarize, False) for v in x) + "]"
    if isinstance(x, tuple):
        items = [_text(v, summarize, False) for v in x]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(x, np.ndarray):
        return repr(x)
    return str(x)


@fresh_each_call  # tf.function prints at every call, as TensorFlow's print op
def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):  # noqa: A001
    """Prints `inputs` formatted as TensorFlow does (tf.print), to `output_stream`:
    sys.stderr (the default, as TensorFlow's), sys.stdout, a file-like object or
    "file://<path>" (appended).

    >>> tf.print(tf.constant([1, 2, 3]), output_stream=sys.stdout)
    [1 2 3]
    """
    summarize = 3 if summarize is None else summarize
    text = sep.join(_text(x, summarize, True) for x in inputs) + end
    stream = sys.stderr if output_stream is None else output_stream
    if dry():  # get_concrete_function prints nothing: only calls print
        return None
    if isinstance(stream, str) and stream.startswith("file://"):
        with open(stream[len("file://"):], "a") as f:
            f.write(text)
        return None
    if not hasattr(stream, "write"):
        raise ValueError(f"Unsupported output stream, logging level, or file.{stream}. "
                         "Supported streams are sys.stdout, sys.stderr, tf.logging.info, "
                         "tf.logging.warning, tf.logging.error. File needs to be in the form "
                         "of 'file://<filepath>'.")
    stream.write(text)
    return None
