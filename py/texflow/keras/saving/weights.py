"""`model.save_weights` / `model.load_weights` in safetensors format (`.weights.safetensors`).

Keras 3 writes `.weights.h5` (HDF5). texflow writes the same tree of weights
(keys such as "layers/dense/vars/0", "optimizer/vars/2"; see walk.py) into a
safetensors file instead: h5py does not run in Pyodide, while safetensors is a
JSON header plus raw bytes that numpy reads and writes anywhere (and the
reference `safetensors` library reads texflow's files).

Loading checks every weight before changing any (all-or-nothing): a missing or
extra weight, or a shape that differs, raises one ValueError that names the
layer, the weight and both shapes.
"""

import json
import os
import warnings

from ... import errors
from ...checkpoint import safetensors
from ...checkpoint.graph import variable_name, walk
from ...checkpoint.state import convert
from ...engine.ndarray import from_numpy
from ..optimizers.base import Optimizer
from . import walk as _walk  # noqa: F401  (registers how Keras objects are walked)

WEIGHTS_SUFFIX = ".weights.safetensors"
FORMAT = "keras.weights"


def _optimizer(model):
    opt = getattr(model, "optimizer", None) if hasattr(model, "compiled") else None
    return opt if isinstance(opt, Optimizer) else None


def weights_state(model):
    """({key: numpy array}, {key: variable path}) of the model's weights (and its
    optimizer's variables when compiled)."""
    variables, _ = walk(model)
    return ({k: v.numpy() for k, v in variables.items()},
            {k: variable_name(v) for k, v in variables.items()})


def weights_bytes(model):
    """The bytes of the model's `.weights.safetensors` file."""
    tensors, paths = weights_state(model)
    return safetensors.dumps(tensors, {"format": FORMAT, "paths": json.dumps(paths)})


def save_weights(model, filepath, overwrite=True, max_shard_size=None):
    """Writes the model's weights (and optimizer state) to a `.weights.safetensors` file,
    atomically."""
    path = os.fspath(filepath)
    if max_shard_size is not None:
        raise ValueError(f"texflow writes one weights file; sharding (max_shard_size="
                         f"{max_shard_size}) is not supported")
    if not path.endswith(WEIGHTS_SUFFIX):
        raise ValueError(f"The filename must end in `{WEIGHTS_SUFFIX}` (texflow's weights "
                         f"files are safetensors; Keras's `.weights.h5` is HDF5, which "
                         f"h5py cannot write in the browser). Received: filepath={path}")
    if not model.built:
        raise ValueError("You are saving a model that has not yet been built. Try building "
                         "the model first by calling it on some data or by using `build()`.")
    if not overwrite and os.path.exists(path):
        raise errors.AlreadyExistsError(f"{path} exists and overwrite=False")
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    tensors, paths = weights_state(model)
    safetensors.save(path, tensors, {"format": FORMAT, "paths": json.dumps(paths)})


def read_weights_file(path):
    """{key: numpy array} from a `.weights.safetensors` file or a `.keras` archive."""
    path = os.fspath(path)
    if path.endswith(".keras"):
        from .archive import read_archive_weights
        return read_archive_weights(path)
    if path.endswith(".h5") or path.endswith(".hdf5"):
        raise ValueError(f"texflow cannot read HDF5 weights ({path}): save and load "
                         f"`{WEIGHTS_SUFFIX}` files (safetensors) or `.keras` archives")
    if not path.endswith(WEIGHTS_SUFFIX):
        raise ValueError(f"File format not supported: filepath={path}. texflow loads weights "
                         f"from `.keras` files and `{WEIGHTS_SUFFIX}` files.")
    if not os.path.isfile(path):
        raise errors.NotFoundError(f"No weights file at {path}")
    return safetensors.load(path)[0]


def load_weights(model, filepath, skip_mismatch=False):
    """Loads weights saved by `save_weights` (or from a `.keras` archive) into `model`."""
    if not model.built:
        raise ValueError("You are loading weights into a model that has not yet been built. "
                         "Try building the model first by calling it on some data or by "
                         "using `build()`.")
    path = os.fspath(filepath)
    apply_weights(model, read_weights_file(path), skip_mismatch, source=path)


def apply_weights(model, tensors, skip_mismatch=False, source="the weights file"):
    """Assigns `tensors` ({key: array}) to the model's weights and optimizer state.

    Model weights must match one for one (a ValueError lists every mismatch, before
    anything changes), unless `skip_mismatch` (mismatches are skipped with a warning).
    Optimizer state is loaded when the model's optimizer has the same variables (it
    is built first if needed); otherwise it is skipped with a warning, as Keras does.
    """
    opt = _optimizer(model)
    opt_keys = sorted(k for k in tensors if k.startswith("optimizer/"))
    if opt is not None and opt_keys and not opt.built:
        opt.build(model.trainable_variables)
    variables, nodes = walk(model)
    pairs, problems = [], []
    model_vars = {k: v for k, v in variables.items() if not k.startswith("optimizer/")}
    for key, v in model_vars.items():
        where = _describe(key, v, nodes)
        if key not in tensors:
            problems.append(f"{where}: the file has no value for it")
            continue
        value = tensors[key]
        if tuple(value.shape) != tuple(v.shape):
            problems.append(f"{where}: the model's shape is {tuple(v.shape)}, the file's is "
                            f"{tuple(value.shape)}")
            continue
        try:
            pairs.append((v, convert(value, v, key, source)))
        except ValueError as e:
            problems.append(f"{where}: {e}")
    extra = sorted(set(tensors) - set(model_vars) - set(opt_keys))
    problems += [f"{key} (shape {tuple(tensors[key].shape)}): in the file, but the model has "
                 f"no such weight" for key in extra]
    if problems:
        message = (f"Cannot load {source} into model {model.name!r}: " +
                   "; ".join(problems[:20]) +
                   (f"; ... ({len(problems)} problems)" if len(problems) > 20 else ""))
        if not skip_mismatch:
            raise ValueError(message + ". Nothing was loaded.")
        warnings.warn(message + ". These were skipped (skip_mismatch=True).", stacklevel=3)
    pairs += _optimizer_pairs(opt, variables, tensors, opt_keys, source)
    for v, value in pairs:
        v.assign(from_numpy(value))


def _optimizer_pairs(opt, variables, tensors, opt_keys, source):
    if not opt_keys or opt is None:
        return []
    own = {k: v for k, v in variables.items() if k.startswith("optimizer/")}
    if set(own) != set(opt_keys):
        warnings.warn(f"Skipping variable loading for optimizer '{opt.name}', because it has "
                      f"{len(own)} variables whereas the saved optimizer has {len(opt_keys)} "
                      f"variables.", stacklevel=4)
        return []
    try:
        return [(v, convert(tensors[k], v, k, source)) for k, v in own.items()]
    except ValueError as e:
        warnings.warn(f"Skipping variable loading for optimizer '{opt.name}': {e}",
                      stacklevel=4)
        return []


def _describe(key, v, nodes):
    owner = key.rsplit("/vars/", 1)[0] if "/vars/" in key else ""
    layer = getattr(nodes.get(owner), "name", None)
    where = f"layer {layer!r} weight {variable_name(v)!r}" if layer else \
        f"weight {variable_name(v)!r}"
    return f"{where} (key {key})"
