"""TensorFlow 1's graph through texflow.compat.v1, on every backend: the "Reading data"
guide's Feeding and Preloaded-data programs (SEEDS.md seed 002) as written, variables and
initializers, tf.group, FIFOQueue with queue runners, and TensorFlow 1's errors."""

import numpy as np

import texflow
import texflow.compat.v1 as tf
from harness import each_backend, raises


@each_backend
def test_feeding_a_placeholder():
    # The guide's Feeding example: a placeholder, a classifier built on it, eval(feed_dict).
    def my_python_preprocessing_fn():
        return np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)

    tf.reset_default_graph()  # names are unique per graph: start a new one
    with tf.Session():
        input = tf.placeholder(tf.float32)  # noqa: A001  (the guide's name)
        weights = tf.constant([[1.0], [0.5], [0.25]])
        classifier = tf.nn.relu(tf.matmul(input, weights) - 3.0)
        got = classifier.eval(feed_dict={input: my_python_preprocessing_fn()})
    assert isinstance(got, np.ndarray) and got.tolist() == [[0.0], [5.0]]
    assert texflow.compat.v1 is tf and isinstance(input, tf.Tensor)
    x = tf.placeholder(tf.float32, shape=[None, 3], name="x")
    doubled = x * 2.0 + 1.0
    sess = tf.Session()
    assert sess.run(doubled, feed_dict={x: [[1, 2, 3]]}).tolist() == [[3.0, 5.0, 7.0]]
    assert sess.run([doubled, x], {x: np.zeros((2, 3))})[1].shape == (2, 3)
    with raises(texflow.errors.InvalidArgumentError,
                match=r"You must feed a value for placeholder tensor 'x' with dtype float32 "
                      r"and shape \[\?,3\]"):
        sess.run(doubled)
    with raises(ValueError, match=r"Cannot feed value of shape \(3,\) for Tensor x:0, which "
                                  r"has shape \(None, 3\)"):
        sess.run(doubled, {x: [1.0, 2.0, 3.0]})


@each_backend
def test_graph_as_default_keeps_its_own_variables():
    # TensorFlow 1's `with tf.Graph().as_default():`: variables, names and collections
    # belong to that graph; the previous default graph is back afterwards
    outer = tf.get_default_graph()
    g = tf.Graph()
    with g.as_default():
        assert tf.get_default_graph() is g
        v = tf.Variable(3.0, name="v")
        p = tf.placeholder(tf.float32, [None], name="p")
        out = p * v
        assert tf.global_variables() == [v] and g.get_collection("variables") == [v]
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(out, {p: [1.0, 2.0]}).tolist() == [3.0, 6.0]
    assert tf.get_default_graph() is outer and v not in tf.global_variables()
    with tf.Graph().as_default():
        assert tf.Variable(1.0, name="v").name == v.name and tf.global_variables() != [v]


@each_backend
def test_variables_initializers_and_group():
    w = tf.Variable([1.0, 2.0], name="w")
    b = tf.Variable(0.5, name="b")
    hidden = tf.Variable([9.0], collections=[], name="hidden")
    y = w * 3.0 + b
    sess = tf.Session()
    with raises(texflow.errors.FailedPreconditionError,
                match="Attempting to use uninitialized value w"):
        sess.run(y)
    assert sess.run(tf.global_variables_initializer()) is None
    assert sess.run(y).tolist() == [3.5, 6.5]
    assert w in tf.global_variables() and w in tf.trainable_variables()
    assert hidden not in tf.global_variables()
    with raises(texflow.errors.FailedPreconditionError, match="uninitialized value hidden"):
        sess.run(hidden)
    step = tf.group(w.assign_add([1.0, 1.0]), b.assign(2.0))
    sess.run(step)
    assert sess.run([w, b])[0].tolist() == [2.0, 3.0] and sess.run(b) == 2.0
    sess.run(tf.local_variables_initializer())


@each_backend
def test_preloaded_data_as_the_guide_writes_it():
    training_data = np.arange(12, dtype=np.float32).reshape(6, 2)
    training_labels = np.arange(6, dtype=np.int32)
    # Constant: the arrays live in the graph.
    with tf.Session():
        input_data = tf.constant(training_data)
        input_labels = tf.constant(training_labels)
        image, label = tf.train.slice_input_producer([input_data, input_labels], num_epochs=1,
                                                     shuffle=False)
        images, labels = tf.train.batch([image, label], batch_size=3)
    # Variable: initialized once from a placeholder, never changed, out of every collection.
    with tf.Session() as sess:
        data_initializer = tf.placeholder(dtype=training_data.dtype,
                                          shape=training_data.shape)
        label_initializer = tf.placeholder(dtype=training_labels.dtype,
                                           shape=training_labels.shape)
        input_data = tf.Variable(data_initializer, trainable=False, collections=[])
        input_labels = tf.Variable(label_initializer, trainable=False, collections=[])
        v_image, v_label = tf.train.slice_input_producer([input_data, input_labels],
                                                         num_epochs=1, shuffle=False)
        v_images, v_labels = tf.train.batch([v_image, v_label], batch_size=3)
        sess.run(input_data.initializer, feed_dict={data_initializer: training_data})
        sess.run(input_labels.initializer, feed_dict={label_initializer: training_labels})
        assert input_data not in tf.global_variables()
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        first = sess.run([images, labels])
        second = sess.run([v_images, v_labels])
        rest = sess.run(v_labels)
        with raises(tf.errors.OutOfRangeError):
            sess.run(v_labels)
        coord.request_stop()
        coord.join(threads)
    assert first[0].tolist() == training_data[:3].tolist() and first[1].tolist() == [0, 1, 2]
    assert second[0].tolist() == training_data[:3].tolist() and rest.tolist() == [3, 4, 5]


@each_backend
def test_fifo_queue_and_queue_runners():
    # TensorFlow 1's queue example: dequeue, add one, enqueue back.
    q = tf.FIFOQueue(3, "float")
    init = q.enqueue_many(([0.0, 0.0, 0.0],))
    x = q.dequeue()
    y = x + 1
    q_inc = q.enqueue([y])
    with tf.Session() as sess:
        init.run()
        for _ in range(4):
            q_inc.run()
        assert sorted(sess.run([q.dequeue(), q.size()])) == [1.0, 2.0]
        assert sess.run(q.dequeue_many(2)).tolist() == [1.0, 2.0]
        with raises(tf.errors.FailedPreconditionError, match="nothing will fill it"):
            sess.run(q.dequeue())
        sess.run([q.enqueue([7.0]), q.close()])
        assert sess.run(q.dequeue()) == 7.0
        with raises(tf.errors.OutOfRangeError, match="is closed and has insufficient elements"):
            sess.run(q.dequeue())
    # A queue filled by a registered runner, started with the others.
    counter = tf.Variable(0, name="counter")
    source = tf.FIFOQueue(10, [tf.int32, tf.float32])
    qr = tf.train.QueueRunner(source, [source.enqueue([counter.assign_add(1), 0.5])])
    tf.train.add_queue_runner(qr)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.start_queue_runners(sess=sess)
        a = sess.run(source.dequeue())
        b = sess.run(source.dequeue())
    assert a[0] == 1 and b[0] == 2 and b[1] == 0.5


@each_backend
def test_errors_name_compat_v1():
    with raises(AttributeError, match="module 'texflow.compat.v1' has no attribute 'nope'"):
        tf.nope
    with raises(AttributeError, match="module 'texflow.compat.v1.nn' has no attribute 'nope'"):
        tf.nn.nope
    record = np.array([[1, 2, 3]], np.int32)
    fits = tf.train.slice_input_producer([record], shuffle=False)[0] * 1
    fits.set_shape([3])  # the guide's set_shape on a reader output: the batch keeps it
    batch = tf.train.batch([fits], batch_size=1)
    assert fits.shape.as_list() == [3] and batch.shape.as_list() == [1, 3]
    with tf.Session() as sess:
        tf.train.start_queue_runners(sess=sess)
        assert sess.run(batch).tolist() == [[1, 2, 3]]
    queue = tf.train.slice_input_producer([record], shuffle=False)
    value = queue[0] * 1
    value.set_shape([2])
    with tf.Session() as sess:
        tf.train.start_queue_runners(sess=sess)
        with raises(tf.errors.InvalidArgumentError, match="set_shape gave"):
            sess.run(value)
