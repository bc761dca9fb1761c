"""A native worker process for fault tests: joins, then all-reduces in a loop.

python worker_proc.py URL TOKEN [TASK_ID]: prints "ready RANK GENERATION" once joined
and "step N VALUE" after each all-reduce of ones (so the sum is the group size); the
test kills or stops it, or lets it run.
"""

import sys
import time

import numpy as np

from texflow.distribute import collective


def main():
    url, token = sys.argv[1], sys.argv[2]
    task_id = int(sys.argv[3]) if len(sys.argv) > 3 else None
    group = collective.connect(url, token, task_id=task_id, timeout=60)
    print("ready", group.rank, group.generation, flush=True)
    step = 0
    while True:
        try:
            out = group.all_reduce(np.ones(4, np.float32))
        except collective.WorkerLostError:
            membership = group.rejoin(timeout=60)
            print("rejoined", membership.generation, flush=True)
            continue
        print("step", step, float(out[0]), flush=True)
        step += 1
        time.sleep(0.05)


if __name__ == "__main__":
    main()
