"""`tf.keras.utils`: to_categorical, set_random_seed, Progbar, serialization helpers, and
the data helpers of utils_data.py (pad_sequences, timeseries_dataset_from_array,
PyDataset/Sequence)."""

import numpy as np

from .backend import set_random_seed  # noqa: F401
from .backend import clear_session  # noqa: F401
from .models.data_adapter import pack_x_y_sample_weight, unpack_x_y_sample_weight  # noqa: F401
from .progbar import Progbar  # noqa: F401
from .serialization import (custom_object_scope, deserialize_keras_object,  # noqa: F401
                            get_registered_name, get_registered_object,
                            register_keras_serializable, serialize_keras_object)

from .utils_data import (PyDataset, Sequence, pad_sequences,  # noqa: F401,E402
                         timeseries_dataset_from_array)

CustomObjectScope = custom_object_scope


def download_file(path, filename=None):
    """In the browser, hands the file at `path` (a checkpoint, a `.keras` archive) to the
    browser's downloads; see `texflow.storage.download`."""
    from ..storage import download
    download(path, filename)


def to_categorical(x, num_classes=None):
    """One-hot rows for integer class labels (numpy, float32).

    >>> tf.keras.utils.to_categorical([0, 2], 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    x = np.asarray(x.numpy() if hasattr(x, "numpy") else x, dtype="int64")
    shape = x.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    if num_classes is None:
        num_classes = int(x.max()) + 1 if x.size else 0
    if x.size and (x.min() < 0 or x.max() >= num_classes):
        raise ValueError(f"to_categorical: labels must be in [0, {num_classes}), received "
                         f"values from {x.min()} to {x.max()}")
    out = np.zeros((x.size, num_classes), np.float32)
    out[np.arange(x.size), x] = 1.0
    return out.reshape(shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    """`x` divided by its `order`-norm along `axis` (numpy)."""
    x = np.asarray(x, np.float32)
    norm = np.linalg.norm(x, order, axis, keepdims=True)
    norm[norm == 0] = 1
    return x / norm
