"""What a worker needs to take the next training step, as arrays that travel in one
broadcast and as one checkpoint file: variables, optimizer slots, step/epoch/batch,
the data position and the random state.

`TrainingState` is what `recovery.Keeper` sends from a worker that has trained to
one that has not (a restarted process, a reloaded page) and stores on the
coordinator as the chief's checkpoint.
"""

import io
import json

import numpy as np

from ..errors import InvalidArgumentError

COUNTERS = ("step", "epoch", "batch")


class TrainingState:
    """The state a worker resumes training from.

    Args:
        variables: the model's variables (texflow or Keras Variables; all of them,
            non-trainable ones such as BatchNormalization statistics included).
        optimizer: a Keras optimizer (`tf.keras.optimizers.*`) or a texflow optimizer
            (`tf.SGDOptimizer`, ...), or None. Its slots travel too; a worker whose
            optimizer has not made its slots yet makes them for `variables`.
        extra: {name: Variable} of other state that must match (metrics, counters).
        rng: whether the `tf.random` state (global seed, op-seed sequence, stream
            positions, the global Generator) travels too. It is the sender's, which is
            right when every worker seeds the same way, as the tutorials do.

    Attributes: step (steps taken, over all epochs), epoch, batch (the position in the
    epoch), trained (whether this worker holds trained state: a fresh process does not),
    data (a dict of JSON values the program keeps with the state, e.g. a data cursor).
    """

    def __init__(self, variables=(), optimizer=None, extra=None, rng=True):
        self.variables = list(variables)
        self.optimizer = optimizer
        self.extra = dict(extra or {})
        self.rng = rng
        self.step = self.epoch = self.batch = 0
        self.trained = False
        self.data = {}

    # -- to arrays and back --------------------------------------------------------------

    def snapshot(self):
        """(meta, arrays): JSON-able meta (counters, names, random state) and numpy arrays
        in the order `meta["names"]` lists."""
        names, arrays = [], []
        for i, v in enumerate(self.variables):
            names.append(f"variables/{i}/{_name(v)}")
            arrays.append(_read(v))
        for name, value in _optimizer_state(self.optimizer).items():
            names.append(f"optimizer/{name}")
            arrays.append(np.asarray(value))
        for name, v in sorted(self.extra.items()):
            names.append(f"extra/{name}")
            arrays.append(_read(v))
        meta = {c: int(getattr(self, c)) for c in COUNTERS}
        meta.update(names=names, data=self.data, trained=bool(self.trained))
        if self.rng:
            meta["rng"] = _rng_state()
        return meta, arrays

    def restore(self, meta, arrays):
        """Loads what `snapshot` gave (on another worker); checks counts and shapes first,
        so a mismatch changes nothing. Variables match by position (their names may differ
        between processes that built other models first), and errors name both."""
        names = list(meta["names"])
        if len(names) != len(arrays):
            raise InvalidArgumentError(f"the training state lists {len(names)} tensors but "
                                       f"carries {len(arrays)}")
        groups = {"variables": [], "optimizer": {}, "extra": {}}
        for name, array in zip(names, arrays):
            kind, _, rest = name.partition("/")
            if kind == "variables":
                groups[kind].append((rest.partition("/")[2], array))
            elif kind in groups:
                groups[kind][rest] = array
            else:
                raise InvalidArgumentError(f"the training state has an unknown tensor {name!r}")
        if len(groups["variables"]) != len(self.variables):
            raise InvalidArgumentError(
                f"the training state has {len(groups['variables'])} variables, this worker "
                f"{len(self.variables)}: the models differ")
        if set(groups["extra"]) != set(self.extra):
            raise InvalidArgumentError(f"the training state's extra tensors "
                                       f"{sorted(groups['extra'])} are not this worker's "
                                       f"{sorted(self.extra)}")
        pairs = [(f"variable {i} ({_name(v)}; {theirs} in the state)", v, a)
                 for i, (v, (theirs, a)) in enumerate(zip(self.variables,
                                                          groups["variables"]))]
        pairs += [(f"extra/{k}", v, groups["extra"][k]) for k, v in sorted(self.extra.items())]
        for what, v, array in pairs:
            if tuple(np.shape(array)) != tuple(v.shape):
                raise InvalidArgumentError(f"{what} has shape {tuple(v.shape)} here, "
                                           f"{tuple(np.shape(array))} in the state")
        for _, v, array in pairs:
            v.assign(np.asarray(array).astype(_dtype(v), copy=False))
        _set_optimizer_state(self.optimizer, groups["optimizer"], self.variables)
        for c in COUNTERS:
            setattr(self, c, int(meta[c]))
        self.data = dict(meta.get("data") or {})
        self.trained = bool(meta.get("trained", True))
        if self.rng and meta.get("rng") is not None:
            _set_rng_state(meta["rng"])

    # -- one file ------------------------------------------------------------------------

    def to_bytes(self):
        """The state as one .npz file's bytes (the meta as JSON inside)."""
        meta, arrays = self.snapshot()
        buffer = io.BytesIO()
        np.savez(buffer, __meta__=np.frombuffer(json.dumps(meta).encode(), np.uint8),
                 **{f"a{i}": a for i, a in enumerate(arrays)})
        return buffer.getvalue()

    def from_bytes(self, data):
        """Loads `to_bytes` output."""
        with np.load(io.BytesIO(data)) as z:
            meta = json.loads(bytes(z["__meta__"]).decode())
            arrays = [z[f"a{i}"] for i in range(len(meta["names"]))]
        self.restore(meta, arrays)


def encode_meta(meta):
    """The meta as a uint8 array (broadcast moves any dtype; JSON, never tensor data)."""
    return np.frombuffer(json.dumps(meta).encode(), np.uint8).copy()


def decode_meta(array):
    return json.loads(np.asarray(array, np.uint8).tobytes().decode())


def _name(v):
    return getattr(v, "path", None) or getattr(v, "name", "") or ""


def _read(v):
    return np.asarray(v.numpy())


def _dtype(v):
    return np.dtype(getattr(v.dtype, "name", v.dtype))


# -- optimizers: Keras ones (variables, build, get/set_state by path) and texflow's own
#    (get_state() -> {"iterations", "slots"}, set_state(state, variables)) ---------------

def _is_keras(optimizer):
    return hasattr(optimizer, "build") and hasattr(optimizer, "variables")


def _optimizer_state(optimizer):
    if optimizer is None:
        return {}
    if _is_keras(optimizer):
        return {f"{i}/{v.path}": _read(v) for i, v in enumerate(optimizer.variables)}
    state = optimizer.get_state()
    out = {"iterations": np.asarray(state["iterations"], np.int64)}
    for var, slots in sorted(state["slots"].items()):
        for slot, value in sorted(slots.items()):
            out[f"slots/{slot}/{var}"] = np.asarray(value)
    return out


def _set_optimizer_state(optimizer, state, variables):
    if optimizer is None:
        if state:
            raise InvalidArgumentError("the training state has optimizer slots but this "
                                       "worker's TrainingState has no optimizer")
        return
    if _is_keras(optimizer):
        if not optimizer.built and len(state) > len(optimizer.variables):
            # the sender has taken steps (its slots exist): make ours to receive them
            optimizer.build([v for v in variables if getattr(v, "trainable", True)])
        mine = optimizer.variables
        if len(mine) != len(state):
            raise InvalidArgumentError(f"optimizer {optimizer.name!r} has {len(mine)} "
                                       f"variables here, {len(state)} in the state")
        by_index = {int(k.split("/", 1)[0]): v for k, v in state.items()}
        optimizer.set_state({v.path: by_index[i] for i, v in enumerate(mine)})  # checks shapes
        return
    slots = {}
    for key, value in state.items():
        if key.startswith("slots/"):
            slot, var = key[len("slots/"):].split("/", 1)
            slots.setdefault(var, {})[slot] = value
    optimizer.set_state({"iterations": int(state.get("iterations", 0)), "slots": slots},
                        variables)


# -- tf.random: seeds, op-seed sequence, stream positions, the global Generator -----------

def _rng_state():
    from .. import random
    return random._get_state()


def _set_rng_state(state):
    from .. import random
    random._set_state(state)
