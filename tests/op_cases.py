"""The op table: which dtypes, shapes and values each op is checked on.

Rows, not hand-written expectations: tests/backend/test_ops.py crosses these
with every backend and compares against tests/oracle.py.
"""

import zlib

import numpy as np

# -- unary: op -> input dtypes -------------------------------------------------------
UNARY = {
    "neg": ("float32", "int32"), "abs": ("float32", "int32"),
    "square": ("float32", "int32"), "sign": ("float32", "int32"),
    "relu": ("float32", "int32"), "floor": ("float32", "int32"), "ceil": ("float32", "int32"),
    "exp": ("float32", "int32"), "log": ("float32", "int32"), "sqrt": ("float32", "int32"),
    "rsqrt": ("float32", "int32"), "tanh": ("float32", "int32"),
    "sigmoid": ("float32", "int32"), "elu": ("float32", "int32"),
    "sin": ("float32", "int32"), "cos": ("float32", "int32"),
    "is_nan": ("float32",), "is_finite": ("float32",),
    "logical_not": ("bool", "float32", "int32"),
    "log1p": ("float32",), "expm1": ("float32",), "softplus": ("float32",),
    "softsign": ("float32",),
    "erf": ("float32",), "erfc": ("float32",), "relu6": ("float32", "int32"),
    "invert": ("int32",),
    "tan": ("float32",), "sinh": ("float32",), "cosh": ("float32",), "asin": ("float32",),
    "acos": ("float32",), "atan": ("float32",), "asinh": ("float32",),
    "acosh": ("float32",), "atanh": ("float32",), "log_sigmoid": ("float32",),
    "reciprocal_no_nan": ("float32",), "rint": ("float32",),
}
# Ops whose float result may differ from the float64 reference by more than rounding.
TRANSCENDENTAL = {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "elu", "sin", "cos",
                  "pow", "div", "logsumexp", "mean", "log1p", "expm1", "softplus", "erf",
                  "erfc", "prod", "cumprod", "tan", "sinh", "cosh", "asin", "acos", "atan",
                  "asinh", "acosh", "atanh", "log_sigmoid", "atan2", "xlogy"}

UNARY_SHAPES = [(), (1,), (7,), (3, 4), (2, 3, 5), (2, 1, 3, 4), (0,), (2, 0, 3),
                (9000,), (3, 8200)]

# -- binary: op -> (dtype pairs) ---------------------------------------------------------
_NUMERIC = (("float32", "float32"), ("int32", "int32"), ("float32", "int32"),
            ("int32", "float32"), ("bool", "bool"), ("bool", "float32"))
_COMPARE = _NUMERIC + (("bool", "int32"),)
BINARY = {
    "add": _NUMERIC, "sub": _NUMERIC, "mul": _NUMERIC,
    "div": (("float32", "float32"), ("int32", "int32"), ("float32", "int32")),
    "pow": (("float32", "float32"), ("int32", "int32"), ("float32", "int32")),
    "maximum": _NUMERIC, "minimum": _NUMERIC,
    "equal": _COMPARE, "not_equal": _COMPARE, "less": _COMPARE,
    "less_equal": _COMPARE, "greater": _COMPARE, "greater_equal": _COMPARE,
    "floordiv": (("float32", "float32"), ("int32", "int32"), ("float32", "int32")),
    "floormod": (("float32", "float32"), ("int32", "int32"), ("int32", "float32")),
    "bitwise_and": (("int32", "int32"),), "bitwise_or": (("int32", "int32"),),
    "bitwise_xor": (("int32", "int32"),),
    "atan2": (("float32", "float32"),), "xlogy": (("float32", "float32"),),
    "xdivy": (("float32", "float32"),), "multiply_no_nan": (("float32", "float32"),),
}
# Value kinds of the (first, second) operand where random values would not do: pow's
# base and exponent, divisors without int zeros (an int division by zero raises).
VALUE_KINDS = {"pow": ("pow_base", "pow_exp"), "floordiv": (None, "nonzero"),
               "floormod": (None, "nonzero")}
BINARY_SHAPES = [((), ()), ((5,), ()), ((), (5,)), ((4,), (4,)), ((2, 3), (3,)),
                 ((2, 1), (1, 3)), ((4, 1, 3), (2, 3)), ((2, 3, 1, 5), (3, 4, 1)),
                 ((1, 1, 1, 1), (2, 3, 4, 5)), ((0, 3), (3,)), ((2, 0), (1, 1)),
                 ((9000,), (1,)), ((2, 8200), (2, 1)), ((8200, 2), (8200, 2))]
# Python scalars as the second (or first) operand.
SCALARS = (2.5, -3, True, 0.0)

# -- reductions: (shape, axis, keepdims) ---------------------------------------------------
REDUCE_OPS = ("sum", "mean", "max", "min", "logsumexp", "prod")
ARG_OPS = ("argmax", "argmin")
REDUCE_CASES = [((), None, False), ((7,), None, False), ((7,), 0, True), ((3, 4), 0, False),
                ((3, 4), 1, True), ((3, 4), -1, False), ((2, 3, 5), (0, 2), False),
                ((2, 3, 5), (0, 1, 2), True), ((2, 3, 4, 5), (1, 3), False),
                ((2, 3, 4, 5), 2, True), ((0,), None, False), ((3, 0), 1, False),
                ((3, 0), 0, True), ((9000,), None, False), ((3, 8200), 1, False),
                ((8200, 3), 0, False), ((1000, 1000), None, False), ((5, 300, 7), 1, False),
                ((300, 250, 2), (0, 1), True)]  # leading axes of 150,000: numpy sums by BLAS
ARG_CASES = [((7,), None, False), ((7,), 0, True), ((3, 4), 0, False), ((3, 4), 1, True),
             ((2, 3, 5), 1, False), ((2, 3, 4, 5), -1, True), ((9000,), 0, False),
             ((3, 8200), 1, False), ((8200, 3), 0, False), ((2, 3, 4), None, True)]
REDUCE_DTYPES = {"sum": ("float32", "int32", "bool"), "mean": ("float32", "int32"),
                 "max": ("float32", "int32", "bool"), "min": ("float32", "int32", "bool"),
                 "logsumexp": ("float32",), "argmax": ("float32", "int32"),
                 "argmin": ("float32", "int32"), "prod": ("float32", "int32")}

# -- scans (cumsum, cumprod): (shape, axis, exclusive, reverse) ---------------------------
SCAN_CASES = [((1,), 0, False, False), ((7,), 0, False, False), ((7,), 0, True, False),
              ((7,), -1, False, True), ((6,), 0, True, True), ((3, 4), 0, False, False),
              ((3, 4), 1, True, True), ((2, 3, 5), 1, False, True), ((2, 3, 4, 5), 2, True,
                                                                    False),
              ((2, 1, 3, 2), 1, True, False), ((0, 3), 1, False, False), ((3, 0), 1, True,
                                                                          True),
              ((9000,), 0, False, False), ((2, 8200), 1, True, False), ((8200, 2), 0, False,
                                                                        True),
              ((5, 300, 3), 1, False, False), ((4, 8), 1, True, True), ((8, 4), 0, True, True),
              ((3, 16), -1, False, True), ((2, 12, 4), 1, False, True), ((4,), 0, True, False),
              ((1, 8), 0, False, False)]

# -- sort, argsort: (shape, axis); top_k: (shape, k) ---------------------------------------
SORT_CASES = [((1,), -1), ((2,), 0), ((5,), -1), ((3, 4), 0), ((3, 4), 1), ((2, 3, 17), -1),
              ((4, 33, 2), 1), ((2, 1, 3, 5), 2), ((0, 3), 1), ((3, 0), 1), ((9000,), 0),
              ((2, 8200), -1), ((3, 1000), 1), ((64, 65), -1)]
TOP_K_CASES = [((5,), 1), ((5,), 5), ((4, 7), 3), ((2, 3, 16), 0), ((9000,), 10),
               ((3, 8200), 8200), ((0, 4), 2)]

# -- reverse: (shape, axes) ----------------------------------------------------------------
REVERSE_CASES = [((), []), ((5,), [0]), ((5,), []), ((3, 4), [0]), ((3, 4), [1]),
                 ((3, 4), [0, 1]), ((2, 3, 4), [-1, 0]), ((2, 1, 3, 4), [1, 2]),
                 ((0, 3), [1]), ((9000,), [0]), ((3, 8200), [1]), ((2, 3, 4, 5), [0, 3])]

# -- matmul: (a shape, b shape, transpose_a, transpose_b) ----------------------------------
MATMUL_CASES = [((1, 1), (1, 1), False, False), ((3, 5), (5, 4), False, False),
                ((5, 3), (5, 4), True, False), ((3, 5), (4, 5), False, True),
                ((5, 3), (4, 5), True, True), ((8, 16), (16, 12), False, False),
                ((2, 3, 5), (5, 4), False, False), ((2, 1, 3, 4), (3, 4, 2), False, False),
                ((4, 6, 8), (4, 4, 8), False, True), ((0, 3), (3, 4), False, False),
                ((3, 0), (0, 4), False, False), ((1, 9000), (9000, 2), False, False),
                ((2, 8200), (3, 8200), False, True), ((64, 64), (64, 64), False, False),
                ((33, 65), (65, 17), False, False), ((128, 256), (256, 64), False, False),
                ((64, 784), (784, 128), False, False), ((64, 784), (64, 128), True, False),
                ((4096, 16), (4096, 32), True, False), ((16, 4096), (64, 4096), False, True),
                ((2, 10, 4096), (4096, 8), False, False), ((2, 4096), (4096, 16), False, False),
                ((2, 4096), (16, 4096), False, True), ((5001, 2), (5001, 3), True, False),
                ((2, 128, 32), (128, 64), True, False),
                # the MLP's logits (N = 10) and their gradients (K = 10), batch 1, odd sizes
                ((64, 128), (128, 10), False, False), ((64, 128), (64, 10), True, False),
                ((64, 10), (128, 10), False, True), ((1, 128), (128, 10), False, False),
                ((3, 67, 13), (13, 9), False, False),
                # rows_strided (N % 4 == 0; K % 4 != 0 or A transposed): split-K over a
                # long odd K, both operands transposed; C^T = B^T A (A transposed,
                # N % 4 != 0, M % 4 == 0) batched and broadcast, with B transposed
                ((4, 5003), (5003, 8), False, False), ((7, 12), (8, 7), True, True),
                ((2, 7, 8), (7, 6), True, False), ((6, 8), (10, 6), True, True),
                # CPU adapters' blocked kernel: both operands read transposed in place, edges
                # clamped in rows and in each lane's interleaved columns
                ((70, 37), (45, 70), True, True),
                # a transposed A of M % 4 != 0 is copied, not read in place by rows of 4
                ((520, 66), (520, 16), True, False)]

# -- transpose: (shape, perm) -----------------------------------------------------------
TRANSPOSE_CASES = [((), None), ((5,), None), ((3, 4), None), ((3, 4), (0, 1)),
                   ((2, 3, 4), (1, 0, 2)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4, 5), (3, 1, 2, 0)),
                   ((2, 1, 3, 1), (1, 3, 0, 2)), ((0, 3), None), ((9000, 2), None),
                   ((2, 8200, 2), (1, 2, 0))]


def rng_for(*key):
    """A generator seeded by the case, so every backend sees the same values."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def values(dtype, shape, rng, specials=True, kind=None):
    """Random test data of `dtype`; floats include negatives and, with `specials`,
    NaN, +-inf, signed zeros and large magnitudes."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "int32":
        # int ** negative int raises (TensorFlow's rule): int exponents here are >= 0;
        # test_ops covers negative ones that exist only on a device
        lo, hi = (-5, 6) if kind == "pow_base" else (0, 9) if kind == "pow_exp" else (-20, 21)
        if kind == "near_one":
            lo, hi = -3, 4
        x = rng.integers(lo, hi, shape).astype(np.int32)
        return np.where(x == 0, 7, x).astype(np.int32) if kind == "nonzero" else x
    if kind == "ties":  # sorting: repeated values, NaN, infinities, signed zeros
        x = np.round(rng.normal(0, 2, shape)).astype(np.float32)
        flat = x.reshape(-1)
        flat[rng.random(flat.size) < 0.05] = np.nan
        flat[rng.random(flat.size) < 0.03] = np.inf
        flat[rng.random(flat.size) < 0.03] = -np.inf
        flat[rng.random(flat.size) < 0.1] = -0.0
        return x
    if kind == "near_one":  # products that neither overflow nor underflow
        return (rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)).astype(np.float32)
    if kind == "pow_exp":
        x = np.where(rng.random(shape) < 0.5, rng.integers(-3, 4, shape),
                     rng.normal(0, 2, shape))
    else:
        x = rng.normal(0, 3, shape)
    x = np.asarray(x, np.float32)
    if specials and x.size >= 8:
        flat = x.reshape(-1)
        special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 100.0, -100.0, 1.0],
                           np.float32)
        where = rng.choice(flat.size, size=min(flat.size // 4, 8), replace=False)
        flat[where] = special[:where.size]
    return x

# -- strided_slice through x[key]: (shape, key); the oracle is numpy's basic indexing --------
ALL = slice(None)
STRIDED_SLICE_CASES = [
    ((5,), 0), ((5,), -1), ((3, 4), (ALL, 1)), ((6,), slice(1, 3)), ((7,), slice(None, None, 2)),
    ((7,), slice(None, None, -1)), ((2, 3, 4), (Ellipsis, 0)), ((3, 4), None),
    ((3, 4), (ALL, None)), ((2, 3, 4), (1, slice(None, None, -2), slice(3, 0, -1))),
    ((2, 3, 4), (Ellipsis, None, 1)), ((5,), slice(-100, 100)), ((2, 3, 4), (0, 1, 2)),
    ((3,), slice(5, 1)), ((3, 8200), (ALL, slice(100, 8200, 3))),
    ((9000,), slice(None, None, -7)), ((0, 3), (ALL, 1)), ((4, 0), slice(1, 3)),
    ((2, 3, 4, 5), (slice(None, None, -1), Ellipsis, slice(1, None, 2))), ((), None),
    ((), Ellipsis), ((4, 4), (slice(3, None, -3), slice(-1, -5, -1))),
    ((2, 3, 4, 5), (ALL, 2, None, slice(1, 3), -2)), ((3, 4), slice(-1, -4, -2)),
]
# tf.strided_slice with explicit masks: (shape, begin, end, strides, masks, numpy key)
STRIDED_SLICE_MASKS = [
    ((3, 4), [0, 1], [3, 3], [1, 1], {}, (slice(0, 3), slice(1, 3))),
    ((3, 4), [1, 0], [2, 4], [1, 1], {"shrink_axis_mask": 1}, (1, slice(0, 4))),
    ((3, 4), [0, 3], [0, 0], [1, -1], {"begin_mask": 1, "end_mask": 3},
     (ALL, slice(3, None, -1))),
    ((2, 3, 4), [0, 1], [0, 2], [1, 1], {"ellipsis_mask": 1}, (Ellipsis, slice(1, 2))),
    ((2, 3), [0, 0, 1], [0, 0, 2], [1, 1, 1], {"new_axis_mask": 2, "begin_mask": 1,
                                                "end_mask": 1}, (ALL, None, slice(1, 2))),
    ((5, 2), [-1], [0], [-2], {"end_mask": 1}, (slice(-1, None, -2),)),
]
