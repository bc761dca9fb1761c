"""One TensorFlow worker of `texflow bench --collective --tf-python PATH` (never imported by
texflow): MultiWorkerMirroredStrategy's collective all-reduce (RING) of float32 vectors
between workers on localhost, configured by TF_CONFIG as the multi-worker tutorials do.

    PATH/python scripts/bench_tf_collective.py INDEX PORT,PORT SIZE,SIZE REPEATS

Worker 0 prints one JSON line {size: median milliseconds}. Each timed call reads the
result back to numpy, as texflow's all_reduce returns numpy.
"""

import json
import os
import sys
import time


def main():
    index, ports = int(sys.argv[1]), sys.argv[2].split(",")
    sizes = [int(s) for s in sys.argv[3].split(",")]
    repeats = int(sys.argv[4])
    os.environ["TF_CONFIG"] = json.dumps({
        "cluster": {"worker": [f"localhost:{p}" for p in ports]},
        "task": {"type": "worker", "index": index}})
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    options = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    out = {}
    for n in sizes:
        with strategy.scope():
            v = tf.Variable(tf.ones([n], tf.float32))

        @tf.function
        def step():
            def fn():
                ctx = tf.distribute.get_replica_context()
                return ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.identity(v))
            return strategy.run(fn)

        for _ in range(2):
            step().numpy()
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            result = step().numpy()
            times.append(time.perf_counter() - t0)
        assert result[0] == len(ports), result[:4]
        out[n] = sorted(times)[len(times) // 2] * 1e3
    if index == 0:
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
