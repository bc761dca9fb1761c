"""`texflow bench --multiworker`: the multi-worker tutorial's MNIST CNN trained data-parallel
through the coordinator by 1, 2 and 4 native workers and 2 browser workers (headless worker
pages): step time, samples per second, the share of each step spent in the all-reduce, and
the recovery time after a worker is killed and restarted; with `--tf-python`, TensorFlow's
MultiWorkerMirroredStrategy on the same model, batch and machine, in the same run.

Every worker is its own process (browser workers are pages of one headless Chromium) and
uses one BLAS thread, so N workers ask for N cores, as on N machines. A benchmark prints
what it measured; tests never assert times.
"""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from .collective import CoordinatorProcess, ROOT, _cpu_of, _free_ports

JOB = Path(__file__).with_name("multiworker_job.py")
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
           PYTHONUNBUFFERED="1")


class Proc:
    """A worker process whose JSON lines are collected as they come (`lines`)."""

    def __init__(self, argv, env=None):
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, env=env or ENV)
        self.lines, self.bench, self.text = [], None, []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            self.text.append(line)
            if line.startswith("BENCH "):
                self.bench = json.loads(line[6:])
            elif line.startswith("{"):
                self.lines.append(json.loads(line))

    def wait(self, timeout=3600):
        self.proc.wait(timeout)
        self.thread.join(30)
        if self.bench is None:
            raise RuntimeError("a benchmark worker printed no result:\n" +
                               "".join(self.text[-60:]))
        return self.bench

    def kill(self):
        self.proc.kill()
        self.proc.wait()


def _worker(coordinator, steps, batch, task_id):
    return Proc([sys.executable, "-m", "texflow.cli", "worker", "--coordinator",
                 coordinator.url, "--token", coordinator.token, "--task-id", str(task_id),
                 str(JOB), "--", str(steps), str(batch)])


def _summary(results, coordinator_cpu_ms=None):
    """The group's figures from every rank's: the slowest rank's step sets the pace;
    `cpu_ms` is the CPU time of one step over every process (the coordinator's too)."""
    step = max(r["step_ms"] for r in results)
    cpu = None
    if all(r.get("cpu_ms") is not None for r in results):
        cpu = sum(r["cpu_ms"] for r in results) + (coordinator_cpu_ms or 0.0)
    return {"step_ms": step, "samples_per_s": results[0]["batch"] * len(results) * 1e3 / step,
            "comm_share": max(r["comm_share"] for r in results),
            "backend": results[0]["backend"], "cpu_ms": cpu,
            "coordinator_cpu_ms": coordinator_cpu_ms}


def measure_alone(steps, batch):
    """One process, no coordinator: the single-worker baseline."""
    p = Proc([sys.executable, str(JOB), str(steps), str(batch), "alone"])
    return _summary([p.wait()])


def measure_native(workers, steps, batch):
    coordinator = CoordinatorProcess(num_workers=workers)
    cpu0 = _cpu_of(coordinator.process.pid)
    procs = [_worker(coordinator, steps, batch, i) for i in range(workers)]
    try:
        results = [p.wait() for p in procs]
        # over the whole run (the workers' start and warm-up too): an upper bound per step
        per_step = (_cpu_of(coordinator.process.pid) - cpu0) * 1e3 / steps
        return _summary(results, per_step)
    finally:
        for p in procs:
            p.kill()
        coordinator.stop()


def measure_tf_config(workers, steps, batch):
    """Workers started with TF_CONFIG, as the tutorials start them: the chief runs the
    coordinator in its own process, so N workers are N processes (not N + 1)."""
    cluster = {"worker": [f"localhost:{p}" for p in _free_ports(workers)]}
    procs = []
    for i in range(workers):
        config = {"cluster": cluster, "task": {"type": "worker", "index": i}}
        env = dict(ENV, TF_CONFIG=json.dumps(config))
        env.pop("TEXFLOW_COORDINATOR", None)
        procs.append(Proc([sys.executable, str(JOB), str(steps), str(batch)], env=env))
    try:
        return _summary([p.wait() for p in procs])
    finally:
        for p in procs:
            p.kill()


def measure_recovery(steps, batch, kill_at):
    """Two native workers; rank 1 is killed after step `kill_at` and started again at once.
    Returns seconds from the kill to: the loss noticed, the restarted worker joined, the
    state synced, and the survivor's first step done."""
    coordinator = CoordinatorProcess(num_workers=2)
    procs = [_worker(coordinator, steps, batch, i) for i in range(2)]
    restarted = None
    try:
        survivor = procs[0]
        while not any(line.get("step", -1) >= kill_at for line in survivor.lines):
            if survivor.proc.poll() is not None:
                raise RuntimeError("the survivor ended early:\n" + "".join(survivor.text[-40:]))
            time.sleep(0.01)
        t_kill = time.time()
        procs[1].kill()
        restarted = _worker(coordinator, steps, batch, 1)
        result = survivor.wait()
        restarted.wait()
        joined = next(line["t"] for line in restarted.lines if "joined" in line)
        logs = [line for line in survivor.lines if "log" in line and line["t"] > t_kill]
        noticed = next(line["t"] for line in logs if line["log"].startswith("[recovery] step"))
        synced = next(line["t"] for line in logs
                      if line["log"].startswith("[recovery] generation"))
        first = next(line["t"] for line in survivor.lines
                     if "step" in line and line["t"] > synced)
        record = [r for r in result["recoveries"] if r["event"] == "recover"][0]
        return {"noticed_s": noticed - t_kill, "joined_s": joined - t_kill,
                "synced_s": synced - t_kill,
                "first_step_s": first - t_kill, "sync_ms": record["sync_s"] * 1e3,
                "after_generation_s": record["first_step_s"]}
    finally:
        for p in procs + [restarted]:
            if p is not None:
                p.kill()
        coordinator.stop()


def measure_browser(steps, batch, workers=2):
    from .collective_browser import _browser, run_pages

    coordinator = CoordinatorProcess(job_args=[str(steps), str(batch)], job=JOB,
                                     num_workers=workers)
    pw, browser = _browser()
    try:
        results = []
        # WebGL: on this machine's software GPU it trains this CNN faster than WebGPU
        for text in run_pages(browser.new_context(), coordinator, workers, "?backend=webgl"):
            found = [line for line in text.splitlines() if line.startswith("BENCH ")]
            if not found:
                raise RuntimeError(f"a browser worker printed no result:\n{text[-3000:]}")
            results.append(json.loads(found[0][6:]))
        return _summary(results), browser.version
    finally:
        browser.close()
        pw.stop()
        coordinator.stop()


def measure_tensorflow(python, workers, steps, batch):
    """TensorFlow's MultiWorkerMirroredStrategy on the same CNN and per-worker batch
    (scripts/bench_tf_multiworker.py); None if it fails."""
    script = ROOT / "scripts" / "bench_tf_multiworker.py"
    ports = ",".join(map(str, _free_ports(workers)))
    env = dict(ENV, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
    procs = [subprocess.Popen([python, str(script), str(i), ports, str(steps), str(batch)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for i in range(workers)]
    outs = [p.communicate(timeout=1800) for p in procs]
    if procs[0].returncode:
        print(f"[bench] TensorFlow failed: {outs[0][1][-2000:]}", file=sys.stderr)
        return None
    return json.loads(outs[0][0].strip().splitlines()[-1])


def _f(value, digits=1):
    return "–" if value is None else f"{value:,.{digits}f}"


def _cpu_rows(native, tf_config, cores):
    """CPU time per global step over every process, load-independent where wall time is
    not: what the machine's cores allow at best (cores x workers x CPU of one worker's
    step / CPU of the group's step, at most the worker count)."""
    one = native[1].get("cpu_ms")
    cases = [(f"{n} native", r) for n, r in sorted(native.items()) if n > 1]
    cases += [(f"{n} native, TF_CONFIG", r) for n, r in sorted((tf_config or {}).items())]
    cases = [(name, r) for name, r in cases if r.get("cpu_ms")]
    if not one or not cases:
        return []
    out = ["", f"CPU time per global step, every process (the workers' and the coordinator's"
           f"; lower is better): the best a machine of {cores} cores allows", "",
           "| workers | CPU ms per step | of it the coordinator process | CPU per sample vs 1 "
           f"worker | ceiling on {cores} cores vs 1 |", "|---|---:|---:|---:|---:|",
           f"| 1 native (alone) | {one:.1f} | – | 1.00x | 1.00x |"]
    for name, r in cases:
        n = int(name.split()[0])
        ceiling = min(float(n), cores * n * one / r["cpu_ms"])
        coordinator = (f"{r['coordinator_cpu_ms']:.1f}"
                       if r.get("coordinator_cpu_ms") is not None else "(in the chief)")
        out.append(f"| {name} | {r['cpu_ms']:.1f} | {coordinator} | "
                   f"{r['cpu_ms'] / (n * one):.2f}x | {ceiling:.2f}x |")
    return out


def tables(native, browser, recovery, tf, out, tf_config=None, cores=None):
    base = native[1]["samples_per_s"]
    out += ["", "MNIST CNN (the tutorial's), data-parallel through the coordinator; per-worker "
            "batch fixed, global batch = workers x batch; step ms = the slowest rank's median",
            "", "| workers | step ms | samples/s | vs 1 worker | all-reduce share | "
            "TensorFlow MWMS step ms | TensorFlow samples/s | step vs TensorFlow |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for n, r in sorted(native.items()):
        t = (tf or {}).get(n)
        versus = f"{r['step_ms'] / t['step_ms']:.2f}x" if t else "–"
        out.append(f"| {n} native{' (alone)' if n == 1 else ''} | {_f(r['step_ms'])} | "
                   f"{_f(r['samples_per_s'], 0)} | {r['samples_per_s'] / base:.2f}x | "
                   f"{r['comm_share']:.0%} | {_f(t and t['step_ms'])} | "
                   f"{_f(t and t['samples_per_s'], 0)} | {versus} |")
    for n, r in sorted((tf_config or {}).items()):
        out.append(f"| {n} native, TF_CONFIG (coordinator in the chief) | {_f(r['step_ms'])} | "
                   f"{_f(r['samples_per_s'], 0)} | {r['samples_per_s'] / base:.2f}x | "
                   f"{r['comm_share']:.0%} | – | – | – |")
    if browser:
        r, version = browser
        out.append(f"| 2 browser ({r['backend']}) | {_f(r['step_ms'])} | "
                   f"{_f(r['samples_per_s'], 0)} | {r['samples_per_s'] / base:.2f}x | "
                   f"{r['comm_share']:.0%} | – | – | – |")
        out.append(f"\nbrowser: Chromium {version} (headless, software GPU)")
    out += _cpu_rows(native, tf_config, cores or os.cpu_count() or 1)
    if recovery:
        out += ["", "Recovery: 2 native workers, rank 1 killed mid-epoch and started again at "
                "once (seconds after the kill)", "",
                "| loss noticed | restarted process joined | state synced | survivor's "
                "first step | state sync | first step after the new generation |",
                "|---:|---:|---:|---:|---:|---:|",
                f"| {recovery['noticed_s']:.2f} | {recovery['joined_s']:.2f} | "
                f"{recovery['synced_s']:.2f} | "
                f"{recovery['first_step_s']:.2f} | {recovery['sync_ms']:.0f} ms | "
                f"{recovery['after_generation_s']:.2f} |"]
    out += ["", "Targets (ratios from this run)", "", "| case | measured | target |",
            "|---|---:|---|"]
    if 2 in native:
        ratio = native[2]["samples_per_s"] / base
        out.append(f"| 2 native vs 1, samples/s | {ratio:.2f}x | >= 1.6x: "
                   f"{'met' if ratio >= 1.6 else 'NOT met'} |")
    if 2 in (tf_config or {}):
        ratio = tf_config[2]["samples_per_s"] / base
        out.append(f"| 2 native with TF_CONFIG vs 1, samples/s | {ratio:.2f}x | >= 1.6x: "
                   f"{'met' if ratio >= 1.6 else 'NOT met'} |")
    if recovery:
        s = recovery["first_step_s"] - recovery["joined_s"]
        out.append(f"| recovery, restarted worker joined to the next step done | {s:.2f} s | "
                   f"< 5 s: {'met' if s < 5 else 'NOT met'} |")
        out.append(f"| recovery, kill to the next step done (the process restarted at once; "
                   f"TensorFlow: about 7 s) | {recovery['first_step_s']:.2f} s | |")


def main(args):
    import platform

    quick = args.quick
    load = os.getloadavg()[0]
    steps, batch = (12, 64) if quick else (30, 64)
    out = [f"texflow bench --multiworker, {time.strftime('%Y-%m-%d %H:%M')}, "
           f"{platform.machine()}, {os.cpu_count()} cores (load average "
           f"{load:.1f} at the start), one BLAS thread per worker"]

    def step(what):
        print(f"[bench] {what} ...", file=sys.stderr, flush=True)

    def got(figures):  # each case as soon as it is measured, should a later one fail
        print(f"[bench]   {json.dumps(figures)}", file=sys.stderr, flush=True)
        return figures

    counts = [int(k) for k in args.workers.split(",")] if args.workers else [1, 2, 4]
    native, tf, tf_config = {}, None, {}
    for n in counts:
        step(f"texflow, {n} native worker(s)")
        native[n] = got(measure_alone(steps, batch) if n == 1 else
                        measure_native(n, steps, batch))
        if n > 1:
            step(f"texflow, {n} native worker(s) with TF_CONFIG (coordinator in the chief)")
            tf_config[n] = got(measure_tf_config(n, steps, batch))
    if 1 not in native:
        native[1] = measure_alone(steps, batch)
    if args.tf_python:
        tf = {}
        for n in counts:
            step(f"TensorFlow MultiWorkerMirroredStrategy, {n} worker(s)")
            tf[n] = got(measure_tensorflow(args.tf_python, n, steps, batch))
    step("recovery: kill a native worker and restart it")
    recovery = got(measure_recovery(steps + 10, batch, kill_at=8))
    browser = None
    if not args.no_browser:
        step("texflow, 2 browser workers")
        browser = got(measure_browser(max(6, steps // 3), batch))
    tables(native, browser, recovery, tf, out, tf_config)
    cores = os.cpu_count() or 1
    if max(load, os.getloadavg()[0]) > cores:
        out.append(f"\nThe load average ({load:.1f} at the start, {os.getloadavg()[0]:.1f} at "
                   f"the end) exceeded the {cores} cores: other processes took CPU time, so the "
                   "wall-time ratios are not this machine's (N workers get a larger share of "
                   "a loaded machine than one); the CPU table is far less affected.")
    from . import report
    report(out, "multiworker")
    return 0
