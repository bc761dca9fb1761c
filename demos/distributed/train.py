"""Data-parallel training through a texflow coordinator: browser tabs and native processes
train one linear model together.

    texflow coordinator --num-workers 2 --script demos/distributed/train.py -- 60
    # open the printed join URL in a browser tab, and/or:
    texflow worker --coordinator ws://127.0.0.1:8470 --token TOKEN demos/distributed/train.py -- 60

Each worker reads its shard of the data, computes its gradient with texflow on its own
backend (WebGPU or WebGL in a tab, numpy natively), and the gradients are averaged with
an all-reduce, so every worker takes the same step and ends with the same weights.
"""

import sys

import numpy as np

import texflow as tf
from texflow.distribute import collective

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 50

group = collective.connect()
print(f"worker {group.rank} of {group.size} ({tf.get_backend()}), generation "
      f"{group.generation}", flush=True)

rng = np.random.default_rng(0)  # the same data everywhere; each worker takes its shard
true_w = rng.normal(size=(8, 1)).astype(np.float32)
x_all = rng.normal(size=(512, 8)).astype(np.float32)
y_all = x_all @ true_w + 0.01 * rng.normal(size=(512, 1)).astype(np.float32)
x = tf.array(x_all[group.rank::group.size])
y = tf.array(y_all[group.rank::group.size])

start = np.random.default_rng(100 + group.rank).normal(size=(8, 1)).astype(np.float32)
w = tf.Variable(group.broadcast(start, root=0), name="w")  # the chief's start everywhere
optimizer = tf.SGDOptimizer(0.1)
for step in range(STEPS):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    (grad,) = tape.gradient(loss, [w])
    grad = group.all_reduce(grad, op="mean", name=f"grad {step}")
    optimizer.apply_gradients([(grad, w)])
    mean_loss = group.all_reduce(float(loss), op="mean")
    group.report(step=step, loss=mean_loss)
    if step % 10 == 0 or step == STEPS - 1:
        print(f"step {step}: loss {mean_loss:.6f}", flush=True)

final = w.numpy()
error = float(np.abs(final - true_w).max())
print(f"weights checksum {float(np.sum(final)):.6f}, max error {error:.4f}", flush=True)
group.barrier()
group.close()
