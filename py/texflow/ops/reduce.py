"""Reductions: sum, mean, max, min, argmax, argmin (and deeplearn.js's arg_max, arg_min),
logsumexp.

`axis` is None (all axes), an int or a list of ints; negative axes count from
the end. Empty reductions follow TensorFlow: sum gives 0, max gives the
lowest value (-inf for float32), min the highest, mean NaN.
"""

from .. import dtypes
from ..dtypes import bool_, float32, int32
from ..engine.ndarray import NDArray, as_array
from ..engine.registry import def_op, export
from ..engine.run import run_op
from ..engine.scope import scope
from ..errors import InvalidArgumentError, OpDTypeError, ShapeError
from . import elementwise as ew
from .movement import broadcast_to, reshape
from .shape_util import normalize_axes, normalize_axis, reduced_shape


def _reduce_infer(name, dtype_rule):
    def infer(inputs, attrs):
        x = inputs[0]
        return reduced_shape(x.shape, attrs["axes"], attrs["keepdims"]), dtype_rule(x.dtype)
    return infer


def _sum_dtype(dtype):
    return int32 if dtype == bool_ else dtype


def _kept(g, inputs, attrs):
    """`g` (a reduction's output or gradient) reshaped with the reduced axes kept as 1."""
    x = inputs[0]
    return reshape(g, reduced_shape(x.shape, attrs["axes"], True))


def _sum_grad(dy, inputs, y, attrs):
    return (broadcast_to(_kept(dy, inputs, attrs), inputs[0].shape),)


def _extreme_grad(dy, inputs, y, attrs):
    # NOTE: ties share the gradient equally, as in TensorFlow's reduce_max gradient.
    x = inputs[0]
    mask = ew.cast(ew.equal(x, _kept(y, inputs, attrs)), float32)
    count = run_op(_sum, (mask,), {"axes": attrs["axes"], "keepdims": True})
    return (ew.mul(mask, ew.div(_kept(dy, inputs, attrs), count)),)


def _prod_dtype(dtype):
    if dtype == bool_:
        raise InvalidArgumentError("reduce_prod needs a float32 or int32 tensor, received bool")
    return dtype


def _prod_grad(dy, inputs, y, attrs):
    # TensorFlow's: the product of every other element, as the exclusive products from
    # the left and from the right (right for zeros, unlike y / x), over the reduced
    # elements brought to axis 0.
    from .movement import transpose
    from .scan import cumprod
    x, axes = inputs[0], attrs["axes"]
    perm = list(axes) + [i for i in range(len(x.shape)) if i not in axes]
    moved = transpose(x, perm)
    n = 1
    for a in axes:
        n *= x.shape[a]
    rows = reshape(moved, (n, x.size // n if n else 0))
    others = ew.mul(cumprod(rows, 0, exclusive=True), cumprod(rows, 0, exclusive=True,
                                                               reverse=True))
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    others = transpose(reshape(others, moved.shape), inverse)
    return (ew.mul(broadcast_to(_kept(dy, inputs, attrs), x.shape), others),)


_sum = def_op("sum", _reduce_infer("sum", _sum_dtype), grad=_sum_grad)
_prod = def_op("prod", _reduce_infer("prod", _prod_dtype), grad=_prod_grad)
_max = def_op("max", _reduce_infer("max", lambda d: d), grad=_extreme_grad)
_min = def_op("min", _reduce_infer("min", lambda d: d), grad=_extreme_grad)


def _reduction(op, x, axis, keepdims):
    x = as_array(x)
    axes = normalize_axes(op.name, axis, len(x.shape))
    return run_op(op, (x,), {"axes": axes, "keepdims": bool(keepdims)})


@export("tf", "math", "dl", "tf.reduce_sum", "math.reduce_sum")
def sum(input_tensor, axis=None, keepdims=False, name=None):  # noqa: A001  (tf.sum)
    """The sum of elements along `axis` (all axes when None).

    bool input counts True as 1 and gives int32.

    >>> tf.sum(tf.array([[1.0, 2.0], [3.0, 4.0]]), axis=0).tolist()
    [4.0, 6.0]
    """
    return _reduction(_sum, input_tensor, axis, keepdims)


@export("tf", "math")
def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """The product of elements along `axis` (all axes when None); 1 for none.

    >>> tf.reduce_prod(tf.constant([[1, 2], [3, 4]]), axis=1).tolist()
    [2, 12]
    """
    return _reduction(_prod, input_tensor, axis, keepdims)


@export("tf", "math")
def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """True where any element along `axis` is true (False for none); bool input only.

    >>> tf.reduce_any(tf.constant([[True, False], [False, False]]), axis=1).tolist()
    [True, False]
    """
    return _reduction(_max, ew.expect_dtype(input_tensor, "reduce_any", (bool_,)), axis, keepdims)


@export("tf", "math")
def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """True where every element along `axis` is true (True for none); bool input only.

    >>> tf.reduce_all(tf.constant([[True, False], [True, True]]), axis=1).tolist()
    [False, True]
    """
    return _reduction(_min, ew.expect_dtype(input_tensor, "reduce_all", (bool_,)), axis, keepdims)


@export("math")
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The variance (mean squared deviation from the mean) along `axis`; float32 only.

    >>> round(tf.math.reduce_variance(tf.constant([1.0, 2.0, 4.0])).get(), 4)
    1.5556
    """
    x = as_array(input_tensor)
    if x.dtype != float32:
        raise TypeError(f"reduce_variance: input must be real or complex, received "
                        f"{x.dtype}")

    def body():
        deviation = ew.sub(x, mean(x, axis, keepdims=True))
        return mean(ew.square(deviation), axis, keepdims)
    return scope(body)


@export("math")
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation along `axis`: sqrt(reduce_variance); float32 only."""
    x = as_array(input_tensor)
    if x.dtype != float32:
        raise TypeError(f"reduce_std: input must be real or complex, received {x.dtype}")
    return ew.sqrt(reduce_variance(x, axis, keepdims))


@export("tf", "math", "dl", "tf.reduce_max", "math.reduce_max")
def max(input_tensor, axis=None, keepdims=False, name=None):  # noqa: A001  (tf.max)
    """The largest element along `axis`; NaN wins, as in numpy.

    >>> tf.max(tf.array([1.0, 3.0, 2.0])).get()
    3.0
    """
    return _reduction(_max, input_tensor, axis, keepdims)


@export("tf", "math", "dl", "tf.reduce_min", "math.reduce_min")
def min(input_tensor, axis=None, keepdims=False, name=None):  # noqa: A001  (tf.min)
    """The smallest element along `axis`; NaN wins, as in numpy.

    >>> tf.min(tf.array([1.0, 3.0, 2.0])).get()
    1.0
    """
    return _reduction(_min, input_tensor, axis, keepdims)


@export("tf", "math", "dl", "tf.reduce_mean", "math.reduce_mean")
def mean(input_tensor, axis=None, keepdims=False, name=None):
    """The arithmetic mean along `axis`, as float32 (also for int input).

    >>> tf.mean(tf.array([1, 2])).get()
    1.5
    """
    x = as_array(input_tensor)
    axes = normalize_axes("mean", axis, len(x.shape))
    count = 1
    for a in axes:
        count *= x.shape[a]

    def body():
        xf = x if x.dtype == float32 else ew.cast(x, float32)
        total = run_op(_sum, (xf,), {"axes": axes, "keepdims": bool(keepdims)})
        return ew.div(total, float(count)) if count else ew.mul(total, float("nan"))
    return scope(body)


def _arg_infer(name):
    def infer(inputs, attrs):
        x = inputs[0]
        if x.shape[attrs["axis"]] == 0:
            raise ShapeError(f"{name}: cannot take the {name} of an empty axis "
                             f"(axis {attrs['axis']} of shape {list(x.shape)})")
        axes = (attrs["axis"],)
        return reduced_shape(x.shape, axes, attrs["keepdims"]), int32
    return infer


_argmax = def_op("argmax", _arg_infer("argmax"))
_argmin = def_op("argmin", _arg_infer("argmin"))


def _arg_reduction(op, x, axis, keepdims):
    x = as_array(x)
    if axis is None:
        rank = len(x.shape)
        out = run_op(op, (reshape(x, (-1,)),), {"axis": 0, "keepdims": False})
        return reshape(out, (1,) * rank) if keepdims else out
    axis = normalize_axis(op.name, axis, len(x.shape))
    return run_op(op, (x,), {"axis": axis, "keepdims": bool(keepdims)})


def arg_max(x, axis=None, keepdims=False):
    """deeplearn.js's argMax (`math.arg_max`): the int32 index of the largest element
    along `axis`, of the flattened array when None. Ties give the first index; NaN
    counts as largest (as numpy).

    >>> tf.NDArrayMathCPU().arg_max(tf.constant([[1.0, 5.0], [7.0, 2.0]])).numpy()
    np.int32(2)
    """
    return _arg_reduction(_argmax, x, axis, keepdims)


def arg_min(x, axis=None, keepdims=False):
    """deeplearn.js's argMin (`math.arg_min`), see `arg_max`."""
    return _arg_reduction(_argmin, x, axis, keepdims)


def _tf_arg(op, input, axis, output_type):  # noqa: A002
    x = as_array(input)
    out = dtypes.as_dtype(output_type)
    if out not in (dtypes.int32, dtypes.int64, dtypes.int16, dtypes.uint16):
        raise InvalidArgumentError(f"Value for attr 'output_type' of {out.name} is not in the "
                                   "list of allowed values: int16, uint16, int32, int64")
    rank = len(x.shape)
    axis = 0 if axis is None else axis
    if isinstance(axis, NDArray):
        axis = axis.item()
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"Expected dimension in the range [{-rank}, {rank}), but "
                                   f"got {axis}")
    if x.dtype == float32:
        # NOTE: TensorFlow's kernels skip NaN (it never compares greater); numpy's and the
        # device kernels pick it, so NaN becomes the value that cannot win.
        worst = float("-inf") if op is _argmax else float("inf")
        x = scope(lambda: ew.where(ew.is_nan(x), worst, x))
    return run_op(op, (x,), {"axis": axis % rank, "keepdims": False})


@export("tf", "math")
def argmax(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """TensorFlow's argmax: the index of the largest value along `axis` (axis 0 when
    None; the deeplearn.js math objects' `arg_max` flattens instead). Ties give the
    first index and NaN is skipped, as in TensorFlow. `output_type` int64 (the
    default) is stored as int32, texflow's integer dtype.

    >>> tf.argmax(tf.constant([[1.0, 5.0], [7.0, 2.0]])).numpy().tolist()
    [1, 0]
    """
    return _tf_arg(_argmax, input, axis, output_type)


@export("tf", "math")
def argmin(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """TensorFlow's argmin: the index of the smallest value along `axis` (see argmax).

    >>> tf.argmin(tf.constant([3.0, 1.0, 2.0])).numpy()
    np.int32(1)
    """
    return _tf_arg(_argmin, input, axis, output_type)


@export("tf", "math", "dl", "tf.reduce_logsumexp", "math.reduce_logsumexp")
def logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) along `axis`, computed stably (TensorFlow's reduce_logsumexp).

    >>> round(tf.logsumexp(tf.array([0.0, 0.0])).get(), 4)
    0.6931
    """
    x = as_array(input_tensor)
    if x.dtype == bool_:
        raise OpDTypeError("logsumexp does not accept bool input; cast it first")
    axes = normalize_axes("logsumexp", axis, len(x.shape))
    out_shape = reduced_shape(x.shape, axes, keepdims)

    def body():
        xf = x if x.dtype == float32 else ew.cast(x, float32)
        raw_max = run_op(_max, (xf,), {"axes": axes, "keepdims": True})
        # NOTE: an infinite max would make x - max NaN; TensorFlow shifts by 0 instead.
        # The shift is a constant to the gradient, as in TensorFlow: d/dx is exactly
        # softmax(x), with no (zero up to rounding) path through the max.
        shift = ew.stop_gradient(ew.where(ew.is_finite(raw_max), raw_max, 0.0))
        total = run_op(_sum, (ew.exp(ew.sub(xf, shift)),), {"axes": axes, "keepdims": True})
        return reshape(ew.add(ew.log(total), shift), out_shape)
    return scope(body)
