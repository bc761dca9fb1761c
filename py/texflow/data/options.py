"""tf.data.Options: settings that apply to a whole input pipeline.

`ds.with_options(options)` attaches them; `ds.options()` gives the merged
options of the pipeline (options set later win). The distribute options carry
the auto-shard policy that multi-worker training reads.
"""

import enum

from ..errors import InvalidArgumentError


class AutoShardPolicy(enum.IntEnum):
    """How a distribution strategy shards a dataset across workers (TensorFlow's values)."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class _Group:
    """A group of options; only the ones set explicitly take part in a merge."""

    _defaults = {}

    def __init__(self):
        object.__setattr__(self, "_set", {})

    def __getattr__(self, name):
        if name in self._defaults:
            return self._set.get(name, self._defaults[name])
        raise AttributeError(f"{type(self).__name__} has no option {name!r}; known: "
                             f"{sorted(self._defaults)}")

    def __setattr__(self, name, value):
        if name not in self._defaults:
            raise InvalidArgumentError(f"{type(self).__name__} has no option {name!r}; known: "
                                       f"{sorted(self._defaults)}")
        self._set[name] = value

    def _merge(self, other):
        merged = type(self)()
        for src in (self, other):
            for k, v in src._set.items():
                if isinstance(v, _Group):
                    v = merged._set[k]._merge(v) if k in merged._set else v
                merged._set[k] = v
        return merged

    def __eq__(self, other):
        return type(self) is type(other) and all(
            getattr(self, k) == getattr(other, k) for k in self._defaults)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._set.items())})"


class DistributeOptions(_Group):
    """`options.experimental_distribute`: auto_shard_policy, num_devices."""
    _defaults = {"auto_shard_policy": AutoShardPolicy.AUTO, "num_devices": None}


class ThreadingOptions(_Group):
    """`options.threading`: private_threadpool_size (1 runs everything in-line)."""
    _defaults = {"private_threadpool_size": 0, "max_intra_op_parallelism": 0}


class OptimizationOptions(_Group):
    """`options.experimental_optimization`: TensorFlow's graph rewrites, accepted and
    kept (texflow's pipeline has no graph to rewrite)."""
    _defaults = dict.fromkeys((
        "apply_default_optimizations", "filter_fusion", "filter_parallelization",
        "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
        "map_parallelization", "noop_elimination", "parallel_batch", "seq_interleave_prefetch",
        "shuffle_and_repeat_fusion"))


class AutotuneOptions(_Group):
    """`options.autotune`: accepted and kept (AUTOTUNE picks fixed sizes in texflow)."""
    _defaults = dict.fromkeys(("autotune_algorithm", "cpu_budget", "enabled",
                               "initial_parallelism", "min_parallelism", "ram_budget"))


class Options(_Group):
    """Pipeline-wide options (`tf.data.Options`).

    >>> options = Options()
    >>> options.experimental_distribute.auto_shard_policy = AutoShardPolicy.DATA
    >>> options.experimental_distribute.auto_shard_policy
    <AutoShardPolicy.DATA: 2>
    """

    _defaults = {"deterministic": None, "experimental_deterministic": None,
                 "experimental_distribute": None, "threading": None,
                 "experimental_optimization": None, "autotune": None,
                 "experimental_slack": False, "experimental_external_state_policy": None}
    _groups = {"experimental_distribute": DistributeOptions, "threading": ThreadingOptions,
               "experimental_optimization": OptimizationOptions, "autotune": AutotuneOptions}

    def __getattr__(self, name):
        group = self._groups.get(name)
        if group is not None:
            if name not in self._set:
                self._set[name] = group()
            return self._set[name]
        return super().__getattr__(name)

    def merge(self, options):
        """These options updated with the ones set in `options`."""
        return self._merge(options)
