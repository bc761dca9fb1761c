"""The job of `texflow bench --collective`'s browser workers (run on the worker page, and
natively for comparison): times all-reduces of float32 ones and prints one line
"BENCH {json}" with this worker's medians in milliseconds and its process's CPU time per
all-reduce (every thread: the caller's and the collective loop's).

    collective_job.py SIZE,SIZE,... REPEATS [CHUNK_BYTES]
"""

import json
import sys
import time

try:
    import resource
except ImportError:  # Pyodide
    resource = None

import numpy as np

import texflow
from texflow.distribute import collective


def main():
    sizes = [int(s) for s in sys.argv[1].split(",")]
    repeats = int(sys.argv[2])
    chunk = int(sys.argv[3]) if len(sys.argv) > 3 else None
    group = collective.connect(timeout=600, chunk_bytes=chunk)
    times, cpus = {}, {}
    for n in sizes:
        x = np.ones(n, np.float32)
        for _ in range(2):
            group.all_reduce(x)
        spent, cpu = [], []
        for _ in range(repeats):
            group.barrier()
            c0, t0 = _cpu(), time.perf_counter()
            y = group.all_reduce(x)
            spent.append(time.perf_counter() - t0)
            cpu.append(_cpu() - c0)
        if y[0] != group.size or y[-1] != group.size:
            raise AssertionError(f"all_reduce of ones gave {y[:3]} with {group.size} workers")
        times[n] = sorted(spent)[len(spent) // 2] * 1e3
        cpus[n] = sorted(cpu)[len(cpu) // 2] * 1e3
    print("BENCH " + json.dumps({"rank": group.rank, "backend": texflow.get_backend(),
                                 "times": times, "cpu": cpus}), flush=True)
    group.barrier()
    group.close()


def _cpu():
    if resource is None:
        return 0.0
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


main()
