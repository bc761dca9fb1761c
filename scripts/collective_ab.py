"""A/B of the native all-reduce between source trees, interleaved in one run.

    .venv/bin/python scripts/collective_ab.py TREE_A TREE_B [--size 1000000] [--repeats 30]
        [--rounds 3] [--workers 2] [--shards 1,2] [--echo] [--profile DIR]

Each TREE is a checkout of texflow (its `py/` goes first on PYTHONPATH for the
coordinator and the workers). Each round runs every tree once, in turn (A B A B ...): a
coordinator process and `--workers` native worker processes running the benchmark job
(`texflow/bench/collective_job.py`: a barrier, then one timed all-reduce, `--repeats`
times), and prints the median ms per all-reduce, each worker's CPU ms and the
coordinator's CPU ms per all-reduce (over the whole job, barriers and warm-up included,
from /proc), with the load average; with `--shards 1,2` each tree runs with each shard
count. `--echo` adds the raw `websockets` echo of the same bytes each round; `--profile DIR`
runs each coordinator under cProfile (slower; for where the time goes, not for timings).
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from texflow.bench.collective import _cpu_tree, parse_job_output

_COORDINATOR = r"""
import asyncio, cProfile, signal, sys
from texflow.coordinator.server import Coordinator

async def main():
    c = await Coordinator(num_workers=int(sys.argv[1]), port=0,
                          shards=int(sys.argv[2])).start()
    print(c.url, c.token, flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()

profile = sys.argv[3] if len(sys.argv) > 3 else ""
if profile:
    cProfile.run("asyncio.run(main())", profile)
else:
    asyncio.run(main())
"""


def run_tree(tree, workers, size, repeats, profile=None, shards=1):
    """(ms, [worker CPU ms], coordinator CPU ms per all-reduce) of one job on `tree`."""
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve() / "py"))
    args = [sys.executable, "-c", _COORDINATOR, str(workers), str(shards)]
    args += [profile] if profile else []
    coordinator = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, text=True)
    try:
        url, token = coordinator.stdout.readline().split()
        job = Path(tree).resolve() / "py" / "texflow" / "bench" / "collective_job.py"
        cpu0 = _cpu_tree(coordinator.pid)
        procs = [subprocess.Popen([sys.executable, "-m", "texflow.cli", "worker",
                                   "--coordinator", url, "--token", token, str(job), "--",
                                   str(size), str(repeats)], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
                 for _ in range(workers)]
        outs = [p.communicate(timeout=600)[0] for p in procs]
        cpu1 = _cpu_tree(coordinator.pid)
    finally:
        coordinator.terminate()
        coordinator.wait(30)
    results = [parse_job_output(out) for out in outs]
    times = sorted(r["times"][size] for r in results)
    calls = repeats + 2  # the job's two warm-up all-reduces
    return (times[len(times) // 2], [r["cpu"][size] for r in results],
            (cpu1 - cpu0) * 1e3 / calls)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--echo", action="store_true")
    parser.add_argument("--shards", default="1", help="comma-separated: each tree runs with "
                        "each shard count in turn")
    parser.add_argument("--profile", default=None)
    args = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load average "
          f"{os.getloadavg()}; {args.workers} workers, {args.size} float32, "
          f"{args.repeats} all-reduces a job")
    print("| round | tree | ms | worker CPU ms | coordinator CPU ms | load (1 min) |")
    print("|---:|---|---:|---:|---:|---:|")
    for r in range(args.rounds):
        if args.echo:
            from texflow.bench.collective import measure_raw_websockets
            ms, cpu = measure_raw_websockets([args.size], args.repeats)
            print(f"| {r} | websockets echo | {ms[args.size]:.2f} | {cpu[args.size][0]:.2f} | "
                  f"{cpu[args.size][1]:.2f} | {os.getloadavg()[0]:.2f} |", flush=True)
        for i, (tree, shards) in enumerate(
                (t, int(k)) for t in args.trees for k in args.shards.split(",")):
            profile = None
            if args.profile:
                Path(args.profile).mkdir(parents=True, exist_ok=True)
                profile = str(Path(args.profile) / f"coordinator-{i}-{r}.prof")
            ms, wcpu, ccpu = run_tree(tree, args.workers, args.size, args.repeats, profile,
                                      shards)
            workers = " / ".join(f"{c:.2f}" for c in wcpu)
            print(f"| {r} | {tree}, {shards} shard(s) | {ms:.2f} | {workers} | {ccpu:.2f} | "
                  f"{os.getloadavg()[0]:.2f} |", flush=True)
    print(f"end: load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
