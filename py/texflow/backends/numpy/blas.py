"""The numpy kernels' BLAS calls (matrix products) run on one thread.

numpy's OpenBLAS splits a product over worker threads that spin while they wait
for each other. On a machine whose cores are busy with other processes those
threads are descheduled in turn, and each product waits for the slowest: the
MNIST CNN's `fit` step measured 5x to 10x slower in wall time with OpenBLAS's
default threads than with one (README, "Keras `fit` of the MNIST CNN"). The
products of a training step are small (a batch of 64), so one thread gives up
little when the cores are free; a large product (from `LARGE` multiply-adds, e.g. a
512x512 matmul) keeps numpy's threads, where splitting it pays. threadpoolctl (the
scikit-learn project's library for exactly this; a native dependency, as Pyodide's
numpy has no BLAS threads) finds the BLAS library numpy loaded; the count is set
to 1 for the duration of each kernel and put back after, so the caller's own numpy
keeps its threads.
"""

import functools

_libs = []  # the BLAS libraries' threadpoolctl controllers, found on first use
_found = [False]


def _blas_libraries():
    if not _found[0]:
        _found[0] = True
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # Pyodide, or a native install without it: numpy's default
            return _libs
        _libs.extend(lib for lib in ThreadpoolController().lib_controllers
                     if lib.user_api == "blas")
    return _libs


# From this many multiply-adds a product is worth numpy's BLAS threads (2**26: between
# a 256^3 and a 512^3 matmul; the MNIST CNN's largest product is about 2**24.4).
LARGE = 1 << 26


def one_blas_thread(kernel=None, *, work=None):
    """Decorates numpy kernel `kernel` so that its BLAS calls run on one thread;
    `work(*args, **attrs)`, when given, estimates the kernel's multiply-adds, and from
    `LARGE` of them the kernel keeps numpy's thread count."""
    if kernel is None:
        return functools.partial(one_blas_thread, work=work)

    @functools.wraps(kernel)
    def wrapped(*args, **attrs):
        if work is not None and work(*args, **attrs) >= LARGE:
            return kernel(*args, **attrs)
        changed = []
        for lib in _blas_libraries():
            threads = lib.get_num_threads()
            if threads != 1:
                lib.set_num_threads(1)
                changed.append((lib, threads))
        try:
            return kernel(*args, **attrs)
        finally:
            for lib, threads in changed:
                lib.set_num_threads(threads)
    return wrapped
