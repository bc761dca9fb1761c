"""`tf.memory()`: what texflow holds now."""

from .engine import context
from .engine import memory as counters


def memory():
    """A dict describing live memory.

    Keys: `num_arrays` (live NDArrays), `num_bytes` (bytes of their data,
    shared views counted once), `num_gpu_objects` (textures or buffers in use),
    `num_pooled_gpu_objects` and `pooled_bytes` (freed ones kept for reuse),
    `pool_limit_bytes` (the bound on the pool), `backend` (the active backend),
    `num_downloads` / `num_uploads`: transfers between host and device so far, and
    `num_launches`: kernel launches so far (numpy kernel calls, WebGL draws, WGSL
    dispatches), so a program can see what `tf.function`'s fusion saved.

    >>> sorted(tf.memory())[:3]
    ['backend', 'num_arrays', 'num_bytes']
    """
    info = counters.counts()
    info.update(num_gpu_objects=0, num_pooled_gpu_objects=0, pooled_bytes=0,
                pool_limit_bytes=0)
    for backend in context.instances().values():
        for key, value in backend.memory_info().items():
            info[key] = info.get(key, 0) + value
    info["backend"] = context.get_backend()
    return info
