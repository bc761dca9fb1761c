"""What every tf.image function does first: its input as a tensor (with the dtype its
values mean), its rank and sizes checked with TensorFlow's messages, static arguments."""

import numpy as np

from .. import dtypes
from ..engine.ndarray import NDArray
from ..errors import InvalidArgumentError
from ..framework import get_static_value
from ..ops.creation import convert_to_tensor
from ..ops.movement import expand_dims, squeeze


def as_image(image, name="image"):
    """`image` as a tensor, and the dtype its values are in.

    texflow stores uint8, int8, int16 and uint16 as int32; numpy data of those dtypes keeps
    its dtype's range here, so convert_image_dtype scales a numpy uint8 image by 255 as
    TensorFlow does. An int32 tensor is int32 whatever it held before.
    """
    if isinstance(image, NDArray):
        return image, image.dtype
    data = np.asarray(image) if isinstance(image, (np.ndarray, np.generic)) else None
    tensor = convert_to_tensor(image, name=name)
    if data is not None and data.dtype.kind in "iu":
        return tensor, dtypes.as_dtype(data.dtype)
    return tensor, tensor.dtype


def shape_text(shape):
    return str(tuple(shape)).replace(",)", ")") if len(shape) != 1 else f"({shape[0]},)"


def at_least_3d(image, name="image"):
    """TensorFlow's _AssertAtLeast3DImage for a static shape."""
    shape = image.shape.as_list()
    if len(shape) < 3:
        raise ValueError(f"'{name}' (shape {shape_text(shape)}) must be at least "
                         "three-dimensional.")
    return shape


def rank_3_or_4(image, at_least=False, gap=" "):
    """TensorFlow's check of a batch or one image: rank 4 or 3. Flips, rot90 and transpose
    first say "at least three-dimensional" below rank 3 (`at_least`); the flips' message
    lacks the space before 'must' (`gap=""`), as TensorFlow's does."""
    shape = at_least_3d(image) if at_least else image.shape.as_list()
    if len(shape) not in (3, 4):
        raise ValueError(f"'image' (shape {shape_text(shape)}){gap}must have either 3 or 4 "
                         "dimensions.")
    return shape


def number_dtype(dtype, what="image dtype"):
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError(f"{what} must be either floating point or integer")
    return dtype


def batched(image):
    """(4-D image, undo): a 3-D image gets a batch of one, which `undo` removes again."""
    if image.shape.rank == 3:
        return expand_dims(image, 0), lambda out: squeeze(out, [0])
    return image, lambda out: out


def static_int(value, what, fn):
    """A Python int from `value` (a number or a tensor whose value is known now)."""
    if isinstance(value, NDArray):
        known = get_static_value(value)
        if known is None:
            raise ValueError(f"tf.image.{fn}: {what} must be known when the function is "
                             "traced (a texflow trace has static shapes); got a tensor "
                             "computed in the function")
        value = known
    if isinstance(value, (float, np.floating)) and not float(value).is_integer():
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype int32")
    return int(value)


def target_size(target_height, target_width, fn):
    """(height, width) of a resize_with_* target: Python ints, each > 0 (TensorFlow's
    ValueErrors, width first)."""
    th = static_int(target_height, "target_height", fn)
    tw = static_int(target_width, "target_width", fn)
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    return th, tw


def no_bool(image, fn):
    if image.dtype.is_bool:
        raise InvalidArgumentError(f"tf.image.{fn}: Value for attr 'T' of bool is not in the "
                                   "list of allowed values (the image's dtype must be a "
                                   "number)")
