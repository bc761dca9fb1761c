"""The job of `texflow bench --multiworker` (native workers and headless worker pages):
the multi-worker tutorial's MNIST CNN trained data-parallel over the coordinator, kept
going by recovery.Keeper, timing each step and its all-reduce.

    multiworker_job.py STEPS PER_WORKER_BATCH [alone]

Prints one JSON line per step ({"step", "t": wall clock at its end, "ms", "comm_ms"}),
the Keeper's log lines ({"log", "t"}) and at the end "BENCH {json}" with this worker's
medians and its CPU time per step. `alone`: one process, no coordinator (the
single-worker baseline). With TF_CONFIG set (and no $TEXFLOW_COORDINATOR) the group forms
as MultiWorkerMirroredStrategy forms it: the chief runs the coordinator in its own
process (2 processes for 2 workers, not 3).
"""

import json
import os
import sys
import time

import numpy as np

import texflow as tf
from texflow.distribute import cluster_resolver, collective, multi_worker, recovery

WARMUP = 3


def build_model():
    """The tutorial's CNN (seed 000), compiled as it compiles it."""
    model = tf.keras.Sequential([
        tf.keras.Input((28, 28, 1)),
        tf.keras.layers.Conv2D(32, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(10, activation="softmax")])
    model.compile(loss=tf.keras.losses.sparse_categorical_crossentropy,
                  optimizer=tf.keras.optimizers.SGD(learning_rate=0.001),
                  metrics=["accuracy"])
    return model


class Alone:
    """A group of one, without a coordinator."""
    rank, size, is_chief = 0, 1, True

    def all_reduce(self, tensors, op="sum", name=None):
        return tensors


def emit(**fields):
    print(json.dumps(fields), flush=True)


def main():
    steps, batch = int(sys.argv[1]), int(sys.argv[2])
    alone = len(sys.argv) > 3 and sys.argv[3] == "alone"
    (x_train, y_train), _ = tf.keras.datasets.mnist.load_data()
    x_train = (x_train[..., None] / 255.0).astype(np.float32)
    y_train = y_train.astype(np.int32)
    model = build_model()
    # Joins once ready to train, so a restarted worker keeps the others waiting only for
    # the state it needs.
    coordinator = None
    if alone:
        group = Alone()
    elif os.environ.get("TF_CONFIG") and not os.environ.get("TEXFLOW_COORDINATOR"):
        resolver = cluster_resolver.TFConfigClusterResolver()
        group, coordinator = multi_worker.join_tf_config(resolver, resolver.cluster_spec())
    else:
        group = collective.connect(timeout=600)
    emit(joined=group.rank, t=time.time())
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(reduction="sum")
    optimizer = model.optimizer
    state = recovery.TrainingState(model.weights, optimizer)
    keeper = None
    if not alone:
        keeper = recovery.Keeper(group, state, steps_per_epoch=len(x_train) // (
            batch * group.size), log=lambda line: emit(log=line, t=time.time()))
        keeper.start()
    times, comms, cpu = [], [], []  # cpu: this process's CPU seconds (all its threads)
    last = [time.perf_counter()]

    def train_step(state):
        global_batch = batch * group.size
        order = np.random.default_rng(state.epoch).permutation(len(x_train))
        rows = order[state.batch * global_batch:(state.batch + 1) * global_batch]
        lo, hi = recovery.batch_rows(global_batch, group.rank, group.size)
        x, y = x_train[rows[lo:hi]], y_train[rows[lo:hi]]
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True)) / global_batch
        # Read back first, so the all-reduce's time is the collective's alone (on a GPU
        # backend the readback is where the step's queued work is waited for).
        grads = [np.asarray(g.numpy()) for g in tape.gradient(loss, model.trainable_weights)]
        t0 = time.perf_counter()
        grads = group.all_reduce(grads, op="sum")
        comm = time.perf_counter() - t0
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        now = time.perf_counter()
        ms = (now - last[0]) * 1e3
        last[0] = now
        times.append(ms)
        cpu.append(time.process_time())
        comms.append(comm * 1e3)
        emit(step=state.step, t=time.time(), ms=round(ms, 2), comm_ms=round(comm * 1e3, 2),
             size=group.size, loss=round(float(loss), 4))

    if alone:
        for step in range(steps):
            state.step, state.batch = step, step % (len(x_train) // batch)
            train_step(state)
    else:
        keeper.run(train_step, steps)
    timed = list(zip(times, comms))[WARMUP:]
    step_ms = float(np.median([t for t, _ in timed]))
    share = float(np.median([c / t for t, c in timed if t > 0]))
    result = {"rank": group.rank, "size": group.size, "backend": tf.get_backend(),
              "batch": batch, "step_ms": step_ms, "comm_share": share,
              "comm_ms": float(np.median([c for _, c in timed])),
              "samples_per_s": batch * group.size * 1e3 / step_ms,
              # CPU per step past the warm-up; in a chief started with TF_CONFIG, its
              # coordinator's thread too
              "cpu_ms": ((cpu[-1] - cpu[WARMUP - 1]) * 1e3 / (len(cpu) - WARMUP)
                         if len(cpu) > WARMUP else None)}
    if keeper is not None:
        result["recoveries"] = [{k: v for k, v in r.items() if not k.startswith("_")}
                                for r in keeper.recoveries]
    print("BENCH " + json.dumps(result), flush=True)
    if not alone:
        group.barrier()
        multi_worker.leave(group, coordinator)


main()
