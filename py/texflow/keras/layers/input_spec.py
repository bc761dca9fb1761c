"""What layers accept: InputSpec (ranks and sizes, checked on every call), and inputs
turned into arrays."""

import numpy as np

from ...data import structure
from ...engine.ndarray import NDArray, from_numpy, to_numpy
from ...ops import elementwise as ew


def as_tensor(value):
    """`value` as an NDArray: numpy data and numbers convert (float64 -> float32)."""
    if isinstance(value, NDArray):
        return value
    if isinstance(value, (np.ndarray, np.generic, int, float, bool)):
        return from_numpy(to_numpy(value))
    return value


def float_input(x):
    """Integer or bool inputs as float32 (Keras promotes them against float weights)."""
    return x if x.dtype == "float32" else ew.cast(x, "float32")


def standardize_shape(shape, what="shape"):
    """A tuple of ints and None from a shape-like value."""
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        dims = tuple(shape)
    except TypeError:
        raise ValueError(f"{what} must be a tuple of ints (or None), received {shape!r}") \
            from None
    out = []
    for d in dims:
        if d is None:
            out.append(None)
        elif isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0:
            out.append(int(d))
        else:
            raise ValueError(f"{what} must be a tuple of non-negative ints or None, "
                             f"received {shape!r}")
    return tuple(out)


class InputSpec:
    """What a layer accepts: `ndim`, `min_ndim`, `max_ndim`, and `axes` ({axis: size}).

    >>> tf.keras.layers.InputSpec(min_ndim=2, axes={-1: 4}).axes
    {-1: 4}
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = dtype
        self.shape = standardize_shape(shape)
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.axes = {int(k): v for k, v in (axes or {}).items()}
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name, self.optional = name, optional

    def __repr__(self):
        parts = [f"{k}={v}" for k, v in (("ndim", self.ndim), ("min_ndim", self.min_ndim),
                                         ("max_ndim", self.max_ndim), ("axes", self.axes))
                 if v]
        return f"InputSpec({', '.join(parts)})"


def check_input_spec(layer, inputs):
    """Raises ValueError naming the layer when `inputs` do not fit its input_spec."""
    specs = layer.input_spec
    if specs is None:
        return
    specs = specs if isinstance(specs, (list, tuple)) else [specs]
    flat = [x for x in structure.flatten(inputs) if hasattr(x, "shape")]
    if len(flat) != len(specs):
        if len(specs) > 1:
            raise ValueError(f'Layer "{layer.name}" expects {len(specs)} input(s), but it '
                             f"received {len(flat)} input tensors")
        return
    for i, (x, spec) in enumerate(zip(flat, specs)):
        shape = tuple(x.shape)
        rank = len(shape)
        where = (f'Input {i} of layer "{layer.name}" is incompatible with the layer: ')
        if spec.ndim is not None and rank != spec.ndim:
            raise ValueError(f"{where}expected ndim={spec.ndim}, found ndim={rank}. "
                             f"Full shape received: {_shape_str(shape)}")
        if spec.min_ndim is not None and rank < spec.min_ndim:
            raise ValueError(f"{where}expected min_ndim={spec.min_ndim}, found ndim={rank}. "
                             f"Full shape received: {_shape_str(shape)}")
        if spec.max_ndim is not None and rank > spec.max_ndim:
            raise ValueError(f"{where}expected max_ndim={spec.max_ndim}, found ndim={rank}. "
                             f"Full shape received: {_shape_str(shape)}")
        for axis, size in spec.axes.items():
            if size is None or not -rank <= axis < rank:
                continue
            if shape[axis] is not None and shape[axis] != size:
                raise ValueError(f"{where}expected axis {axis} of input shape to have value "
                                 f"{size}, but received input with shape {_shape_str(shape)}")
        if spec.shape is not None:
            for axis, (want, got) in enumerate(zip(spec.shape, shape)):
                if want is not None and got is not None and want != got:
                    raise ValueError(f"{where}expected shape={_shape_str(spec.shape)}, found "
                                     f"shape={_shape_str(shape)}")


def _shape_str(shape):
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


