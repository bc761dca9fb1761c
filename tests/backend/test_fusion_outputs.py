"""Fusion with several outputs per kernel (autodiff/fusion.py `fuse_outputs`): Keras Adam's
update of each variable (new momentum, velocity and value) is one launch per
variable, compiled, with eager's results; a step that reads a Variable between its
assignment and a later update ends the group, so the order of reads stays eager's;
tf.train Adam's step size (a few ops on its step count) is computed in each kernel."""

import numpy as np

import texflow as tf
from harness import each_backend, memory

SHAPES = [(37, 9), (9,), (9, 3), (3,)]  # the MLP's kernels and biases, smaller


def _same(eager, traced, what):
    if tf.get_backend() == "numpy":
        assert np.array_equal(eager, traced), (what, eager, traced)
    else:  # a GPU compiler may contract fused arithmetic (a * b + c into one fma)
        assert np.allclose(eager, traced, rtol=2e-6, atol=1e-7), (what, eager, traced)


def _updates(make_optimizer, seed):
    """{"eager"|"compiled": (launches of the third update, variables and optimizer
    variables after it)} for the same gradients applied three times."""
    rng = np.random.default_rng(seed)
    init = [rng.normal(size=s).astype(np.float32) for s in SHAPES]
    grads = [tf.constant(rng.normal(size=s).astype(np.float32)) for s in SHAPES]
    runs = {}
    for mode in ("eager", "compiled"):
        variables = [tf.Variable(v) for v in init]
        opt = make_optimizer()

        def update(variables=variables, opt=opt):
            opt.apply_gradients(zip(grads, variables))
        run = update if mode == "eager" else tf.function(update)
        for _ in range(2):
            run()
        before = memory()["num_launches"]
        run()
        state = [v.numpy() for v in variables] + [np.asarray(s.numpy()) for s in
                                                  getattr(opt, "variables", ())]
        runs[mode] = (memory()["num_launches"] - before, state)
    return runs


@each_backend
def test_adam_updates_each_variable_in_one_launch():
    runs = _updates(lambda: tf.keras.optimizers.Adam(0.01), 5)
    (eager_n, eager), (n, traced) = runs["eager"], runs["compiled"]
    assert n == len(SHAPES) < eager_n, (n, eager_n)
    # after the variables: the step count, the learning rate, then m and v per variable
    assert len(traced) == 3 * len(SHAPES) + 2 and traced[len(SHAPES)] == 3
    for e, t in zip(eager, traced):
        _same(e, t, "variables, step count and slots")


@each_backend
def test_tf_train_adam_computes_its_step_size_in_each_variables_kernel():
    runs = _updates(lambda: tf.AdamOptimizer(0.01), 8)
    (eager_n, eager), (n, traced) = runs["eager"], runs["compiled"]
    assert n == len(SHAPES) + 1 < eager_n, (n, eager_n)  # + the step count's increment
    for e, t in zip(eager, traced):
        # traced, the step size is float32 on the device (eagerly a float64 number)
        assert np.allclose(e, t, rtol=1e-5, atol=1e-6), (e, t)


@each_backend
def test_a_read_between_assignment_and_update_keeps_eager_order():
    rng = np.random.default_rng(6)
    g = tf.constant(rng.normal(size=(6, 5)).astype(np.float32))
    runs = {}
    for mode in ("eager", "compiled"):
        m = tf.Variable(np.ones((6, 5), np.float32))
        w = tf.Variable(np.full((6, 5), 2.0, np.float32))

        def step(m=m, w=w):
            m.assign_add((g - m) * 0.5)
            total = tf.reduce_sum(m, axis=1, keepdims=True)  # reads the new m
            w.assign(w * 0.5 + m)                            # would join m's kernel
            m.assign(m * 3.0 - total)                        # after the read
            return total, w * 1.0 + m                        # two results, one kernel
        run = step if mode == "eager" else tf.function(step)
        run()
        before = memory()["num_launches"]
        results = [r.numpy() for r in run()]
        runs[mode] = (memory()["num_launches"] - before, results + [m.numpy(), w.numpy()])
    (_, eager), (n, traced) = runs["eager"], runs["compiled"]
    # m's update; the sum; w's and m's second updates with the returned result
    assert n == 3, n
    for e, t in zip(eager, traced):
        _same(e, t, "results and variables")


@each_backend
def test_results_of_each_dtype_share_a_kernel():
    rng = np.random.default_rng(1)
    x = tf.constant(rng.normal(size=(7, 5)).astype(np.float32))
    n = tf.constant(rng.integers(-4, 4, size=(7, 5)).astype(np.int32))

    def f(x, n):  # bool, int32 and float32 results: one kernel per dtype
        a = x > 0.1
        k = n * 3 + 1
        return a, tf.logical_not(a), k, k // 2 - n, tf.cast(k, tf.float32) * x, x * 2.0
    compiled = tf.function(f)
    compiled(x, n)
    before = memory()["num_launches"]
    traced = compiled(x, n)
    assert memory()["num_launches"] - before == 3
    for e, t in zip(f(x, n), traced):
        assert e.dtype == t.dtype and e.shape == t.shape
        _same(e.numpy(), t.numpy(), "results")


@each_backend
def test_a_kernel_over_the_storage_buffer_limit_splits_its_outputs():
    # WGSL binds outputs as storage buffers: at WebGPU's default limit of 8, Adam's
    # kernel (5 inputs, 3 outputs, the parameters) splits into two launches (new m and
    # v; the new value, computing m and v again); GLSL and numpy have no such limit
    from texflow.engine import context
    backend = context.current()
    wgsl = getattr(backend, "language", None) == "wgsl"
    limit = getattr(backend, "max_storage_buffers", None)
    if wgsl:
        backend.max_storage_buffers = 8
    try:
        runs = _updates(lambda: tf.keras.optimizers.Adam(0.01), 9)
    finally:
        if wgsl:
            backend.max_storage_buffers = limit
    (eager_n, eager), (n, traced) = runs["eager"], runs["compiled"]
    assert n == (2 if wgsl else 1) * len(SHAPES) < eager_n, (n, eager_n)
    for e, t in zip(eager, traced):
        _same(e, t, "variables, step count and slots")
