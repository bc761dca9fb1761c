"""Keras 3's Adamax, Adadelta, Nadam, Lion and Ftrl on every backend, eagerly and through
tf.function: four steps on two variables against the weights Keras 3 (TensorFlow 2.21)
gave for the same gradients (printed by running this file's `_steps` with `keras`)."""

import numpy as np

import texflow as tf
from harness import each_backend
from keras_cases import close

GRADS = ([[0.5, -1.0], [0.1, 0.0]], [[0.2, 0.3], [-2.0, 1.0]], [[-1.0, 1.0], [0.5, 0.5]],
         [[0.3, -0.3], [0.0, 0.7]])
# optimizer (as built by `make(tf.keras.optimizers)`): Keras's w and b after the steps
KERAS = {
    "Adamax(0.1)": (lambda o: o.Adamax(0.1), [[0.848964, 2.111318], [-0.511241, 0.088549]],
                    [-0.051036, -0.088682]),
    "Adadelta(1.0)": (lambda o: o.Adadelta(1.0), [[0.998967, 1.999898], [-0.500114, 0.24648]],
                      [0.098967, -0.200102]),
    "Nadam(0.1)": (lambda o: o.Nadam(0.1), [[0.912777, 2.033403], [-0.516707, 0.021618]],
                   [0.012777, -0.166597]),
    "Lion(0.1)": (lambda o: o.Lion(0.1), [[0.8, 2.0], [-0.5, -0.05]], [-0.1, -0.2]),
    "Ftrl(0.1)": (lambda o: o.Ftrl(0.1), [[0.409096, 1.417117], [0.021287, -0.189984]],
                  [-0.010104, -0.077852]),
    "Ftrl(all options)": (lambda o: o.Ftrl(0.1, learning_rate_power=-0.3,
                                           l1_regularization_strength=0.01,
                                           l2_regularization_strength=0.02,
                                           l2_shrinkage_regularization_strength=0.03,
                                           beta=0.5),
                          [[0.16519, 0.678826], [0.059763, -0.137487]], [0.00152, -0.032189]),
    "Nadam(weight_decay)": (lambda o: o.Nadam(0.05, beta_1=0.8, weight_decay=0.01),
                            [[0.953311, 2.011119], [-0.503326, 0.11833]],
                            [0.05511, -0.184485]),
}


def _steps(opt, compiled):
    w = tf.Variable(np.array([[1.0, 2.0], [-0.5, 0.25]], np.float32))
    b = tf.Variable(np.array([0.1, -0.2], np.float32))

    def step(g):
        opt.apply_gradients([(g, w), (g[0] * 0.5, b)])
        return b * 1.0
    run = tf.function(step) if compiled else step
    for g in GRADS:
        run(tf.constant(np.array(g, np.float32)))
    return w.numpy(), b.numpy()


@each_backend
def test_rules_match_keras_eagerly_and_compiled():
    for what, (make, w_keras, b_keras) in KERAS.items():
        for compiled in (False, True):
            w, b = _steps(make(tf.keras.optimizers), compiled)
            label = f"{what}{' in tf.function' if compiled else ''}"
            close(w, w_keras, rtol=1e-5, atol=2e-6, what=label + ": w")
            close(b, b_keras, rtol=1e-5, atol=2e-6, what=label + ": b")


@each_backend
def test_state_names_configs_and_errors():
    o = tf.keras.optimizers
    nadam = o.Nadam(0.1)
    _steps(nadam, False)
    paths = [v.path for v in nadam.variables]
    assert paths[:2] == ["nadam/iteration", "nadam/learning_rate"] and len(paths) == 7
    assert paths[-1] == "nadam/variable"  # the product of the momentum schedule, last
    expected = np.prod([0.9 * (1 - 0.5 * 0.96 ** t) for t in range(1, 5)])
    close(nadam.variables[-1].numpy(), expected, rtol=1e-6, what="Nadam's u product")
    assert [type(o.get(n)).__name__ for n in ("adamax", "adadelta", "nadam", "lion", "ftrl")] \
        == ["Adamax", "Adadelta", "Nadam", "Lion", "Ftrl"]
    config = o.Ftrl(learning_rate_power=-0.3).get_config()
    assert config["learning_rate_power"] == -0.3 and config["initial_accumulator_value"] == 0.1
    assert type(o.deserialize(o.serialize(o.Lion(0.2)))).__name__ == "Lion"
    for bad, match in ((lambda: o.Lion(beta_1=0.0), "degenerates to SignSGD"),
                       (lambda: o.Ftrl(learning_rate_power=0.5), "negative or zero"),
                       (lambda: o.Ftrl(l1_regularization_strength=-1.0), "positive or zero")):
        try:
            bad()
        except ValueError as e:
            assert match in str(e), e
        else:
            raise AssertionError(f"no ValueError ({match})")
