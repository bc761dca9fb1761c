"""A multi-worker training job for the strategy tests (one per worker process).

python mw_job.py MODE OUT.npz SEED [CHECKPOINT_DIR]: MODE "fit" trains a small Keras model with
`fit` inside MultiWorkerMirroredStrategy.scope(); "ctl" trains it with a custom loop
(a tf.function of `strategy.run`, `compute_average_loss`, `strategy.reduce`). The cluster comes from
TF_CONFIG (or TEXFLOW_COORDINATOR); without either it is the single-process reference.
Each worker seeds its initializers with SEED (they differ on purpose: the strategy
starts every worker from the chief's values). Writes the final weights to OUT.npz (OUT
"-": prints them as JSON, as a browser worker does).
"""

import json
import os
import sys

import numpy as np

import texflow as tf

GLOBAL_BATCH = 12


def data(rows):
    rng = np.random.RandomState(7)
    x = rng.rand(rows, 5).astype(np.float32)
    y = (x @ rng.rand(5, 3)).argmax(1).astype(np.int32)
    return x, y


def build():
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(8, activation="relu", input_shape=(5,)),
        tf.keras.layers.Dense(3)])
    return model


def run_fit(strategy):
    # Whole global batches: Keras scales each replica's mean loss by 1 / replicas, so a
    # short last batch weighs its rows differently than one process would (as in TF).
    x, y = data(48)
    with strategy.scope():
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)
        model = build()
        model.compile(optimizer=tf.keras.optimizers.SGD(0.5),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
    callbacks = []
    if len(sys.argv) > 4:  # a folder every worker reaches: only the chief's files stay
        folder = sys.argv[4]
        callbacks = [tf.keras.callbacks.ModelCheckpoint(f"{folder}/model.keras"),
                     tf.keras.callbacks.BackupAndRestore(f"{folder}/backup")]
    history = model.fit(ds, epochs=3, verbose=0, callbacks=callbacks)
    print("history", history.history, flush=True)
    print("evaluate", model.evaluate(ds, verbose=0, return_dict=True), flush=True)
    return model


def dropout_check(strategy):
    """Dropout under the strategy, reproducible per replica from the seed: this replica's
    masks (strategy.run) and a fit through a Dropout layer, each done twice from one seed
    and once from another. Prints "dropout MASKS_SAME MASKS_DIFFER FIT_SAME FIT_SUM"."""
    def masks(seed):
        tf.keras.utils.set_random_seed(seed)
        with strategy.scope():
            layer = tf.keras.layers.Dropout(0.5)
        return [np.asarray(strategy.run(lambda: layer(tf.ones([4, 6]), training=True)))
                for _ in range(2)]

    def fit(seed):
        tf.keras.utils.set_random_seed(seed)
        x, y = data(24)
        with strategy.scope():
            model = tf.keras.Sequential([
                tf.keras.layers.Dense(8, activation="relu", input_shape=(5,)),
                tf.keras.layers.Dropout(0.5), tf.keras.layers.Dense(3)])
            model.compile(optimizer=tf.keras.optimizers.SGD(0.5),
                          loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=1, shuffle=False, verbose=0)
        return [w.numpy() for w in model.weights]

    seed = int(sys.argv[3])
    first, again, other = masks(seed), masks(seed), masks(seed + 100)
    same = all(np.array_equal(a, b) for a, b in zip(first, again))
    differ = any(not np.array_equal(a, b) for a, b in zip(first, other))
    fits = fit(seed), fit(seed)
    fit_same = all(np.array_equal(a, b) for a, b in zip(*fits))
    print("dropout", same, differ, fit_same, f"{sum(float(w.sum()) for w in fits[0]):.6f}",
          flush=True)


def distributed_fit_check(strategy):
    """Keras fit from the strategy's distributed datasets (Keras 3 takes them) ends with the
    weights fit from the plain dataset gives. Prints "distributed_fit DIST FROM_FUNCTION"."""
    x, y = data(48)

    def plain():
        return tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)

    def from_function():  # each worker's rows of every global batch, as DATA shards
        def dataset_fn(context):
            return tf.data.Dataset.from_tensor_slices((x, y)).batch(
                context.get_per_replica_batch_size(GLOBAL_BATCH)).shard(
                context.num_input_pipelines, context.input_pipeline_id)
        return strategy.distribute_datasets_from_function(dataset_fn)

    def fit(make):
        tf.keras.utils.set_random_seed(5)
        with strategy.scope():
            model = build()
            model.compile(optimizer=tf.keras.optimizers.SGD(0.5),
                          loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(make(), epochs=2, verbose=0)
        return [w.numpy() for w in model.weights]

    want = fit(plain)
    same = [all(np.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(fit(make), want))
            for make in (lambda: strategy.experimental_distribute_dataset(plain()),
                         from_function)]
    print("distributed_fit", *same, flush=True)


def run_ctl(strategy):
    # 4 batches of 12, then one of 2: with 3 workers one of them gets no rows of it.
    x, y = data(50)
    with strategy.scope():
        model = build()
        optimizer = tf.keras.optimizers.Adam(0.05)
    ds = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=None)

    def step_fn(inputs):
        xb, yb = inputs
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(loss_fn(yb, model(xb, training=True)),
                                              global_batch_size=GLOBAL_BATCH)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function  # traced once per batch shape; replays all-reduce their own gradients
    def train_step(batch):
        return strategy.reduce(tf.distribute.ReduceOp.SUM,
                               strategy.run(step_fn, args=(batch,)), axis=None)

    for epoch in range(3):
        total = 0.0
        for batch in ds:
            total += float(train_step(batch))
        print("epoch", epoch, total, flush=True)
    return model


def main():
    mode, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    tf.keras.utils.set_random_seed(seed)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    model = (run_fit if mode == "fit" else run_ctl)(strategy)
    if mode == "fit" and out != "-":  # natively (a browser worker would take minutes)
        dropout_check(strategy)
        distributed_fit_check(strategy)
    if out == "-":  # a browser worker: the weights go to the page's output
        print("weights " + json.dumps([w.numpy().tolist() for w in model.weights]),
              flush=True)
    else:
        np.savez(out, *[w.numpy() for w in model.weights])
    print("done", strategy.cluster_resolver.task_type, strategy.cluster_resolver.task_id,
          strategy.num_replicas_in_sync, flush=True)
    if os.environ.get("TF_CONFIG"):  # as the tutorials read it (a coordinator's job too)
        config = json.loads(os.environ["TF_CONFIG"])
        print("tf_config", len(config["cluster"]["worker"]), config["task"]["index"],
              flush=True)


if __name__ == "__main__":
    main()
