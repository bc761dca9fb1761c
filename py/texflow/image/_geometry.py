"""tf.image's flips, rotations, crops and pads: slicing, reversing and padding of the
[batch,] height, width, channels layout, so gradients and fusion come from those ops."""

from ..ops.movement import pad, reverse, slice, transpose  # noqa: A004
from ._checks import as_image, at_least_3d, rank_3_or_4, static_int, target_size


def flip_left_right(image):
    """Reverses the width axis of an image or a batch (tf.image.flip_left_right).

    >>> tf.image.flip_left_right(tf.reshape(tf.range(4), [1, 4, 1]))[0, :, 0].numpy()
    array([3, 2, 1, 0], dtype=int32)
    """
    image = as_image(image)[0]
    return reverse(image, [len(rank_3_or_4(image, True, gap="")) - 2])


def flip_up_down(image):
    """Reverses the height axis of an image or a batch (tf.image.flip_up_down).

    >>> tf.image.flip_up_down(tf.reshape(tf.range(3), [3, 1, 1]))[:, 0, 0].numpy()
    array([2, 1, 0], dtype=int32)
    """
    image = as_image(image)[0]
    return reverse(image, [len(rank_3_or_4(image, True, gap="")) - 3])


def transpose_image(image, name=None):
    """Swaps height and width (tf.image.transpose).

    >>> tf.image.transpose(tf.zeros([2, 3, 1])).shape
    TensorShape([3, 2, 1])
    """
    image = as_image(image)[0]
    rank = len(rank_3_or_4(image, at_least=True))
    return transpose(image, [1, 0, 2] if rank == 3 else [0, 2, 1, 3])


def rot90(image, k=1, name=None):
    """Rotates by `k` quarter turns counter-clockwise (tf.image.rot90). `k` must be known
    when a function is traced.

    >>> tf.image.rot90(tf.reshape(tf.range(4), [2, 2, 1]))[..., 0].numpy()
    array([[1, 3],
           [0, 2]], dtype=int32)
    """
    image = as_image(image)[0]
    rank = len(rank_3_or_4(image, at_least=True))
    k = static_int(k, "k", "rot90") % 4
    h, w = rank - 3, rank - 2
    swap = [1, 0, 2] if rank == 3 else [0, 2, 1, 3]
    if k == 1:
        return transpose(reverse(image, [w]), swap)
    if k == 2:
        return reverse(image, [h, w])
    if k == 3:
        return reverse(transpose(image, swap), [w])
    return image


def _crop(image, top, left, height, width):
    shape = image.shape.as_list()
    begin = [0] * (len(shape) - 3) + [top, left, 0]
    size = shape[:-3] + [height, width, shape[-1]]
    return slice(image, begin, size)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The box of `target_height` x `target_width` pixels whose top-left corner is at
    (`offset_height`, `offset_width`) (tf.image.crop_to_bounding_box).

    >>> tf.image.crop_to_bounding_box(tf.zeros([4, 5, 3]), 1, 2, 2, 3).shape
    TensorShape([2, 3, 3])
    """
    image = as_image(image)[0]
    shape = rank_3_or_4(image)
    top, left, th, tw = (static_int(v, n, "crop_to_bounding_box") for v, n in (
        (offset_height, "offset_height"), (offset_width, "offset_width"),
        (target_height, "target_height"), (target_width, "target_width")))
    height, width = shape[-3], shape[-2]
    for ok, message in ((left >= 0, "offset_width must be >= 0."),
                        (top >= 0, "offset_height must be >= 0."),
                        (tw > 0, "target_width must be > 0."),
                        (th > 0, "target_height must be > 0."),
                        (width >= tw + left, "width must be >= target + offset."),
                        (height >= th + top, "height must be >= target + offset.")):
        if not ok:
            raise ValueError(message)
    return _crop(image, top, left, th, tw)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Pads with zeros to `target_height` x `target_width`, the image's top-left corner at
    (`offset_height`, `offset_width`) (tf.image.pad_to_bounding_box).

    >>> tf.image.pad_to_bounding_box(tf.ones([2, 2, 1]), 1, 0, 4, 3)[..., 0].numpy()
    array([[0., 0., 0.],
           [1., 1., 0.],
           [1., 1., 0.],
           [0., 0., 0.]], dtype=float32)
    """
    image = as_image(image)[0]
    shape = rank_3_or_4(image)
    top, left, th, tw = (static_int(v, n, "pad_to_bounding_box") for v, n in (
        (offset_height, "offset_height"), (offset_width, "offset_width"),
        (target_height, "target_height"), (target_width, "target_width")))
    bottom, right = th - top - shape[-3], tw - left - shape[-2]
    for ok, message in ((top >= 0, "offset_height must be >= 0"),
                        (left >= 0, "offset_width must be >= 0"),
                        (right >= 0, "width must be <= target - offset"),
                        (bottom >= 0, "height must be <= target - offset")):
        if not ok:
            raise ValueError(message)
    return pad(image, [[0, 0]] * (len(shape) - 3) + [[top, bottom], [left, right], [0, 0]])


def resize_with_crop_or_pad(image, target_height, target_width):
    """Crops or zero-pads an image, about its centre, to `target_height` x `target_width`
    (tf.image.resize_with_crop_or_pad).

    >>> tf.image.resize_with_crop_or_pad(tf.ones([4, 2, 1]), 2, 4)[..., 0].numpy()
    array([[0., 1., 1., 0.],
           [0., 1., 1., 0.]], dtype=float32)
    """
    image = as_image(image)[0]
    shape = rank_3_or_4(image)
    th, tw = target_size(target_height, target_width, "resize_with_crop_or_pad")
    height, width = shape[-3], shape[-2]
    dh, dw = th - height, tw - width
    cropped = _crop(image, max(-dh // 2, 0), max(-dw // 2, 0), min(th, height), min(tw, width))
    return pad_to_bounding_box(cropped, max(dh // 2, 0), max(dw // 2, 0), th, tw)


def central_crop(image, central_fraction):
    """The central `central_fraction` of each side, in (0, 1] (tf.image.central_crop).

    >>> tf.image.central_crop(tf.zeros([4, 8, 3]), 0.5).shape
    TensorShape([2, 4, 3])
    """
    image = as_image(image)[0]
    if central_fraction <= 0.0 or central_fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if central_fraction == 1.0:
        return image
    shape = at_least_3d(image)
    if len(shape) not in (3, 4):
        raise ValueError("`image` should either be a Tensor with rank = 3 or rank = 4. Had "
                         f"rank = {len(shape)}.")
    height, width = shape[-3], shape[-2]
    top = int((height - height * central_fraction) / 2)
    left = int((width - width * central_fraction) / 2)
    return _crop(image, top, left, height - 2 * top, width - 2 * left)
