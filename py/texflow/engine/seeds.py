"""Seeds and streams of op-seeded random ops (tf.random.*, tf.nn.dropout), by
TensorFlow 2.21's rules, checked against it (tests/tfdiff/snippets_fidelity_gaps.py).

Eagerly, the calls of one kernel (uniform, normal, ...; dropout draws with uniform's)
with one (global seed, op seed) pair continue one stream, each call from where the last
one's numbers ended (a stream's position counts elements, as TensorFlow's Philox counter
moves by each call's size: a call of 65 numbers after one of 64 is not the second call
of 64 numbers), until `tf.random.set_seed` starts every stream over (TensorFlow caches a
kernel per op and seeds).

Inside tf.function each random op of each trace is a stream of its own, as each op of a
TensorFlow graph is a kernel with its own state: its (global, op) pair is fixed when it
is traced, its first call (the one that traces) draws the stream's first numbers (the
same numbers as an eager first call with that pair), each later call of that trace the
next; another trace of the function (a new shape, a new Python argument) starts its own
streams over, and so do two ops of one trace with the same seed (they draw the same
numbers). `set_seed` starts the trace streams over too (TensorFlow clears its kernels),
without changing their pairs. An op without an op seed under a global seed gets one
from the op's place in its trace, so every trace of a function draws the same numbers
(TensorFlow's graph-level seeds); eagerly it draws a fresh op seed per call.
`get_concrete_function` (engine/trace.py `dry()`) draws from no stream.

The numbers are numpy's, seeded from the pair and the stream's position: the same on
every texflow backend, not TensorFlow's Philox numbers (which repeat where these do).
"""

import functools
import random
import threading

import numpy as np

from . import trace

DEFAULT_GRAPH_SEED = 87654321
MAXINT32 = 2**31 - 1

# the global seed, the sequence of op seeds it starts, each eager stream's position (by
# (global seed, op seed, op name)), and how many times set_seed ran (trace streams compare
# it to start over)
state = {"global": None, "ops": random.Random(), "streams": {}, "epoch": 0}


class _Local(threading.local):
    def __init__(self):
        # the random ops now running: a _TraceStream, or the op's name eagerly
        self.streams = []


_local = _Local()


def set_seed(seed):
    """Sets the global seed and starts every stream over (tf.random.set_seed)."""
    state["global"] = None if seed is None else int(seed)
    state["ops"] = random.Random(seed)
    state["streams"] = {}
    state["epoch"] += 1


def seed_pair(op_seed):
    """The (global seed, op seed) pair an eager op uses, by TensorFlow's rules; (None,
    None) when the numbers are not reproducible."""
    global_seed = state["global"]
    if global_seed is not None:
        if op_seed is None:
            op_seed = state["ops"].randint(0, MAXINT32)
        seeds = (global_seed, int(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed))
    else:
        return None, None
    return (0, MAXINT32) if seeds == (0, 0) else seeds


class _TraceStream:
    """The stream of one random op in one trace (see the module docstring)."""

    def __init__(self, index):
        self.index = index  # the op's place among its trace's random ops
        self.key = None     # numpy's seed words before the call count; () not seeded
        self.position = 0
        self.epoch = state["epoch"]

    def generator(self, op_seed, size):
        if self.key is None:  # at trace time: the pair the graph's op would be given
            if op_seed is not None:
                self.key = tuple(s & 0xFFFFFFFF for s in seed_pair(op_seed))
            elif state["global"] is not None:
                self.key = (state["global"] & 0xFFFFFFFF, self.index, 1)
            else:
                self.key = ()
        if trace.dry():  # get_concrete_function: the draw is discarded
            return np.random.default_rng(0)
        if not self.key:
            return np.random.default_rng()
        if self.epoch != state["epoch"]:
            self.position, self.epoch = 0, state["epoch"]
        self.position += size
        return np.random.default_rng([*self.key, self.position - size])


def generator(op_seed, size, kernel=None):
    """numpy's generator for the next draw of `size` numbers by a random op with op seed
    `op_seed` (an int or None), eagerly or in the op's trace stream (`drawn_each_call`).
    `kernel` names TensorFlow's kernel when it is not the op's own: eager calls share a
    stream per kernel (tf.nn.dropout draws with tf.random.uniform's, for instance)."""
    running = _local.streams[-1] if _local.streams else None
    if isinstance(running, _TraceStream):
        return running.generator(op_seed, int(size))
    if trace.dry():  # get_concrete_function: the draw is discarded, no stream advances
        return np.random.default_rng(0)
    pair = seed_pair(op_seed)
    if pair == (None, None):
        return np.random.default_rng()
    key = (*pair, kernel or running)
    position = state["streams"].get(key, 0)
    state["streams"][key] = position + int(size)
    return np.random.default_rng([pair[0] & 0xFFFFFFFF, pair[1] & 0xFFFFFFFF, position])


def drawn_each_call(fn):
    """Decorates a random op drawing with `generator`: inside tf.function it becomes host
    code (engine/trace.py `host_call`) that draws again at every call, from a stream of
    its own in that trace."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        tracer = trace.active()
        if tracer is None or tracer._paused:
            return _running(fn.__name__, fn, args, kwargs)
        stream = _TraceStream(tracer.random_ops)
        tracer.random_ops += 1
        tracer.streams.append(stream)

        def draw(*args, **kwargs):
            return _running(stream, fn, args, kwargs)
        return trace.host_call(draw, *args, **kwargs)
    return wrapper


def continue_streams(done, again):
    """Trace `again` of a function, traced right after `done` (tf.function traces a
    function that made Variables twice), continues `done`'s random streams: its first
    replay draws what a second call of `done` would, not `done`'s numbers again."""
    for old, new in zip(done.streams, again.streams):
        if new.key is None or new.key == old.key:  # None: the dry trace drew nothing
            new.key, new.position, new.epoch = old.key, old.position, old.epoch


def _running(what, fn, args, kwargs):
    _local.streams.append(what)
    try:
        return fn(*args, **kwargs)
    finally:
        _local.streams.pop()
