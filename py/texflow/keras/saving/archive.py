"""`.keras` archives: `model.save("m.keras")` and `tf.keras.models.load_model("m.keras")`.

The archive is Keras 3's layout, a zip holding

- `metadata.json`: `{"keras_version": ..., "date_saved": ...}`,
- `config.json`: the model's serialized config (class names and configs, nested
  layers), plus its `build_config` and `compile_config` (optimizer, loss,
  metrics),
- `model.weights.safetensors`: the weights and optimizer state (Keras writes
  `model.weights.h5`; see weights.py for why texflow uses safetensors).

It is written to a temporary file and renamed, so a crash never leaves half an
archive. Loading rebuilds the model from its config (custom classes through
`register_keras_serializable` or `custom_objects`), builds it, compiles it with
the saved compile config and restores weights and optimizer state, so the
loaded model predicts exactly what the saved one did and trains on from there.
"""

import io
import json
import os
import time
import zipfile

from ... import errors
from ...checkpoint import safetensors
from ...checkpoint.atomic import atomic_write
from .. import losses as losses_module
from .. import metrics as metrics_module
from .. import optimizers as optimizers_module
from ..models.model import _json_default
from ..serialization import (custom_object_scope, deserialize_keras_object,
                             get_registered_object, serialize_keras_object)
from .weights import apply_weights, weights_bytes

CONFIG, METADATA, WEIGHTS = "config.json", "metadata.json", "model.weights.safetensors"


def check_model_path(path):
    """Raises Keras's error for a model path that does not end in `.keras`."""
    if path.endswith(".keras"):
        return
    if path.endswith((".h5", ".hdf5")):
        raise ValueError(f"texflow does not write legacy HDF5 model files ({path}): save to a "
                         "`.keras` file (h5py does not run in the browser)")
    raise ValueError(f"Invalid filepath extension for saving. Please add a `.keras` extension "
                     f"for the native Keras format. (TensorFlow 2's SavedModel directories are "
                     f"not written by Keras 3 nor texflow.) Received: filepath={path}.")


def archive_bytes(model):
    """The bytes of the model's `.keras` archive."""
    from .. import __version__
    config = serialize_keras_object(model)
    build = model.get_build_config()
    if build is not None:
        config["build_config"] = build
    if getattr(model, "compiled", False):
        config["compile_config"] = model.get_compile_config()
    metadata = {"keras_version": __version__,
                "date_saved": time.strftime("%Y-%m-%d@%H:%M:%S")}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(METADATA, json.dumps(metadata))
        z.writestr(CONFIG, json.dumps(config, default=_json_default))
        z.writestr(WEIGHTS, weights_bytes(model))
    return buffer.getvalue()


def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    """Writes `model` to a `.keras` archive, atomically."""
    path = os.fspath(filepath)
    check_model_path(path)
    if zipped is False:
        raise ValueError("texflow writes `.keras` archives zipped (zipped=False is not "
                         "supported)")
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {sorted(kwargs)}")
    if not overwrite and os.path.exists(path):
        raise errors.AlreadyExistsError(f"{path} exists and overwrite=False")
    data = archive_bytes(model)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with atomic_write(path) as f:
        f.write(data)


def _open(path):
    if not os.path.exists(path):
        raise ValueError(f"File not found: filepath={path}. Please ensure the file is an "
                         "accessible `.keras` zip file.")
    if not path.endswith(".keras") or not zipfile.is_zipfile(path):
        raise ValueError(f"File format not supported: filepath={path}. texflow loads `.keras` "
                         "zip files (Keras 3's format; legacy HDF5 files and SavedModel "
                         "directories are not supported).")
    return zipfile.ZipFile(path, "r")


def read_archive_weights(path):
    """{key: array} of the weights inside the `.keras` archive at `path`."""
    with _open(path) as z:
        return _weights_of(z, path)


def _weights_of(z, path):
    names = z.namelist()
    if WEIGHTS not in names:
        written_by = " by Keras (its weights are HDF5)" if "model.weights.h5" in names else ""
        raise ValueError(f"{path} was written{written_by} without {WEIGHTS}; texflow reads "
                         f".keras archives whose weights are safetensors")
    return safetensors.loads(z.read(WEIGHTS), name=f"{path}/{WEIGHTS}")[0]


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002
    """The model saved in a `.keras` archive: architecture, weights, and (with
    `compile=True`) its compile settings and optimizer state.

    Args:
        filepath: the `.keras` file.
        custom_objects: {name: class or function} for custom layers, models, losses
            and metrics not registered with `register_keras_serializable`.
        compile: compile the model as it was when saved.
        safe_mode: accepted for Keras compatibility (texflow never deserializes
            Python lambdas).
    """
    path = os.fspath(filepath)
    with _open(path) as z:
        config = json.loads(z.read(CONFIG))
        tensors = _weights_of(z, path)
    with custom_object_scope(custom_objects or {}):
        model = deserialize_keras_object(config, custom_objects, what="model")
        build = config.get("build_config")
        if build and not model.built:
            build_model(model, build["input_shape"])
        if compile and config.get("compile_config"):
            model.compile_from_config(config["compile_config"])
    apply_weights(model, tensors, source=path)
    return model


def _as_shape(value):
    if isinstance(value, dict):
        return {k: _as_shape(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple, dict)):
        return [_as_shape(v) for v in value]
    return tuple(value) if isinstance(value, (list, tuple)) else value


def build_model(model, input_shape):
    """Builds `model` (and every sublayer's weights) for `input_shape` from a config."""
    from ..models.model import Model
    shape = _as_shape(input_shape)
    if isinstance(model, Model):
        model.build(shape)   # a subclassed model runs `call` on shape-only inputs
    else:
        model.build_from_config({"input_shape": shape})


# -- compile config --------------------------------------------------------------------

def _builtin(name):
    """The built-in loss or metric function called `name`, or None."""
    if not isinstance(name, str):
        return None
    return losses_module._FUNCTIONS.get(name) or metrics_module._FUNCTIONS.get(name)


def _serialize_entry(value):
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_serialize_entry(v) for v in value]
    if isinstance(value, dict):
        return {k: _serialize_entry(v) for k, v in value.items()}
    name = getattr(value, "__name__", None)
    if callable(value) and not hasattr(value, "get_config") and \
            getattr(value, "_keras_registered_name", None) is None and \
            _builtin(name) is value:
        # A built-in function, recorded as Keras 3 records it.
        return {"module": "builtins", "class_name": "function", "config": name,
                "registered_name": "function"}
    return serialize_keras_object(value)


def get_compile_config(model):
    """The serialized arguments `model.compile` was called with (Keras 3's compile_config)."""
    args = getattr(model, "_compile_config", None)
    if not getattr(model, "compiled", False) or args is None:
        return None
    return {k: _serialize_entry(v) for k, v in args.items()}


def _deserialize_entry(value, custom_objects):
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list):
        return [_deserialize_entry(v, custom_objects) for v in value]
    if isinstance(value, dict) and "class_name" not in value:
        return {k: _deserialize_entry(v, custom_objects) for k, v in value.items()}
    if value.get("class_name") == "function":
        name = value.get("config")
        registered = value.get("registered_name")
        found = get_registered_object(registered, custom_objects) \
            if registered not in (None, "function") else None
        found = found or get_registered_object(name, custom_objects) or \
            _builtin(name)
        if found is None:
            raise ValueError(f"could not deserialize function {name!r} in the compile config: "
                             "register it with register_keras_serializable or pass it in "
                             "custom_objects")
        return found
    return deserialize_keras_object(value, custom_objects, what="compile argument")


def compile_from_config(model, config, custom_objects=None):
    """Compiles `model` from `get_compile_config()` output and builds its optimizer."""
    args = dict(config)
    with custom_object_scope(custom_objects or {}):
        optimizer = args.pop("optimizer", "rmsprop")
        args["optimizer"] = optimizers_module.get(optimizer) if isinstance(optimizer, dict) \
            else optimizer
        for key in ("loss", "loss_weights", "metrics", "weighted_metrics"):
            if key in args:
                args[key] = _deserialize_entry(args[key], custom_objects)
    known = ("optimizer", "loss", "loss_weights", "metrics", "weighted_metrics", "run_eagerly",
             "steps_per_execution", "jit_compile", "auto_scale_loss")
    model.compile(**{k: v for k, v in args.items() if k in known})
    if model.built and model.trainable_variables:
        model.optimizer.build(model.trainable_variables)
