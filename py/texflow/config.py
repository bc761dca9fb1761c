"""`tf.config` and `tf.device`: texflow's backends as TensorFlow's devices.

The numpy backend is the CPU (`/physical_device:CPU:0`); each available GPU
backend is a GPU, best first: in the browser webgpu is GPU:0 and webgl GPU:1,
natively wgpu is GPU:0. `with tf.device("/GPU:0"):` runs the block's ops on
that backend, `tf.device("/CPU:0")` on numpy; texflow's names ("webgl", ...)
work too. Like TensorFlow's soft placement, a GPU that does not exist falls
back to the CPU (with a warning).
"""

import collections
import re
import warnings

from .engine import context
from .engine import memory
from .engine.ndarray import NDArray

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])

_visible = {}


def _gpu_backends():
    return [name for name in context.GPU_PREFERENCE if context.unavailable_reason(name) is None]


def _devices(device_type):
    """[(device type, index, backend name)] of the devices here, CPU first."""
    found = [("CPU", 0, "numpy")] + [("GPU", i, name) for i, name in enumerate(_gpu_backends())]
    if device_type is not None:
        found = [d for d in found if d[0] == str(device_type).upper()]
    return found


def list_physical_devices(device_type=None):
    """The devices here: [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU'),
    PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU'), ...]."""
    return [PhysicalDevice(f"/physical_device:{t}:{i}", t) for t, i, _ in _devices(device_type)]


def list_logical_devices(device_type=None):
    """The visible devices, named as ops see them ('/device:GPU:0')."""
    return [LogicalDevice(f"/device:{t}:{i}", t) for t, i, _ in _devices(device_type)
            if _visible.get(t) is None or i in _visible[t]]


def get_visible_devices(device_type=None):
    return [d for d in list_physical_devices(device_type)
            if _visible.get(d.device_type) is None
            or int(d.name.rsplit(":", 1)[1]) in _visible[d.device_type]]


def set_visible_devices(devices, device_type=None):
    """Restricts the logical devices to `devices` (of `device_type`)."""
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    kinds = {device_type.upper()} if device_type else {d.device_type for d in devices}
    for kind in kinds:
        _visible[kind] = {int(d.name.rsplit(":", 1)[1]) for d in devices
                          if d.device_type == kind}


def backend_for_device(name):
    """The backend name a TensorFlow device string or a texflow backend name picks."""
    if name is None or name == "":
        return None
    text = str(name)
    if text.lower() in ("numpy", "webgl", "webgpu", "wgpu"):
        return text.lower()
    spec = {}
    for part in filter(None, text.split("/")):
        match = re.fullmatch(r"(?:device:)?(cpu|gpu)(?::(\d+|\*))?", part, re.IGNORECASE)
        if match:
            spec["type"] = match.group(1).upper()
            spec["index"] = 0 if match.group(2) in (None, "*") else int(match.group(2))
            continue
        key = part.split(":", 1)[0]
        if key not in ("job", "replica", "task"):
            raise ValueError(f"Unknown attribute '{part}' is encountered while parsing the "
                             f"device spec: '{text}'.")
    if "type" not in spec:
        return None
    for kind, index, backend in _devices(spec["type"]):
        if index == spec["index"]:
            return backend
    warnings.warn(f"texflow: there is no device {text!r} here (devices: "
                  f"{[d.name for d in list_logical_devices()]}); running on the CPU, as "
                  "TensorFlow's soft placement does", RuntimeWarning, stacklevel=3)
    return "numpy"


def device_name(backend):
    """TensorFlow's full name of the device a backend (instance or None: the host) is."""
    name = getattr(backend, "name", backend)
    for kind, index, candidate in _devices(None):
        if candidate == name:
            return f"/job:localhost/replica:0/task:0/device:{kind}:{index}"
    return "/job:localhost/replica:0/task:0/device:CPU:0"


class device:  # noqa: N801  (tf.device is a function returning a context manager)
    """`with tf.device("/GPU:0"):` runs the block's ops on that device's backend."""

    def __init__(self, device_name):
        backend = backend_for_device(device_name)
        self._using = None if backend is None else context.using(
            context.backend_instance(backend))

    def __enter__(self):
        if self._using is not None:
            self._using.__enter__()
        return self

    def __exit__(self, *exc):
        if self._using is not None:
            self._using.__exit__(*exc)
        return False


def run_functions_eagerly(run_eagerly):
    """True: every tf.function (Keras's compiled steps too) calls its Python function
    eagerly instead of tracing and replaying it, for debugging."""
    from .autodiff import function
    function.RUN_EAGERLY[0] = bool(run_eagerly)


def functions_run_eagerly():
    """Whether `run_functions_eagerly(True)` is in effect."""
    from .autodiff import function
    return function.RUN_EAGERLY[0]


def set_soft_device_placement(enabled):
    """Accepted: a missing GPU always falls back to the CPU (see the module docstring)."""


def get_soft_device_placement():
    return True


_LOCAL_NAME = re.compile(r"([A-Za-z_][A-Za-z_0-9]*):(\d+)")
_FULL_PART = re.compile(r"(job|replica|task):(\w+)|(?:device:)?([A-Za-z_][A-Za-z_0-9]*):(\d+|\*)")


def _memory_backend(device):
    """The backend of TensorFlow device string `device` ('GPU:0', '/device:CPU:0', ''),
    parsed and matched as get_memory_info does: ValueError for a name it cannot parse
    or no device here matches."""
    if not isinstance(device, str):
        raise TypeError(f"get_memory_info: `device` must be a device string such as "
                        f"'GPU:0', received {device!r}")
    bad = ValueError(f"Failed parsing device name: '{device}'. Note a valid device string "
                     "should at least contain a device type and a device index, like "
                     "\"GPU:0\".")
    spec = {"job": "localhost", "replica": "0", "task": "0", "type": None, "index": None}
    if "/" not in device and device:
        local = _LOCAL_NAME.fullmatch(device)
        if local is None:
            raise bad
        spec.update(type=local.group(1), index=int(local.group(2)))
    elif device:
        if not device.startswith("/"):
            raise bad
        for part in device[1:].split("/"):
            match = _FULL_PART.fullmatch(part)
            if match is None or match.group(1) in ("replica", "task") and \
                    not match.group(2).isdigit():
                raise bad
            if match.group(1):
                spec[match.group(1)] = match.group(2)
                continue
            kind = match.group(3)
            # the legacy '/cpu:0' form is lower case; 'device:cpu:0' names no device
            legacy = not part.startswith("device:") and kind in ("cpu", "gpu")
            spec["type"] = kind.upper() if legacy else kind
            spec["index"] = None if match.group(4) == "*" else int(match.group(4))
    if (spec["job"], int(spec["replica"]), int(spec["task"])) == ("localhost", 0, 0):
        for kind, index, backend in _devices(None):
            if spec["type"] in (None, kind) and spec["index"] in (None, index):
                return backend
    raise ValueError(f"No matching devices found for '{device}'")


def get_memory_info(device):
    """`{"current": bytes, "peak": bytes}` of the tensor data `device` holds now and at
    most since the program began or `reset_memory_stats(device)` (TensorFlow's
    tf.config.experimental.get_memory_info): texflow's own accounting, the storages
    behind live tensors (tf.memory()'s `num_bytes`, per device: the numpy backend and
    host copies are the CPU's). Pooled textures and buffers kept for reuse and a
    replayed step's intermediates before they become tensors are not counted.

    >>> sorted(tf.config.experimental.get_memory_info("CPU:0"))
    ['current', 'peak']
    """
    current, peak = memory.held_bytes(_memory_backend(device))
    return {"current": current, "peak": peak}


def reset_memory_stats(device):
    """Starts `device`'s peak (get_memory_info) again from what it holds now."""
    memory.reset_peak(_memory_backend(device))


def get_memory_usage(device):
    """The bytes `device` holds now (TensorFlow's deprecated form of
    `get_memory_info(device)['current']`)."""
    return get_memory_info(device)["current"]


class experimental:  # noqa: N801  (a namespace, as tf.config.experimental)
    """`tf.config.experimental.set_memory_growth` and friends (accepted; texflow's GPU
    storage is pooled and bounded, see tf.memory()), get_memory_info and
    reset_memory_stats."""

    list_physical_devices = staticmethod(list_physical_devices)
    list_logical_devices = staticmethod(list_logical_devices)
    get_memory_info = staticmethod(get_memory_info)
    reset_memory_stats = staticmethod(reset_memory_stats)
    get_memory_usage = staticmethod(get_memory_usage)

    @staticmethod
    def set_memory_growth(device, enable):
        pass

    @staticmethod
    def get_memory_growth(device):
        return True

    @staticmethod
    def enable_op_determinism():
        pass


# x.device: the TensorFlow name of the device holding a tensor's data (the host: CPU:0).
NDArray.device = property(lambda self: device_name(self._live().backend))
