"""File readers: TextLineDataset, FixedLengthRecordDataset and TFRecordDataset.

Each takes one file name, a list of them, or a Dataset of them (paths, URLs,
or Sources such as MemorySource), reads each in chunks through the given
compression, and yields one element per line or record. An error in a file
(missing, truncated, corrupted) takes the place of the next element and the
reader moves on to the next file, as TensorFlow's readers do, so
`ignore_errors()` skips the rest of that file and counts it.
"""

import numpy as np

from ..errors import DataLossError, InvalidArgumentError
from . import sources, spec, tfrecord
from .dataset import UNKNOWN, Dataset, Failure
from .transforms import Interleave


class _FileDataset(Dataset):
    """Base of the readers: files (a list or a Dataset), compression, parallel reads."""

    def __init__(self, filenames, compression_type, buffer_size, num_parallel_reads):
        self.compression_type = sources.check_compression(compression_type)
        self.chunk_size = int(buffer_size) if buffer_size and buffer_size > 0 else sources.CHUNK
        self.num_parallel_reads = num_parallel_reads
        if isinstance(filenames, Dataset):
            self.files = filenames
            self._inputs = (filenames,)
        else:
            self.files = sources.as_sources(filenames)

    def _spec(self):  # a record or a line: a scalar string
        return spec.string_scalar()

    def _one(self, source):
        """The same reader for one file (used for parallel reads)."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.files, clone._inputs, clone.num_parallel_reads = [source], (), None
        return clone

    def _gen(self, ctx):
        files = self.files
        if isinstance(files, Dataset) or (self.num_parallel_reads or 1) > 1:
            names = files if isinstance(files, Dataset) else Dataset.from_tensor_slices(
                np.arange(len(files)))
            pick = (lambda f: self._one(sources.as_source(f))) if isinstance(files, Dataset) \
                else (lambda i: self._one(files[int(i)]))
            cycle = max(1, int(self.num_parallel_reads or 1))
            yield from Interleave(names, pick, cycle, 1, None)._gen(ctx)
            return
        for source in files:
            try:
                chunks = sources.open_chunks(source, self.compression_type, self.chunk_size)
                yield from self._records(chunks, source.name)
            except Exception as e:  # TensorFlow moves on to the next file after an error
                yield Failure(e)

    def _records(self, chunks, name):
        raise NotImplementedError("need _records")

    def _cardinality(self):
        return UNKNOWN


class TextLineDataset(_FileDataset):
    """The lines of text files, without their line endings (`tf.data.TextLineDataset`).

    Args:
        filenames: a file name, a list of them, or a Dataset of them.
        compression_type: "", "ZLIB" or "GZIP".
        buffer_size: bytes read at a time.
        num_parallel_reads: files read at once, interleaved line by line.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.txt")
    >>> _ = open(path, "w").write("a,1\\nb,2\\n")
    >>> list(TextLineDataset(path))
    [b'a,1', b'b,2']
    """

    _tf_name = "TextLineDatasetV2"

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        super().__init__(filenames, compression_type, buffer_size, num_parallel_reads)

    def _records(self, chunks, name):
        return iter_lines(chunks)


def iter_lines(chunks):
    """Lines of a chunked text stream; "\\n" and "\\r\\n" endings are removed."""
    carry = b""
    for chunk in chunks:
        lines = (carry + chunk).split(b"\n") if carry else chunk.split(b"\n")
        carry = lines.pop()
        for line in lines:
            yield line[:-1] if line.endswith(b"\r") else line
    if carry:
        yield carry[:-1] if carry.endswith(b"\r") else carry


class FixedLengthRecordDataset(_FileDataset):
    """Records of `record_bytes` bytes between a header and a footer
    (`tf.data.FixedLengthRecordDataset`).

    A file whose body is not a whole number of records raises DataLossError
    naming the file, the record and its byte offset.
    """

    _tf_name = "FixedLengthRecordDatasetV2"

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None, name=None):
        super().__init__(filenames, compression_type, buffer_size, num_parallel_reads)
        self.record_bytes = int(record_bytes)
        if self.record_bytes <= 0:
            raise InvalidArgumentError(f"record_bytes must be greater than zero, received "
                                       f"{record_bytes}")
        self.header_bytes = int(header_bytes or 0)
        self.footer_bytes = int(footer_bytes or 0)
        if self.header_bytes < 0 or self.footer_bytes < 0:
            raise InvalidArgumentError(f"header_bytes and footer_bytes must be >= 0, received "
                                       f"{header_bytes} and {footer_bytes}")

    def _records(self, chunks, name):
        size, head, foot = self.record_bytes, self.header_bytes, self.footer_bytes
        data, offset, index = b"", 0, 0
        for chunk in chunks:
            data = data + chunk if data else chunk
            pos = 0
            if offset == 0 and head:
                if len(data) < head:
                    continue
                pos = head
            count = max(0, (len(data) - pos - foot) // size)
            for k in range(count):
                yield data[pos + k * size:pos + (k + 1) * size]
            pos += count * size
            index += count
            data = data[pos:]
            offset += pos
        if offset == 0 and len(data) < head:
            raise DataLossError(f"{name}: the file has {len(data)} bytes, fewer than "
                                f"header_bytes={head}")
        if len(data) != foot:
            body = len(data) - foot
            raise DataLossError(
                f"{name}: {body} bytes at byte offset {offset} (record {index}) do not make a "
                f"whole record of record_bytes={size}" + (f" before the {foot}-byte footer"
                                                          if foot else ""))


class TFRecordDataset(_FileDataset):
    """The records of TFRecord files (`tf.data.TFRecordDataset`).

    Every record's two checksums are verified; a mismatch or a file cut inside
    a record raises DataLossError naming the file, the record number and its
    byte offset.
    """

    _tf_name = "TFRecordDatasetV2"

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        super().__init__(filenames, compression_type, buffer_size, num_parallel_reads)

    def _records(self, chunks, name):
        return tfrecord.iter_records(chunks, name)
