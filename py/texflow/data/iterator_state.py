"""Checkpointing a tf.data iterator: `tf.train.Checkpoint(iterator=iter(ds))`.

TensorFlow saves the state of every stage. texflow saves the iterator's
position (the number of elements it has handed out) in a variable; restoring
it starts the pipeline again and skips that many elements, which gives the
same elements where the pipeline is deterministic (no unseeded shuffle, no
`sample_from_datasets` without a seed, ...). A seeded shuffle that reshuffles
each pass is replayed from its first pass's order in a new process (as after a
restart), and from the next pass's within the process that saved it.
"""

import numpy as np

from ..autodiff.variable import Variable
from ..checkpoint import graph


def _describe(iterator):
    """The checkpoint's view of an iterator: its position, as one variable."""
    position = iterator._pulled - len(iterator._ahead)
    if getattr(iterator, "_position", None) is None:
        iterator._position = Variable(np.int64(position), trainable=False,
                                      name="iterator_position")
    elif not iterator._checkpointed:  # else it holds the position, or a restored one
        iterator._position.assign(np.int64(position))
    iterator._checkpointed = True
    return [iterator._position], []


def follow(iterator):
    """After a checkpoint walked `iterator`: if a restore moved its position, starts its
    pipeline again and skips to the restored position."""
    from .dataset import Context
    iterator._checkpointed = False
    position = int(iterator._position.numpy())
    if position == iterator._pulled - len(iterator._ahead):
        return
    iterator._gen.close()  # ends the old pass (its prefetch threads)
    dataset = iterator._dataset
    iterator._gen = dataset._gen(Context(dataset.options()))
    iterator._ahead, iterator._pulled = [], 0
    for _ in range(position):
        if next(iterator._gen, _END) is _END:
            break
        iterator._pulled += 1


_END = object()


def register(iterator_class):
    graph.register(iterator_class, _describe)
