"""Strategies inside one process: MirroredStrategy, OneDeviceStrategy, CentralStorageStrategy.

A replica is a device, i.e. a backend: natively "/CPU:0" is numpy and "/GPU:0" wgpu,
in the browser "/GPU:0" webgpu and "/GPU:1" webgl (`tf.config.list_logical_devices`
names them). Replicas run one after another in the calling thread (Pyodide has no
threads), each under its device; they share the variables, which ops read from any
backend, and an optimizer applies the sum of their gradients once per step.
"""

import contextlib

from .. import config
from ..errors import InvalidArgumentError
from .strategy import Strategy, StrategyExtended, _entered


def _backends(devices):
    out = []
    for d in devices:
        backend = config.backend_for_device(d)
        if backend is None:
            raise InvalidArgumentError(f"{d!r} does not name a device (e.g. '/gpu:0', "
                                       f"'/cpu:0'); devices here: "
                                       f"{[x.name for x in config.list_logical_devices()]}")
        out.append(backend)
    return out


class _PlacedStrategy(Strategy):
    """A strategy whose scope also places the variables it makes on one device."""

    _variable_device = None

    def scope(self):
        return _placed(self, self._variable_device)


@contextlib.contextmanager
def _placed(strategy, device):
    with _entered(strategy):
        with config.device(device) if device is not None else contextlib.nullcontext():
            yield strategy


class MirroredStrategy(Strategy):
    """Synchronous training on several devices of one process
    (`tf.distribute.MirroredStrategy`).

    Args:
        devices: device names ('/cpu:0', '/gpu:0', ...) or texflow backend names; by
            default every GPU (or the CPU when there is none).
        cross_device_ops: accepted (replicas of one process add their gradients on the
            first replica's device).

    >>> strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    >>> strategy.num_replicas_in_sync
    1
    """

    def __init__(self, devices=None, cross_device_ops=None):
        if devices is None:
            gpus = [d.name for d in config.list_logical_devices("GPU")]
            devices = gpus or ["/device:CPU:0"]
        if isinstance(devices, str):
            devices = [devices]
        backends = _backends(devices)
        if len(set(backends)) != len(backends):
            raise InvalidArgumentError(f"No duplicates allowed in `devices` argument: "
                                       f"{list(devices)}")
        self.cross_device_ops = cross_device_ops
        super().__init__(StrategyExtended(self, backends))


class OneDeviceStrategy(_PlacedStrategy):
    """Everything on one device: variables made in the scope and `run`'s functions
    (`tf.distribute.OneDeviceStrategy`).

    >>> strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    """

    def __init__(self, device):
        backend = _backends([device])[0]
        self._variable_device = backend
        super().__init__(StrategyExtended(self, [backend]))


class CentralStorageStrategy(_PlacedStrategy):
    """Variables on one device (the CPU), the computation replicated on the compute
    devices, their gradients added before one update
    (`tf.distribute.experimental.CentralStorageStrategy`).

    Args:
        compute_devices: where replicas run (default: every GPU, else the CPU).
        parameter_device: where variables live (default: the CPU).
    """

    def __init__(self, compute_devices=None, parameter_device=None):
        if compute_devices is None:
            gpus = [d.name for d in config.list_logical_devices("GPU")]
            compute_devices = gpus or ["/device:CPU:0"]
        self._variable_device = _backends([parameter_device or "/device:CPU:0"])[0]
        super().__init__(_CentralExtended(self, _backends(compute_devices)))


class _CentralExtended(StrategyExtended):
    @property
    def parameter_devices(self):
        return (self._device_name(self._strategy._variable_device),)

    @property
    def worker_devices(self):
        return tuple(self._device_name(d) for d in self.devices)


class CrossDeviceOps:
    """Accepted by MirroredStrategy (texflow adds replicas' gradients itself)."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class NcclAllReduce(CrossDeviceOps):
    pass


class HierarchicalCopyAllReduce(CrossDeviceOps):
    pass


class ReductionToOneDevice(CrossDeviceOps):
    pass
