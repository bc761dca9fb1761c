"""texflow.data (`tf.data`): input pipelines, file readers and record formats.

The pipeline computes numpy values on the host; iterating hands out
tf.Tensors (see dataset.py). The TensorFlow 1
queue-based names (`tf.train.string_input_producer`, `shuffle_batch`, ...)
are thin layers over these, in queues.py.
"""

import types as _types

from .csv_dataset import CsvDataset, make_csv_dataset
from .dataset import AUTOTUNE, INFINITE, UNKNOWN, Dataset, DatasetIterator, TensorSpec
from .extra_methods import experimental_names
from .windowing import DatasetSpec
from .options import (AutoShardPolicy, AutotuneOptions, DistributeOptions, OptimizationOptions,
                      Options, ThreadingOptions)
from .readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset
from .sources import BlobSource, FileSource, MemorySource, Source, URLSource

INFINITE_CARDINALITY = INFINITE
Iterator = NumpyIterator = DatasetIterator  # TensorFlow's iterator classes' names
UNKNOWN_CARDINALITY = UNKNOWN

experimental = _types.SimpleNamespace(
    **vars(experimental_names(Dataset)),
    AUTOTUNE=AUTOTUNE, AutoShardPolicy=AutoShardPolicy, CsvDataset=CsvDataset,
    AutotuneOptions=AutotuneOptions, DistributeOptions=DistributeOptions,
    INFINITE_CARDINALITY=INFINITE, OptimizationOptions=OptimizationOptions,
    UNKNOWN_CARDINALITY=UNKNOWN, ThreadingOptions=ThreadingOptions,
    make_csv_dataset=make_csv_dataset,
    ignore_errors=lambda log_warning=False: lambda ds: ds.ignore_errors(log_warning),
    cardinality=lambda ds: ds.cardinality(),
)

__all__ = ["AUTOTUNE", "AutoShardPolicy", "BlobSource", "CsvDataset", "Dataset", "DatasetSpec",
           "DatasetIterator", "DistributeOptions", "FileSource", "FixedLengthRecordDataset",
           "Iterator", "MemorySource", "NumpyIterator", "Options", "Source", "TFRecordDataset",
           "TensorSpec", "TextLineDataset", "ThreadingOptions", "URLSource", "experimental",
           "make_csv_dataset"]
