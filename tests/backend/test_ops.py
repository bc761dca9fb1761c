"""Every op on every backend against the numpy oracle (tests/oracle.py), driven by
the rows of tests/op_cases.py: random shapes of rank 0 to 4, broadcasting,
size 0, a dimension over 8192, negative and non-finite values."""

import numpy as np

import oracle
import texflow as tf
from harness import each_backend, raises
from op_cases import (ARG_CASES, ARG_OPS, BINARY, BINARY_SHAPES, MATMUL_CASES, REDUCE_CASES,
                      REDUCE_DTYPES, REDUCE_OPS, REVERSE_CASES, SCALARS, SCAN_CASES,
                      SORT_CASES, TOP_K_CASES, TRANSCENDENTAL, TRANSPOSE_CASES, UNARY,
                      UNARY_SHAPES, VALUE_KINDS, rng_for, values)


def _tolerance(op):
    """(rtol, atol) from the backend's precision: numpy computes float32 on the host
    with correctly rounded basics; GPU kernels may use approximate transcendentals."""
    gpu = tf.get_backend() != "numpy"
    if op in TRANSCENDENTAL:
        return (2e-5, 1e-6) if gpu else (2e-6, 1e-7)
    return (2e-6, 1e-7) if gpu else (1e-6, 0.0)


def _check(op, got, expected, what, atol_extra=0.0, rtol_extra=0.0):
    rtol, atol = _tolerance(op)
    oracle.assert_close(got, expected, rtol + rtol_extra, atol + atol_extra, what)


def _run(fn, *args, **kwargs):
    """Runs an op in a scope and returns its result as numpy."""
    with tf.scope():
        return fn(*args, **kwargs).numpy()


def _op(name):
    """The public function of op `name`: tf.<name>, else under TensorFlow's namespaces."""
    for space in (tf, tf.math, tf.nn, tf.bitwise):
        for public in (name, "reduce_" + name):
            if hasattr(space, public):
                return getattr(space, public)
    raise AttributeError(f"no public function for op {name!r}")


def _arr(x):
    return tf.array(x) if isinstance(x, np.ndarray) else x


@each_backend(op=sorted(UNARY))
def test_unary(op):
    for dtype in UNARY[op]:
        for shape in UNARY_SHAPES:
            x = values(dtype, shape, rng_for(op, dtype, shape))
            got = _run(_op(op), tf.array(x))
            _check(op, got, getattr(oracle, op)(x), f"{op}({dtype}{list(shape)})")


@each_backend
def test_math_ops_fuse_in_tf_function():
    # the declared ops are elementwise: tf.function runs a chain of them as one kernel,
    # with the values eager gives (within the fused bodies' roundings)
    from texflow import memory
    rng = rng_for("fuse-math")
    x = tf.array(rng.uniform(-0.9, 0.9, (4, 33)).astype(np.float32))
    y = tf.array(rng.uniform(0.1, 3.0, (33,)).astype(np.float32))

    def chain(a, b):
        m = tf.math
        u = m.tan(a) + m.sinh(a) * m.cosh(a) - m.asin(a) + m.acos(a) * m.atan(b)
        u = u + m.asinh(b) + m.acosh(b + 1.0) - m.atanh(a) + m.log_sigmoid(a)
        u = u + m.reciprocal_no_nan(b) + m.rint(b) + m.atan2(a, b) + m.xlogy(a, b)
        return u + m.xdivy(a, b) - m.multiply_no_nan(a, b)
    with tf.scope():
        eager = chain(x, y).numpy()
        fused = tf.function(chain)
        fused(x, y)
        before = memory()["num_launches"]
        got = fused(x, y).numpy()
        assert memory()["num_launches"] - before == 1
    oracle.assert_close(got, eager, 1e-5, 1e-5, "fused math chain")


@each_backend(op=sorted(BINARY))
def test_binary(op):
    for da, db in BINARY[op]:
        for sa, sb in BINARY_SHAPES:
            rng = rng_for(op, da, db, sa, sb)
            kind_a, kind_b = VALUE_KINDS.get(op, (None, None))
            a, b = values(da, sa, rng, kind=kind_a), values(db, sb, rng, kind=kind_b)
            got = _run(_op(op), tf.array(a), tf.array(b))
            _check(op, got, getattr(oracle, op)(a, b),
                   f"{op}({da}{list(sa)}, {db}{list(sb)})")


@each_backend(op=sorted(BINARY))
def test_binary_scalar_operand(op):
    dtypes = {d for pair in BINARY[op] for d in pair}
    for dtype in ("float32", "int32"):
        if dtype not in dtypes:
            continue
        kinds = VALUE_KINDS.get(op, (None, None))
        x = values(dtype, (3, 5), rng_for(op, dtype, "scalar"),
                   kind=kinds[1] if "nonzero" in kinds else kinds[0])
        for s in SCALARS:
            if "float32" not in dtypes and type(s) is not int:
                continue  # int-only ops take int operands
            for a, b in ((x, s), (s, x)):
                if op == "pow" and dtype == "int32" and not isinstance(s, float) and \
                        (np.asarray(b) < 0).any():  # int ** negative int: TensorFlow raises
                    with raises(tf.InvalidArgumentError, match="negative integer powers"):
                        _op(op)(_arr(a), _arr(b))
                    continue
                got = _run(_op(op), _arr(a), _arr(b))
                _check(op, got, getattr(oracle, op)(a, b),
                       f"{op}({'array' if a is x else a!r}, {'array' if b is x else b!r}) "
                       f"with a {dtype} array")


@each_backend
def test_int_division_by_zero_raises():
    a = tf.array(np.array([7, -8, 9], np.int32))
    on_device = tf.cast(tf.array(np.array([1.5, 0.5, 2.0], np.float32)) * 1.0, "int32")
    for fn in (tf.math.floordiv, tf.math.floormod, lambda x, y: x // y, lambda x, y: x % y):
        for b in (on_device, tf.array(np.array([2, 0, 1], np.int32)), 0):
            with raises(tf.InvalidArgumentError, match="division by zero"):
                fn(a, b)
        got = fn(tf.cast(a, "float32"), on_device).numpy()  # floats divide by zero freely
        assert got.dtype == np.float32 and not np.isfinite(got[1]), got


@each_backend
def test_python_operators():
    a = values("float32", (2, 3), rng_for("ops-a"), specials=False)
    b = values("float32", (3,), rng_for("ops-b"), specials=False) + 5
    ta, tb = tf.array(a), tf.array(b)
    cases = [("add", ta + tb, oracle.add(a, b)), ("add", 2.0 + ta, oracle.add(2.0, a)),
             ("sub", ta - tb, oracle.sub(a, b)), ("sub", 1.0 - ta, oracle.sub(1.0, a)),
             ("mul", ta * 3, oracle.mul(a, 3)), ("div", ta / tb, oracle.div(a, b)),
             ("div", 1 / tb, oracle.div(1, b)), ("pow", tb ** 2, oracle.pow(b, 2)),
             ("neg", -ta, oracle.neg(a)), ("abs", abs(ta), oracle.abs(a)),
             ("less", ta < tb, oracle.less(a, b)), ("greater_equal", ta >= 0.5,
                                                     oracle.greater_equal(a, 0.5)),
             ("equal", ta == ta, oracle.equal(a, a)), ("not_equal", ta != 0.0,
                                                       oracle.not_equal(a, 0.0)),
             ("matmul", ta @ tf.array(a.T), oracle.matmul(a, a.T)),
             ("floordiv", ta // tb, oracle.floordiv(a, b)), ("floormod", 7.5 % tb,
                                                               oracle.floormod(7.5, b))]
    for op, got, expected in cases:
        _check(op, got.numpy(), expected, f"operator for {op}")


@each_backend
def test_where():
    shapes = [((), (), ()), ((4,), (4,), (4,)), ((2, 1), (1, 3), (2, 3)),
              ((3,), (2, 3), ()), ((2, 1, 4), (3, 1), (1,)), ((0, 2), (2,), ()),
              ((9000,), (1,), (9000,))]
    for dtype in ("float32", "int32", "bool"):
        for sc, sa, sb in shapes:
            rng = rng_for("where", dtype, sc, sa, sb)
            c, a, b = values("bool", sc, rng), values(dtype, sa, rng), values(dtype, sb, rng)
            got = _run(tf.where, tf.array(c), tf.array(a), tf.array(b))
            _check("where", got, oracle.where(c, a, b), f"where({list(sc)}, {dtype}{list(sa)}, "
                                                         f"{dtype}{list(sb)})")
    x = values("float32", (5,), rng_for("where-scalar"))
    got = _run(tf.where, tf.array(x > 0), tf.array(x), 0.0)
    _check("where", got, oracle.where(x > 0, x, 0.0), "where(cond, x, 0.0)")


@each_backend
def test_cast():
    for src in ("float32", "int32", "bool"):
        for dst in ("float32", "int32", "bool"):
            for shape in ((), (7,), (3, 4), (0,), (9000,)):
                x = values(src, shape, rng_for("cast", src, dst, shape),
                           specials=dst != "int32")
                got = _run(tf.cast, tf.array(x), dst)
                _check("cast", got, oracle.cast(x, dst), f"cast({src}{list(shape)} -> {dst})")


@each_backend(op=list(REDUCE_OPS))
def test_reduce(op):
    for dtype in REDUCE_DTYPES[op]:
        for shape, axis, keepdims in REDUCE_CASES:
            x = values(dtype, shape, rng_for(op, dtype, shape, axis), specials=False,
                       kind="near_one" if op == "prod" else None)
            got = _run(_op(op), tf.array(x), axis=axis, keepdims=keepdims)
            expected = getattr(oracle, op)(x, axis=axis, keepdims=keepdims)
            what = f"{op}({dtype}{list(shape)}, axis={axis}, keepdims={keepdims})"
            if op == "prod":  # rounding grows with the number of factors, in any order
                count = x.size // max(got.size, 1)
                _check(op, got, expected, what, rtol_extra=1.2e-7 * count)
                continue
            # Summation order differs between backends: allow rounding of |x| summed.
            scale = oracle.sum(np.abs(x.astype(np.float32)), axis=axis, keepdims=keepdims)
            _check(op, got, expected, what, atol_extra=2e-6 * scale)


@each_backend(op=["max", "min", "sum", "logsumexp"])
def test_reduce_non_finite(op):
    x = values("float32", (6, 40), rng_for(op, "nonfinite"))
    x[1, :] = -np.inf
    x[2, :] = np.inf
    x[3, 5] = np.nan
    for axis in (None, 0, 1):
        got = _run(_op(op), tf.array(x), axis=axis)
        _check(op, got, getattr(oracle, op)(x, axis=axis), f"{op}(non-finite, axis={axis})")


@each_backend(op=list(ARG_OPS))
def test_arg_reduce(op):
    """deeplearn.js's arg_max/arg_min on the math objects: axis None flattens, NaN wins."""
    fn = getattr(tf.NDArrayMath(tf.get_backend()), op.replace("arg", "arg_"))
    for dtype in REDUCE_DTYPES[op]:
        for shape, axis, keepdims in ARG_CASES:
            rng = rng_for(op, dtype, shape, axis)
            x = values(dtype, shape, rng, specials=False)
            if dtype == "float32":
                x = np.round(x)  # ties: the first index wins
            got = _run(fn, tf.array(x), axis=axis, keepdims=keepdims)
            _check(op, got, getattr(oracle, op)(x, axis=axis, keepdims=keepdims),
                   f"{op}({dtype}{list(shape)}, axis={axis}, keepdims={keepdims})")
    x = np.array([[1, np.nan, 3, np.nan], [np.inf, 2, -np.inf, 0]], np.float32)
    for axis in (None, 0, 1):
        got = _run(fn, tf.array(x), axis=axis)
        _check(op, got, getattr(oracle, op)(x, axis=axis), f"{op} with NaN, axis={axis}")


@each_backend(op=list(ARG_OPS))
def test_tensorflow_arg_reduce(op):
    """tf.argmax/tf.argmin: axis 0 by default, NaN skipped, int64 output narrowed to int32."""
    for shape, axis, _ in ARG_CASES:
        x = np.round(values("float32", shape, rng_for("tf", op, shape, axis), specials=False))
        got = _run(getattr(tf, op), tf.constant(x), axis)
        _check(op, got, getattr(oracle, op)(x, axis=0 if axis is None else axis),
               f"tf.{op}({list(shape)}, axis={axis})")
    x = np.array([[1, np.nan, 3, np.nan], [np.nan, 2, -np.inf, np.nan], [0, 1, 5, np.nan]],
                 np.float32)
    skipped = np.where(np.isnan(x), -np.inf if op == "argmax" else np.inf, x)
    for axis in (0, 1):
        got = _run(getattr(tf, op), tf.constant(x), axis)
        _check(op, got, getattr(oracle, op)(skipped, axis=axis), f"tf.{op} skips NaN, axis={axis}")
    assert tf.argmax(tf.constant([3, 1]), output_type=tf.int32).dtype == tf.int32
    assert tf.math.argmin([[3, 1], [0, 5]]).dtype == tf.int32  # int64, narrowed
    for bad in (lambda: getattr(tf, op)(tf.constant(1.0)),
                lambda: getattr(tf, op)(tf.zeros([2, 3]), 2),
                lambda: getattr(tf, op)(tf.zeros([2]), output_type=tf.float32)):
        try:
            bad()
            raise AssertionError(f"tf.{op} accepted a bad argument")
        except tf.errors.InvalidArgumentError:
            pass


@each_backend
def test_matmul():
    for sa, sb, ta, tb in MATMUL_CASES:
        for dtype in ("float32", "int32"):
            rng = rng_for("matmul", sa, sb, ta, tb, dtype)
            a, b = values(dtype, sa, rng, specials=False), values(dtype, sb, rng, specials=False)
            got = _run(tf.matmul, tf.array(a), tf.array(b), transpose_a=ta, transpose_b=tb)
            scale = oracle.matmul(np.abs(a.astype(np.float32)), np.abs(b.astype(np.float32)),
                                  ta, tb)
            _check("matmul", got, oracle.matmul(a, b, ta, tb),
                   f"matmul({dtype}{list(sa)}, {list(sb)}, transpose_a={ta}, "
                   f"transpose_b={tb})", atol_extra=2e-6 * scale)


@each_backend
def test_matmul_vectors_and_non_finite():
    m = values("float32", (3, 4), rng_for("mv"), specials=False)
    v = values("float32", (4,), rng_for("v"), specials=False)
    _check("matmul", _run(tf.matmul, tf.array(m), tf.array(v)), oracle.matmul(m, v[:, None])[:, 0],
           "matrix @ vector")
    _check("matmul", _run(tf.matmul, tf.array(v), tf.array(m.T)),
           oracle.matmul(v[None], m.T)[0], "vector @ matrix")
    m[1, 2] = np.nan
    m[2, 0] = np.inf
    b = values("float32", (4, 5), rng_for("mb"), specials=False)
    _check("matmul", _run(tf.matmul, tf.array(m), tf.array(b)), oracle.matmul(m, b),
           "matmul with NaN and inf")


@each_backend
def test_transpose():
    for shape, perm in TRANSPOSE_CASES:
        for dtype in ("float32", "int32", "bool"):
            x = values(dtype, shape, rng_for("transpose", shape, perm, dtype))
            got = _run(tf.transpose, tf.array(x), perm)
            _check("transpose", got, oracle.transpose(x, perm),
                   f"transpose({dtype}{list(shape)}, perm={perm})")


@each_backend
def test_reshape_is_a_view_of_the_same_data():
    x = tf.array(values("float32", (4, 6), rng_for("reshape")))
    y = x * 2.0
    before = tf.memory()["num_bytes"]
    z = tf.reshape(y, [3, -1, 2])
    assert z.shape == (3, 4, 2)
    assert tf.memory()["num_bytes"] == before, "reshape copied data"
    _check("reshape", z.numpy(), oracle.reshape(y.numpy(), (3, 4, 2)), "reshape")
    w = tf.exp(z)  # an op on a reshaped view of device data
    _check("exp", w.numpy(), oracle.exp(z.numpy()), "exp of a reshaped view")
    for a in (x, y, z, w):
        a.dispose()


@each_backend(op=["cumsum", "cumprod"])
def test_scan(op):
    for dtype in ("float32", "int32"):
        for shape, axis, exclusive, reverse in SCAN_CASES:
            x = values(dtype, shape, rng_for(op, dtype, shape, axis, exclusive, reverse),
                       specials=False, kind="near_one" if op == "cumprod" else None)
            got = _run(_op(op), tf.array(x), axis, exclusive, reverse)
            expected = getattr(oracle, op)(x, axis, exclusive, reverse)
            what = f"{op}({dtype}{list(shape)}, axis={axis}, exclusive={exclusive}, " \
                   f"reverse={reverse})"
            n = shape[axis]
            if op == "cumprod":  # rounding grows with the number of factors
                _check(op, got, expected, what, rtol_extra=1.2e-7 * n)
            else:  # a tree of sums, not left to right: rounding of the running |x|
                scale = oracle.cumsum(np.abs(x).astype(np.float32), axis, exclusive, reverse)
                _check(op, got, expected, what, atol_extra=2e-6 * scale)
    x = np.array([[1.0, np.nan, 2.0], [np.inf, 1.0, -np.inf]], np.float32)
    for axis in (0, 1):
        _check(op, _run(_op(op), tf.array(x), axis), getattr(oracle, op)(x, axis),
               f"{op} with NaN and inf, axis={axis}")


@each_backend
def test_reverse():
    for shape, axes in REVERSE_CASES:
        for dtype in ("float32", "int32", "bool"):
            x = values(dtype, shape, rng_for("reverse", shape, axes, dtype))
            _check("reverse", _run(tf.reverse, tf.array(x), axes), oracle.reverse(x, axes),
                   f"reverse({dtype}{list(shape)}, axis={axes})")


@each_backend(op=["sort", "argsort"])
def test_sort(op):
    for shape, axis in SORT_CASES:
        for dtype in ("float32", "int32"):
            x = values(dtype, shape, rng_for(op, shape, axis, dtype), kind="ties")
            for direction in ("ASCENDING", "DESCENDING"):
                got = _run(_op(op), tf.array(x), axis=axis, direction=direction)
                _check(op, got, getattr(oracle, op)(x, axis, direction),
                       f"{op}({dtype}{list(shape)}, axis={axis}, direction={direction})")


@each_backend
def test_top_k():
    for shape, k in TOP_K_CASES:
        for dtype in ("float32", "int32"):
            x = values(dtype, shape, rng_for("top_k", shape, k, dtype), kind="ties")
            with tf.scope():
                result = tf.math.top_k(tf.array(x), k)
                got = result.values.numpy(), result.indices.numpy()
            for part, g, e in zip(("values", "indices"), got, oracle.top_k(x, k)):
                _check("top_k", g, e, f"top_k({dtype}{list(shape)}, k={k}).{part}")


@each_backend
def test_matrix_norm2():
    """The host-only op behind tf.norm(ord=2) on matrices: numpy's SVD on any backend."""
    for shape in ((1, 1), (3, 4), (5, 2), (2, 3, 3), (2, 0, 3), (64, 48)):
        x = values("float32", shape, rng_for("matrix_norm2", shape), specials=False)
        got = _run(tf.norm, tf.array(x), ord=2, axis=[-2, -1])
        _check("matrix_norm2", got, oracle.matrix_norm2(x), f"norm({list(shape)}, ord=2)",
               rtol_extra=1e-6)


@each_backend
def test_gather_nd_out_of_range_on_the_device_answers_as_gather():
    """Index tuples computed on the device are not read back: one out of range gives what
    tf.gather gives for an out-of-range index (its error or its value), never another
    entry of params."""
    def device_ints(values):  # computed on the device: no host copy of the indices
        return tf.cast(tf.array(np.array(values, np.float32)) * 1.0, "int32")

    def outcome(fn):  # repr: NaN compares equal to NaN
        try:
            with tf.scope():
                return repr(fn().numpy().tolist())
        except Exception as e:  # noqa: BLE001  (the error is the answer compared)
            return type(e).__name__
    params = tf.reshape(tf.range(12.0), [3, 4])
    flat = device_ints([1.0, -1.0])
    expected = outcome(lambda: tf.gather(tf.reshape(params, [-1]), flat))
    got = outcome(lambda: tf.gather_nd(params, device_ints([[0.5, 1.5], [0.0, 5.0]])))
    assert got == expected, got
    assert got != repr([1.0, 5.0]), "an out-of-range tuple read another entry"
    # with batch_dims a bad tuple must not reach the next batch entry's rows either
    got = outcome(lambda: tf.gather_nd(tf.reshape(params, [2, 6]),
                                       device_ints([[[1.0]], [[9.0]]]), batch_dims=1))
    assert got == outcome(lambda: tf.reshape(tf.gather(tf.reshape(params, [-1]), flat),
                                             [2, 1])), got


@each_backend
def test_int_pow_with_a_negative_exponent():
    """TensorFlow raises for int ** negative int; an exponent known on the host is checked
    there, one computed on a GPU truncates 1 / a ** |b| (0 unless |a| is 1), never raising."""
    bases = tf.array(np.array([1, -1, -1, 2, 3, 0], np.int32))
    with raises(tf.errors.InvalidArgumentError, match="negative integer powers"):
        tf.pow(bases, tf.array(np.array([0, 1, 2, 3, -1, 0], np.int32)))
    with raises(tf.errors.InvalidArgumentError, match="negative integer powers"):
        bases ** -2
    exps = np.array([-1, -3, -2, -1, 2, 1], np.int32)
    on_device = tf.cast(tf.array(exps.astype(np.float32)) * 1.0, "int32")
    if tf.get_backend() == "numpy":  # the numpy backend's data is always on the host
        with raises(tf.errors.InvalidArgumentError, match="negative integer powers"):
            tf.pow(bases, on_device)
        return
    got = tf.pow(bases, on_device).numpy()
    assert got.tolist() == oracle.pow(bases.numpy(), exps).tolist() == [1, -1, 1, 0, 9, 0], got

