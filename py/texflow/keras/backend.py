"""`tf.keras.backend`: unique names, the name scope of weight paths, the call context.

Keras numbers auto-generated names per prefix ("dense", "dense_1", ...) for
the whole process until `clear_session()`. Weights get a path from the names
of the layers being called or built when they are made ("sequential/dense/
kernel"); `name_scope` keeps that stack. The call context carries `training`
from an outer `model(x, training=True)` down to nested layers.
"""

import re
import threading

_EPSILON = 1e-7


class _State(threading.local):
    def __init__(self):
        self.names = []       # name scope: layer names being called or built
        self.calls = []       # the training flags of the layer calls in progress


_local = _State()
_uids = {}


def get_uid(prefix=""):
    """1 for the first call with `prefix`, then 2, 3, ... (until `clear_session`)."""
    _uids[prefix] = _uids.get(prefix, 0) + 1
    return _uids[prefix]


def unique_name(prefix):
    """`prefix` the first time, then `prefix_1`, `prefix_2`, ... as Keras names layers."""
    uid = get_uid(prefix)
    return prefix if uid == 1 else f"{prefix}_{uid - 1}"


def snake_case(name):
    """Keras's object name from a class name: 'MaxPooling2D' -> 'max_pooling2d'."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def clear_session():
    """Resets the name counters, so new layers are named "dense", "dense_1", ... again.

    >>> tf.keras.backend.clear_session()
    """
    _uids.clear()


# The tf.distribute strategy in effect (the one whose scope or `run` is active), or None for
# the default strategy. texflow.distribute installs the getter: keras sits below it in the
# layers and may not import it.
_strategy_getter = [lambda: None]


def set_strategy_getter(fn):
    """Makes `distribute_strategy()` ask `fn()` (texflow.distribute calls this)."""
    _strategy_getter[0] = fn


def distribute_strategy():
    """The strategy in effect, or None when only the default strategy is."""
    return _strategy_getter[0]()


def replicas_in_sync():
    """How many replicas compute one step together (1 without a strategy)."""
    strategy = _strategy_getter[0]()
    return 1 if strategy is None else strategy.num_replicas_in_sync


def scale_loss_for_distribution(value):
    """`value / replicas in sync`, as Keras 3 scales a mean loss under tf.distribute: the
    strategy sums the replicas' gradients, so the sum is the gradient of the global mean."""
    n = replicas_in_sync()
    if n == 1:
        return value
    from ..ops import elementwise as ew
    return ew.mul(value, 1.0 / n)


def unscale_loss_for_distribution(value):
    """The inverse of `scale_loss_for_distribution` (what loss metrics record)."""
    n = replicas_in_sync()
    if n == 1:
        return value
    from ..ops import elementwise as ew
    return ew.mul(value, float(n))


def epsilon():
    """The fuzz factor Keras adds to avoid dividing by zero (1e-7)."""
    return _EPSILON


def set_epsilon(value):
    global _EPSILON
    _EPSILON = float(value)


def floatx():
    """The default float type: 'float32' (texflow's only float dtype)."""
    return "float32"


def image_data_format():
    """'channels_last': texflow's images are NHWC."""
    return "channels_last"


class name_scope:  # noqa: N801  (Keras's name)
    """`with name_scope("block"):` prefixes the paths of weights made inside."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        _local.names.append(self.name)
        return self

    def __exit__(self, *exc):
        _local.names.pop()
        return False


def current_path():
    """The active name scope as a path ('sequential/dense'), or ''."""
    return "/".join(_local.names)


class call_context:  # noqa: N801
    """Records one layer call in progress and its resolved `training` flag."""

    def __init__(self, training):
        self.training = training

    def __enter__(self):
        _local.calls.append(self.training)
        return self

    def __exit__(self, *exc):
        _local.calls.pop()
        return False


def outer_training():
    """The `training` flag of the innermost layer call in progress (None outside)."""
    calls = _local.calls
    return calls[-1] if calls else None


def in_call():
    """Whether a layer call is in progress (so this call is nested in another)."""
    return bool(_local.calls)


# -- random numbers ---------------------------------------------------------------------
# Weights and dropout masks are drawn with numpy on the host and uploaded, so a seed
# gives the same values on every backend. Unseeded draws come from one generator that
# `tf.keras.utils.set_random_seed` reseeds.

_rng = [None]


def global_generator():
    """The numpy Generator unseeded initializers and layers draw from."""
    import numpy as np
    if _rng[0] is None:
        _rng[0] = np.random.default_rng()
    return _rng[0]


def set_random_seed(seed):
    """Seeds texflow's Keras generator, Python's `random` and numpy's global state.

    >>> tf.keras.utils.set_random_seed(1)
    """
    import random

    import numpy as np
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"set_random_seed expects an int seed, received {seed!r}")
    random.seed(seed)
    np.random.seed(seed % 2**32)
    _rng[0] = np.random.default_rng(seed)
