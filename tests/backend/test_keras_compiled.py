"""Keras fit, evaluate and predict through tf.function (the default) against
run_eagerly=True: the same histories, weights and predictions on every backend,
one trace per batch shape, and callbacks that change the optimizer between steps."""

import warnings

import numpy as np

import texflow as tf
from harness import each_backend

X = np.linspace(-1.0, 1.0, 46 * 5, dtype=np.float32).reshape(46, 5)
LABELS = (np.arange(46) * 7 % 3).astype(np.int32)


def _model(weights=None):
    model = tf.keras.Sequential([
        tf.keras.Input((5,)),
        tf.keras.layers.Dense(8, activation="relu",
                              kernel_regularizer=tf.keras.regularizers.L2(0.01)),
        tf.keras.layers.Dropout(0.0),
        tf.keras.layers.Dense(3)])
    if weights is not None:
        model.set_weights(weights)
    return model


def _close(a, b, what):
    # GPU float32: a fused kernel may round an op's result differently from its own launch
    assert np.allclose(a, b, rtol=1e-4, atol=1e-5), (what, a, b)


class _Record(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.batch_losses = []

    def on_train_batch_end(self, batch, logs=None):
        self.batch_losses.append(float(logs["loss"]))


@each_backend
def test_fit_evaluate_predict_compiled_match_eager():
    weights = _model().get_weights()
    runs = {}
    for eager in (True, False):
        model = _model(weights)
        model.compile(tf.keras.optimizers.Adam(0.05, weight_decay=0.01),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"], run_eagerly=eager)
        record = _Record()
        halve = tf.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
        history = model.fit(X, LABELS, batch_size=16, epochs=3, shuffle=False, verbose=0,
                            validation_split=0.25, class_weight={0: 1.0, 1: 2.0, 2: 0.5},
                            callbacks=[record, halve])
        evaluated = model.evaluate(X, LABELS, batch_size=32, verbose=0, return_dict=True)
        runs[eager] = (history.history, record.batch_losses, model.get_weights(), evaluated,
                       model.predict(X, batch_size=32, verbose=0), model)
    eager, compiled = runs[True], runs[False]
    assert sorted(eager[0]) == sorted(compiled[0])
    for key in eager[0]:
        _close(compiled[0][key], eager[0][key], f"history {key}")
    _close(compiled[1], eager[1], "batch losses")
    for a, b in zip(compiled[2], eager[2], strict=True):
        _close(a, b, "weights")
    for key in eager[3]:
        _close(compiled[3][key], eager[3][key], f"evaluate {key}")
    _close(compiled[4], eager[4], "predictions")
    assert not getattr(eager[5], "_compiled_steps", None) or all(
        s.tracing_count == 0 for s in eager[5]._compiled_steps.values())
    steps = compiled[5]._compiled_steps
    # A step function's first call runs eagerly (it builds the slots and metrics), then
    # each batch shape traces once. 34 training rows in batches of 16: 16, 16, 2 over
    # three epochs: two traces. Validation (12 rows) and evaluate (32 + 14) share one
    # test function: three. predict: 32 (eager), 14.
    assert steps["train"].tracing_count == 2, steps["train"].tracing_count
    assert steps["test"].tracing_count == 3, steps["test"].tracing_count
    assert steps["predict"].tracing_count == 1, steps["predict"].tracing_count
    assert all(s.eager_reason is None for s in steps.values())


@each_backend
def test_run_eagerly_attribute_and_config_turn_compilation_off():
    model = _model()
    model.compile("sgd", loss="mse")
    y = np.zeros((46, 3), np.float32)
    model.fit(X, y, batch_size=23, epochs=2, verbose=0)
    step = model._compiled_steps["train"]
    assert step.tracing_count == 1
    model.run_eagerly = True
    model.fit(X[:20], y[:20], batch_size=5, epochs=1, verbose=0)  # a new shape, no trace
    assert step.tracing_count == 1
    model.run_eagerly = False
    tf.config.run_functions_eagerly(True)
    try:
        assert tf.config.functions_run_eagerly()
        model.fit(X[:20], y[:20], batch_size=5, epochs=1, verbose=0)
        assert step.tracing_count == 1
    finally:
        tf.config.run_functions_eagerly(False)
    model.fit(X[:20], y[:20], batch_size=5, epochs=1, verbose=0)
    assert step.tracing_count == 2


@each_backend
def test_schedules_and_host_reads_in_compiled_fit():
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2,
                                                              decay_rate=0.5)
    weights = _model().get_weights()
    finals = []
    for eager in (True, False):
        model = _model(weights)
        model.compile(tf.keras.optimizers.SGD(schedule, momentum=0.5), loss="mse",
                      run_eagerly=eager)
        model.fit(X, np.ones((46, 3), np.float32), batch_size=8, epochs=2, shuffle=False,
                  verbose=0)
        finals.append((model.get_weights(), int(model.optimizer.iterations.numpy())))
    assert finals[0][1] == finals[1][1] == 12
    for a, b in zip(finals[0][0], finals[1][0], strict=True):
        _close(a, b, "weights")

    class HostRead(tf.keras.layers.Layer):
        def call(self, x):
            return x * 2.0 if float(tf.reduce_sum(x)) > -1e9 else x

    model = tf.keras.Sequential([tf.keras.Input((5,)), HostRead(), tf.keras.layers.Dense(1)])
    model.compile("sgd", loss="mse")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        history = model.fit(X, np.ones((46, 1), np.float32), batch_size=23, epochs=1,
                            verbose=0)
    step = model._compiled_steps["train"]
    assert any("cannot be traced" in str(w.message) for w in caught) and step.eager_reason
    assert np.isfinite(history.history["loss"][0])


@each_backend
def test_fit_under_a_strategy_compiles_the_whole_step():
    weights = _model().get_weights()
    runs = []
    for eager in (True, False):
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = _model(weights)
            model.compile(tf.keras.optimizers.Adam(0.05), loss="mse", run_eagerly=eager)
        history = model.fit(X, np.ones((46, 3), np.float32), batch_size=16, epochs=2,
                            shuffle=False, verbose=0)
        runs.append((history.history["loss"], model.get_weights(), model))
    _close(runs[1][0], runs[0][0], "losses")
    for a, b in zip(runs[1][1], runs[0][1], strict=True):
        _close(a, b, "weights")
    step = runs[1][2]._compiled_steps["train"]
    assert step.tracing_count == 2 and step.eager_reason is None, step.tracing_count


@each_backend
def test_replays_read_a_changed_learning_rate_and_step_count():
    # a replay reads the optimizer's host numbers at every call (remembered per host
    # array): assigning either between calls must reach the next step, as eagerly
    weights = _model().get_weights()
    runs = []
    for compiled in (False, True):
        model = _model(weights)
        opt = tf.keras.optimizers.Adam(0.01)
        x, y = tf.constant(X[:8]), tf.constant(np.ones((8, 3), np.float32))

        def step(model=model, opt=opt, x=x, y=y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        run = tf.function(step) if compiled else step
        for i in range(6):
            if i == 2:
                opt.learning_rate = 0.2
            if i == 4:
                opt.iterations.assign(100)
            run()
        runs.append((model.get_weights(), int(opt.iterations.numpy()),
                     float(opt.learning_rate.numpy())))
    assert runs[0][1:] == runs[1][1:] == (102, np.float32(0.2))
    for a, b in zip(runs[0][0], runs[1][0], strict=True):
        _close(a, b, "weights")
