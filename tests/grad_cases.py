"""Rows for the gradient checks: name -> (function of tf and inputs, input shapes, domain).

Domains keep inputs away from kinks and poles: 'any' (normal), 'positive' (0.5..2),
'away' (|x| >= 0.3), 'distinct' (no ties within 0.3, for max/min/maximum/pool).
"""

import numpy as np

MASK = np.array([[True, False, True], [False, False, True]])
IDS = np.array([2, 0, 2, 1], np.int32)
ONE_ZERO_PER_ROW = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], np.float32)
ND_IDS = np.array([[0, 1], [2, 3], [0, 1]], np.int32)

GRAD_CASES = {
    "neg": (lambda tf, x: tf.neg(x), [(3, 4)], "any"),
    "abs": (lambda tf, x: tf.abs(x), [(3, 4)], "away"),
    "square": (lambda tf, x: tf.square(x), [(3, 4)], "any"),
    "relu": (lambda tf, x: tf.relu(x), [(3, 4)], "away"),
    "elu": (lambda tf, x: tf.elu(x), [(3, 4)], "away"),
    "exp": (lambda tf, x: tf.exp(x), [(3, 4)], "any"),
    "log": (lambda tf, x: tf.log(x), [(3, 4)], "positive"),
    "sqrt": (lambda tf, x: tf.sqrt(x), [(3, 4)], "positive"),
    "rsqrt": (lambda tf, x: tf.rsqrt(x), [(3, 4)], "positive"),
    "tanh": (lambda tf, x: tf.tanh(x), [(3, 4)], "any"),
    "sigmoid": (lambda tf, x: tf.sigmoid(x), [(3, 4)], "any"),
    "sin": (lambda tf, x: tf.sin(x), [(3, 4)], "any"),
    "cos": (lambda tf, x: tf.cos(x), [(3, 4)], "any"),
    "log1p": (lambda tf, x: tf.math.log1p(x), [(3, 4)], "positive"),
    "expm1": (lambda tf, x: tf.math.expm1(x), [(3, 4)], "any"),
    "softplus": (lambda tf, x: tf.math.softplus(x), [(3, 4)], "any"),
    "relu6": (lambda tf, x: tf.nn.relu6(x * 4.0), [(3, 4)], "away"),
    "softsign": (lambda tf, x: tf.nn.softsign(x), [(3, 4)], "any"),
    "erf": (lambda tf, x: tf.math.erf(x), [(3, 4)], "any"),
    "erfc": (lambda tf, x: tf.math.erfc(x), [(3, 4)], "any"),
    "tan": (lambda tf, x: tf.math.tan(x * 0.5), [(3, 4)], "positive"),
    "sinh": (lambda tf, x: tf.math.sinh(x), [(3, 4)], "any"),
    "cosh": (lambda tf, x: tf.math.cosh(x), [(3, 4)], "any"),
    "asin": (lambda tf, x: tf.math.asin(x * 0.4), [(3, 4)], "away"),
    "acos": (lambda tf, x: tf.math.acos(x * 0.4), [(3, 4)], "away"),
    "atan": (lambda tf, x: tf.math.atan(x), [(3, 4)], "any"),
    "asinh": (lambda tf, x: tf.math.asinh(x), [(3, 4)], "any"),
    "acosh": (lambda tf, x: tf.math.acosh(x + 1.0), [(3, 4)], "positive"),
    "atanh": (lambda tf, x: tf.math.atanh(x * 0.4), [(3, 4)], "away"),
    "log_sigmoid": (lambda tf, x: tf.math.log_sigmoid(x), [(3, 4)], "any"),
    "reciprocal_no_nan": (lambda tf, x: tf.math.reciprocal_no_nan(x), [(3, 4)], "away"),
    "atan2": (lambda tf, a, b: tf.math.atan2(a, b), [(2, 3), (3,)], "away"),
    "xlogy": (lambda tf, a, b: tf.math.xlogy(a, b), [(2, 3), (3,)], "positive"),
    "xdivy": (lambda tf, a, b: tf.math.xdivy(a, b), [(2, 1), (1, 3)], "positive"),
    "multiply_no_nan": (lambda tf, a, b: tf.math.multiply_no_nan(a, b), [(2, 3), (2, 3)],
                        "any"),
    "floormod": (lambda tf, a, b: tf.math.floormod(a * 3.0, b), [(2, 3), (3,)], "positive"),
    "reciprocal": (lambda tf, x: tf.math.reciprocal(x), [(3, 4)], "positive"),
    "silu": (lambda tf, x: tf.nn.silu(x, beta=1.5), [(3, 4)], "any"),
    "gelu": (lambda tf, x: tf.nn.gelu(x), [(3, 4)], "any"),
    "gelu_approximate": (lambda tf, x: tf.nn.gelu(x, approximate=True), [(3, 4)], "any"),
    "l2_loss": (lambda tf, x: tf.nn.l2_loss(x), [(3, 4)], "any"),
    "bias_add": (lambda tf, x, b: tf.nn.bias_add(x, b, data_format="NCHW"),
                 [(2, 3, 2), (3,)], "any"),
    "add": (lambda tf, a, b: tf.add(a, b), [(2, 3), (3,)], "any"),
    "sub": (lambda tf, a, b: tf.sub(a, b), [(2, 1), (1, 3)], "any"),
    "mul": (lambda tf, a, b: tf.mul(a, b), [(4, 2, 3), (2, 1)], "any"),
    "div": (lambda tf, a, b: tf.div(a, b), [(2, 3), (2, 1)], "positive"),
    "pow": (lambda tf, a, b: tf.pow(a, b), [(2, 3), (3,)], "positive"),
    "scalar_operands": (lambda tf, a: tf.sub(2.0, tf.mul(a, 3.0)) / 4.0, [(5,)], "any"),
    "maximum": (lambda tf, a, b: tf.maximum(a, b), [(2, 3), (2, 3)], "distinct"),
    "minimum": (lambda tf, a, b: tf.minimum(a, b), [(2, 3), (3,)], "distinct"),
    "where": (lambda tf, a, b: tf.where(tf.array(MASK), a, b), [(2, 3), (3,)], "any"),
    "cast": (lambda tf, x: tf.cast(x, "float32"), [(4,)], "any"),
    "sum": (lambda tf, x: tf.sum(x, axis=1), [(3, 4, 2)], "any"),
    "sum_all_keepdims": (lambda tf, x: tf.sum(x, keepdims=True), [(3, 4)], "any"),
    "mean": (lambda tf, x: tf.mean(x, axis=[0, 2]), [(3, 4, 2)], "any"),
    "max": (lambda tf, x: tf.max(x, axis=0), [(3, 4)], "distinct"),
    "min": (lambda tf, x: tf.min(x, axis=-1, keepdims=True), [(3, 4)], "distinct"),
    "logsumexp": (lambda tf, x: tf.logsumexp(x, axis=1), [(3, 4)], "any"),
    "reduce_prod": (lambda tf, x: tf.reduce_prod(x, axis=[0, 2]), [(3, 2, 2)], "away"),
    "reduce_prod_with_zeros": (lambda tf, x: tf.reduce_prod(
        x * tf.constant(ONE_ZERO_PER_ROW), axis=1), [(2, 3)], "away"),
    "reduce_variance": (lambda tf, x: tf.math.reduce_variance(x, axis=1), [(3, 4)], "any"),
    "reduce_std": (lambda tf, x: tf.math.reduce_std(x, axis=0, keepdims=True), [(4, 3)],
                   "any"),
    "cumsum": (lambda tf, x: tf.cumsum(x, axis=1, exclusive=True, reverse=True), [(3, 4)],
               "any"),
    "cumprod": (lambda tf, x: tf.math.cumprod(x, axis=0, reverse=True), [(4, 3)], "away"),
    "cumprod_exclusive": (lambda tf, x: tf.math.cumprod(x, axis=-1, exclusive=True),
                          [(2, 5)], "away"),
    "reverse": (lambda tf, x: tf.reverse(x, [0, 2]), [(2, 3, 4)], "any"),
    "add_n": (lambda tf, a, b: tf.add_n([a, b, a]), [(2, 3), (2, 3)], "any"),
    "split": (lambda tf, x: tf.concat([s * float(k + 1) for k, s in enumerate(
        tf.split(x, [1, -1], axis=1))], axis=1), [(2, 4)], "any"),
    "identity": (lambda tf, x: tf.identity(x) * 2.0, [(3,)], "any"),
    "linspace": (lambda tf, a, b: tf.linspace(a, b, 5, axis=-1), [(2,), (2,)], "any"),
    "sort": (lambda tf, x: tf.sort(x, axis=0, direction="DESCENDING"), [(4, 3)], "distinct"),
    "top_k": (lambda tf, x: tf.math.top_k(x, 2).values, [(3, 5)], "distinct"),
    "gather_nd": (lambda tf, x: tf.gather_nd(x, tf.constant(ND_IDS)), [(3, 4, 2)], "any"),
    "gather_nd_batch": (lambda tf, x: tf.gather_nd(x, tf.constant([[1], [0], [2]]),
                                                   batch_dims=1), [(3, 4)], "any"),
    "boolean_mask": (lambda tf, x: tf.boolean_mask(x, tf.constant(MASK)), [(2, 3)], "any"),
    "boolean_mask_axis": (lambda tf, x: tf.boolean_mask(x, [True, False, True], axis=1),
                          [(2, 3, 2)], "any"),
    "tensordot": (lambda tf, a, b: tf.tensordot(a, b, [[1, 2], [1, 0]]),
                  [(2, 3, 4), (4, 3, 5)], "any"),
    "tensordot_outer": (lambda tf, a, b: tf.tensordot(a, b, 0), [(2,), (3,)], "any"),
    "einsum_batch_matmul": (lambda tf, a, b: tf.einsum("bij,bjk->bik", a, b),
                            [(2, 3, 4), (2, 4, 2)], "any"),
    "einsum_trace_and_sum": (lambda tf, a, b: tf.einsum("ii,ij->j", a, b), [(3, 3), (3, 2)],
                             "any"),
    "einsum_ellipsis": (lambda tf, a, b: tf.einsum("...j,j->...", a, b), [(2, 3, 4), (4,)],
                        "any"),
    "norm_euclidean": (lambda tf, x: tf.norm(x, axis=1), [(3, 4)], "away"),
    "norm_p": (lambda tf, x: tf.norm(x, ord=3, axis=0, keepdims=True), [(3, 4)], "away"),
    "norm_inf_matrix": (lambda tf, x: tf.norm(x, ord=float("inf"), axis=[1, 2]),
                        [(2, 3, 4)], "distinct"),
    "norm_matrix_2": (lambda tf, x: tf.norm(x, ord=2, axis=[0, 1]), [(3, 4)], "any"),
    "clip_by_norm": (lambda tf, x: tf.clip_by_norm(x * 3.0, 1.0, axes=[1]), [(3, 4)], "any"),
    "clip_by_global_norm": (lambda tf, a, b: tf.concat(
        [tf.reshape(t, [-1]) for t in tf.clip_by_global_norm([a, b], 1.0)[0]], 0),
        [(2, 3), (4,)], "any"),
    "global_norm": (lambda tf, a, b: tf.linalg.global_norm([a, None, b]), [(2, 3), (4,)],
                    "any"),
    "compute_average_loss": (lambda tf, x, w: tf.nn.compute_average_loss(
        x, sample_weight=w, global_batch_size=8), [(4,), (4,)], "any"),
    "matmul": (lambda tf, a, b: tf.matmul(a, b), [(3, 4), (4, 5)], "any"),
    "matmul_transposed": (lambda tf, a, b: tf.matmul(a, b, True, True), [(4, 3), (5, 4)], "any"),
    "matmul_batch": (lambda tf, a, b: tf.matmul(a, b), [(2, 3, 4), (4, 5)], "any"),
    "matmul_vector": (lambda tf, a, b: tf.matmul(a, b), [(3, 4), (4,)], "any"),
    "transpose": (lambda tf, x: tf.transpose(x, [2, 0, 1]), [(2, 3, 4)], "any"),
    "reshape": (lambda tf, x: tf.exp(tf.reshape(x, [4, 3])), [(2, 6)], "any"),
    "broadcast_to": (lambda tf, x: tf.broadcast_to(x, [2, 3, 4]), [(3, 1)], "any"),
    "slice": (lambda tf, x: tf.slice(x, [1, 0, 1], [2, -1, 2]), [(3, 4, 4)], "any"),
    "pad": (lambda tf, x: tf.pad(x, [[1, 0], [2, 1]]), [(3, 4)], "any"),
    "strided_slice": (lambda tf, x: x[1, ::-2, 3:0:-2], [(2, 5, 4)], "any"),
    "strided_slice_masks": (lambda tf, x: tf.strided_slice(
        x, [0, 1, 0], [0, 4, 0], [2, 2, -1], begin_mask=5, end_mask=5, new_axis_mask=0),
        [(3, 5, 2)], "any"),
    "getitem_newaxis": (lambda tf, x: x[None, ..., 2] * x[:, None, -1], [(3, 4)], "any"),
    "tile": (lambda tf, x: tf.tile(x, [2, 3]), [(2, 3)], "any"),
    "concat": (lambda tf, a, b: tf.concat([a, b, a], axis=1), [(2, 3), (2, 1)], "any"),
    "stack": (lambda tf, a, b: tf.stack([a, b], axis=1), [(2, 3), (2, 3)], "any"),
    "gather": (lambda tf, x: tf.gather(x, tf.array(IDS), axis=1), [(2, 3, 2)], "any"),
    "unsorted_segment_sum": (lambda tf, x: tf.unsorted_segment_sum(x, tf.array(IDS), 3),
                             [(4, 3)], "any"),
    "conv2d_same": (lambda tf, x, w: tf.conv2d(x, w, 1, "SAME"), [(2, 5, 4, 3), (3, 3, 3, 2)],
                    "any"),
    "conv2d_strided": (lambda tf, x, w: tf.conv2d(x, w, 2, "VALID"),
                       [(1, 7, 6, 2), (3, 2, 2, 3)], "any"),
    "conv2d_dilated": (lambda tf, x, w: tf.conv2d(x, w, 1, "SAME", 2),
                       [(1, 6, 6, 1), (2, 2, 1, 2)], "any"),
    "max_pool": (lambda tf, x: tf.max_pool(x, 2, 2, "SAME"), [(2, 5, 4, 2)], "distinct"),
    "avg_pool": (lambda tf, x: tf.avg_pool(x, 3, 2, "SAME"), [(1, 5, 5, 2)], "any"),
    "max_pool1d": (lambda tf, x: tf.nn.max_pool1d(x, 3, 2, "SAME"), [(2, 7, 2)], "distinct"),
    "max_pool1d_explicit": (lambda tf, x: tf.nn.max_pool1d(x, 2, 1, [[0, 0], [1, 1], [0, 0]]),
                            [(1, 5, 3)], "distinct"),
    "avg_pool1d": (lambda tf, x: tf.nn.avg_pool1d(x, 3, 2, "SAME"), [(2, 6, 2)], "any"),
    "avg_pool3d": (lambda tf, x: tf.nn.avg_pool3d(x, [2, 3, 2], [1, 2, 2], "SAME"),
                   [(1, 3, 4, 3, 2)], "any"),
    "max_pool3d": (lambda tf, x: tf.nn.max_pool3d(x, 2, [1, 2, 1], "SAME"),
                   [(1, 3, 4, 3, 2)], "distinct"),
    "softmax": (lambda tf, x: tf.softmax(x), [(3, 5)], "any"),
    "log_softmax": (lambda tf, x: tf.log_softmax(x, axis=0), [(3, 5)], "any"),
    "softmax_cross_entropy": (lambda tf, y, x: tf.softmax_cross_entropy_with_logits(
        tf.softmax(y), x), [(3, 5), (3, 5)], "any"),
    "sparse_softmax_cross_entropy": (
        lambda tf, x: tf.sparse_softmax_cross_entropy_with_logits(tf.array(IDS[:3]), x),
        [(3, 4)], "any"),
    "sigmoid_cross_entropy": (lambda tf, z, x: tf.sigmoid_cross_entropy_with_logits(
        tf.sigmoid(z), x), [(3, 4), (3, 4)], "any"),
    "categorical_crossentropy": (lambda tf, y, p: tf.categorical_crossentropy(
        tf.softmax(y), tf.softmax(p)), [(3, 4), (3, 4)], "any"),
    "sparse_categorical_crossentropy": (
        lambda tf, x: tf.sparse_categorical_crossentropy(tf.array(IDS[:3]), tf.softmax(x)),
        [(3, 4)], "any"),
    "binary_crossentropy_logits": (lambda tf, z, x: tf.binary_crossentropy(
        tf.sigmoid(z), x, from_logits=True), [(3, 4), (3, 4)], "any"),
    "leaky_relu": (lambda tf, x: tf.leaky_relu(x, 0.1), [(3, 4)], "away"),
    "clip_by_value": (lambda tf, x: tf.clip_by_value(x, -1.0, 1.0), [(3, 4)], "away"),
    "moments": (lambda tf, x: tf.add(*tf.moments(x, [0])), [(5, 3)], "any"),
    "batch_normalization": (lambda tf, x, s: tf.batch_normalization(
        x, *tf.moments(x, [0], keepdims=True), 0.5, s, 1e-3), [(6, 3), (3,)], "any"),
    # tf.image (TensorFlow has no gradient for area resize and adjust_contrast; texflow's
    # come from the gathers and arithmetic they are made of)
    "image_resize_bilinear": (lambda tf, x: tf.image.resize(x, [3, 7]), [(2, 5, 4, 2)], "any"),
    "image_resize_area": (lambda tf, x: tf.image.resize(x, [2, 3], "area"), [(5, 7, 2)], "any"),
    "image_resize_with_pad": (lambda tf, x: tf.image.resize_with_pad(x, 6, 6), [(1, 3, 5, 1)],
                              "any"),
    "image_adjust_contrast": (lambda tf, x: tf.image.adjust_contrast(x, 1.7), [(4, 3, 2)],
                              "any"),
    "image_adjust_hue": (lambda tf, x: tf.image.adjust_hue(x, 0.3), [(2, 2, 3)], "distinct"),
    "image_adjust_saturation": (lambda tf, x: tf.image.adjust_saturation(x, 0.6), [(2, 2, 3)],
                                "distinct"),
    "image_per_image_standardization": (lambda tf, x: tf.image.per_image_standardization(x),
                                        [(2, 3, 3, 2)], "any"),
}


def make_inputs(shapes, domain, rng):
    """Float32 inputs of `shapes` drawn from `domain`."""
    out = []
    for k, shape in enumerate(shapes):
        n = int(np.prod(shape))
        if domain == "positive":
            x = rng.uniform(0.5, 2.0, n)
        elif domain == "away":
            x = rng.uniform(0.3, 2.0, n) * rng.choice([-1.0, 1.0], n)
        elif domain == "distinct":
            x = (rng.permutation(n) - n / 2) * 0.4 + 0.13 * k  # no ties across inputs either
        else:
            x = rng.normal(0, 1, n)
        out.append(x.reshape(shape).astype(np.float32))
    return out
