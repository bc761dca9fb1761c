"""The job of `texflow bench --collective`'s browser workers (run on the worker page, and
natively for comparison): times all-reduces of float32 ones and prints one line
"BENCH {json}" with this worker's medians in milliseconds.

    collective_job.py SIZE,SIZE,... REPEATS
"""

import json
import sys
import time

import numpy as np

import texflow
from texflow.distribute import collective


def main():
    sizes = [int(s) for s in sys.argv[1].split(",")]
    repeats = int(sys.argv[2])
    group = collective.connect(timeout=600)
    times = {}
    for n in sizes:
        x = np.ones(n, np.float32)
        for _ in range(2):
            group.all_reduce(x)
        spent = []
        for _ in range(repeats):
            group.barrier()
            t0 = time.perf_counter()
            y = group.all_reduce(x)
            spent.append(time.perf_counter() - t0)
        if y[0] != group.size or y[-1] != group.size:
            raise AssertionError(f"all_reduce of ones gave {y[:3]} with {group.size} workers")
        times[n] = sorted(spent)[len(spent) // 2] * 1e3
    print("BENCH " + json.dumps({"rank": group.rank, "backend": texflow.get_backend(),
                                 "times": times}), flush=True)
    group.barrier()
    group.close()


main()
