"""TensorFlow 1 names: `import texflow.compat.v1 as tf` (or `tf.compat.v1`).

The seed guide's programs run with this import in place of `import tensorflow
as tf`: feeding (`tf.placeholder` + `feed_dict`), readers, decoders, `tf.train`
queues and batching, preloaded data (`tf.constant`, or a `tf.Variable` with
`trainable=False, collections=[]` initialized from a placeholder), variables
with `global_variables_initializer()`, `tf.group`, `tf.FIFOQueue` with queue
runners, and `tf.Session` (TensorFlow 1's session of compat/v1_graph.py, not
texflow's deeplearn.js Session). Every texflow function is here too: given a
placeholder-derived tensor it builds a graph node that `Session.run` computes;
given a reader's record tensor it runs once per record; otherwise it runs now.
"""

import builtins as _builtins
import sys as _sys
import types as _types

import numpy as _np

import texflow as _tf
from texflow import data, errors, io, train  # noqa: F401
from texflow import dtypes as _dtypes
from texflow.data import parsing as _parsing
from texflow.data.csv import decode_csv as _decode_csv
from texflow.data.queues import (FixedLengthRecordReader, RecordTensor, TextLineReader,
                                 TFRecordReader, lift as _lift, lift_multi as _lift_multi)
from texflow.data.structure import flatten as _flatten, host_dtype as _host_dtype
from texflow.data.tfrecord import TFRecordOptions, TFRecordWriter, tf_record_iterator
from .v1_graph import (FIFOQueue, Graph, GraphKeys, GraphTensor as Tensor,  # noqa: F401
                       Session, Variable, add_to_collection, get_collection,
                       get_default_graph, global_variables,
                       global_variables_initializer, group, local_variables,
                       local_variables_initializer, no_op, placeholder, reset_default_graph,
                       trainable_variables, variables_initializer, _node)

string, int64, uint8, float64, float32, int32, bool = (  # noqa: A001
    _dtypes.string, _dtypes.int64, _dtypes.uint8, _dtypes.float64, _dtypes.float32,
    _dtypes.int32, _dtypes.bool_)
InteractiveSession = Session
initialize_all_variables = global_variables_initializer
FixedLenFeature = _parsing.FixedLenFeature
VarLenFeature = _parsing.VarLenFeature
FixedLenSequenceFeature = _parsing.FixedLenSequenceFeature
python_io = _types.SimpleNamespace(TFRecordWriter=TFRecordWriter,
                                   TFRecordOptions=TFRecordOptions,
                                   tf_record_iterator=tf_record_iterator)

decode_csv = _lift_multi(_decode_csv, lambda records, record_defaults, *a, **k:
                         len(record_defaults), "decode_csv")
decode_raw = _lift(io.decode_raw, "decode_raw")
parse_single_example = _lift(_parsing.parse_single_example, "parse_single_example")
parse_example = _lift(_parsing.parse_example, "parse_example")


def _v1(fn, host=None, name=None):
    """`fn` for TensorFlow 1 code: per record on record tensors (`host`, over numpy),
    a graph node on placeholder-derived tensors, else at once."""
    name = name or getattr(fn, "__name__", "op")
    graph = _node(fn, name)

    def op(*args, **kwargs):
        if host is not None and any(isinstance(a, RecordTensor)
                                    for a in _flatten([list(args), list(kwargs.values())])):
            return _lift(host, name)(*args, **kwargs)
        return graph(*args, **kwargs)
    op.__name__ = name
    op.__doc__ = getattr(fn, "__doc__", None)
    return op


def _np_cast(x, dtype, name=None):
    return _np.asarray(x).astype(_host_dtype(dtype))


def _np_strided_slice(x, begin, end, strides=None, **unused):
    strides = strides or [1] * len(begin)
    return _np.asarray(x)[tuple(_builtins.slice(b, e, s)
                                for b, e, s in zip(begin, end, strides))]


def _np_slice(x, begin, size, name=None):
    return _np.asarray(x)[tuple(_builtins.slice(b, None if s == -1 else b + s)
                                for b, s in zip(begin, size))]


cast = _v1(_tf.cast, _np_cast)
reshape = _v1(_tf.reshape, lambda x, shape, name=None: _np.reshape(x, shape))
stack = _v1(_tf.stack, lambda values, axis=0, name=None: _np.stack(values, axis))
concat = _v1(_tf.concat, lambda values, axis, name=None: _np.concatenate(values, axis))
transpose = _v1(_tf.transpose, lambda x, perm=None, name=None: _np.transpose(x, perm))
expand_dims = _v1(_tf.expand_dims, lambda x, axis, name=None: _np.expand_dims(x, axis))
squeeze = _v1(_tf.squeeze, lambda x, axis=None, name=None: _np.squeeze(x, axis))
slice = _v1(_tf.slice, _np_slice)  # noqa: A001
strided_slice = _v1(_np_strided_slice, _np_strided_slice, "strided_slice")


def disable_eager_execution():
    """Accepted: texflow.compat.v1 builds TensorFlow 1 graphs whenever placeholders are used."""


disable_v2_behavior = enable_eager_execution = disable_eager_execution


def executing_eagerly():
    return True


class _Namespace:
    """A texflow namespace (tf.nn, tf.math, ...) whose functions build graph nodes on v1
    tensors."""

    def __init__(self, space, path):
        self._space, self._path = space, path

    def __getattr__(self, name):
        try:
            value = getattr(self._space, name)
        except AttributeError:
            raise AttributeError(f"module '{self._path}' has no attribute {name!r}") from None
        return _v1(value, name=name) if callable(value) and not isinstance(value, type) \
            else value


# namespaces of ops; tf.train, tf.io and tf.data take record tensors and TF-1 Variables as
# they are (the batching functions and slice_input_producer read them when they run)
_OP_NAMESPACES = ("nn", "math", "linalg", "bitwise", "random", "debugging")


def __getattr__(name):
    """Every other texflow name, made graph-aware (see the module docstring)."""
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        value = getattr(_tf, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    if name in _OP_NAMESPACES:
        return _Namespace(value, f"{__name__}.{name}")
    if callable(value) and not isinstance(value, type) and not name[:1].isupper():
        return _v1(value, name=name)
    return value
