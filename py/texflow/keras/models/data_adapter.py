"""Turning what `fit`, `evaluate` and `predict` are given into batches.

Arrays (numpy or texflow, alone, in lists or in dicts) are cut into batches of
`batch_size` (shuffled each epoch with Keras's generator when asked); numpy
batches are uploaded when the model uses them, texflow arrays are gathered on
their device. A tf.data Dataset (or a Python generator) is iterated as it is:
each element is `x`, `(x,)`, `(x, y)` or `(x, y, sample_weight)`.

Every batch is a global batch packed as Keras packs it, `(x,)`, `(x, y)` or
`(x, y, sample_weight)` (so an overridden `train_step` may write `x, y = data`), with
texflow arrays as leaves. A distribution strategy that splits batches across replicas takes them
from `DataHandler.batches()` (or overrides `Model.make_train_function`).
"""

import math
import warnings

import numpy as np

from ...data import structure
from ...data.dataset import Dataset
from ...engine.ndarray import NDArray
from ...ops.creation import array
from ...ops.movement import gather, slice as slice_
from .. import backend
from ..layers.base import as_tensor
from ..utils_data import PyDataset, batches_of


def unpack_x_y_sample_weight(data):
    """(x, y, sample_weight) from a batch given as x, (x,), (x, y) or (x, y, sw)."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found a tuple of {len(data)} elements: "
                     f"{_describe(data)}")


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    if y is None:
        return (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def _describe(value):
    return structure.map_structure(
        lambda v: f"<{type(v).__name__} shape={tuple(np.shape(v))}>"
        if hasattr(v, "shape") else repr(v)[:40], value)


def _is_array(value):
    return isinstance(value, (np.ndarray, NDArray)) or (
        hasattr(value, "__array__") and not isinstance(value, (list, tuple, dict)))


def _check_arrays(x, y, sample_weight):
    """As Keras 3: arrays, alone or nested in lists, tuples and dicts; a Python number
    among them (`fit([[1.0], [2.0]], [1.0, 2.0])`) is refused, naming `x` whatever holds it."""
    if not all(v is None or _is_array(v) for v in structure.flatten((x, y, sample_weight))):
        raise ValueError(f"Unrecognized data type: x={x} (of type {type(x)})")


def _as_leaf(value):
    if isinstance(value, NDArray):
        return value
    arr = np.asarray(value)
    if arr.dtype == object or arr.dtype.kind in "USV":
        raise ValueError(f"texflow's Keras takes numeric data; received an array of dtype "
                         f"{arr.dtype}")
    return arr


def _standardize(data):
    """Nested lists/tuples/dicts with numpy or texflow arrays as leaves."""
    if data is None:
        return None
    if isinstance(data, dict):
        return {k: _standardize(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        if data and all(isinstance(v, (int, float, np.number)) for v in data):
            return _as_leaf(data)
        return type(data)(_standardize(v) for v in data) if isinstance(data, tuple) \
            else [_standardize(v) for v in data]
    return _as_leaf(data)


def class_weights_for(y, class_weight):
    """Per-example weights from a {class: weight} dict (missing classes weigh 1)."""
    y = np.asarray(y.numpy() if isinstance(y, NDArray) else y)
    if y.ndim > 1:
        y = np.argmax(y, axis=-1) if y.shape[-1] != 1 else y.reshape(y.shape[:-1])
    y = np.round(y).astype(np.int64).reshape(-1)
    weights = np.ones(y.shape, np.float32)
    for cls, w in class_weight.items():
        weights[y == int(cls)] = w
    return weights


class DataHandler:
    """Batches for one of fit/evaluate/predict, epoch after epoch.

    Args:
        x, y, sample_weight: the data (y and sample_weight only with arrays).
        batch_size: examples per batch for arrays (default 32).
        steps: batches per epoch (default: all the data).
        shuffle: reshuffle arrays every epoch.
        class_weight: a {class: weight} dict turned into sample weights.
    """

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps=None,
                 shuffle=False, class_weight=None):
        if x is None:
            raise ValueError("Unexpected value for `x`: None (pass the training data)")
        self.class_weight = class_weight
        self._steps_arg = steps
        self._iterator = None
        # A tf.distribute dataset (Keras 3 takes them): the dataset it distributes, and
        # whether it is already this worker's (distribute_datasets_from_function's).
        keras_dataset = getattr(x, "_keras_dataset", None)
        x, self.per_worker = keras_dataset() if keras_dataset is not None else (x, False)
        if isinstance(x, PyDataset):  # batches by index, read as a generator each epoch
            if y is not None or sample_weight is not None or batch_size is not None:
                raise ValueError("`y`, `sample_weight` and `batch_size` are not supported "
                                 "when the input is a PyDataset (it gives whole batches)")
            self.kind, self.source, self.shuffle = "pydataset", x, shuffle
            self.known_steps = x.num_batches
            self.steps = steps if steps is not None else self.known_steps
            return
        if isinstance(x, Dataset) or (hasattr(x, "__next__") and not _is_array(x)):
            if y is not None:
                raise ValueError("`y` argument is not supported when using a dataset or a "
                                 "generator as input; it must yield (x, y) pairs.")
            if sample_weight is not None:
                raise ValueError("`sample_weight` argument is not supported when using a "
                                 "dataset as input; yield (x, y, sample_weight).")
            if batch_size is not None:
                raise ValueError(f"`batch_size` must not be given when the input is a "
                                 f"dataset (it is already batched); received "
                                 f"batch_size={batch_size}")
            self.kind = "dataset" if isinstance(x, Dataset) else "generator"
            self.source = x
            n = int(x.cardinality()) if isinstance(x, Dataset) else -2
            self.known_steps = n if n >= 0 else None
            if n == -1 and steps is None:
                raise ValueError("The dataset is infinite (it repeats forever): pass "
                                 "`steps_per_epoch` (or `steps`) to say how many batches make "
                                 "an epoch")
            self.steps = steps if steps is not None else self.known_steps
            return
        self.kind = "arrays"
        _check_arrays(x, y, sample_weight)
        self.x, self.y = _standardize(x), _standardize(y)
        self.sample_weight = _standardize(sample_weight)
        sizes = {name: [np.shape(v)[0] if np.ndim(v) else None
                        for v in structure.flatten(value)]
                 for name, value in (("x", self.x), ("y", self.y),
                                     ("sample_weight", self.sample_weight))
                 if value is not None}
        flat = [n for ns in sizes.values() for n in ns]
        if any(n is None for n in flat):
            raise ValueError(f"Expected arrays with a batch axis; received scalars in "
                             f"{[k for k, ns in sizes.items() if None in ns]}")
        if len(set(flat)) > 1:
            detail = " ".join(f"'{k}' sizes: {', '.join(map(str, ns))}"
                              for k, ns in sizes.items())
            raise ValueError(f"Data cardinality is ambiguous. Make sure all arrays contain the "
                             f"same number of samples. {detail}")
        self.num_samples = flat[0] if flat else 0
        if batch_size is None:
            batch_size = 32
        if not isinstance(batch_size, (int, np.integer)) or batch_size <= 0:
            raise ValueError(f"batch_size must be a positive int, received {batch_size!r}")
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        full = math.ceil(self.num_samples / self.batch_size)
        self.known_steps = full
        self.steps = steps if steps is not None else full

    # -- epochs -----------------------------------------------------------------------

    def resume(self, epoch, step):
        """Positions the data where an uninterrupted fit would be at (epoch, step);
        returns how many batches the resumed epoch skips.

        Arrays are reshuffled from Keras's generator (whose state the backup restores).
        A dataset read as one stream across epochs (`steps_per_epoch` given) is read
        past the batches of the earlier epochs; a dataset read afresh each epoch has its
        shuffles advanced by `epoch` iterations (seeded `shuffle` orders depend on how
        many times the dataset was iterated).
        """
        if self.kind == "dataset" and self._steps_arg is not None:
            self._iterator = self._stream()
            for _ in range(epoch * self.steps):
                if next(self._iterator, _END) is _END:
                    self._iterator = None
                    break
        elif self.kind == "dataset":
            _advance_shuffles(self.source, epoch)
        return step

    def _stream(self):
        # a dataset's numpy elements (what the pipeline computes; fit uploads them)
        if self.kind == "pydataset":
            return batches_of(self.source, self.shuffle, backend.global_generator().permutation)
        return self.source.as_numpy_iterator() if self.kind == "dataset" else iter(self.source)

    def batches(self, skip=0):
        """The `(x,)`, `(x, y)` or `(x, y, sample_weight)` batches of one epoch, as texflow
        arrays (sample weights when given or made from `class_weight`); `skip`
        leaves out the first ones (a resumed epoch), in the same order."""
        if self.kind == "arrays":
            yield from self._array_batches(skip)
        else:
            yield from self._iterated_batches(skip)
            if self.kind == "pydataset":
                self.source.on_epoch_end()

    def _array_batches(self, skip):
        n, bs = self.num_samples, self.batch_size
        order = None
        if self.shuffle and n:
            order = backend.global_generator().permutation(n)
        for step in range(skip, min(self.steps, self.known_steps)):
            start, stop = step * bs, min((step + 1) * bs, n)
            index = order[start:stop] if order is not None else None
            pick = _picker(start, stop, index)
            x = structure.map_structure(pick, self.x)
            y = structure.map_structure(pick, self.y) if self.y is not None else None
            sw = structure.map_structure(pick, self.sample_weight) \
                if self.sample_weight is not None else None
            yield self._with_class_weight(x, y, sw)
        if self.steps > self.known_steps:
            warnings.warn(f"Your input ran out of data: {self.known_steps} batches of "
                          f"{bs} hold all {n} examples, fewer than the {self.steps} steps "
                          "asked for; the epoch ends early.", stacklevel=3)

    def _with_class_weight(self, x, y, sw):
        if self.class_weight is not None and y is not None:
            if isinstance(y, (dict, list, tuple)):
                raise ValueError("`class_weight` is only supported for models with a single "
                                 "output")
            cw = class_weights_for(y, self.class_weight)
            sw = array(cw) if sw is None else as_tensor(np.asarray(sw) * cw)
        return pack_x_y_sample_weight(x, y, sw)

    def _iterated_batches(self, skip):
        steps = self.steps
        if self._iterator is None or self._steps_arg is None:
            self._iterator = self._stream()
        count = 0
        while count < skip and next(self._iterator, _END) is not _END:
            count += 1
        while steps is None or count < steps:
            try:
                element = next(self._iterator)
            except StopIteration:
                self._iterator = None
                if steps is not None and self._steps_arg is not None:
                    warnings.warn(f"Your input ran out of data; interrupting training. Make "
                                  f"sure that your dataset or generator can generate at least "
                                  f"`steps_per_epoch * epochs` batches. You may need to use "
                                  f"the `.repeat()` function when building your dataset. "
                                  f"(It ended after {count} batches of this epoch.)",
                                  stacklevel=3)
                break
            x, y, sw = unpack_x_y_sample_weight(element)
            convert = lambda v: structure.map_structure(as_tensor, _standardize(v))  # noqa
            x = convert(x)
            y = convert(y) if y is not None else None
            sw = convert(sw) if sw is not None else None
            count += 1
            yield self._with_class_weight(x, y, sw)
        if self.known_steps is None and steps is None:
            self.known_steps = count


_END = object()


def _advance_shuffles(dataset, epochs):
    """Counts `epochs` more iterations on every reshuffling Shuffle in the dataset's graph
    (data/transforms.py: a seeded Shuffle draws its order from [seed, iterations])."""
    seen, stack = set(), [dataset]
    while stack:
        node = stack.pop()
        if id(node) in seen or not isinstance(node, Dataset):
            continue
        seen.add(id(node))
        if getattr(node, "reshuffle", False) and isinstance(getattr(node, "iterations", None),
                                                            int):
            node.iterations += epochs
        for value in vars(node).values():   # inputs: datasets, or tuples / dicts of them
            stack.extend(value.values() if isinstance(value, dict) else
                         value if isinstance(value, (list, tuple)) else (value,))


def _picker(start, stop, index):
    def pick(leaf):
        if isinstance(leaf, NDArray):
            if index is not None:
                return gather(leaf, array(index.astype(np.int32)))
            return slice_(leaf, [start] + [0] * (len(leaf.shape) - 1),
                          [stop - start] + list(leaf.shape[1:]))
        part = leaf[index] if index is not None else leaf[start:stop]
        return as_tensor(part)
    return pick


def train_validation_split(arrays, validation_split):
    """The first and last parts of every array: the last `validation_split` fraction is
    held out for validation (before any shuffling), as Keras does."""
    flat = structure.flatten(arrays)
    n = np.shape(flat[0])[0]
    split_at = int(math.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to "
                         f"split it into a validation and training set as specified by "
                         f"`validation_split={validation_split}`. Either provide more data, "
                         f"or a different value for the `validation_split` argument.")

    def cut(lo, hi):
        return lambda leaf: None if leaf is None else (
            slice_(leaf, [lo] + [0] * (len(leaf.shape) - 1), [hi - lo] + list(leaf.shape[1:]))
            if isinstance(leaf, NDArray) else leaf[lo:hi])

    train = structure.map_structure(cut(0, split_at), arrays)
    val = structure.map_structure(cut(split_at, n), arrays)
    return train, val
