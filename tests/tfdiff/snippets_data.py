"""TensorFlow-differential snippets for what iterating a tf.data.Dataset gives a TF2
user (owner: tf2ops): tf.Tensors from `for x in ds`, numpy from `as_numpy_iterator()`,
TensorSpecs from `element_spec`. `id: source` or `id: (source, options)`. After
editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py data`.
"""

_DS = ("ds = tf.data.Dataset.from_tensor_slices((np.arange(12, dtype=np.float32)"
       ".reshape(3, 4), np.array([1, 2, 3])))\n")
_IMAGES = ("images = (np.arange(2 * 4 * 4) % 256).astype(np.uint8).reshape(2, 4, 4)\n"
           "ds = tf.data.Dataset.from_tensor_slices((images, np.array([3, 7], np.uint8)))\n")

SNIPPETS = {
    "data_iter/tensors": _DS + "[(isinstance(x, tf.Tensor), tf.is_tensor(y), x.shape, x.dtype, "
                               "x.numpy(), y.numpy()) for x, y in ds]",
    "data_iter/numpy_iterator": _DS + "list(ds.as_numpy_iterator())",
    "data_iter/range": "(list(tf.data.Dataset.range(3)), "
                       "list(tf.data.Dataset.range(3).as_numpy_iterator()))",
    "data_iter/take_numpy": _IMAGES + "for image, label in ds.take(1):\n"
                                      "    out = (image.numpy().mean(), int(label), "
                                      "image.shape.as_list())\nout",
    "data_iter/map_scaling": _IMAGES + "ds = ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255., "
                                       "y)).batch(2)\n[(x, x.dtype, y.shape) for x, y in ds]",
    "data_iter/dict": "ds = tf.data.Dataset.from_tensor_slices({'a': [1, 2], 'b': [3.0, 4.0]})\n"
                      "[(e['a'] * 2, e['b'] + 1) for e in ds]",
    "data_iter/ops_on_elements": _DS + "sum(tf.reduce_sum(x) * tf.cast(y, tf.float32) "
                                       "for x, y in ds)",
    "data_iter/next_iter": _DS + "it = iter(ds.batch(2))\nx, y = next(it)\n(x, next(it)[1])",
    "data_iter/reduce": "tf.data.Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x)",
    "data_iter/element_spec": _IMAGES + "(repr(ds.element_spec), "
                                        "ds.element_spec[0] == tf.TensorSpec([4, 4], tf.uint8))",
    "data_iter/cardinality": _DS + "(ds.cardinality(), ds.cardinality().numpy(), "
                                   "tf.data.experimental.cardinality(ds.batch(2)), "
                                   "bool(ds.repeat().cardinality() == "
                                   "tf.data.INFINITE_CARDINALITY), len(ds))",
    "data_iter/scalar_format": _DS + "[f'{float(tf.reduce_mean(x)):.2f} {y}' for x, y in ds]",
}
