"""TensorFlow-differential snippets for the tf.data guide (tensorflow.org/guide/data):
element_spec, from_generator, the transformations and readers a user of the guide
writes. `id: source` or `id: (source, options)`. After editing:
`$TF_PYTHON scripts/make_tf_diff_fixtures.py data_guide`.
"""

# element_spec as (shape, dtype) pairs, and the elements as numpy
_H = ("def spec(ds):\n"
      "    return tf.nest.map_structure(lambda s: (s.shape, s.dtype), ds.element_spec)\n"
      "def lst(ds):\n"
      "    return list(ds.as_numpy_iterator())\n")
_FILL = "ds = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x], x))\n"

SNIPPETS = {
    # element_spec: TensorFlow's static shapes, not the first element's
    "data_guide_spec/batch": _H + "ds = tf.data.Dataset.range(7).batch(3)\n"
                                  "(spec(ds), spec(tf.data.Dataset.range(7).batch(3, True)))",
    "data_guide_spec/batch_dict": _H + "ds = tf.data.Dataset.from_tensor_slices("
                                       "{'a': np.ones((5, 2), np.float32), 'b': ['x'] * 5})\n"
                                       "spec(ds.batch(2))",
    "data_guide_spec/padded_batch": _H + _FILL + "(spec(ds), spec(ds.padded_batch(2)), "
                                                 "lst(ds.padded_batch(2)), "
                                                 "spec(ds.padded_batch(2, padded_shapes=(5,))))",
    "data_guide_spec/map_after_batch": _H + "spec(tf.data.Dataset.range(10).batch(4)"
                                            ".map(lambda x: (x * 2, tf.reduce_sum(x))))",
    "data_guide_spec/unbatch_rebatch": _H + "ds = tf.data.Dataset.range(8).batch(4)\n"
                                            "(spec(ds.unbatch()), spec(ds.rebatch(3)), "
                                            "lst(ds.rebatch(3)))",
    "data_guide_spec/empty": _H + "(spec(tf.data.Dataset.range(0)), "
                                  "spec(tf.data.Dataset.range(9).filter(lambda x: x < 0)"
                                  ".batch(2)), spec(tf.data.Dataset.from_tensor_slices("
                                  "np.zeros((0, 3), np.float32))))",
    "data_guide_spec/generator": _H + "def gen():\n    for i in range(3):\n"
                                      "        yield np.arange(i), i\n"
                                      "ds = tf.data.Dataset.from_generator(gen, output_signature=("
                                      "tf.TensorSpec(shape=(None,), dtype=tf.int32), "
                                      "tf.TensorSpec(shape=(), dtype=tf.int32)))\n"
                                      "(spec(ds), spec(ds.batch(2)), lst(ds))",
    "data_guide_spec/generator_types": _H + "def gen():\n    for i in range(3):\n"
                                            "        yield i, [1] * i\n"
                                            "ds = tf.data.Dataset.from_generator(gen, "
                                            "output_types=(tf.int64, tf.int64), "
                                            "output_shapes=((), (None,)))\n"
                                            "g = tf.data.Dataset.from_generator("
                                            "lambda: iter([1.5]), output_types=tf.float32)\n"
                                            "(spec(ds), lst(ds), spec(g))",
    "data_guide_spec/zip_concat_enumerate": _H + "a = tf.data.Dataset.from_tensor_slices("
                                                 "np.ones((3, 2), np.float32))\n"
                                                 "b = tf.data.Dataset.from_tensors("
                                                 "np.ones((4,), np.float32))\n"
                                                 "(spec(tf.data.Dataset.zip((a, a.batch(2)))), "
                                                 "spec(a.concatenate(b)), spec(a.enumerate()))",
    "data_guide_spec/range_output_type": _H + "ds = tf.data.Dataset.range(3, output_type="
                                              "tf.int32)\n(spec(ds), lst(ds))",
    "data_guide_spec/repr": "repr(tf.data.Dataset.range(3).batch(2).element_spec)",
    "data_guide_spec/readers": _H + "import tempfile, os\nd = tempfile.mkdtemp()\n"
                                    "p = os.path.join(d, 'c.csv')\n"
                                    "open(p, 'w').write('x,y\\n1,2.5\\n3,4.5\\n')\n"
                                    "csv = tf.data.experimental.CsvDataset(p, [tf.int32, "
                                    "tf.float32], header=True)\n"
                                    "mk = tf.data.experimental.make_csv_dataset(p, batch_size=2, "
                                    "label_name='y', num_epochs=1, shuffle=False)\n"
                                    "(spec(tf.data.TextLineDataset(p)), spec(csv), spec(mk))",
    # errors
    "data_guide_errors/generator_signature": ("tf.data.Dataset.from_generator(lambda: iter([1]))",
                                              {"match": ["output_signature", "output_types"]}),
    "data_guide_errors/generator_type": (
        "ds = tf.data.Dataset.from_generator(lambda: iter(['a']), "
        "output_signature=tf.TensorSpec((), tf.int32))\nlist(ds)",
        {"match": ["could not be converted to the expected type", "int32"]}),
    "data_guide_errors/concatenate_types": (
        "tf.data.Dataset.range(3).concatenate(tf.data.Dataset.from_tensor_slices([1.0]))",
        {"match": ["Incompatible dataset elements"]}),
}
