"""A native worker for recovery tests: a GradientTape loop over the collective, kept going
by recovery.Keeper.

python loop_worker.py URL TOKEN STEPS OUT_DIR [--task-id I] [--checkpoint-every K]
    [--step-sleep S] [--pause-file PATH]

A small MLP (momentum SGD, so optimizer slots travel too) on a fixed regression set;
each step takes the global batch of GLOBAL_BATCH rows of the epoch's permutation and
this worker's rows of it (recovery.batch_rows), with the loss summed and divided by the
global batch, so the step is the same for any number of workers. Prints JSON lines:
{"ready": rank, "pid": ...}, {"step": n, "rank": r} and {"recovery": {...}}, and at the
end writes OUT_DIR/weights-<pid>.npz and prints {"done": ...}.
"""

import argparse
import json
import os
import time

T_START = time.perf_counter()

import numpy as np  # noqa: E402

import texflow as tf  # noqa: E402
from texflow.distribute import collective, recovery  # noqa: E402

ROWS, FEATURES, HIDDEN = 192, 8, 16
GLOBAL_BATCH, STEPS_PER_EPOCH = 48, 4
LEARNING_RATE, MOMENTUM = 0.05, 0.9


def dataset():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(ROWS, FEATURES)).astype(np.float32)
    y = np.tanh(x @ rng.normal(size=(FEATURES, 1))).astype(np.float32)
    return x, y


def initial_weights(seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(scale=0.3, size=(FEATURES, HIDDEN)).astype(np.float32),
            np.zeros(HIDDEN, np.float32),
            rng.normal(scale=0.3, size=(HIDDEN, 1)).astype(np.float32)]


def global_rows(epoch, batch):
    order = np.random.default_rng(1000 + epoch).permutation(ROWS)
    return order[batch * GLOBAL_BATCH:(batch + 1) * GLOBAL_BATCH]


def loss_fn(weights, x, y):
    w1, b1, w2 = weights
    pred = tf.matmul(tf.tanh(tf.matmul(x, w1) + b1), w2)
    return tf.reduce_sum(tf.square(pred - y)) / GLOBAL_BATCH


def emit(**fields):
    print(json.dumps(fields), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("token")
    parser.add_argument("steps", type=int)
    parser.add_argument("out")
    parser.add_argument("--task-id", type=int, default=None)
    parser.add_argument("--checkpoint-every", type=int, default=None)
    parser.add_argument("--step-sleep", type=float, default=0.0)
    parser.add_argument("--pause-file", default=None,
                        help="while this file exists, wait before each step (tests use it "
                             "to hold the group until a newcomer waits to join)")
    args = parser.parse_args()

    group = collective.connect(args.url, args.token, task_id=args.task_id, timeout=120)
    t_joined = time.perf_counter()
    emit(ready=group.rank, pid=os.getpid(), generation=group.generation,
         import_s=t_joined - T_START)
    x_all, y_all = dataset()
    # Each rank starts from its own random weights: the sync gives everyone rank 0's.
    weights = [tf.Variable(w, name=f"w{i}")
               for i, w in enumerate(initial_weights(100 + group.rank))]
    optimizer = tf.MomentumOptimizer(LEARNING_RATE, MOMENTUM)
    state = recovery.TrainingState(weights, optimizer)
    keeper = recovery.Keeper(group, state, steps_per_epoch=STEPS_PER_EPOCH,
                             checkpoint_every=args.checkpoint_every, rejoin_timeout=90,
                             log=lambda line: emit(log=line))
    keeper.start()

    def train_step(state):
        while args.pause_file and os.path.exists(args.pause_file):
            time.sleep(0.02)
        rows = global_rows(state.epoch, state.batch)
        lo, hi = recovery.batch_rows(GLOBAL_BATCH, group.rank, group.size)
        x, y = tf.constant(x_all[rows[lo:hi]]), tf.constant(y_all[rows[lo:hi]])
        with tf.GradientTape() as tape:
            loss = loss_fn(weights, x, y)
        grads = group.all_reduce(tape.gradient(loss, weights), op="sum")
        optimizer.apply_gradients(zip(grads, weights))
        emit(step=state.step, rank=group.rank, size=group.size)
        if args.step_sleep:
            time.sleep(args.step_sleep)

    keeper.run(train_step, args.steps)
    for record in keeper.recoveries:
        emit(recovery={k: v for k, v in record.items() if not k.startswith("_")})
    path = os.path.join(args.out, f"weights-{os.getpid()}.npz")
    np.savez(path, *[w.numpy() for w in weights])
    emit(done=state.step, rank=group.rank, weights=path, first_step_s=(
        keeper.recoveries[-1].get("first_step_s")), since_start_s=time.perf_counter() - T_START)
    group.barrier()
    group.close()


def reference(steps):
    """The weights one process reaches with the whole global batch over the same data
    order, from rank 0's initial weights: what every worker must end with."""
    x_all, y_all = dataset()
    weights = [tf.Variable(w, name=f"w{i}") for i, w in enumerate(initial_weights(100))]
    optimizer = tf.MomentumOptimizer(LEARNING_RATE, MOMENTUM)
    for step in range(steps):
        rows = global_rows(*divmod(step, STEPS_PER_EPOCH))
        with tf.GradientTape() as tape:
            loss = loss_fn(weights, tf.constant(x_all[rows]), tf.constant(y_all[rows]))
        optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
    return [w.numpy() for w in weights]


if __name__ == "__main__":
    main()
