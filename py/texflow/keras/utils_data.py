"""`tf.keras.utils` data helpers, as Keras 3's: `pad_sequences`,
`timeseries_dataset_from_array` (a tf.data Dataset of windows, computed lazily from the
array) and `PyDataset` (`Sequence`): a Python object giving batches by index, which
`fit`, `evaluate` and `predict` take as `x` (its batches shuffled each epoch by `fit`
unless `shuffle=False`, its `on_epoch_begin`/`on_epoch_end` called around each epoch).
"""

import numpy as np


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
    """The sequences (lists or arrays of steps) as one [samples, maxlen, ...] array, each
    cut to `maxlen` (its last steps with truncating='pre', first with 'post') and filled
    with `value` before ('pre') or after ('post') it.

    >>> tf.keras.utils.pad_sequences([[1, 2, 3], [4]], maxlen=2).tolist()
    [[2, 3], [0, 4]]
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths, step_shape = [], None
    for s in sequences:
        try:
            lengths.append(len(s))
        except TypeError as e:
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: "
                             f"{s}") from e
        if step_shape is None and len(s):
            step_shape = np.asarray(s).shape[1:]
    step_shape = step_shape or ()
    maxlen = max(lengths, default=0) if maxlen is None else int(maxlen)
    textual = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not textual:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: "
                         f"{type(value)}\nYou should set `dtype=object` for variable length "
                         "strings.")
    if truncating not in ("pre", "post"):
        raise ValueError(f'Truncating type "{truncating}" not understood')
    if padding not in ("pre", "post"):
        raise ValueError(f'Padding type "{padding}" not understood')
    out = np.full((len(lengths), maxlen) + tuple(step_shape), value, dtype=dtype)
    for i, s in enumerate(sequences):
        if not len(s):
            continue
        kept = np.asarray(s[-maxlen:] if truncating == "pre" else s[:maxlen], dtype=dtype)
        if kept.shape[1:] != tuple(step_shape):
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {i} "
                             f"is different from expected shape {tuple(step_shape)}")
        if padding == "post":
            out[i, :len(kept)] = kept
        else:
            out[i, maxlen - len(kept):] = kept
    return out


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1,
                                  sampling_rate=1, batch_size=128, shuffle=False, seed=None,
                                  start_index=None, end_index=None):
    """A Dataset of windows of `data` (rows start_index..end_index): window i holds
    `sequence_length` rows `sampling_rate` apart from start position i * sequence_stride,
    with `targets[start]` when targets are given; batched by `batch_size` (None: not
    batched). With `shuffle` the start positions are shuffled as Keras shuffles them
    (numpy's RandomState(seed)), then the windows locally by the dataset's shuffle.

    >>> ds = tf.keras.utils.timeseries_dataset_from_array(np.arange(10), None, 3,
    ...                                                   batch_size=None)
    >>> [w.tolist() for w in ds.take(2).as_numpy_iterator()]
    [[0, 1, 2], [1, 2, 3]]
    """
    from ..data import Dataset
    n = len(data)
    _check_window_args(n, start_index, end_index, sampling_rate, sequence_stride)
    start = start_index or 0
    end = n if end_index is None else end_index
    rows = np.asarray(data)[start:end]
    count = end - start - (sequence_length - 1) * sampling_rate
    if targets is not None:
        count = min(count, len(targets))
    positions = np.arange(0, max(count, 0), sequence_stride, dtype=np.int32)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(positions)
    offsets = np.arange(sequence_length, dtype=np.int64) * sampling_rate
    labels = None if targets is None else np.asarray(targets)[start:end]

    def window(i):
        first = positions[int(i)]
        if labels is None:
            return rows[first + offsets]
        return rows[first + offsets], labels[first]
    dataset = Dataset.range(len(positions)).map(window)
    if batch_size is not None:
        if shuffle:
            dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)
        return dataset.batch(batch_size)
    return dataset.shuffle(buffer_size=1024, seed=seed) if shuffle else dataset


def _check_window_args(n, start_index, end_index, sampling_rate, sequence_stride):
    if start_index:
        if start_index < 0:
            raise ValueError(f"`start_index` must be 0 or greater. Received: "
                             f"start_index={start_index}")
        if start_index >= n:
            raise ValueError(f"`start_index` must be lower than the length of the data. "
                             f"Received: start_index={start_index}, for data of length {n}")
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(f"`end_index` must be higher than `start_index`. Received: "
                             f"start_index={start_index}, and end_index={end_index} ")
        if end_index >= n:
            raise ValueError(f"`end_index` must be lower than the length of the data. "
                             f"Received: end_index={end_index}, for data of length {n}")
    for name, value in (("sampling_rate", sampling_rate), ("sequence_stride", sequence_stride)):
        if value <= 0:
            raise ValueError(f"`{name}` must be higher than 0. Received: {name}={value}")
        if value >= n:
            raise ValueError(f"`{name}` must be lower than the length of the data. Received: "
                             f"{name}={value}, for data of length {n}")


class PyDataset:
    """Batches by index: subclass it with `__len__` (or a `num_batches` property; None for
    an endless one) and `__getitem__(index)` returning `(x,)`, `(x, y)` or
    `(x, y, sample_weight)` (or a dict); `fit`/`evaluate`/`predict` take it as `x`.
    `workers`, `use_multiprocessing` and `max_queue_size` are kept (texflow reads batches
    in order, on the calling thread: Pyodide has no processes).

    >>> class Squares(tf.keras.utils.PyDataset):
    ...     def __len__(self):
    ...         return 2
    ...     def __getitem__(self, i):
    ...         x = np.full((4, 1), float(i), np.float32)
    ...         return x, x * x
    >>> len(list(Squares()))
    2
    """

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self._workers, self._use_multiprocessing = workers, use_multiprocessing
        self._max_queue_size = max_queue_size

    workers = property(lambda self: getattr(self, "_workers", 1))
    use_multiprocessing = property(lambda self: getattr(self, "_use_multiprocessing", False))
    max_queue_size = property(lambda self: getattr(self, "_max_queue_size", 10))

    def __getitem__(self, index):
        raise NotImplementedError

    @property
    def num_batches(self):
        if hasattr(self, "__len__"):
            return len(self)
        raise NotImplementedError("You need to implement the `num_batches` property:\n\n"
                                  "@property\ndef num_batches(self):\n  return ...")

    def __iter__(self):
        n = self.num_batches
        index = 0
        while n is None or index < n:
            yield self[index]
            index += 1

    def on_epoch_begin(self):
        """Called before each epoch."""

    def on_epoch_end(self):
        """Called after each epoch."""


Sequence = PyDataset


def batches_of(dataset, shuffle, permutation):
    """One epoch of a PyDataset's batches, as tuples (`fit`'s data adapter, which calls
    `on_epoch_end` when the epoch is over): `permutation(n)` orders them when `shuffle`
    and the length is known."""
    dataset.on_epoch_begin()
    n = dataset.num_batches
    order = range(n) if n is not None else None
    if shuffle and n:
        order = [int(i) for i in permutation(n)]
    index = 0
    while order is None or index < len(order):
        batch = dataset[order[index] if order is not None else index]
        if isinstance(batch, list):
            batch = tuple(batch)
        elif not isinstance(batch, (tuple, dict)):
            batch = (batch,)
        if isinstance(batch, tuple) and len(batch) not in (1, 2, 3):
            raise ValueError(f"PyDataset.__getitem__() must return a tuple or a dict. If a "
                             f"tuple, it must be ordered either (input,) or (inputs, targets) "
                             f"or (inputs, targets, sample_weights). Received: "
                             f"{str(batch)[:100]}... of type {type(batch)}")
        yield batch
        index += 1
