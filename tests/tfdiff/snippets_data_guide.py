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
    "data_guide_errors/generator_raises": (
        "def gen():\n    yield 1\n    raise ValueError('boom')\n"
        "list(tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int32)))",
        {"match": ["ValueError: boom"]}),
    "data_guide_errors/padded_smaller": (
        _FILL + "list(ds.padded_batch(2, padded_shapes=(2,)))",
        {"match": ["Attempted to pad to a smaller size than the input element"]}),
    "data_guide_errors/padded_rank": (
        _FILL + "list(ds.padded_batch(2, padded_shapes=(2, 2)))",
        {"match": ["The padded shape (2, 2) is not compatible with the shape"]}),
    "data_guide_errors/concatenate_types": (
        "tf.data.Dataset.range(3).concatenate(tf.data.Dataset.from_tensor_slices([1.0]))",
        {"match": ["Incompatible dataset elements"]}),
    # the guide's windows, groups and state (time series, bucketing, scan)
    "data_guide_windows/window": _H + "ds = tf.data.Dataset.range(7).window(3, shift=2)\n"
                                      "([lst(w) for w in ds], int(ds.cardinality()), "
                                      "repr(ds.element_spec))",
    "data_guide_windows/window_forms": _H + "r = tf.data.Dataset.range(10)\n"
                                            "args = [(3, 2, 2, True), (4, 3, 1, False), "
                                            "(2, 7, 1, False), (2, 3, 3, False), "
                                            "(20, 1, 1, True)]\n"
                                            "[([lst(w) for w in r.window(*a)], "
                                            "int(r.window(*a).cardinality())) for a in args]",
    "data_guide_windows/window_batches": _H + "ds = tf.data.Dataset.range(100000).window("
                                              "5, shift=1).flat_map(lambda w: w.batch(5, "
                                              "drop_remainder=True)).take(3)\n"
                                              "(spec(ds), lst(ds))",
    "data_guide_windows/window_structures": _H + "ds = tf.data.Dataset.from_tensor_slices(("
                                                 "np.arange(5), np.arange(5) * 10)).window(2)\n"
                                                 "d = tf.data.Dataset.from_tensor_slices({'a': "
                                                 "np.ones((5, 2), np.float32)}).window(2)\n"
                                                 "d = d.flat_map(lambda w: tf.data.Dataset.zip("
                                                 "w).batch(2))\n"
                                                 "([(lst(a), lst(b)) for a, b in ds], spec(d), "
                                                 "lst(d))",
    "data_guide_windows/window_infinite": _H + "ds = tf.data.Dataset.range(3).repeat()"
                                               ".window(3, 5).flat_map(lambda w: w.batch(3))\n"
                                               "lst(ds.take(3))",
    "data_guide_windows/window_size": ("tf.data.Dataset.range(5).window(0)",
                                       {"match": ["Window size must be greater than zero"]}),
    "data_guide_windows/scan": _H + "def simple_rnn(state, x):\n    state = state + x\n"
                                    "    return state, state\n"
                                    "ds = tf.data.Dataset.range(10).scan(initial_state="
                                    "np.int64(0), scan_func=simple_rnn)\n"
                                    "t = tf.data.Dataset.from_tensor_slices((np.arange(3), "
                                    "np.arange(3) * 2)).scan((np.int64(0), np.int64(1)), "
                                    "lambda s, e: ((s[0] + e[0], s[1] * 2), (s[1], e[1])))\n"
                                    "e = tf.data.Dataset.range(4).apply(tf.data.experimental"
                                    ".scan(np.int64(0), lambda s, x: (s + x, s)))\n"
                                    "(spec(ds), lst(ds), lst(t), lst(e), "
                                    "int(ds.cardinality()))",
    "data_guide_windows/group_by_window": _H + "ds = tf.data.Dataset.range(10)\n"
                                               "g = ds.group_by_window(key_func=lambda x: x % 2, "
                                               "reduce_func=lambda key, w: w.batch(3), "
                                               "window_size=3)\n"
                                               "f = ds.group_by_window(lambda x: x % 3, "
                                               "lambda key, w: w.batch(10), "
                                               "window_size_func=lambda k: k + 1)\n"
                                               "e = ds.apply(tf.data.experimental.group_by_window("
                                               "lambda x: x % 2, lambda k, w: w.batch(2), 2))\n"
                                               "(spec(g), lst(g), lst(f), lst(e))",
    "data_guide_windows/group_by_window_args": (
        "tf.data.Dataset.range(3).group_by_window(lambda x: x, lambda k, w: w)",
        {"match": ["window_size", "window_size_func"]}),
    "data_guide_windows/bucket": _H + _FILL + "b = ds.bucket_by_sequence_length("
                                              "element_length_func=lambda e: tf.shape(e)[0], "
                                              "bucket_boundaries=[3, 5], "
                                              "bucket_batch_sizes=[2, 2, 2])\n"
                                              "p = ds.bucket_by_sequence_length(lambda e: "
                                              "tf.shape(e)[0], [3, 5], [2, 2, 3], "
                                              "padded_shapes=[8], padding_values=np.int64(-1), "
                                              "drop_remainder=True)\n"
                                              "(spec(b), lst(b), lst(p))",
    "data_guide_windows/bucket_dict": _H + "ds = tf.data.Dataset.range(1, 7).map(lambda x: "
                                           "{'t': tf.fill([x], x), 'l': x})\n"
                                           "b = ds.bucket_by_sequence_length(lambda e: "
                                           "tf.shape(e['t'])[0], [3], [2, 2])\n(spec(b), lst(b))",
    "data_guide_windows/bucket_sizes": (
        "tf.data.Dataset.range(3).bucket_by_sequence_length(lambda x: 1, [2, 4], [1, 1])",
        {"match": ["`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1`"]}),
    "data_guide_windows/take_while_unique": _H + "t = tf.data.Dataset.range(10).take_while("
                                                 "lambda x: x < 5)\n"
                                                 "u = tf.data.Dataset.from_tensor_slices("
                                                 "[1, 37, 2, 37, 2, 1]).unique()\n"
                                                 "s = tf.data.Dataset.from_tensor_slices("
                                                 "['a', 'b', 'a']).unique()\n"
                                                 "(spec(t), lst(t), int(t.cardinality()), "
                                                 "spec(u), lst(u), lst(s), "
                                                 "int(u.cardinality()))",
    "data_guide_windows/unique_float": ("tf.data.Dataset.from_tensor_slices([1.0]).unique()",
                                        {"match": ["does not support type", "float32"]}),
    "data_guide_windows/unique_components": (
        "tf.data.Dataset.from_tensor_slices(([1], [2])).unique()",
        {"match": ["only supports inputs with a single component"]}),
    "data_guide_windows/single_element": "(tf.data.Dataset.range(1).get_single_element(), "
                                         "tf.data.Dataset.from_tensors(({'a': 1}, 2.0))"
                                         ".get_single_element(), tf.data.experimental."
                                         "get_single_element(tf.data.Dataset.range(3, 4)))",
    "data_guide_windows/single_element_many": (
        "tf.data.Dataset.range(2).get_single_element()",
        {"match": ["Dataset had more than one element."]}),
    "data_guide_windows/single_element_empty": (
        "tf.data.Dataset.range(0).get_single_element()", {"match": ["Dataset was empty."]}),
    # sampling and counters (texflow draws its own random numbers: only what does not
    # depend on them is compared)
    "data_guide_sampling/sample": _H + "a = tf.data.Dataset.range(3)\n"
                                       "b = tf.data.Dataset.range(10, 20)\n"
                                       "ds = tf.data.Dataset.sample_from_datasets([a, b], "
                                       "weights=[0.5, 0.5], seed=2)\n"
                                       "stop = tf.data.Dataset.sample_from_datasets([a, b], "
                                       "seed=2, stop_on_empty_dataset=True)\n"
                                       "only = tf.data.Dataset.sample_from_datasets([a, b], "
                                       "weights=[1.0, 0.0], seed=1)\n"
                                       "(spec(ds), sorted(lst(ds)), len(lst(stop)) < 13, "
                                       "lst(only), int(ds.cardinality()), "
                                       "sorted(lst(tf.data.experimental.sample_from_datasets("
                                       "[a, a]))))",
    "data_guide_sampling/sample_types": (
        "tf.data.Dataset.sample_from_datasets([tf.data.Dataset.range(3), "
        "tf.data.Dataset.from_tensors(1.0)])", {"match": ["must have compatible element specs"]}),
    "data_guide_sampling/choose": _H + "ds = [tf.data.Dataset.from_tensors('foo').repeat(), "
                                       "tf.data.Dataset.from_tensors('bar').repeat(), "
                                       "tf.data.Dataset.from_tensors('baz').repeat()]\n"
                                       "r = tf.data.Dataset.choose_from_datasets(ds, "
                                       "tf.data.Dataset.range(3).repeat(3))\n"
                                       "two = [tf.data.Dataset.range(2), "
                                       "tf.data.Dataset.range(10, 15)]\n"
                                       "c = tf.data.Dataset.from_tensor_slices(np.array("
                                       "[0, 0, 0, 1, 1], np.int64))\n"
                                       "(spec(r), lst(r), lst(tf.data.Dataset."
                                       "choose_from_datasets(two, c)), lst(tf.data.Dataset."
                                       "choose_from_datasets(two, c, "
                                       "stop_on_empty_dataset=False)))",
    "data_guide_sampling/choose_index": (
        "c = tf.data.Dataset.from_tensor_slices(np.array([0, 3], np.int64))\n"
        "list(tf.data.Dataset.choose_from_datasets([tf.data.Dataset.range(2)], c))",
        {"match": ["Selector index out of range: 3 >= 1"]}),
    "data_guide_sampling/choose_int32": (
        "c = tf.data.Dataset.from_tensor_slices(np.array([0], np.int32))\n"
        "tf.data.Dataset.choose_from_datasets([tf.data.Dataset.range(2)], c)",
        {"match": ["must be scalar `tf.int64` tensors"]}),
    "data_guide_sampling/counter_random": _H + "c = tf.data.Dataset.counter(start=2, step=3)\n"
                                               "z = tf.data.Dataset.zip((tf.data.Dataset."
                                               "counter(), tf.data.Dataset.from_tensor_slices("
                                               "['a', 'b'])))\n"
                                               "r = tf.data.Dataset.random(seed=4).take(3)\n"
                                               "(spec(c), lst(c.take(3)), int(c.cardinality()),"
                                               " lst(z), spec(r), lst(r) == lst(r), "
                                               "lst(tf.data.experimental.Counter().take(2)))",
    "data_guide_sampling/rejection_resample": _H + "ds = tf.data.Dataset.from_tensor_slices("
                                                   "np.array([0, 0, 0, 1] * 50, np.int32))\n"
                                                   "r = ds.rejection_resample(class_func=lambda "
                                                   "x: x, target_dist=[0.5, 0.5], initial_dist="
                                                   "[0.75, 0.25], seed=1)\n"
                                                   "v = lst(r)\n"
                                                   "(spec(r), len(v) > 0, "
                                                   "all(c == x for c, x in v))",
    # options, iterator checkpoints, cardinality assertions
    "data_guide_state/options": _H + "options = tf.data.Options()\n"
                                     "options.deterministic = False\n"
                                     "options.experimental_optimization.map_parallelization = "
                                     "True\noptions.autotune.ram_budget = 2**30\n"
                                     "ds = tf.data.Dataset.range(3).with_options(options)\n"
                                     "o = ds.options()\n"
                                     "(lst(ds), o.deterministic, "
                                     "o.experimental_optimization.map_parallelization, "
                                     "o.experimental_optimization.map_fusion, "
                                     "o.autotune.ram_budget, o.autotune.enabled)",
    "data_guide_state/iterator_checkpoint": _H + "import tempfile\n"
                                                 "range_ds = tf.data.Dataset.range(20)\n"
                                                 "iterator = iter(range_ds)\n"
                                                 "ckpt = tf.train.Checkpoint(step=tf.Variable(0),"
                                                 " iterator=iterator)\n"
                                                 "manager = tf.train.CheckpointManager(ckpt, "
                                                 "tempfile.mkdtemp(), max_to_keep=3)\n"
                                                 "a = [next(iterator).numpy() for _ in range(5)]\n"
                                                 "save_path = manager.save()\n"
                                                 "b = [next(iterator).numpy() for _ in range(5)]\n"
                                                 "ckpt.restore(manager.latest_checkpoint)\n"
                                                 "c = [next(iterator).numpy() for _ in range(5)]\n"
                                                 "fresh = iter(range_ds.map(lambda x: x))\n"
                                                 "tf.train.Checkpoint(iterator=fresh).restore("
                                                 "save_path)\n"
                                                 "(a, b, c, [next(fresh).numpy() for _ in "
                                                 "range(3)])",
    "data_guide_state/iterator_types": "ds = tf.data.Dataset.range(2)\n"
                                       "(isinstance(iter(ds), tf.data.Iterator), "
                                       "isinstance(ds.as_numpy_iterator(), tf.data.NumpyIterator))",
    "data_guide_state/assert_cardinality": _H + "ds = tf.data.Dataset.range(5).filter(lambda x: "
                                                "True).apply(tf.data.experimental."
                                                "assert_cardinality(5))\n"
                                                "(int(ds.cardinality()), lst(ds))",
    "data_guide_state/assert_cardinality_more": (
        "list(tf.data.Dataset.range(3).apply(tf.data.experimental.assert_cardinality(2)))",
        {"match": ["expected to contain 2 elements but contained at least 3 elements"]}),
    "data_guide_state/assert_cardinality_fewer": (
        "list(tf.data.Dataset.range(3).apply(tf.data.experimental.assert_cardinality(5)))",
        {"match": ["expected to contain 5 elements but contained only 3 elements"]}),
    "data_guide_state/cardinalities": "r = tf.data.Dataset.range(5)\n"
                                      "[int(d.cardinality()) for d in [r.map(lambda x: x), "
                                      "r.batch(2).unbatch(), r.shuffle(2), r.cache(), "
                                      "r.prefetch(1), r.enumerate(), r.batch(2).rebatch(2), "
                                      "r.repeat().take(5), r.repeat().skip(5), "
                                      "r.flat_map(lambda x: r), tf.data.Dataset.from_tensors(1)]]",
    # printing a dataset: TensorFlow's class names and element_spec
    "data_guide_repr/datasets": "r = tf.data.Dataset.range(4)\n"
                                "s = tf.data.Dataset.from_tensor_slices(({'a': np.ones((3, 2), "
                                "np.float32)}, ['x', 'y', 'z']))\n"
                                "[repr(d) for d in [r, s, s.batch(2), r.map(lambda x: x * 2), "
                                "r.map(lambda x: x, num_parallel_calls=tf.data.AUTOTUNE), "
                                "r.filter(lambda x: x > 1), r.flat_map(lambda x: r), "
                                "r.interleave(lambda x: r, cycle_length=2), r.padded_batch(2), "
                                "r.shuffle(2), r.repeat(), r.take(1), r.skip(1), r.shard(2, 0), "
                                "r.enumerate(), r.concatenate(r), r.cache(), r.prefetch(1), "
                                "r.window(2), r.batch(2).unbatch(), r.batch(2).rebatch(1), "
                                "tf.data.Dataset.from_tensors(1.0), r.with_options("
                                "tf.data.Options()), tf.data.Dataset.from_generator(lambda: "
                                "iter([1]), output_types=tf.int32)]]",
    "data_guide_repr/more_datasets": "r = tf.data.Dataset.range(4)\n"
                                     "[repr(d).split(' element_spec')[0] for d in ["
                                     "r.scan(np.int64(0), lambda s, x: (s, x)), "
                                     "r.take_while(lambda x: True), r.unique(), "
                                     "r.group_by_window(lambda x: x, lambda k, w: w, 2), "
                                     "tf.data.Dataset.sample_from_datasets([r, r]), "
                                     "tf.data.Dataset.choose_from_datasets([r], "
                                     "tf.data.Dataset.range(1)), tf.data.Dataset.counter(), "
                                     "tf.data.Dataset.random(), r.ignore_errors(), "
                                     "r.apply(tf.data.experimental.assert_cardinality(4))]]",
}
