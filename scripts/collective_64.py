"""64 simulated workers held by one coordinator: native clients in a few processes, each
all-reducing 1M float32 a hundred times; every result of every worker is checked, so
nothing may be lost or mixed up.

    .venv/bin/python scripts/collective_64.py [--workers 64] [--processes 4] [--steps 100]
                                              [--floats 1000000] [--shards 1]

Worker r contributes (r + 1) + step at every element, so each result must equal
sum(r + 1) + workers * step exactly (integers, exact in float32). Prints the time, the
coordinator's throughput and "OK" or what went wrong. Too slow for the test suite (about
50 GB cross the coordinator), so it is a script; the README reports its result.
"""

import argparse
import multiprocessing
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))


def _process(url, token, count, steps, floats, queue):
    from texflow.distribute import collective

    results, errors = [], []
    ready = threading.Barrier(count)

    def worker():
        try:
            group = collective.connect(url, token, timeout=600)
            ready.wait()
            want_base = sum(range(1, group.size + 1))
            bad = 0
            for step in range(steps):
                x = np.full(floats, group.rank + 1 + step, np.float32)
                y = group.all_reduce(x)
                want = want_base + group.size * step
                if y.shape != x.shape or y[0] != want or y[-1] != want or \
                        not np.array_equal(y, np.full_like(y, want)):
                    bad += 1
            results.append((group.rank, steps, bad))
            group.barrier()
            group.close()
        except BaseException as e:
            errors.append(f"{type(e).__name__}: {e}")

    threads = [threading.Thread(target=worker) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put((results, errors))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=64)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--floats", type=int, default=1_000_000)
    parser.add_argument("--shards", type=int, default=1)
    args = parser.parse_args()
    from texflow.bench.collective import CoordinatorProcess

    coordinator = CoordinatorProcess(num_workers=args.workers, shards=args.shards)
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    per = [args.workers // args.processes + (i < args.workers % args.processes)
           for i in range(args.processes)]
    t0 = time.perf_counter()
    procs = [ctx.Process(target=_process, args=(coordinator.url, coordinator.token, n,
                                                args.steps, args.floats, queue))
             for n in per]
    for p in procs:
        p.start()
    outcomes = [queue.get(timeout=24 * 3600) for _ in procs]
    elapsed = time.perf_counter() - t0
    for p in procs:
        p.join(60)
    coordinator.stop()
    results = [r for rs, _ in outcomes for r in rs]
    errors = [e for _, es in outcomes for e in es]
    done = sum(steps for _, steps, _ in results)
    bad = sum(b for _, _, b in results)
    ranks = sorted(r for r, _, _ in results)
    moved = 2 * args.workers * args.floats * 4 * args.steps  # in and out of the coordinator
    print(f"{args.workers} workers in {args.processes} processes, {args.steps} all-reduces of "
          f"{args.floats:,} float32, {args.shards} shard(s): {elapsed:.1f} s, "
          f"{elapsed / args.steps * 1e3:.0f} ms per all-reduce, {moved / elapsed / 1e6:.0f} MB/s "
          f"through the coordinator")
    print(f"completed {done} of {args.workers * args.steps} worker-steps, {bad} wrong results, "
          f"ranks {'0..' + str(ranks[-1]) if ranks == list(range(args.workers)) else ranks}")
    for error in errors[:10]:
        print("error:", error)
    ok = not errors and not bad and done == args.workers * args.steps
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
