"""tf.data.experimental.CsvDataset and make_csv_dataset.

CsvDataset parses whole chunks of a file at a time: a chunk without quotes
(or with use_quote_delim=False) is split and converted column by column with
numpy; any chunk that does not pass that fast path cleanly (quotes, a bad
field, a missing required value) is parsed record by record with the exact
rules of csv.py, so errors and results are the same either way. A following
`batch()` takes the parsed columns by slices instead of row by row.
"""

import collections

import numpy as np

from ..errors import InvalidArgumentError
from . import csv, sources, structure
from .dataset import Dataset, Failure, TensorSpec
from .readers import _FileDataset


class CsvDataset(_FileDataset):
    """The records of CSV files as tuples, one value per column.

    Args:
        filenames: file name(s) or a Dataset of them (paths, URLs, Sources).
        record_defaults: per column a dtype (required) or a default value.
        compression_type: "", "ZLIB" or "GZIP".
        buffer_size: bytes read at a time.
        header: whether each file's first line is a header to skip.
        field_delim, use_quote_delim, na_value: as in decode_csv.
        select_cols / exclude_cols: the columns to parse (sorted indices).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write("x,y\\n1,2.5\\n")
    >>> list(CsvDataset(path, ["int32", [0.0]], header=True))
    [(np.int32(1), np.float32(2.5))]
    """

    _tf_name = "CsvDatasetV2"

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None, name=None):
        super().__init__(filenames, compression_type, buffer_size, None)
        self.cols = csv.columns(record_defaults)
        if select_cols is not None and exclude_cols is not None:
            raise InvalidArgumentError("give select_cols or exclude_cols, not both")
        self.exclude = None if exclude_cols is None else sorted(int(c) for c in exclude_cols)
        self.select = csv.check_select(select_cols, len(self.cols))
        self.header = header
        self.delim = csv.delimiter(field_delim)
        self.quote = use_quote_delim
        self.na = csv._encode(na_value)

    def _spec(self):
        return tuple(TensorSpec([], structure.dtype_name(c.dtype)) for c in self.cols)

    # -- records ------------------------------------------------------------------------

    def _record_blocks(self, chunks, name):
        """Yields (records, first line number) per chunk; quoted line breaks joined."""
        carry, line = b"", 1
        skip = self.header
        for chunk in chunks:
            lines = (carry + chunk).split(b"\n")
            carry = lines.pop()
            records, numbers = self._join(lines, line)
            if records and self.quote and records[-1].count(b'"') % 2:
                carry = records.pop() + b"\n" + carry  # an open quote: wait for the rest
                numbers.pop()
            line += sum(r.count(b"\n") + 1 for r in records)
            if skip and records:
                records, numbers, skip = records[1:], numbers[1:], False
            if records:
                yield records, numbers
        if carry:
            records, numbers = self._join([carry], line)
            if self.quote and records[-1].count(b'"') % 2:
                raise InvalidArgumentError(f"Reached end of file without closing quoted field "
                                           f"in record at line {numbers[-1]} of {name}")
            if skip:
                records, numbers = records[1:], numbers[1:]
            if records:
                yield records, numbers

    def _join(self, lines, line):
        strip = [x[:-1] if x.endswith(b"\r") else x for x in lines]
        if not self.quote or not any(b'"' in x for x in strip):
            return strip, list(range(line, line + len(strip)))
        records, numbers, current, start = [], [], None, line
        for k, x in enumerate(lines):
            current = x if current is None else current + b"\n" + x
            if current.count(b'"') % 2 == 0:
                records.append(current[:-1] if current.endswith(b"\r") else current)
                numbers.append(start)
                current, start = None, line + k + 1
        if current is not None:
            records.append(current)
            numbers.append(start)
        return records, numbers

    # -- parsing ------------------------------------------------------------------------

    def _blocks(self, ctx):
        """Yields ("cols", [column arrays]) blocks and Failures, file by file."""
        for source in self.files if not isinstance(self.files, Dataset) else ():
            try:
                chunks = sources.open_chunks(source, self.compression_type, self.chunk_size)
                for records, numbers in self._record_blocks(chunks, source.name):
                    yield from self._parse(records, numbers, source.name)
            except Exception as e:
                yield Failure(e)
        if isinstance(self.files, Dataset):
            for f in self.files._gen(ctx):
                if type(f) is Failure:
                    yield f
                    continue
                one = self._one(sources.as_source(f))
                yield from one._blocks(ctx)

    def _parse(self, records, numbers, name):
        fast = self._fast(records)
        if fast is not None:
            yield ("cols", fast)
            return
        rows = []
        for record, line in zip(records, numbers):
            where = f"record at line {line} of {name}"
            try:
                fields = csv.split(record, self.delim, self.quote, where)
                fields = self._pick(fields, where)
                rows.append([csv.convert(f, c, i, self.na, where)
                             for i, (f, c) in enumerate(zip(fields, self.cols))])
            except InvalidArgumentError as e:
                if rows:
                    yield ("cols", self._columns(rows))
                    rows = []
                yield Failure(e)
        if rows:
            yield ("cols", self._columns(rows))

    def _pick(self, fields, where):
        if self.exclude is not None:
            fields = [f for i, f in enumerate(fields) if i not in self.exclude]
            if len(fields) != len(self.cols):
                raise InvalidArgumentError(f"Expect {len(self.cols)} fields but have "
                                           f"{len(fields)} in {where}")
            return fields
        return csv.select(fields, self.select, len(self.cols), where)

    def _columns(self, rows):
        out = []
        for c, column in enumerate(self.cols):
            arr = np.empty(len(rows), column.dtype)
            arr[:] = [r[c] for r in rows] if column.dtype == object else \
                np.array([r[c] for r in rows], column.dtype)
            out.append(arr)
        return out

    def _fast(self, records):
        """Columns parsed with numpy, or None where the exact path is needed."""
        if self.quote and any(b'"' in r for r in records):
            return None
        delim = bytes((self.delim,))
        rows = [r.split(delim) for r in records]
        widths = {len(r) for r in rows}
        if len(widths) != 1:
            return None
        width = widths.pop()
        if self.select is not None:
            if width <= self.select[-1]:
                return None
            picked = [rows and [r[c] for r in rows] for c in self.select]
        elif self.exclude is not None:
            keep = [c for c in range(width) if c not in self.exclude]
            if len(keep) != len(self.cols):
                return None
            picked = [[r[c] for r in rows] for c in keep]
        else:
            if width != len(self.cols):
                return None
            picked = [list(col) for col in zip(*rows)]
        out = []
        for values, column in zip(picked, self.cols):
            arr = self._fast_column(values, column)
            if arr is None:
                return None
            out.append(arr)
        return out

    def _fast_column(self, values, column):
        raw = np.array(values, dtype=object if column.dtype == object else "S")
        missing = (raw == b"") | (raw == self.na) if len(raw) else np.zeros(0, bool)
        if missing.any() and column.default is None:
            return None
        if column.dtype == object:
            if missing.any():
                raw[missing] = column.default
            return raw
        if any(b"_" in v for v in values):
            return None
        if missing.any():
            raw[missing] = b"0"
        try:
            if column.dtype.kind == "i":
                wide = raw.astype(np.int64)
                info = np.iinfo(column.dtype)
                if len(wide) and (wide.min() < info.min or wide.max() > info.max):
                    return None
                arr = wide.astype(column.dtype)
            else:
                arr = raw.astype(column.dtype)
        except (ValueError, OverflowError):
            return None
        if missing.any():
            arr[missing] = column.default
        return arr

    # -- elements -----------------------------------------------------------------------

    def _gen(self, ctx):
        for block in self._blocks(ctx):
            if type(block) is Failure:
                yield block
            else:
                yield from zip(*block[1])

    def _batches(self, size, drop, ctx):
        """What `.batch(size, drop)` gives, taken from parsed columns by slices."""
        pending, count = [], 0
        for block in self._blocks(ctx):
            if type(block) is Failure:
                pending, count = [], 0  # the partial batch goes with the error
                yield block
                continue
            pending.append(block[1])
            count += len(block[1][0])
            while count >= size:
                joined = [np.concatenate(parts) for parts in zip(*pending)]
                yield tuple(col[:size] for col in joined)
                rest = [col[size:] for col in joined]
                count -= size
                pending = [rest] if count else []
        if count and not drop:
            yield tuple(np.concatenate(parts) for parts in zip(*pending))


def _infer(values):
    """TensorFlow's inferred type of a column from sample values."""
    kinds = [np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32), np.dtype(object)]
    best = 0
    for v in values:
        if v == b"":
            continue
        while best < 3:
            try:
                if best < 2:
                    n = int(v)
                    if best == 0 and not -2**31 <= n < 2**31:
                        raise ValueError
                else:
                    float(v)
                break
            except ValueError:
                best += 1
    return kinds[best]


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8"):
    """Batches of CSV rows as dicts of columns, TensorFlow's input function for CSV.

    Column names come from the header unless given; types from `column_defaults`
    or inferred from the first `num_rows_for_inference` rows (int32, int64,
    float32, else string; missing values then default to 0 or ""). Files are
    shuffled and rows shuffled in a buffer unless `shuffle=False`; batches
    repeat `num_epochs` times (None: forever, with full batches only). With
    `label_name`, elements are (features, label).
    """
    files = list(Dataset.list_files(file_pattern, shuffle=False))
    delim = csv.delimiter(field_delim)
    if column_names is None:
        if not header:
            raise InvalidArgumentError("make_csv_dataset needs column_names when header=False")
        first = next(iter(Dataset.from_tensors(0).flat_map(
            lambda _: _lines(files[0], compression_type).take(1))), b"")
        column_names = [f.decode(encoding) for f in csv.split(first, delim, use_quote_delim,
                                                              "the header")]
    column_names = list(column_names)
    if select_columns is not None:
        idx = sorted(column_names.index(c) if isinstance(c, str) else int(c)
                     for c in select_columns)
    else:
        idx = list(range(len(column_names)))
    if column_defaults is None:
        sample = list(_lines(files[0], compression_type).skip(1 if header else 0)
                      .take(num_rows_for_inference))
        rows = [csv.split(r, delim, use_quote_delim, "a sample row") for r in sample]
        column_defaults = []
        for c in idx:
            dtype = _infer([r[c] if c < len(r) else b"" for r in rows])
            column_defaults.append([b"" if dtype == object else dtype.type(0)])
    elif select_columns is not None and len(column_defaults) == len(column_names):
        column_defaults = [column_defaults[c] for c in idx]
    names = [column_names[c] for c in idx]
    if label_name is not None and label_name not in names:
        raise InvalidArgumentError(f"label_name {label_name!r} is not a column: {names}")

    def read(f):
        return CsvDataset(f, column_defaults, compression_type=compression_type, header=header,
                          field_delim=field_delim, use_quote_delim=use_quote_delim,
                          na_value=na_value, select_cols=idx if select_columns else None)
    ds = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    ds = ds.interleave(read, cycle_length=num_parallel_reads or 1, block_length=1)
    if ignore_errors:
        ds = ds.ignore_errors()
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    ds = ds.repeat(num_epochs)
    ds = ds.batch(batch_size, drop_remainder=num_epochs is None)

    def to_dict(*cols):
        features = collections.OrderedDict(zip(names, cols))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label
    ds = ds.map(to_dict)
    return ds.prefetch(prefetch_buffer_size or 1)


def _lines(path, compression_type):
    from .readers import TextLineDataset
    return TextLineDataset(path, compression_type)
