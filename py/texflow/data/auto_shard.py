"""Sharding a pipeline by its files, as tf.distribute's FILE (and AUTO) auto-sharding does.

TensorFlow 2.21 rewrites the pipeline: it looks from the end of the pipeline back to
where the file names come from (a reader's list of files, or the dataset of names that
an interleave or flat_map opens with a reader, such as `Dataset.list_files`) and shards
those names, so worker i of N reads the files i, i + N, ... and the rest of the pipeline
runs unchanged on them. The shard goes right after the names' source, before any shuffle
of the names (measured: with `list_files(shuffle=True)` and no seed the workers still
read disjoint files, each in its own order). Fewer files than workers raises
InvalidArgumentError when the pipeline is read (TensorFlow's message).

A pipeline with no file source (or a zip or concatenation of which one part has none)
cannot be sharded by files: `shard_by_files` returns None.
"""

import copy

from ..errors import InvalidArgumentError
from .dataset import Dataset, Failure, call
from .readers import _FileDataset
from .transforms import Cache, Concatenate, Interleave, Shuffle, Zip, _Unary


class FileShard(Dataset):
    """Names `index`, `index + count`, ... of `names` (a Dataset or a list of Sources),
    checking that every worker gets at least one file."""

    def __init__(self, names, count, index):
        self.names, self.count, self.index = names, count, index
        self._inputs = (names,) if isinstance(names, Dataset) else ()

    def _gen(self, ctx):
        names = self.names._gen(ctx) if isinstance(self.names, Dataset) else self.names
        names = list(names)
        failures = [n for n in names if type(n) is Failure]
        if failures:
            yield from failures
            return
        if len(names) < self.count:
            raise InvalidArgumentError(
                f"Could not apply FILE based sharding: the dataset only has {len(names)} "
                f"file(s), which is not enough for the required {self.count} shards/workers. "
                "If you are using datasets with distribution strategy, consider setting the "
                "auto sharding policy to either DATA or OFF using the "
                "`experimental_distribute.auto_shard_policy` option of `tf.data.Options()`. "
                "Or, split your input files into a larger number of small files such that "
                "number of files is greater than number of shards/workers.")
        yield from names[self.index::self.count]

    def _cardinality(self):
        n = len(self.names) if not isinstance(self.names, Dataset) else \
            self.names._cardinality()
        return n if n < 0 else len(range(self.index, n, self.count))


def shard_by_files(dataset, count, index):
    """`dataset` with its file names sharded for worker `index` of `count` (a new pipeline;
    `dataset` is left as it is), or None when no source of it reads files."""
    return _rewrite(dataset, count, index)


def _with(ds, **attrs):
    """A copy of the stage `ds` with `attrs` replaced (a cache starts empty: what it kept
    came from every file)."""
    clone = copy.copy(ds)
    if isinstance(ds, Cache):
        clone.elements = None
    clone.__dict__.update(attrs)
    return clone


def _with_input(ds, inp):
    return _with(ds, inp=inp, _inputs=(inp,))


def _reads_files(interleave):
    """Whether the interleave's function opens a file reader, as TensorFlow looks for a
    reader in the function's graph: the function is called on the first file name (read
    with the shuffles left out, so that their state does not move); a function that fails
    on it would fail when read, and is taken as not reading files."""
    try:
        for name in _unshuffled(interleave.inp).take(1).as_numpy_iterator():
            return _has_reader(call(interleave.fn, name))
    except Exception:  # noqa: BLE001 (see the docstring)
        return False
    return False


def _has_reader(ds):
    return isinstance(ds, _FileDataset) or (
        isinstance(ds, Dataset) and any(_has_reader(d) for d in ds._inputs))


def _unshuffled(ds):
    if isinstance(ds, Shuffle):
        return _unshuffled(ds.inp)
    return _with_input(ds, _unshuffled(ds.inp)) if isinstance(ds, _Unary) else ds


def _names_source(ds, count, index):
    """The dataset of file names `ds` with the shard right after its source."""
    if isinstance(ds, _Unary):
        return _with_input(ds, _names_source(ds.inp, count, index))
    return FileShard(ds, count, index)


def _rewrite(ds, count, index):
    if isinstance(ds, _FileDataset):
        names = _names_source(ds.files, count, index) if isinstance(ds.files, Dataset) \
            else FileShard(list(ds.files), count, index)
        return _with(ds, files=names, _inputs=(names,))
    if isinstance(ds, Interleave) and _reads_files(ds):
        return _with_input(ds, _names_source(ds.inp, count, index))
    if isinstance(ds, _Unary):
        inner = _rewrite(ds.inp, count, index)
        return None if inner is None else _with_input(ds, inner)
    if isinstance(ds, (Zip, Concatenate)):  # every part must read files
        parts = [_rewrite(d, count, index) for d in ds._inputs]
        return None if any(p is None for p in parts) else _with(ds, _inputs=tuple(parts))
    return None
