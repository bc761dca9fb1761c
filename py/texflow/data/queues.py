"""TensorFlow 1's queue-based input names, as thin layers over Dataset.

`string_input_producer` makes a filename queue; a reader's `read(queue)`
gives (key, value) "record tensors" that stand for the current record of a
stream; decoders and the ops in `texflow.compat.v1` applied to them give more
record tensors (a per-record function, evaluated when a batch is made);
`batch`, `shuffle_batch` and `shuffle_batch_join` turn them into a Dataset
(shuffle, batch) whose batches `Session.run` dequeues. Everything runs in-line
when a batch is asked for, natively and in Pyodide alike, so results do not
depend on thread timing; `start_queue_runners` starts the queues (before it,
dequeuing raises instead of blocking forever as TensorFlow would) and the
`Coordinator` carries TensorFlow's shutdown protocol: at the epoch limit a
dequeue raises OutOfRangeError; an error inside a pipeline stops the
coordinator, the dequeue raises OutOfRangeError and `coord.join()` raises
that error.
"""

import weakref

import numpy as np

from ..errors import FailedPreconditionError, InvalidArgumentError, OutOfRangeError
from ..tensor_shape import TensorShape
from . import sources, structure
from .dataset import Dataset, Failure
from .readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset

_queues = weakref.WeakSet()   # queues waiting for start_queue_runners
_names = {}


def _name(kind):
    _names[kind] = _names.get(kind, 0) + 1
    return f"{kind}_{_names[kind]}"


class _Queue:
    """A started-or-not stream of elements with TensorFlow's closed-queue errors."""

    def __init__(self, kind):
        self.name = _name(kind)
        self.started = False
        self.coord = None
        self._it = None
        _queues.add(self)

    def _make(self):
        raise NotImplementedError("need _make")

    def _next(self, requested=1):
        if not self.started:
            raise FailedPreconditionError(
                f"queue {self.name!r} has not been started: call "
                "tf.train.start_queue_runners() first (TensorFlow would block here forever)")
        if self._it is None:
            self._it = self._make()
        try:
            element = next(self._it)
        except StopIteration:
            raise OutOfRangeError(f"{self.name} is closed and has insufficient elements "
                                  f"(requested {requested}, current size 0)") from None
        if type(element) is Failure:
            if self.coord is None or isinstance(element.exc, OutOfRangeError):
                raise element.exc
            self.coord.request_stop(element.exc)
            raise OutOfRangeError(f"{self.name} is closed: its input stopped on an error, "
                                  f"which Coordinator.join() raises: {element.exc}")
        return element


class FilenameQueue(_Queue):
    """The queue `string_input_producer` makes: file names, epoch after epoch."""

    def __init__(self, names, num_epochs, shuffle, seed):
        super().__init__("input_producer")
        self.names = [sources.as_source(n) for n in names]
        if not self.names:
            raise InvalidArgumentError("string_input_producer needs at least one file name")
        self.num_epochs, self.shuffle, self.seed = num_epochs, shuffle, seed

    def _make(self):
        ds = Dataset.from_tensor_slices(np.arange(len(self.names)))
        if self.shuffle:
            ds = ds.shuffle(len(self.names), seed=self.seed)
        ds = ds.repeat(self.num_epochs)
        return (self.names[int(i)] for i in ds.as_numpy_iterator())

    def dequeue(self):
        return self._next()


class _Stream(_Queue):
    """A reader's records from a filename queue: element = (key, value)."""

    def __init__(self, reader, queue):
        super().__init__("reader")
        self.reader, self.queue = reader, queue
        self.started = True  # readers pull from the filename queue, which must be started

    def _make(self):
        while True:
            try:
                source = self.queue._next()
            except OutOfRangeError:
                return
            records = self.reader._dataset(source)._gen(_CTX)
            for index, value in enumerate(records):
                if type(value) is Failure:
                    yield value
                    break
                yield (f"{source.name}:{index + 1}".encode(), value)  # TF: 1-based


class RecordTensor:
    """A per-record value of a TF-1 input pipeline (what `reader.read` returns).

    It has no value of its own: `Session.run` on it reads the next record, and
    the batching functions evaluate it for every record they batch.
    """

    def __init__(self, stream, fn, label):
        self.stream, self.fn, self.label = stream, fn, label
        self.static_shape = None

    def value(self, element, memo):
        key = id(self)
        if key not in memo:
            value = self.fn(element, memo)
            if self.static_shape is not None and not self.static_shape.is_compatible_with(
                    np.shape(value)):
                raise InvalidArgumentError(f"{self.label}: a record's value has shape "
                                           f"{list(np.shape(value))}, but set_shape gave "
                                           f"{self.static_shape}")
            memo[key] = value
        return memo[key]

    def set_shape(self, shape):
        """Declares the shape every record's value has (`image.set_shape([784])`); a record
        whose value has another shape raises InvalidArgumentError when it is read."""
        self.static_shape = TensorShape(shape) if self.static_shape is None else \
            self.static_shape.merge_with(shape)

    def get_shape(self):
        return TensorShape(None) if self.static_shape is None else self.static_shape

    shape = property(get_shape)

    def __repr__(self):
        return f"<RecordTensor {self.label}>"

    def _lift(self, op, *others, label="op"):
        return lift(op, label)(self, *others)

    def __getitem__(self, index):
        return self._lift(lambda x, i: x[i] if isinstance(x, dict) else np.asarray(x)[i],
                          index, label="getitem")

    def __add__(self, o):
        return self._lift(np.add, o, label="add")

    def __sub__(self, o):
        return self._lift(np.subtract, o, label="sub")

    def __mul__(self, o):
        return self._lift(np.multiply, o, label="mul")

    def __truediv__(self, o):
        return self._lift(np.divide, o, label="div")

    def __radd__(self, o):
        return lift(np.add, "add")(o, self)

    def __rmul__(self, o):
        return lift(np.multiply, "mul")(o, self)

    def __rsub__(self, o):
        return lift(np.subtract, "sub")(o, self)

    def __neg__(self):
        return self._lift(np.negative, label="neg")


def _streams(args):
    found = []
    for a in structure.flatten(list(args)):
        if isinstance(a, RecordTensor) and a.stream not in found:
            found.append(a.stream)
    return found


def lift(fn, label=None):
    """`fn` made to accept RecordTensors: with any among the arguments, the result is
    a RecordTensor computing `fn` per record; otherwise `fn` runs now."""
    def lifted(*args, **kwargs):
        found = _streams(list(args) + list(kwargs.values()))
        if not found:
            return fn(*args, **kwargs)
        if len(found) > 1:
            raise InvalidArgumentError(f"{label or fn.__name__}: these record tensors come "
                                       "from different readers")

        def run(element, memo):
            def value(a):
                return a.value(element, memo) if isinstance(a, RecordTensor) else a
            a2 = structure.pack_as(list(args), [value(x) for x in structure.flatten(list(args))])
            kw = {k: structure.pack_as(v, [value(x) for x in structure.flatten(v)])
                  for k, v in kwargs.items()}
            return fn(*a2, **kw)
        result = RecordTensor(found[0], run, label or fn.__name__)
        return result
    lifted.__name__ = getattr(fn, "__name__", "lifted")
    lifted.__doc__ = fn.__doc__
    return lifted


def lift_multi(fn, count_of, label):
    """Like `lift`, for functions returning a list (one RecordTensor per item)."""
    single = lift(fn, label)

    def lifted(*args, **kwargs):
        result = single(*args, **kwargs)
        if not isinstance(result, RecordTensor):
            return result
        return [RecordTensor(result.stream, (lambda k: lambda e, m: result.value(e, m)[k])(k),
                             f"{label}:{k}") for k in range(count_of(*args, **kwargs))]
    return lifted


class _CtxStub:
    threads = False


_CTX = _CtxStub()


class _Reader:
    """Base of the TF-1 readers: `read(queue)` gives (key, value) record tensors."""

    def _dataset(self, source):
        raise NotImplementedError("need _dataset")

    def read(self, queue, name=None):
        if not isinstance(queue, FilenameQueue):
            raise InvalidArgumentError(f"read takes the queue of string_input_producer, "
                                       f"received {type(queue).__name__}")
        stream = _Stream(self, queue)
        return (RecordTensor(stream, lambda e, m: e[0], "key"),
                RecordTensor(stream, lambda e, m: e[1], "value"))


class TextLineReader(_Reader):
    """Reads files line by line (`tf.TextLineReader(skip_header_lines=None)`)."""

    def __init__(self, skip_header_lines=None, name=None):
        self.skip = int(skip_header_lines or 0)

    def _dataset(self, source):
        return TextLineDataset(source).skip(self.skip)


class FixedLengthRecordReader(_Reader):
    """Reads fixed-length records (`tf.FixedLengthRecordReader(record_bytes, ...)`)."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None,
                 name=None, encoding=None):
        self.args = (record_bytes, header_bytes, footer_bytes)
        self.compression = encoding or ""

    def _dataset(self, source):
        return FixedLengthRecordDataset(source, *self.args, compression_type=self.compression)


class TFRecordReader(_Reader):
    """Reads TFRecord files (`tf.TFRecordReader(options=None)`)."""

    def __init__(self, name=None, options=None):
        from .tfrecord import TFRecordOptions
        self.compression = TFRecordOptions.get_compression_type_string(options)

    def _dataset(self, source):
        return TFRecordDataset(source, self.compression)
