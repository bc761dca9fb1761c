"""Distributed input: a dataset batched with the global batch size, cut for the replicas.

As TensorFlow 2.21's MultiWorkerMirroredStrategy does it: every global batch of B
examples is cut into one piece per replica in sync, as even as can be (the first `B % R`
pieces one row larger), and the dataset's auto-shard policy decides what this worker
reads and which pieces it takes:

- FILE and AUTO on a dataset read from files (TFRecord, text line, fixed-length and CSV
  readers, or file names such as `list_files` opened by interleave/flat_map with one):
  worker i of N reads the files i, i + N, ... (`data/auto_shard.py`: the shard goes right
  after the names' source, before any shuffle of them; fewer files than workers raises
  InvalidArgumentError when read) and takes every piece of its own batches, one per step,
  as OFF does. Its number of pieces may differ from the others', so before each the
  workers say whether they have one (AgreedSteps: one all-reduce of a flag), and one
  without gets empty batches until all are done, as TensorFlow's do (Keras's step runs
  an empty batch with zero gradients).
- DATA, and AUTO on a dataset not read from files: worker w takes its own pieces of every
  global batch, so the workers together see exactly the batches one process would, in the
  same order. FILE on such a dataset falls back to this with a warning (TensorFlow raises
  NotFoundError "Found an unshardable source dataset"). HINT is taken as DATA.
- OFF: no sharding; each worker goes through its whole dataset, its pieces one after
  another (a worker's epoch has as many steps as its batches have pieces), the sizes of
  a cut starting with its own piece's, as TensorFlow's rebatching does; a short last
  batch gives a full batch's pieces in turn until its rows run out.

What these give was checked against TensorFlow 2.21's MultiWorkerMirroredStrategy with
two processes (range(8).batch(4) and range(10).batch(5) under DATA, AUTO and OFF; three
TFRecord files under each policy, with list_files, interleave, shuffles and one file:
tests/data/distribute/file_shards.json).

A dataset whose elements are not batched (scalar leaves) is sharded element by element.
"""

import itertools
import warnings

import numpy as np

from ..data import structure
from ..data.auto_shard import shard_by_files
from ..data.dataset import UNKNOWN, Dataset, Failure
from ..data.options import AutoShardPolicy
from ..engine import trace
from ..engine.ndarray import NDArray
from .strategy import _entered
from .values import InputContext, InputReplicationMode, PerReplica


def split_sizes(n, parts):
    """Rows of each of `parts` pieces of a batch of `n` rows (the first n % parts get one
    more)."""
    return [n // parts + (1 if i < n % parts else 0) for i in range(parts)]


def _rows(element):
    for leaf in structure.flatten(element):
        if leaf is None:
            continue
        shape = getattr(leaf, "shape", None)
        if shape is None:
            shape = np.shape(leaf)
        return shape[0] if len(shape) else None
    return None


def _cut(leaf, start, stop):
    if leaf is None:
        return None
    if isinstance(leaf, NDArray):
        from ..ops.movement import slice as slice_
        return slice_(leaf, [start] + [0] * (len(leaf.shape) - 1),
                      [stop - start] + list(leaf.shape[1:]))
    return leaf[start:stop]


def split_batch(element, parts, rotate=0, full=None):
    """`element` (a nested batch) cut along its first axis into `parts` pieces; `rotate`
    starts the piece sizes at that piece's (TensorFlow's rebatch for worker w without
    sharding gives its own size first). With `full` (the pipeline's batch size), a short
    batch is cut as TensorFlow's rebatch cuts it: the pieces of a full batch, in turn,
    until its rows run out (so there may be fewer pieces)."""
    n = _rows(element)
    if n is None:
        raise ValueError("a batch to split over replicas must have a batch axis; received "
                         "an element of scalars")
    sizes = split_sizes(full if full and n < full else n, parts)
    sizes = sizes[rotate:] + sizes[:rotate]
    if full and n < full:
        left, short = n, []
        for size in sizes:
            if left:
                short.append(min(size, left))
                left -= short[-1]
        sizes = short
    out, start = [], 0
    for size in sizes:
        out.append(structure.map_structure(
            lambda leaf, a=start, b=start + size: _cut(leaf, a, b), element))
        start += size
    return out


def _policy(dataset):
    try:
        return AutoShardPolicy(dataset.options().experimental_distribute.auto_shard_policy)
    except AttributeError:
        return AutoShardPolicy.DATA


def shard_policy(dataset):
    """The policy for `dataset` when it is not sharded by its files: AUTO is DATA, and
    FILE falls back to DATA with a warning (TensorFlow raises NotFoundError)."""
    policy = _policy(dataset)
    if policy == AutoShardPolicy.FILE:
        warnings.warn("auto_shard_policy FILE on a dataset that is not read from files "
                      "(no TFRecordDataset, TextLineDataset, FixedLengthRecordDataset or "
                      "CsvDataset, nor a list_files interleaved into one): texflow falls "
                      "back to sharding by data (AutoShardPolicy.DATA: the workers see the "
                      "batches one process would), where TensorFlow 2.21 raises NotFoundError "
                      "\"Found an unshardable source dataset\". Set auto_shard_policy to DATA "
                      "or OFF to silence this", stacklevel=4)
    return AutoShardPolicy.OFF if policy == AutoShardPolicy.OFF else AutoShardPolicy.DATA


def last_batch(dataset):
    """The pipeline's last `batch` stage (TensorFlow's rebatch cuts by its size), or None
    when there is none, or an unbatch or rebatch follows it."""
    from ..data.batching import Batch, Rebatch, Unbatch
    while not isinstance(dataset, Batch):
        if isinstance(dataset, (Unbatch, Rebatch)) or len(dataset._inputs) != 1:
            return None
        dataset = dataset._inputs[0]
    return dataset


class WorkerShard(Dataset):
    """This worker's pieces of every global batch of `inp` (see the module docstring)."""

    def __init__(self, inp, num_pieces, pieces, element_wise_shard, rotate=0):
        self.inp = inp
        self._inputs = (inp,)
        self.num_pieces, self.pieces = num_pieces, tuple(pieces)
        self.element_wise_shard, self.rotate = element_wise_shard, rotate
        self._batch = None if element_wise_shard else last_batch(inp)
        self.full = None if self._batch is None else self._batch.size

    def _gen(self, ctx):
        i = 0
        for e in self.inp._gen(ctx):
            if type(e) is Failure:
                yield e
                continue
            n = _rows(e)
            if n is None:  # not batched: whole elements, round robin
                if i % self.num_pieces in self.pieces or not self.element_wise_shard:
                    yield e
                i += 1
                continue
            if not self.element_wise_shard:  # every piece: a short batch may have fewer
                yield from split_batch(e, self.num_pieces, self.rotate, self.full)
                continue
            cut = split_batch(e, self.num_pieces, self.rotate)
            for p in self.pieces:
                yield cut[p]

    def _cardinality(self):
        n = self.inp._cardinality()
        if n < 0 or len(self.pieces) == 1:
            return n
        rows = -1 if self._batch is None or self._batch.drop else \
            self._batch.inp._cardinality()
        if self.full is None or rows < 0 or rows % self.full == 0:
            return n * len(self.pieces)
        from ..data.transforms import Map, Prefetch, WithOptions
        stage = self.inp
        while stage is not self._batch:  # one short batch, last, only through these
            if not isinstance(stage, (Map, Prefetch, WithOptions)):
                return UNKNOWN
            stage = stage.inp
        short = split_batch(np.zeros(rows % self.full), self.num_pieces, self.rotate,
                            self.full)  # the short last batch's pieces
        return (n - 1) * len(self.pieces) + len(short)


def file_sharded(strategy, dataset):
    """This worker's files of `dataset` (FILE and AUTO policies) as a new pipeline, or None
    when it is not sharded by files (another policy, one worker, or no file source)."""
    ext = strategy.extended
    if ext.worker_count == 1 or _policy(dataset) not in (AutoShardPolicy.AUTO,
                                                         AutoShardPolicy.FILE):
        return None
    return shard_by_files(dataset, ext.worker_count, ext.worker_index)


def worker_dataset(strategy, dataset):
    """This worker's dataset of `dataset`'s global batches: its pieces, per the policy."""
    ext = strategy.extended
    if ext.worker_count == 1:
        return dataset
    local = len(ext.devices)
    mine = file_sharded(strategy, dataset)
    if mine is not None or shard_policy(dataset) == AutoShardPolicy.OFF:
        # Its own files, or all the data (OFF): every piece of every batch, this worker's
        # replicas taking turns, the cut's sizes starting with its own piece's.
        shard = WorkerShard(dataset if mine is None else mine, ext.worker_count * local,
                            range(ext.worker_count * local), False, ext.worker_index * local)
        return shard if mine is None else AgreedSteps(shard, ext, dataset)
    first = ext.worker_index * local
    return WorkerShard(dataset, ext.worker_count * local, range(first, first + local), True)


class AgreedSteps(Dataset):
    """A worker's pieces of its own files, as many as every other worker's: before each
    piece the workers say whether they have one (one all-reduce of a flag, as TensorFlow's
    do), and while any has, one without gets an empty batch (`whole`, the dataset before
    sharding, gives the structure to one that never had data). Keras's step runs an empty
    batch as a replica without data."""

    def __init__(self, inp, ext, whole):
        self.inp, self._inputs, self._ext, self._whole = inp, (inp,), ext, whole

    def _gen(self, ctx):
        template, pieces = None, self.inp._gen(ctx)
        while True:
            e = next(pieces, _END)
            if type(e) is Failure:  # an error in place of a piece: the others wait on it
                yield e
                continue
            (having,) = self._ext._cross_worker([np.array([e is not _END], np.int64)])
            if e is not _END:
                template = e
                yield e
            elif not int(np.sum(having)):
                return
            else:
                if template is None:
                    for template in self._whole.as_numpy_iterator():
                        break
                yield structure.map_structure(_empty, template)


def _to_replica(strategy, element, replica):
    """`element`'s leaves as texflow arrays on the replica's device (strings stay numpy
    arrays of bytes, as a Dataset's iterator gives them)."""
    from ..keras.layers.base import as_tensor

    def place(x):
        if isinstance(x, NDArray):
            return x
        x = np.asarray(x)
        return x if x.dtype == object else as_tensor(x)
    with strategy.extended._replica(replica):
        return structure.map_structure(place, element)


class DistributedDataset:
    """What `experimental_distribute_dataset` returns: iterate it (every iteration
    starts the dataset afresh) for each step's input, one value per local replica."""

    def __init__(self, strategy, dataset, options=None):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"experimental_distribute_dataset takes a tf.data.Dataset; "
                            f"received {type(dataset).__name__}")
        self._strategy, self._options = strategy, options
        self._global = dataset
        ext = strategy.extended
        self._dataset = worker_dataset(strategy, dataset)
        self._local = len(ext.devices)
        self._split = ext.worker_count == 1 and self._local > 1

    def __iter__(self):
        return DistributedIterator(self._strategy, self._elements(), self._local)

    def _keras_dataset(self):
        """What Keras's fit/evaluate/predict take from it (Keras 3 takes distributed
        datasets): the dataset of global batches, which a model made in the strategy's
        scope cuts for the workers and replicas as it does any dataset."""
        return self._global, False

    def _elements(self):
        for element in self._dataset.as_numpy_iterator():
            if self._split:
                yield from split_batch(element, self._local)
            else:
                yield element

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def reduce(self, initial_state, reduce_fn):
        state = initial_state
        for value in self:
            state = reduce_fn(state, value)
        return state


class DistributedDatasetsFromFunction(DistributedDataset):
    """What `distribute_datasets_from_function` returns: this worker's dataset from the
    function, its elements going to the local replicas in turn."""

    def __init__(self, strategy, dataset_fn, options=None):
        ext = strategy.extended
        self._strategy, self._options = strategy, options
        mode = getattr(options, "experimental_replication_mode", None)
        if mode is InputReplicationMode.PER_REPLICA and len(ext.devices) > 1:
            # (with one replica per worker, a pipeline per replica is one per worker)
            raise NotImplementedError(
                f"InputReplicationMode.PER_REPLICA with {len(ext.devices)} replicas in one "
                "process: texflow makes one input pipeline per worker (PER_WORKER), whose "
                "elements go to the local replicas in turn")
        context = InputContext(ext.worker_count, ext.worker_index,
                               strategy.num_replicas_in_sync)
        with _entered(strategy):
            dataset = dataset_fn(context)
        if not isinstance(dataset, Dataset):
            raise TypeError(f"the function given to distribute_datasets_from_function must "
                            f"return a tf.data.Dataset; it returned {type(dataset).__name__}")
        self._global = self._dataset = dataset
        self._local = len(ext.devices)
        self._split = False

    def _keras_dataset(self):
        """This worker's dataset as it is (no sharding), every `local` elements (one per
        local replica) joined into one batch, which the step cuts again."""
        from ..data.batching import Batch

        class ReplicaGroups(Batch):
            def _stack(self, items):
                return _join(items, np.concatenate)
        joined = self._dataset if self._local == 1 else ReplicaGroups(self._dataset,
                                                                      self._local, False)
        return joined, True


class DistributedIterator:
    """Steps' inputs: a value per local replica (a PerReplica when there are several)."""

    def __init__(self, strategy, elements, local):
        self._strategy, self._elements, self._local = strategy, elements, local

    def __iter__(self):
        return self

    def __next__(self):
        if trace.traced():  # a tf.function's replay takes the next element again
            got = trace.host_call(self._next_values)
        else:
            got = self._next_values()
        if len(got) == 1 and self._local == 1:
            return got[0]
        return _per_replica(got)

    def _next_values(self):
        got = []
        for r in range(self._local):
            element = next(self._elements, _END)
            if element is _END:
                break
            got.append(element)
        if not got:
            raise StopIteration
        if trace.dry():  # get_concrete_function takes no element for good
            self._elements = itertools.chain(got, self._elements)
        return [_to_replica(self._strategy, e, r) for r, e in enumerate(got)]

    def get_next(self):
        from ..errors import OutOfRangeError
        try:
            return next(self)
        except StopIteration:
            raise OutOfRangeError("End of sequence") from None

    @property
    def element_spec(self):
        return None


_END = object()


def _empty(leaf):
    """No rows of `leaf`'s kind (a leaf of an unbatched element: a vector of none)."""
    if leaf is None:
        return None
    leaf = np.asarray(leaf)
    return leaf[:0] if leaf.ndim else np.empty((0,), leaf.dtype)


def _per_replica(values):
    first = values[0]
    if isinstance(first, tuple) and all(isinstance(v, tuple) and len(v) == len(first)
                                        for v in values):
        return tuple(_per_replica([v[i] for v in values]) for i in range(len(first)))
    if isinstance(first, dict):
        return {k: _per_replica([v[k] for v in values]) for k in first}
    return PerReplica(values)


class KerasWorkerData:
    """fit's or evaluate's DataHandler yielding this worker's part of each global batch
    (DATA: its pieces; OFF: every piece, one step each)."""

    def __init__(self, ext, handler):
        self._ext, self._handler = ext, handler
        source = getattr(handler, "source", None)
        self._off = isinstance(source, Dataset) and shard_policy(source) == AutoShardPolicy.OFF
        self._per_batch = self._num if self._off else 1
        self._last = None  # the global batch of the last piece (recovery cuts it again)

    # The cut follows the group's size and this worker's rank as they are now: an elastic
    # group (recovery_keras) changes them between steps.
    @property
    def _num(self):
        return self._ext.worker_count * len(self._ext.devices)

    @property
    def _pieces(self):
        local = len(self._ext.devices)
        first = self._ext.worker_index * local
        return list(range(self._num)) if self._off else list(range(first, first + local))

    @property
    def _rotate(self):
        return self._ext.worker_index * len(self._ext.devices) if self._off else 0

    def recut(self):
        """This worker's part of the last global batch, cut for the group as it is now."""
        if self._off or self._last is None:
            raise ValueError("only DATA-sharded batches can be cut again for a new group")
        mine = [split_batch(self._last, self._num)[p] for p in self._pieces]
        return mine[0] if len(mine) == 1 else _join(mine)

    def __getattr__(self, name):
        return getattr(self._handler, name)

    @property
    def steps(self):
        steps = self._handler.steps
        return None if steps is None else steps * self._per_batch

    @property
    def known_steps(self):
        known = self._handler.known_steps
        return None if known is None else known * self._per_batch

    def resume(self, epoch, step):
        return self._handler.resume(epoch, step // self._per_batch) * self._per_batch + \
            step % self._per_batch

    def batches(self, skip=0):
        drop = skip % self._per_batch
        local = len(self._ext.devices)
        for batch in self._handler.batches(skip // self._per_batch):
            cut = split_batch(batch, self._num, self._rotate)
            self._last = batch
            if self._per_batch == 1:
                mine = [cut[p] for p in self._pieces]
                yield mine[0] if local == 1 else _join(mine)
                continue
            for piece in cut[drop:]:
                yield piece
            drop = 0


def _join(pieces, concat=None):
    """The pieces of one worker's replicas as one batch (its step cuts it again)."""
    if concat is None:
        from ..ops.movement import concat
    flat = [structure.flatten(p) for p in pieces]
    joined = [None if leaves[0] is None else concat(list(leaves), 0)
              for leaves in zip(*flat)]
    return structure.pack_as(pieces[0], joined)
