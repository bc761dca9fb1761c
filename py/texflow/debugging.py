"""`tf.debugging`: assertions with TensorFlow's conditions, messages and errors.

Value checks (`assert_equal`, `assert_near`, `assert_less`, ...,
`check_numerics`) read the tensors on the host and raise
InvalidArgumentError with TensorFlow's message; shape checks (`assert_rank`,
`assert_shapes`) raise ValueError, as TensorFlow's static checks do. They
return None (check_numerics and assert_all_finite return the tensor). Inside
tf.function a value check is host code (engine/trace.py `check_each_call`): it checks the
traced call's values and every replay's, as TensorFlow's assert ops run at every call.
"""

import numpy as np

from . import dtypes
from .engine import trace
from .engine.ndarray import NDArray, from_numpy, to_numpy
from .errors import InvalidArgumentError
from .ops.shape_util import broadcast_shapes
from .tensor_shape import TensorShape


def _host(x):
    return x.numpy() if isinstance(x, NDArray) else np.asarray(to_numpy(x))


def _dtype(x):
    return x.dtype if isinstance(x, NDArray) else dtypes.device_dtype(
        dtypes.from_numpy(np.asarray(to_numpy(x)).dtype))


@trace.check_each_call
def _compare(x, y, relation, test, message, summarize):
    if isinstance(y, (bool, int, float)):  # a Python number takes x's dtype, as in TensorFlow
        y = to_numpy(y, _dtype(x))
    elif isinstance(x, (bool, int, float)):
        x = to_numpy(x, _dtype(y))
    if _dtype(x) != _dtype(y):
        raise InvalidArgumentError(f"cannot compute {relation[0]} as input #1(zero-based) was "
                                   f"expected to be a {_dtype(x).name} tensor but is a "
                                   f"{_dtype(y).name} tensor")
    a, b = _host(x), _host(y)
    try:
        broadcast_shapes(relation[0], a.shape, b.shape)
    except InvalidArgumentError:
        raise InvalidArgumentError(f"Incompatible shapes: {list(a.shape)} vs. "
                                   f"{list(b.shape)}") from None
    holds = test(a, b)
    if np.all(holds):
        return None
    n = 3 if summarize is None else int(summarize)
    lines = [] if message is None else [str(message)]
    lines.append(f"Condition x {relation[1]} y did not hold.")
    if a.shape == b.shape:
        bad = np.argwhere(~np.asarray(holds))[:n]
        lines += [f"Indices of first {len(bad)} different values:", str(bad),
                  "Corresponding x values:", str(a[tuple(bad.T)]),
                  "Corresponding y values:", str(b[tuple(bad.T)])]
    lines += [f"First {min(n, a.size)} elements of x:", str(a.reshape(-1)[:n]),
              f"First {min(n, b.size)} elements of y:", str(b.reshape(-1)[:n])]
    raise InvalidArgumentError("\n".join(lines))


def assert_equal(x, y, message=None, summarize=None, name=None):
    """InvalidArgumentError unless x == y elementwise (with broadcasting)."""
    return _compare(x, y, ("Equal", "=="), np.equal, message, summarize)


def assert_none_equal(x, y, message=None, summarize=None, name=None):
    return _compare(x, y, ("NotEqual", "!="), np.not_equal, message, summarize)


def assert_less(x, y, message=None, summarize=None, name=None):
    return _compare(x, y, ("Less", "<"), np.less, message, summarize)


def assert_less_equal(x, y, message=None, summarize=None, name=None):
    return _compare(x, y, ("LessEqual", "<="), np.less_equal, message, summarize)


def assert_greater(x, y, message=None, summarize=None, name=None):
    return _compare(x, y, ("Greater", ">"), np.greater, message, summarize)


def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    return _compare(x, y, ("GreaterEqual", ">="), np.greater_equal, message, summarize)


@trace.check_each_call
def _sign_check(x, relation, test, message):
    a = _host(x)
    if not np.all(test(a)):
        raise InvalidArgumentError(f"{message or ''}\nCondition x {relation} did not hold "
                                   f"element-wise:\nx (shape={tuple(a.shape)} dtype="
                                   f"{_dtype(x).name}) = \n{a.reshape(-1)[:3].tolist()}")


def assert_positive(x, message=None, summarize=None, name=None):
    return _sign_check(x, "> 0", lambda a: a > 0, message)


def assert_non_negative(x, message=None, summarize=None, name=None):
    return _sign_check(x, ">= 0", lambda a: a >= 0, message)


def assert_negative(x, message=None, summarize=None, name=None):
    return _sign_check(x, "< 0", lambda a: a < 0, message)


def assert_non_positive(x, message=None, summarize=None, name=None):
    return _sign_check(x, "<= 0", lambda a: a <= 0, message)


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """InvalidArgumentError unless |x - y| <= atol + rtol * |y| elementwise; the
    tolerances default to 10 float32 epsilons, as TensorFlow's."""
    return _near(x, y, rtol, atol, message)


@trace.check_each_call
def _near(x, y, rtol, atol, message):
    a, b = _host(x).astype(np.float64), _host(y).astype(np.float64)
    eps = float(np.finfo(np.float32).eps) * 10
    rtol = eps if rtol is None else float(rtol)
    atol = eps if atol is None else float(atol)
    if np.all(np.abs(a - b) <= atol + rtol * np.abs(b)):
        return None
    head = "" if message is None else f"{message}\n"
    raise InvalidArgumentError(f"{head}x and y not equal to tolerance rtol = {rtol:.8g}, "
                               f"atol = {atol:.8g}\nx (shape={a.shape}) = "
                               f"{a.reshape(-1)[:3].tolist()}\ny (shape={b.shape}) = "
                               f"{b.reshape(-1)[:3].tolist()}")


def _shape_of(x):
    return TensorShape(x.shape) if hasattr(x, "shape") else TensorShape(np.shape(x))


def _rank_error(x, text, message):
    shape = _shape_of(x)
    head = "" if message is None else f"{message}.  "
    return ValueError(f"{head}Tensor  must have rank {text}.  Received rank {shape.rank}, "
                      f"shape {shape}")


def assert_rank(x, rank, message=None, name=None):
    """ValueError unless `x` has rank `rank`."""
    if _shape_of(x).rank != int(rank):
        raise _rank_error(x, rank, message)


def assert_rank_at_least(x, rank, message=None, name=None):
    if _shape_of(x).rank < int(rank):
        raise _rank_error(x, f"at least {rank}", message)


def assert_rank_in(x, ranks, message=None, name=None):
    if _shape_of(x).rank not in [int(r) for r in ranks]:
        raise _rank_error(x, f"in {tuple(ranks)}", message)


def assert_type(tensor, tf_type, message=None, name=None):
    if _dtype(tensor) != dtypes.device_dtype(tf_type):
        raise TypeError(f"{message or ''}tensor must be of type {dtypes.as_dtype(tf_type)!r}; "
                        f"got {_dtype(tensor)!r}")


def assert_integer(x, message=None, name=None):
    """TypeError unless `x` has an integer dtype (int32; texflow stores every int so)."""
    dtype = _dtype(x)
    if not dtype.is_integer:
        head = "" if message is None else f"{message}.  "
        raise TypeError(f'{head}Expected "x" to be integer type.  Found: tensor of dtype '
                        f"<dtype: '{dtype.name}'>")


def assert_scalar(tensor, message=None, name=None):
    """ValueError unless `tensor` has rank 0 (None otherwise, as TensorFlow's eager one)."""
    shape = _shape_of(tensor)
    if shape.rank != 0:
        head = "" if message is None else f"{message}.  "
        raise ValueError(f"{head}Expected scalar shape, saw shape: {shape}.")


def _describe(x, word="tensor"):
    return f"{word} shape={_shape_of(x)} dtype={_dtype(x).name}"


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """ValueError unless every (tensor, shape) pair agrees: a shape lists ints, None
    (any size), '.' or '*' ... and names bound to one size across the tensors."""
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    bound = {}
    for x, spec in pairs:
        spec = [spec] if isinstance(spec, str) and len(spec) == 1 else list(spec)
        shape = _shape_of(x)
        if "*" not in spec and shape.rank != len(spec):
            raise _rank_error(x, len(spec), message)
        dims = list(shape)[-(len(spec) - 1):] if spec[:1] == ["*"] else list(shape)
        spec = spec[1:] if spec[:1] == ["*"] else spec
        for axis, (want, got) in enumerate(zip(spec, dims)):
            if want is None or want == ".":
                continue
            if isinstance(want, str):
                if want not in bound:
                    bound[want] = (got, x, axis)
                    continue
                size, first, first_axis = bound[want]
                if got != size:
                    raise ValueError(f"Specified by {_describe(first)} dimension {first_axis}."
                                     f"  {_describe(x, 'Tensor')} dimension {axis} must have size "
                                     f"{size}.  Received size {got}, shape {shape}")
            elif got != int(want):
                raise ValueError(f"Specified explicitly.  {_describe(x, 'Tensor')} dimension "
                                 f"{axis} must have size {want}.  Received size {got}, "
                                 f"shape {shape}")


def check_numerics(tensor, message, name=None):
    """`tensor` itself, or InvalidArgumentError if it holds NaN or Inf (tf.debugging)."""
    x = tensor if isinstance(tensor, NDArray) else from_numpy(to_numpy(tensor))
    _finite(x, message)
    return x


@trace.check_each_call
def _finite(x, message):
    a = x.numpy()
    nan, inf = bool(np.isnan(a).any()), bool(np.isinf(a).any())
    if nan or inf:
        which = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
        raise InvalidArgumentError(f"{message} : Tensor had {which} values")


def assert_all_finite(t, msg, name=None, x=None, message=None):
    """`t` itself, or InvalidArgumentError if it holds NaN or Inf."""
    return check_numerics(t if x is None else x, msg if message is None else message)
