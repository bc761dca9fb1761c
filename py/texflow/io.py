"""`tf.io`: decoding CSV and raw bytes, parsing Examples, writing TFRecord files, and
`tf.io.gfile` (file-system functions)."""

import numpy as np

from .data.csv import decode_csv
from .data.parsing import (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature,
                           parse_example, parse_single_example)
from .data.sequence import parse_sequence_example, parse_single_sequence_example
from .data.structure import host_dtype
from .data.tfrecord import TFRecordOptions, TFRecordWriter, tf_record_iterator
from . import gfile  # noqa: F401  (tf.io.gfile)
from .errors import InvalidArgumentError

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "TFRecordOptions", "TFRecordWriter",
           "VarLenFeature", "decode_csv", "decode_raw", "parse_example",
           "parse_sequence_example", "parse_single_example", "parse_single_sequence_example",
           "tf_record_iterator"]


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Reinterprets bytes as numbers (`tf.io.decode_raw`).

    Args:
        input_bytes: bytes, or an array/list of bytes of one length.
        out_type: the numeric dtype, e.g. "uint8", "float32", "int16".
        little_endian: the byte order of the data.
        fixed_length: if given, each input is cut or zero-padded to this many bytes.

    Returns:
        A numpy array of shape [*input shape, n].

    >>> decode_raw(b"\\x01\\x00\\x02\\x00", "int16")
    array([1, 2], dtype=int16)
    """
    dtype = host_dtype(out_type)
    if dtype == object or dtype.kind not in "iufb":
        raise InvalidArgumentError(f"decode_raw out_type must be numeric, received {out_type!r}")
    dtype = dtype.newbyteorder("<" if little_endian else ">")
    single = isinstance(input_bytes, (bytes, bytearray, np.bytes_))
    array = np.asarray([input_bytes] if single else input_bytes, dtype=object)
    flat = [bytes(b) for b in array.reshape(-1)]
    if fixed_length is not None:
        flat = [b[:fixed_length].ljust(fixed_length, b"\0") for b in flat]
    sizes = {len(b) for b in flat}
    for i, b in enumerate(flat):
        if len(b) % dtype.itemsize:
            raise InvalidArgumentError(f"Input to DecodeRaw has length {len(b)} that is not a "
                                       f"multiple of {dtype.itemsize}, the size of {dtype.name}")
        if len(b) != len(flat[0]):
            raise InvalidArgumentError(f"DecodeRaw requires input strings to all be the same "
                                       f"size, but element {i} has size {len(b)} != "
                                       f"{len(flat[0])}")
    width = (sizes.pop() if sizes else 0) // dtype.itemsize
    out = np.frombuffer(b"".join(flat), dtype).astype(dtype.newbyteorder("="))
    out = out.reshape((*array.shape, width))
    return out[0] if single else out
