"""tf.random's stateless draws (py/texflow/_stateless.py) on every backend: the numbers
depend on the seed pair alone (the same at every call, eagerly and inside tf.function,
and on every backend: they are drawn on the host), other seeds give other numbers, and
ranges, shapes and dtypes are TensorFlow's (tests/tfdiff/snippets_stateless.py has
TensorFlow's errors; its Philox numbers are not reproduced, see the README)."""

import numpy as np

import texflow as tf
from harness import each_backend

_DRAWS = {
    "uniform": lambda seed: tf.random.stateless_uniform([3, 4], seed, -2.0, 3.0),
    "uniform_int": lambda seed: tf.random.stateless_uniform([50], seed, 5, 9, tf.int32),
    "normal": lambda seed: tf.random.stateless_normal([200], seed, 1.0, 2.0),
    "truncated": lambda seed: tf.random.stateless_truncated_normal([500], seed, stddev=3.0),
    "categorical": lambda seed: tf.random.stateless_categorical(
        [[0.0, -np.inf, 0.0], [-np.inf, 5.0, -np.inf]], 40, seed),
    "binomial": lambda seed: tf.random.stateless_binomial([4, 2], seed, [10.0, 3.0],
                                                          [0.5, 1.0]),
}


@each_backend
def test_stateless_draws_depend_on_the_seed_alone():
    @tf.function
    def traced():
        return [draw([7, 11]) for draw in _DRAWS.values()]

    for name, draw in _DRAWS.items():
        first, again, other = draw([7, 11]), draw(tf.constant([7, 11])), draw([7, 12])
        assert first.numpy().tolist() == again.numpy().tolist(), name
        assert first.numpy().tolist() != other.numpy().tolist() or name == "binomial", name
    for _ in range(2):
        for (name, draw), got in zip(_DRAWS.items(), traced()):
            assert got.numpy().tolist() == draw([7, 11]).numpy().tolist(), name


@each_backend
def test_stateless_draws_keep_tensorflows_ranges():
    u = tf.random.stateless_uniform([3, 4], [1, 2], -2.0, 3.0).numpy()
    assert u.dtype == np.float32 and u.shape == (3, 4) and (u >= -2).all() and (u < 3).all()
    k = tf.random.stateless_uniform([50], [1, 2], 5, 9, tf.int32).numpy()
    assert k.dtype == np.int32 and set(k.tolist()) == {5, 6, 7, 8}
    n = tf.random.stateless_normal([4000], [1, 2], 1.0, 2.0).numpy()
    assert abs(n.mean() - 1.0) < 0.15 and abs(n.std() - 2.0) < 0.15
    t = tf.random.stateless_truncated_normal([4000], [1, 2], stddev=3.0).numpy()
    assert np.abs(t).max() <= 6.0 and abs(t.std() - 3.0 * 0.88) < 0.15
    c = tf.random.stateless_categorical([[0.0, -np.inf, 0.0], [-np.inf, 5.0, -np.inf]], 40,
                                        [1, 2]).numpy()
    assert c.shape == (2, 40) and set(c[0].tolist()) == {0, 2} and set(c[1].tolist()) == {1}
    b = tf.random.stateless_binomial([4, 2], [1, 2], [10.0, 3.0], [0.5, 1.0]).numpy()
    assert b.dtype == np.int32 and (b[:, 1] == 3).all() and (b[:, 0] <= 10).all()
