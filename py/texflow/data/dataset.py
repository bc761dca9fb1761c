"""tf.data.Dataset: a pipeline of elements produced on the host, in numpy.

A Dataset is an immutable description; iterating it (a Python `for`,
`as_numpy_iterator()`, `iter()`) runs the pipeline from the start. Elements
are nested tuples and dicts of numpy values (scalars as numpy scalars, strings
as bytes); `as_numpy_iterator()` hands them out so, a Python `for` (as in
TensorFlow 2) as tf.Tensors held on the host until an op uploads them.

Inside, every stage is a generator that yields elements or `Failure` markers.
An error (a corrupt record, a bad CSV field, an exception in a `map`
function) travels down the pipeline as a marker in its place, so stages stay
usable after it: the iterator raises it, and a later `next()` goes on after
it, which is what `ignore_errors()` builds on.
"""

import glob as _glob
import os
import sys

import numpy as np

from ..engine import trace
from ..errors import InvalidArgumentError, OutOfRangeError
from ..tensor_spec import TensorSpec  # noqa: F401  (tf.data's element_spec type)
from . import iterator_state, spec, structure
from .extra_methods import ExtraMethods
from .options import Options
from .traced_loop import TracedLoop, element_shapes

AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2
THREADS = sys.platform != "emscripten"  # Pyodide cannot start threads


class Failure:
    """An error in place of an element (see the module docstring)."""

    __slots__ = ("exc",)

    def __init__(self, exc):
        self.exc = exc


class Context:
    """Per-iteration settings: whether stages may use threads."""

    def __init__(self, options):
        pool = options.threading.private_threadpool_size
        self.threads = THREADS and pool != 1


def call(fn, element):
    """Calls a user function the way tf.data does: a tuple element is unpacked."""
    return fn(*element) if type(element) is tuple else fn(element)


class Dataset(ExtraMethods):
    """A pipeline of elements (`tf.data.Dataset`).

    >>> ds = Dataset.range(10).filter(lambda x: x % 2 == 0).map(lambda x: x * 10).batch(2)
    >>> [b.tolist() for b in ds]
    [[0, 20], [40, 60], [80]]
    """

    _inputs = ()

    # -- iteration ---------------------------------------------------------------------

    def _gen(self, ctx):
        raise NotImplementedError("need _gen")

    def _cardinality(self):
        return UNKNOWN

    def __iter__(self):
        """An iterator of elements as TensorFlow 2 gives them: arrays and numbers as
        tf.Tensors (on the host until an op uploads them), strings as bytes. Inside a
        tf.function: a loop unrolled at trace time (data/traced_loop.py)."""
        if trace.traced():
            return TracedLoop(self)
        return DatasetIterator(self, tensors=True)

    def as_numpy_iterator(self):
        """An iterator of elements as numpy values (what the pipeline computes)."""
        return DatasetIterator(self)

    def cardinality(self):
        """The number of elements, or INFINITE (-1) / UNKNOWN (-2), as a scalar tf.Tensor
        (TensorFlow's int64, narrowed)."""
        return structure.as_tensor(np.int64(self._cardinality()))

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True

    def __repr__(self):  # TensorFlow's class names, so printing a dataset reads the same
        name = getattr(self, "_tf_name", None) or f"_{type(self).__name__.strip('_')}Dataset"
        return f"<{name} element_spec={self.element_spec!r}>"

    def _spec(self):
        return spec.from_data(self)

    @property
    def element_spec(self):
        """TensorSpecs of the elements, with TensorFlow's static shapes (a batch's size
        is None unless `drop_remainder=True`); read from the first element where
        TensorFlow traces a function (data/spec.py). None for an empty dataset whose
        spec depends on its data."""
        return self._spec()

    def options(self):
        """The merged Options of this pipeline."""
        merged = Options()
        for inp in self._inputs:
            merged = merged.merge(inp.options())
        own = getattr(self, "_options", None)
        return merged.merge(own) if own is not None else merged

    def with_options(self, options):
        """A dataset with `options` set (they win over options set before)."""
        from .transforms import WithOptions
        return WithOptions(self, options)

    def reduce(self, initial_state, reduce_func):
        """Folds the elements into one value with `reduce_func(state, element)` (which
        sees numpy values, as a `map` function does); returns it as tf.Tensors."""
        state = structure.normalize(initial_state, True)
        for element in self.as_numpy_iterator():
            state = structure.normalize(reduce_func(state, element), True)
        return structure.map_structure(structure.as_tensor, state)

    def apply(self, transformation_func):
        """`transformation_func(self)`, for chaining custom transformations."""
        return transformation_func(self)

    # -- sources -----------------------------------------------------------------------

    @staticmethod
    def from_tensors(tensors):
        """A dataset of one element, `tensors`."""
        return _Tensors(structure.map_structure(_own, structure.normalize(tensors, False)))

    @staticmethod
    def from_tensor_slices(tensors):
        """A dataset of the slices of `tensors` along their first dimension.

        >>> [int(x["a"]) for x in Dataset.from_tensor_slices({"a": [1, 2]})]
        [1, 2]
        """
        return _Slices(structure.map_structure(_own, structure.normalize(tensors, False)))

    @staticmethod
    def range(*args, output_type="int64", name=None):
        """`range(stop)`, `range(start, stop[, step])` as scalars of `output_type`
        (int64)."""
        if not 1 <= len(args) <= 3:
            raise InvalidArgumentError(f"range takes 1 to 3 arguments, received {len(args)}")
        r = range(*(int(a) for a in args))
        return _Range(r, structure.host_dtype(getattr(output_type, "name", output_type)))

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None):
        """A dataset of the values a Python generator function yields.

        Args:
            generator: a callable returning an iterator (called once per iteration).
            output_types / output_shapes: the dtypes and shapes of the components
                (nested like the elements); values are converted to them and a shape
                that does not fit raises InvalidArgumentError.
            args: arguments for `generator`.
            output_signature: TensorSpecs, instead of output_types/output_shapes.
        """
        from .generator import Generator
        return Generator(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        """The file names (bytes) matching the glob pattern(s), sorted, then shuffled
        (each iteration anew) unless `shuffle=False`."""
        patterns = [file_pattern] if isinstance(file_pattern, (str, bytes, os.PathLike)) \
            else list(file_pattern)
        names = sorted({os.fsencode(m) for p in patterns for m in _glob.glob(os.fsdecode(p))})
        if not names:
            raise InvalidArgumentError(f"No files matched pattern: "
                                       f"{', '.join(os.fsdecode(p) for p in patterns)}")
        array = np.empty(len(names), object)
        array[:] = names
        ds = _Slices(array)
        if shuffle is None or shuffle:
            ds = ds.shuffle(len(names), seed=seed)
        return ds

    @staticmethod
    def zip(*datasets):
        """Elements of several datasets side by side (ends with the shortest).

        Takes a tuple or dict of datasets (or several datasets as arguments)."""
        from .transforms import Zip
        if len(datasets) == 1 and not isinstance(datasets[0], Dataset):
            datasets = datasets[0]
        return Zip(datasets)

    # -- transformations (see transforms.py) ---------------------------------------------

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Applies `map_func` to each element (tuples are unpacked into arguments)."""
        from .transforms import Map
        return Map(self, map_func, num_parallel_calls, deterministic)

    def filter(self, predicate, name=None):
        """Keeps the elements for which `predicate` is true."""
        from .transforms import Filter
        return Filter(self, predicate)

    def flat_map(self, map_func, name=None):
        """Maps each element to a dataset and flattens the results in order."""
        from .transforms import Interleave
        ds = Interleave(self, map_func, 1, 1, None)
        ds._tf_name = "_FlatMapDataset"
        return ds

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        """Maps elements to datasets and interleaves them: `cycle_length` open at
        a time, `block_length` consecutive elements from each."""
        from .transforms import Interleave
        if cycle_length is None or cycle_length == AUTOTUNE:
            cycle_length = os.cpu_count() or 1
        return Interleave(self, map_func, int(cycle_length), int(block_length or 1),
                          num_parallel_calls)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Shuffles with a buffer of `buffer_size` elements (a new order each iteration
        unless `reshuffle_each_iteration=False`)."""
        from .transforms import Shuffle
        return Shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Stacks `batch_size` consecutive elements (the last batch may be smaller)."""
        from .batching import Batch
        return Batch(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Batches elements of different shapes, padding each to `padded_shapes`
        (None or -1 dimensions: the longest in the batch)."""
        from .batching import PaddedBatch
        return PaddedBatch(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def unbatch(self, name=None):
        """Splits each element into its rows."""
        from .batching import Unbatch
        return Unbatch(self)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """Re-batches batched elements to `batch_size` (an int, or a list of sizes
        used in turn)."""
        from .batching import Rebatch
        return Rebatch(self, batch_size, drop_remainder)

    def repeat(self, count=None, name=None):
        """Repeats the dataset `count` times (None or -1: forever)."""
        from .transforms import Repeat
        return Repeat(self, count)

    def take(self, count, name=None):
        """At most the first `count` elements (-1: all)."""
        from .transforms import Take
        return Take(self, count)

    def skip(self, count, name=None):
        """All but the first `count` elements (-1: skips all)."""
        from .transforms import Skip
        return Skip(self, count)

    def cache(self, filename="", name=None):
        """Keeps the elements of the first complete pass in memory, or in the file
        `filename`, and replays them afterwards."""
        from .transforms import Cache
        return Cache(self, filename)

    def prefetch(self, buffer_size, name=None):
        """Produces up to `buffer_size` elements ahead, in a thread natively (in-line in
        Pyodide, with the same results)."""
        from .transforms import Prefetch
        return Prefetch(self, buffer_size)

    def shard(self, num_shards, index, name=None):
        """Every `num_shards`-th element, starting at `index`."""
        from .transforms import Shard
        return Shard(self, num_shards, index)

    def enumerate(self, start=0, name=None):
        """(index, element) pairs, the index an int64 from `start`."""
        from .transforms import Zip
        return Zip((_Count(int(start)), self))

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then `dataset`'s."""
        from .transforms import Concatenate
        return Concatenate(self, dataset)

    def ignore_errors(self, log_warning=False, name=None):
        """Drops the elements whose production raised an error, counting them.

        The returned dataset's `skipped` attribute counts the errors it ignored
        (over all iterations) and `skipped_errors` keeps their messages (the
        first 100); each pass that skipped anything logs one warning with the
        count on the `texflow.data` logger, and `log_warning=True` also logs
        each error. For file readers, an error skips the rest of that file, as
        in TensorFlow.
        """
        from .transforms import IgnoreErrors
        return IgnoreErrors(self, log_warning)


class DatasetIterator:
    """Iterates a Dataset; `next()` raises StopIteration, `get_next()` OutOfRangeError."""

    def __init__(self, dataset, tensors=False):
        self._dataset = dataset
        self._gen = dataset._gen(Context(dataset.options()))
        self._tensors = tensors
        self._ahead = []  # an element a get_concrete_function trace looked at
        self._pulled = 0  # elements taken from _gen (a checkpoint's position)
        self._checkpointed = False  # a checkpoint walked it: check its position

    def __iter__(self):
        return self

    def __next__(self):
        if self._tensors and trace.traced():  # in a tf.function: every replay takes the next
            return trace.host_call(self._traced_next())
        return self._next()

    next = __next__

    def _next(self, keep=False):
        """The next element; `keep`: it stays the next one (a dry trace's)."""
        if self._checkpointed:
            iterator_state.follow(self)
        if self._ahead:
            element = self._ahead.pop()
        else:
            element = next(self._gen)
            self._pulled += 1
        if keep:
            self._ahead.append(element)
        if type(element) is Failure:
            raise element.exc
        if self._tensors:
            return structure.map_structure(structure.as_tensor, element)
        return element

    def _traced_next(self):
        """`next()` as a tf.function's host code: the end of the data raises
        OutOfRangeError, as TensorFlow's does, and an element of other shapes than the
        trace's (a short last batch) raises, since a trace has static shapes."""
        traced_shapes = []

        def next_element():
            try:
                element = self._next(keep=trace.dry())
            except StopIteration:
                raise OutOfRangeError("End of sequence") from None
            shapes = element_shapes(element)
            if not traced_shapes:
                traced_shapes.append(shapes)
            elif shapes != traced_shapes[0]:
                raise InvalidArgumentError(
                    f"next(iterator) inside tf.function gave an element of shapes {shapes}, "
                    f"but the function was traced for {traced_shapes[0]}: a texflow trace has "
                    "static shapes. Batch with drop_remainder=True, or pass the element to "
                    "the function as an argument (each new shape then traces once).")
            return element
        return next_element

    def get_next(self):
        """The next element; OutOfRangeError at the end (TensorFlow's end of sequence)."""
        try:
            return self.__next__()
        except StopIteration:
            raise OutOfRangeError("End of sequence") from None

    @property
    def element_spec(self):
        return self._dataset.element_spec


def _own(leaf):
    """A copy of a numpy leaf the caller gave (TensorFlow copies it: changing the caller's
    array later changes no element)."""
    return leaf.copy() if isinstance(leaf, np.ndarray) else leaf


class _Tensors(Dataset):
    _tf_name = "_TensorDataset"
    def __init__(self, value):
        self.value = value

    def _gen(self, ctx):
        yield self.value

    def _cardinality(self):
        return 1

    def _spec(self):
        return spec.of_element(self.value)


class _Slices(Dataset):
    _tf_name = "_TensorSliceDataset"
    def __init__(self, value):
        self.value = value
        self.leaves, self.count = structure.slices(value)

    def _gen(self, ctx):
        leaves, value = self.leaves, self.value
        if len(leaves) == 1 and not isinstance(value, (tuple, dict, list)):
            yield from leaves[0]  # rows of one array: numpy scalars, bytes or arrays
            return
        for i in range(self.count):
            yield structure.pack_as(value, [leaf[i] for leaf in leaves])

    def _cardinality(self):
        return self.count

    def _spec(self):
        return spec.unbatched(spec.of_element(structure.map_structure(
            lambda x: x[:0] if isinstance(x, np.ndarray) else x, self.value)))


class _Range(Dataset):
    def __init__(self, r, dtype):
        self.r, self.dtype = r, dtype

    def _gen(self, ctx):
        t = self.dtype.type
        for i in self.r:
            yield t(i)

    def _cardinality(self):
        r = self.r  # not len(): it overflows ssize_t for huge ranges on 32-bit wasm
        return max(0, (r.stop - r.start + r.step - (1 if r.step > 0 else -1)) // r.step)

    def _spec(self):
        return TensorSpec([], structure.dtype_name(self.dtype))


class _Count(Dataset):
    _tf_name = "_RangeDataset"
    def __init__(self, start):
        self.start = start

    def _gen(self, ctx):
        i = self.start
        while True:
            yield np.int64(i)
            i += 1

    def _cardinality(self):
        return INFINITE

    def _spec(self):
        return TensorSpec([], "int64")


iterator_state.register(DatasetIterator)
