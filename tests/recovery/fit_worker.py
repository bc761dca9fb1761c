"""A Keras `fit` worker for recovery tests: MultiWorkerMirroredStrategy, model made in its
scope, one fit over a fixed dataset (TEXFLOW_COORDINATOR or TF_CONFIG in the environment;
neither: the one-process reference).

python fit_worker.py OUT.npz SEED [STEP_SLEEP]

Each worker seeds differently (the strategy starts all from the chief's values). A
callback prints {"batch", "epoch", "t"} after each step and sleeps STEP_SLEEP seconds, so
a test can kill it mid-epoch (and waits while the file $FIT_PAUSE_FILE exists). Writes
the final weights to OUT.npz; prints {"done": ...}.
"""

import json
import os
import sys
import time

import numpy as np

import texflow as tf

GLOBAL_BATCH, ROWS, EPOCHS = 12, 96, 4  # 12: even pieces for 2 and 3 workers


def data():
    rng = np.random.RandomState(3)
    x = rng.rand(ROWS, 6).astype(np.float32)
    y = (x @ rng.rand(6, 3)).argmax(1).astype(np.int32)
    return x, y


class Progress(tf.keras.callbacks.Callback):
    def __init__(self, pause):
        super().__init__()
        self.pause, self.epoch = pause, 0

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        print(json.dumps({"batch": batch, "epoch": self.epoch, "t": time.time()}), flush=True)
        time.sleep(self.pause)
        hold = os.environ.get("FIT_PAUSE_FILE")  # tests hold the group while it exists
        while hold and os.path.exists(hold):
            time.sleep(0.02)


def main():
    out, seed = sys.argv[1], int(sys.argv[2])
    pause = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    tf.keras.utils.set_random_seed(seed)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    print(json.dumps({"ready": strategy.cluster_resolver.task_id, "pid": os.getpid()}),
          flush=True)
    x, y = data()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu",
                                                           input_shape=(6,)),
                                     tf.keras.layers.Dense(3)])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.2, momentum=0.5),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
    history = model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=EPOCHS, shuffle=False,
                        verbose=0, callbacks=[Progress(pause)])
    np.savez(out, *[w.numpy() for w in model.weights])
    print(json.dumps({"done": len(history.history["loss"]), "pid": os.getpid()}), flush=True)


if __name__ == "__main__":
    main()
