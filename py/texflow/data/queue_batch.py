"""TF-1 batching (`tf.train.batch`, `shuffle_batch`, `shuffle_batch_join`), the
Coordinator, queue runners and the TF-1 Session that dequeues batches."""

import threading

import numpy as np

from ..errors import InvalidArgumentError, OpError, OutOfRangeError
from ..tensor_shape import TensorShape
from . import structure
from .dataset import Dataset, Failure
from .queues import FilenameQueue, RecordTensor, _CTX, _Queue, _queues, _Stream


class _Examples(Dataset):
    """The records of one or more streams (read in turn), evaluated to example tuples."""

    def __init__(self, tensor_lists, enqueue_many):
        self.lists, self.many = tensor_lists, enqueue_many

    def _gen(self, ctx):
        plans = []
        for tensors in self.lists:
            leaves = structure.flatten(tensors)
            streams = {t.stream for t in leaves if isinstance(t, RecordTensor)}
            if len(streams) > 1:
                raise InvalidArgumentError("the tensors of one example come from different "
                                           "readers")
            plans.append((tensors, leaves, streams.pop() if streams else None))
        if any(s is None for _, _, s in plans):  # preloaded arrays (enqueue_many)
            for tensors, leaves, _ in plans:
                yield from Dataset.from_tensor_slices(structure.normalize(
                    tensors, False))._gen(ctx)
            return
        active = list(plans)
        while active:
            for plan in list(active):
                tensors, leaves, stream = plan
                try:
                    element = stream._next()
                except OutOfRangeError:
                    active.remove(plan)
                    continue
                except Exception as e:
                    yield Failure(e)
                    active.remove(plan)
                    continue
                memo = {}
                try:
                    values = [t.value(element, memo) if isinstance(t, RecordTensor) else t
                              for t in leaves]
                    example = structure.normalize(structure.pack_as(
                        tuple(tensors) if isinstance(tensors, list) else tensors, values), False)
                except Exception as e:
                    key = element[0].decode(errors="replace")
                    if isinstance(e, OpError):
                        e.message = f"{e.message} (record {key})"
                        e.args = (e.message,)
                    yield Failure(e)
                    continue
                if self.many:
                    rows = structure.unbatch(example) if structure.flatten(example) and \
                        len(structure.flatten(example)[0]) else []
                    yield from rows
                else:
                    yield example


class BatchQueue(_Queue):
    """The queue a batching function makes; `Session.run` dequeues one batch."""

    def __init__(self, kind, dataset, batch_size):
        super().__init__(kind)
        self.dataset, self.batch_size = dataset, batch_size
        self.batch = None

    def _make(self):
        return self.dataset._gen(_CTX)

    def dequeue(self):
        self.batch = self._next(self.batch_size)
        return self.batch


class BatchTensor:
    """One component of a batching function's output; `Session.run` fetches it. Its
    static `shape` is the batch size (None with allow_smaller_final_batch) followed by the
    example's (from the input's set_shape, as in TensorFlow 1)."""

    def __init__(self, queue, index, shape=None):
        self.queue, self.index = queue, index
        self._shape = TensorShape(None) if shape is None else shape

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(shape)

    def eval(self, session=None, feed_dict=None):
        return (session or Session._default or Session()).run(self)

    def __repr__(self):
        return f"<BatchTensor {self.queue.name}[{self.index!r}]>"


def _batch_shape(tensor, batch_dim, enqueue_many):
    if hasattr(tensor, "get_shape"):
        shape = tensor.get_shape()
    elif isinstance(tensor, (np.ndarray, np.generic, list, tuple, int, float, bool, bytes)):
        shape = TensorShape(np.shape(tensor))
    else:  # anything else (a SparseTensor, ...): unknown
        shape = TensorShape(None)
    if enqueue_many:  # the first axis holds the examples
        shape = TensorShape(None) if shape.rank is None else TensorShape(list(shape)[1:])
    return TensorShape(None) if shape.rank is None else TensorShape([batch_dim] + list(shape))


def _outputs(tensors, queue, batch_dim, enqueue_many):
    def out(key):
        return BatchTensor(queue, key, _batch_shape(tensors[key], batch_dim, enqueue_many))
    if isinstance(tensors, dict):
        return {k: out(k) for k in tensors}
    outs = [out(i) for i in range(len(tensors))]
    return outs[0] if len(outs) == 1 else outs


def _pipeline(kind, tensor_lists, batch_size, capacity, min_after_dequeue, seed, enqueue_many,
              allow_smaller_final_batch, shuffle):
    if batch_size <= 0:
        raise InvalidArgumentError(f"batch_size must be > 0, received {batch_size}")
    if shuffle and min_after_dequeue >= capacity:
        raise InvalidArgumentError(f"capacity ({capacity}) must be larger than "
                                   f"min_after_dequeue ({min_after_dequeue})")
    first = tensor_lists[0]
    tensors = first if isinstance(first, dict) else list(first)
    ds = _Examples([t if isinstance(t, dict) else list(t) for t in tensor_lists], enqueue_many)
    if shuffle:
        ds = ds.shuffle(min(capacity, min_after_dequeue + batch_size), seed=seed)
    ds = ds.batch(batch_size, drop_remainder=not allow_smaller_final_batch)
    return _outputs(tensors, BatchQueue(kind, ds, batch_size),
                    None if allow_smaller_final_batch else batch_size, enqueue_many)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
          dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches examples in order (`tf.train.batch`).

    `tensors` is a list or dict of record tensors (from a reader and decoders);
    with `enqueue_many=True` each holds several examples along its first axis
    (none filters the record out), or is a preloaded array.
    """
    return _pipeline("batch", [tensors], batch_size, capacity, 0, None, enqueue_many,
                     allow_smaller_final_batch, False)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None,
                  enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                  shared_name=None, name=None):
    """Batches examples in random order (`tf.train.shuffle_batch`): a shuffle buffer of
    `min_after_dequeue + batch_size` examples (at most `capacity`)."""
    return _pipeline("shuffle_batch", [tensors], batch_size, capacity, min_after_dequeue, seed,
                     enqueue_many, allow_smaller_final_batch, True)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):
    """Like shuffle_batch, reading several readers in turn (`tf.train.shuffle_batch_join`).

    Readers sharing one filename queue read different files of the same epoch.
    """
    return _pipeline("shuffle_batch_join", list(tensors_list), batch_size, capacity,
                     min_after_dequeue, seed, enqueue_many, allow_smaller_final_batch, True)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Like batch, reading several readers in turn (`tf.train.batch_join`)."""
    return _pipeline("batch_join", list(tensors_list), batch_size, capacity, 0, None,
                     enqueue_many, allow_smaller_final_batch, False)


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None,
                          capacity=32, shared_name=None, name=None, cancel_op=None):
    """A queue of file names, each epoch's list shuffled if `shuffle`
    (`tf.train.string_input_producer`); OutOfRangeError after `num_epochs`."""
    names = [string_tensor] if isinstance(string_tensor, (str, bytes)) else list(string_tensor)
    return FilenameQueue(names, num_epochs, shuffle, seed)


def match_filenames_once(pattern, name=None):
    """The sorted file names matching a glob pattern, as an array of bytes."""
    return np.array(sorted(Dataset.list_files(pattern, shuffle=False)), object)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """One slice of each preloaded array at a time, as record tensors
    (`tf.train.slice_input_producer`)."""
    queue = _SliceQueue(tensor_list, num_epochs, shuffle, seed)
    return [RecordTensor(queue, (lambda k: lambda e, m: e[k])(k), f"slice:{k}")
            for k in range(len(tensor_list))]


class _SliceQueue(_Queue):
    def __init__(self, arrays, num_epochs, shuffle, seed):
        super().__init__("input_producer")
        # read when the queue starts: a TF-1 Variable gets its value from its initializer
        self.sources = list(arrays)
        self.num_epochs, self.shuffle, self.seed = num_epochs, shuffle, seed

    def _make(self):
        arrays = tuple(np.asarray(a) for a in self.sources)
        ds = Dataset.from_tensor_slices(arrays)
        if self.shuffle:
            ds = ds.shuffle(len(arrays[0]), seed=self.seed)
        return (e + () for e in ds.repeat(self.num_epochs).as_numpy_iterator())


class Coordinator:
    """Coordinates stopping input threads (`tf.train.Coordinator`).

    `request_stop(ex)` asks everything to stop and keeps the first exception
    (OutOfRangeError counts as a clean stop); `join()` raises it.
    """

    def __init__(self, clean_stop_exception_types=None):
        self._clean = tuple(clean_stop_exception_types or (OutOfRangeError,))
        self._stop = threading.Event()
        self._exc = None
        self._threads = []
        self.joined = False

    def request_stop(self, ex=None):
        if ex is not None and not isinstance(ex, self._clean) and self._exc is None:
            self._exc = ex
        self._stop.set()

    def should_stop(self):
        return self._stop.is_set()

    def clear_stop(self):
        self._stop.clear()
        self._exc = None

    def wait_for_stop(self, timeout=None):
        return self._stop.wait(timeout)

    def register_thread(self, thread):
        self._threads.append(thread)

    def raise_requested_exception(self):
        if self._exc is not None:
            raise self._exc

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for the threads, then raises the exception given to request_stop."""
        for t in list(threads or []) + self._threads:
            if hasattr(t, "join"):
                t.join()
        self.joined = True
        self.raise_requested_exception()

    def stop_on_exception(self):
        coord = self

        class _Guard:
            def __enter__(self):
                return self

            def __exit__(self, kind, value, tb):
                if value is not None:
                    coord.request_stop(value)
                return value is not None and isinstance(value, Exception)
        return _Guard()


class QueueRunner:
    """A queue's runner (`tf.train.QueueRunner(queue, enqueue_ops)`): queues fill in-line
    when a dequeue needs elements, running `enqueue_ops` then, so `join()` returns at once."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        self.queue = queue
        self.enqueue_ops = list(enqueue_ops or [])

    def join(self, timeout=None):
        pass

    def is_alive(self):
        return False


def add_queue_runner(qr, collection="queue_runners"):
    """Registers a QueueRunner: start_queue_runners starts its queue, and a dequeue from an
    empty queue runs its enqueue ops (`tf.train.add_queue_runner`)."""
    runners = getattr(qr.queue, "runners", None)
    if runners is None:
        raise InvalidArgumentError(f"add_queue_runner: {qr.queue!r} is not a queue that "
                                   "enqueue ops fill (tf.FIFOQueue)")
    runners.append(qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True, collection=None):
    """Starts every queue made so far; returns one QueueRunner per queue."""
    runners = []
    for q in list(_queues):
        if not q.started or isinstance(q, _Stream):
            q.started = True
        q.coord = coord
        runners.append(QueueRunner(q))
    return runners


class Operation:
    """A fetchable that does nothing (what the variable initializers return here)."""

    def __init__(self, name):
        self.name = name

    def run(self, session=None, feed_dict=None):
        return None


class Session:
    """TensorFlow 1's Session for input pipelines (`tf.compat.v1.Session`).

    `run(fetches)` dequeues one batch from each batching queue the fetches use
    (or reads one record for record tensors), and returns numpy values in the
    fetches' structure. A Python callable in the fetches is called (texflow's
    stand-in for a training op); NDArrays and Variables give their values.
    """

    _default = None

    def __init__(self, target="", graph=None, config=None):
        self.closed = False

    def __enter__(self):
        self._previous, Session._default = Session._default, self
        return self

    def __exit__(self, *exc):
        Session._default = self._previous
        self.close()

    def close(self):
        self.closed = True

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self.closed:
            raise InvalidArgumentError("Attempted to use a closed Session.")
        leaves = structure.flatten(fetches)
        batches, records = {}, {}
        for leaf in leaves:
            if isinstance(leaf, BatchTensor) and leaf.queue not in batches:
                batches[leaf.queue] = None
            if isinstance(leaf, RecordTensor) and leaf.stream not in records:
                records[leaf.stream] = None
        for q in batches:
            batches[q] = q.dequeue()
        for s in records:
            records[s] = (s._next(), {})
        return structure.pack_as(fetches, [self._value(x, batches, records) for x in leaves])

    def _value(self, x, batches, records):
        if isinstance(x, BatchTensor):
            return batches[x.queue][x.index]
        if isinstance(x, RecordTensor):
            element, memo = records[x.stream]
            return x.value(element, memo)
        if isinstance(x, Operation) or x is None:
            return None
        if callable(x):
            return x()
        if hasattr(x, "numpy") and callable(x.numpy):
            return x.numpy()
        if isinstance(x, FilenameQueue):
            return x.dequeue().name.encode()
        return np.asarray(x)
