"""The numpy backend's matrix products run on one BLAS thread, and the caller's numpy
keeps its own thread count (backends/numpy/blas.py)."""

import numpy as np
import pytest

import texflow as tf
from texflow.backends.numpy import blas, matmul

threadpoolctl = pytest.importorskip("threadpoolctl")


def _blas_threads():
    return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]


def test_products_run_on_one_blas_thread_and_the_count_is_put_back():
    if not _blas_threads():
        pytest.skip("numpy has no BLAS library threadpoolctl can see")
    seen = []
    probe = blas.one_blas_thread(lambda: seen.append(_blas_threads()))
    with threadpoolctl.threadpool_limits(2, user_api="blas"):
        probe()
        assert seen == [[1] * len(seen[0])]
        assert _blas_threads() == [2] * len(seen[0])
        failing = blas.one_blas_thread(lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            failing()
        assert _blas_threads() == [2] * len(seen[0])    # put back after an error too
        # the kernels that call BLAS are wrapped, and compute what numpy computes
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        assert hasattr(matmul.matmul, "__wrapped__")
        with tf.scope():
            got = tf.matmul(tf.array(a), tf.array(a.T)).numpy()
        assert np.array_equal(got, a @ a.T) and _blas_threads() == [2] * len(seen[0])


def test_a_large_product_keeps_numpys_threads():
    if not _blas_threads():
        pytest.skip("numpy has no BLAS library threadpoolctl can see")
    seen = []

    def probe(a, b):
        seen.append(_blas_threads())

    work = blas.one_blas_thread(probe, work=lambda a, b: a * b)
    with threadpoolctl.threadpool_limits(2, user_api="blas"):
        work(1 << 10, 1 << 10)          # small: one thread
        work(1 << 13, 1 << 13)          # 2**26 multiply-adds: numpy's threads
        assert seen == [[1] * len(seen[0]), [2] * len(seen[0])]
    # a work estimate takes its kernel's arguments, the context (unused) first
    assert matmul._matmul_work(None, np.zeros((2, 512, 512)), np.zeros((512, 64)), False,
                               False) == 2 * 512 * 512 * 64
