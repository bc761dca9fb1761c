"""Where the CPU of a training step's all-reduce goes, A/B between two trees of texflow.

    .venv/bin/python scripts/step_allreduce_cpu.py [--ref main] [--rounds 3] [--n 300]

Two native workers and a coordinator process all-reduce the MNIST CNN's six gradients
(texflow bench --multiworker's model: 1.39 MB of float32) `--n` times back to back, fresh
arrays each time as a training step passes them, and print per all-reduce: the median
wall time, each worker's CPU in its calling thread (copying the arrays excluded) and in
its collective (event-loop) thread, and the coordinator's CPU. Rounds alternate between
`--ref`'s py/ (git archive into a temporary folder) and this checkout's, so both see the
same machine load (printed per run); CPU times are what load disturbs least. Run by hand.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHAPES = [(3, 3, 1, 32), (32,), (5408, 64), (64,), (64, 10), (10,)]
WARMUP = 10


def job(n):
    """A worker (run by `texflow worker`): n all-reduces; prints its CPU per all-reduce."""
    import numpy as np

    from texflow.distribute import collective
    group = collective.connect(timeout=120)
    def gradients(rank):
        rng = np.random.default_rng(rank)
        return [rng.standard_normal(s).astype(np.float32) for s in SHAPES]

    grads = gradients(group.rank)
    loop = next(t for t in threading.enumerate() if t.name == "texflow-collective")
    loop_clock = time.pthread_getcpuclockid(loop.ident)
    walls, copying = [], 0.0
    for i in range(WARMUP + n):
        if i == WARMUP:
            print("START", flush=True)
            main0, loop0 = time.thread_time(), time.clock_gettime(loop_clock)
        c = time.thread_time()
        fresh = [g.copy() for g in grads]
        copying += time.thread_time() - c if i >= WARMUP else 0.0
        t = time.perf_counter()
        out = group.all_reduce(fresh)
        walls.append(time.perf_counter() - t)
    main1, loop1 = time.thread_time(), time.clock_gettime(loop_clock)
    print("END", flush=True)
    for got, *parts in zip(out, *(gradients(r) for r in range(group.size))):
        np.testing.assert_allclose(got, sum(parts), rtol=1e-5, atol=1e-5)
    print("RESULT " + json.dumps({"main_ms": (main1 - main0 - copying) * 1e3 / n,
                                  "loop_ms": (loop1 - loop0) * 1e3 / n,
                                  "wall_ms": float(np.median(walls[WARMUP:])) * 1e3}),
          flush=True)
    group.barrier()
    group.close()


def _cpu_ms(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1e3 / os.sysconf("SC_CLK_TCK")


# The coordinator runs the tree's code too (a multiprocessing child would import this
# checkout's texflow whatever PYTHONPATH says).
_COORDINATOR = """
import logging, time
from texflow.coordinator import CoordinatorThread
logging.basicConfig(level=logging.WARNING)
c = CoordinatorThread(num_workers=2, port=0).start()
print(c.url, c.token, flush=True)
time.sleep(3600)
"""


def measure(py, n):
    env = dict(os.environ, PYTHONPATH=str(py), OPENBLAS_NUM_THREADS="1",
               PYTHONUNBUFFERED="1")
    coordinator = subprocess.Popen([sys.executable, "-c", _COORDINATOR], env=env, text=True,
                                   stdout=subprocess.PIPE)
    url, token = coordinator.stdout.readline().split()
    procs = [subprocess.Popen([sys.executable, "-m", "texflow.cli", "worker", "--coordinator",
                               url, "--token", token, "--task-id",
                               str(i), __file__, "--", "job", str(n)], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
             for i in range(2)]
    try:
        lines = []
        for line in procs[0].stdout:  # the coordinator's CPU between rank 0's START and END
            lines.append(line)
            if line.startswith("START"):
                c0 = _cpu_ms(coordinator.pid)
            elif line.startswith("END"):
                c1 = _cpu_ms(coordinator.pid)
                break
        lines += procs[0].stdout.readlines()
        others = procs[1].communicate(timeout=300)[0].splitlines()
        results = [json.loads(line[7:]) for line in lines + others
                   if line.startswith("RESULT ")]
        if len(results) != 2:
            raise RuntimeError("a worker printed no result:\n" + "".join(lines[-30:]))
        return results, (c1 - c0) / n
    finally:
        for p in procs:
            p.kill()
        coordinator.kill()
        coordinator.wait(30)


def main():
    if sys.argv[1:2] == ["job"]:
        return job(int(sys.argv[2]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default="main", help="the git ref to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--n", type=int, default=300, help="all-reduces per run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.ref, "py"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        trees = {args.ref: Path(tmp) / "py", "this checkout": ROOT / "py"}
        print("| tree | load | wall ms | worker calling thread | worker collective thread "
              "| coordinator | all processes |\n|---|---:|---:|---:|---:|---:|---:|")
        for _ in range(args.rounds):
            for name, py in trees.items():
                load = os.getloadavg()[0]
                workers, coordinator = measure(py, args.n)
                main_ms = sum(w["main_ms"] for w in workers) / 2
                loop_ms = sum(w["loop_ms"] for w in workers) / 2
                wall = max(w["wall_ms"] for w in workers)
                print(f"| {name} | {load:.1f} | {wall:.2f} | {main_ms:.2f} | {loop_ms:.2f} | "
                      f"{coordinator:.2f} | {2 * (main_ms + loop_ms) + coordinator:.2f} |",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
