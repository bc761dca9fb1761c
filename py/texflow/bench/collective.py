"""`texflow bench --collective`: all-reduce through the coordinator, side by side in one run
with the raw loopback throughput of the `websockets` library for the same bytes and, given
`--tf-python`, TensorFlow's MultiWorkerMirroredStrategy collective all-reduce (RING).

Every process here is a real one: the coordinator (and its shards) in its own process, each
native worker in its own process, browser workers as headless worker pages
(collective_browser.py). A benchmark prints what it measured; tests never assert times.
"""

import json
import multiprocessing
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SIZES = (1_000, 100_000, 1_000_000, 10_000_000)
ROOT = Path(__file__).resolve().parents[3]


def _median(values):
    return sorted(values)[len(values) // 2]


def _cpu_self():
    import resource
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _cpu_of(pid):
    """CPU seconds (user + system) another process has used so far (Linux /proc; 0.0
    elsewhere, and the CPU columns then read 0)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_tree(pid):
    """CPU seconds of process `pid` and of its live descendants (a coordinator and its
    shard processes; Linux /proc)."""
    total = _cpu_of(pid)
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return total
    for task in tasks:
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        total += sum(_cpu_tree(int(child)) for child in children)
    return total


JOB = Path(__file__).with_name("collective_job.py")


def _run_coordinator(queue, options, job_args, job=JOB):
    import logging
    logging.basicConfig(level=logging.WARNING)
    from ..coordinator import CoordinatorThread, Job
    if job_args is not None:
        options["job"] = Job(job, job_args)
    c = CoordinatorThread(**options).start()
    queue.put((c.url, c.token, c.origin))
    while True:
        time.sleep(3600)


class CoordinatorProcess:
    """A coordinator in its own process (with the job `job`, the all-reduce benchmark's by
    default, when `job_args` is given):
    `url`, `token`, `origin`; `stop()`."""

    def __init__(self, job_args=None, job=JOB, **options):
        ctx = multiprocessing.get_context("spawn")
        queue = ctx.Queue()
        options.setdefault("port", 0)
        self.process = ctx.Process(target=_run_coordinator,
                                   args=(queue, options, job_args, job), daemon=True)
        self.process.start()
        self.url, self.token, self.origin = queue.get(timeout=120)

    def stop(self):
        self.process.terminate()
        self.process.join(10)


def parse_job_output(text):
    """The {"rank", "backend", "times"} a benchmark job printed (times by int size)."""
    for line in text.splitlines():
        if line.startswith("BENCH "):
            found = json.loads(line[len("BENCH "):])
            for key in ("times", "cpu"):
                found[key] = {int(k): v for k, v in found.get(key, {}).items()}
            return found
    raise RuntimeError(f"a benchmark worker printed no result:\n{text[-3000:]}")


class NativeRun:
    """What `measure_native` measured: `times` {size: ms}, `cpu` {size: CPU ms of one
    worker process per all-reduce (median over ranks)}, and `coordinator_cpu`: the
    coordinator's CPU ms per all-reduce, its shard processes included (the total over the
    run divided by the all-reduces; meaningful for a run of one size)."""

    def __init__(self, times, cpu, coordinator_cpu):
        self.times, self.cpu, self.coordinator_cpu = times, cpu, coordinator_cpu


def measure_native(workers, sizes, repeats, shards=1, chunk=None):
    """A NativeRun: all-reduces of float32 ones among `workers` native processes, each
    `texflow worker` running the benchmark job (times: the median over ranks of their
    medians), with messages of `chunk` bytes (None: the client's default)."""
    args = [",".join(map(str, sizes)), str(repeats)] + ([str(chunk)] if chunk else [])
    coordinator = CoordinatorProcess(num_workers=workers, shards=shards)
    cpu0 = _cpu_tree(coordinator.process.pid)
    procs = [subprocess.Popen([sys.executable, "-m", "texflow.cli", "worker", "--coordinator",
                               coordinator.url, "--token", coordinator.token, str(JOB), "--",
                               *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True) for _ in range(workers)]
    try:
        outs = _outputs(procs)
        cpu1 = _cpu_tree(coordinator.process.pid)
    finally:
        for p in procs:
            p.kill()
        coordinator.stop()
    results = [parse_job_output(out) for out in outs]
    calls = len(sizes) * (repeats + 2)
    return NativeRun({n: _median([r["times"][n] for r in results]) for n in sizes},
                     {n: _median([r["cpu"][n] for r in results]) for n in sizes},
                     (cpu1 - cpu0) * 1e3 / calls)


def _outputs(procs, timeout=3600):
    """What each worker process printed once all have ended; a worker that fails ends the
    wait at once (the others would wait for it to join), with its output in the error."""
    deadline = time.monotonic() + timeout
    while any(p.poll() is None for p in procs):
        failed = [p for p in procs if p.poll()]
        if failed or time.monotonic() > deadline:
            for p in procs:
                p.kill()
            what = f"exit code {failed[0].returncode}" if failed else f"over {timeout} s"
            out = failed[0].communicate()[0] if failed else ""
            raise RuntimeError(f"a benchmark worker failed ({what}):\n{out[-3000:]}")
        time.sleep(0.2)
    return [p.communicate()[0] for p in procs]


def _echo_server(queue):
    import asyncio
    from websockets.asyncio.server import serve

    async def echo(ws):
        ws.transport.max_size = 1 << 20  # as the coordinator reads
        async for message in ws:
            await ws.send(message)

    async def main():
        async with serve(echo, "127.0.0.1", 0, compression=None, max_size=None,
                         write_limit=64 << 20) as server:
            queue.put(server.sockets[0].getsockname()[1])
            await asyncio.Future()

    asyncio.run(main())


def measure_raw_websockets(sizes, repeats, chunk=1 << 20):
    """({size: ms}, {size: (client CPU ms, server CPU ms)}) to send `size` float32 through a
    `websockets` echo server (another process) and receive it back, in messages of `chunk`
    bytes: the library's own cost for what one worker sends and receives in an all-reduce."""
    from websockets.sync.client import connect

    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    server = ctx.Process(target=_echo_server, args=(queue,), daemon=True)
    server.start()
    out, cpu = {}, {}
    try:
        port = queue.get(timeout=60)
        with connect(f"ws://127.0.0.1:{port}", compression=None, max_size=None) as ws:
            for n in sizes:
                data = np.ones(n, np.float32).tobytes()
                parts = [data[i:i + chunk] for i in range(0, len(data), chunk)]
                times, client = [], []
                server0 = None
                for i in range(repeats + 2):
                    if i == 2:
                        server0 = _cpu_of(server.pid)
                    c0, t0 = _cpu_self(), time.perf_counter()
                    for part in parts:
                        ws.send(part)
                    for _ in parts:
                        ws.recv()
                    if i >= 2:
                        times.append(time.perf_counter() - t0)
                        client.append(_cpu_self() - c0)
                out[n] = _median(times) * 1e3
                cpu[n] = (_median(client) * 1e3,
                          (_cpu_of(server.pid) - server0) * 1e3 / repeats)
    finally:
        server.terminate()
    return out, cpu


def measure_client_kinds(sizes, repeats, chunk=1 << 20):
    """The native client's choice: the same echo of each size through `websockets`' sync
    client and through its asyncio client on a background loop thread driven from this one
    (as texflow's client runs). {kind: {size: (ms, client CPU ms)}}."""
    import asyncio
    import resource
    import threading

    from websockets.asyncio.client import connect as async_connect
    from websockets.sync.client import connect as sync_connect

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    server = ctx.Process(target=_echo_server, args=(queue,), daemon=True)
    server.start()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    out = {"sync client": {}, "asyncio client, loop thread": {}}
    try:
        url = f"ws://127.0.0.1:{queue.get(timeout=60)}"
        sync_ws = sync_connect(url, compression=None, max_size=None).__enter__()
        async def open_async():
            return await async_connect(url, compression=None, max_size=None)

        async_ws = asyncio.run_coroutine_threadsafe(open_async(), loop).result()

        def sync_echo(parts):
            for part in parts:
                sync_ws.send(part)
            for _ in parts:
                sync_ws.recv()

        async def async_echo(parts):
            async def receive():
                for _ in parts:
                    await async_ws.recv()
            receiving = asyncio.ensure_future(receive())
            for part in parts:
                await async_ws.send(part)
            await receiving

        kinds = {"sync client": sync_echo, "asyncio client, loop thread":
                 lambda parts: asyncio.run_coroutine_threadsafe(async_echo(parts), loop).result()}
        for n in sizes:
            data = np.ones(n, np.float32).tobytes()
            parts = [data[i:i + chunk] for i in range(0, len(data), chunk)]
            for kind, echo in kinds.items():
                echo(parts)
                times, cpus = [], []
                for _ in range(repeats):
                    c0, t0 = cpu(), time.perf_counter()
                    echo(parts)
                    times.append(time.perf_counter() - t0)
                    cpus.append(cpu() - c0)
                out[kind][n] = (_median(times) * 1e3, _median(cpus) * 1e3)
        sync_ws.close()
        asyncio.run_coroutine_threadsafe(async_ws.close(), loop).result()
    finally:
        loop.call_soon_threadsafe(loop.stop)
        server.terminate()
    return out


def _free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def measure_tensorflow(python, sizes, repeats, workers=2):
    """{size: ms} of TensorFlow's MultiWorkerMirroredStrategy all-reduce (RING) between
    `workers` processes of the TensorFlow installation at `python`; None if it fails."""
    script = ROOT / "scripts" / "bench_tf_collective.py"
    ports = ",".join(map(str, _free_ports(workers)))
    sizes_arg = ",".join(map(str, sizes))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
    procs = [subprocess.Popen([python, str(script), str(i), ports, sizes_arg, str(repeats)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for i in range(workers)]
    outs = [p.communicate(timeout=1800) for p in procs]
    if procs[0].returncode:
        print(f"[bench] TensorFlow failed: {outs[0][1][-2000:]}", file=sys.stderr)
        return None
    return {int(k): v for k, v in json.loads(outs[0][0].strip().splitlines()[-1]).items()}


def _ms(value):
    return "–" if value is None else f"{value:9.3f}" if value < 10 else f"{value:9.1f}"


def _verdict(ok):
    return "met" if ok else "NOT met"


def tables(sizes, raw, tf, native, browser, browser_raw, shards, out, two_sharded=None):
    """Appends the benchmark's tables (markdown) to `out`; `browser_raw`: ({size: ms} of
    one browser echo, {size: ms} of two at once); `two_sharded`: {size: ms} of 2 native
    workers with `--shards 2` (None: not measured)."""
    browser_raw, browser_two = browser_raw or (None, None)
    counts = sorted(native)
    out += ["", "All-reduce (sum) of float32 through the coordinator: ms, median of repeats, "
            "each worker its own process; echo = the same bytes sent through a `websockets` "
            "server and back (what one worker sends and receives)", ""]
    head = ["floats", "websockets echo", "TensorFlow MWMS, 2"] + \
        [f"texflow, {k} native" for k in counts]
    if two_sharded:
        head.append("texflow, 2 native, --shards 2")
    if browser:
        head += ["texflow, 2 browser", "browser WebSocket echo", "2 browser echoes at once"]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * (len(head) - 1)]
    for n in sizes:
        row = [f"{n:,}", _ms(raw[n]), _ms(tf[n] if tf else None)]
        row += [_ms(native[k][n]) for k in counts]
        if two_sharded:
            row.append(_ms(two_sharded[n]))
        if browser:
            row += [_ms(browser[n]), _ms(browser_raw[n]), _ms(browser_two[n])]
        out.append("| " + " | ".join(row) + " |")
    out += ["", "Targets (ratios from this run)", "", "| case | measured | target |",
            "|---|---:|---|"]
    two = native.get(2)
    for n in (1_000_000, 10_000_000):
        if two is None or n not in two:
            continue
        label = f"{n // 1_000_000}M"
        if tf:
            ratio = two[n] / tf[n]
            out.append(f"| 2 native vs TensorFlow, {label} | {ratio:.2f}x of its time | "
                       f"<= 0.5x: {_verdict(ratio <= 0.5)} |")
        if tf and two_sharded:
            ratio = two_sharded[n] / tf[n]
            out.append(f"| 2 native, --shards 2, vs TensorFlow, {label} | {ratio:.2f}x of its "
                       f"time | (the same target, the coordinator in 2 processes: "
                       f"{'<= 0.5x' if ratio <= 0.5 else 'over 0.5x'}) |")
        share = raw[n] / two[n]
        out.append(f"| 2 native vs raw websockets, {label} | {share:.0%} of its throughput | "
                   f"> 50%: {_verdict(share > 0.5)} |")
        if browser:
            share = browser_raw[n] / browser[n]
            out.append(f"| 2 browser vs browser WebSocket, {label} | {share:.0%} of its "
                       f"throughput | > 70%: {_verdict(share > 0.7)} |")
            share = browser_two[n] / browser[n]
            out.append(f"| 2 browser vs 2 browser echoes at once, {label} | {share:.0%} of "
                       f"their throughput | (no target: what the 2 workers' traffic costs "
                       f"the browser and machine they share) |")
    if shards:
        one, two_shards = (run.times[10_000_000] for run in shards)
        speedup = one / two_shards
        out.append(f"| 8 native, 10M: --shards 2 vs 1 | {speedup:.2f}x faster ({_ms(one).strip()}"
                   f" -> {_ms(two_shards).strip()} ms) | >= 1.5x: {_verdict(speedup >= 1.5)} |")
        out += ["", "8 native workers, 10M, CPU ms per all-reduce (user + system): each "
                "worker, the coordinator (its shard processes included), all processes", "",
                "| shards | each worker | coordinator | all processes |", "|---|---:|---:|---:|"]
        for k, run in zip((1, 2), shards):
            worker = run.cpu[10_000_000]
            out.append(f"| {k} | {worker:.1f} | {run.coordinator_cpu:.1f} | "
                       f"{8 * worker + run.coordinator_cpu:.1f} |")


def cpu_table(raw_cpu, run, out, n=10_000_000):
    """The CPU time per all-reduce of `n` floats (2 native workers) next to the echo's: on a
    machine whose cores are all busy (these 2-core ones, shared), throughput follows it."""
    client, server = raw_cpu[n]
    worker, coordinator = run.cpu[n], run.coordinator_cpu
    echo_total, ours = client + server, 2 * worker + coordinator
    out += ["", f"CPU time per all-reduce of {n:,} float32 (ms, user + system; what bounds "
            "throughput once every core is busy)", "",
            "| | each worker (client) | coordinator (server) | all processes |",
            "|---|---:|---:|---:|",
            f"| websockets echo (1 client) | {client:.1f} | {server:.1f} | {echo_total:.1f} |",
            f"| texflow, 2 native workers | {worker:.1f} | {coordinator:.1f} | {ours:.1f} |",
            "", f"CPU-bound share: the echo's CPU is {echo_total / ours:.0%} of texflow's "
            "(texflow moves twice the bytes through its server: both workers' in and out)"]


def chunk_table(rows, out):
    """`rows`: {chunk bytes: (NativeRun of 1M, NativeRun of 10M)}."""
    out += ["", "Message size of native workers (2 workers; same run): ms / CPU ms per worker / "
            "coordinator CPU ms, for 1M and 10M float32", "",
            "| chunk | 1M ms | 1M worker CPU | 1M coordinator CPU | 10M ms | 10M worker CPU | "
            "10M coordinator CPU |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for chunk, runs in rows.items():
        cells = []
        for n, run in zip((1_000_000, 10_000_000), runs):
            cells += [_ms(run.times[n]).strip(), f"{run.cpu[n]:.1f}",
                      f"{run.coordinator_cpu:.1f}"]
        out.append(f"| {chunk >> 10} KiB | " + " | ".join(cells) + " |")


def _load():
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(args):
    import platform

    started = time.perf_counter()
    sizes = list(SIZES)
    repeats = 3 if args.quick else 7
    counts = [int(k) for k in (args.workers or "2,4,8").split(",")]
    out = [f"texflow bench --collective{' --quick' if args.quick else ''}, "
           f"{time.strftime('%Y-%m-%d %H:%M %Z')}, {platform.machine()}, {os.cpu_count()} "
           f"cores, {platform.python_implementation()} {platform.python_version()}, "
           f"{_load()} at the start"]

    def step(what):
        print(f"[bench] {time.perf_counter() - started:6.1f} s: {what} ...", file=sys.stderr,
              flush=True)

    step("raw websockets echo")
    raw, raw_cpu = measure_raw_websockets(sizes, repeats)
    tf = None
    if args.tf_python:
        step("TensorFlow MultiWorkerMirroredStrategy (RING), 2 workers")
        tf = measure_tensorflow(args.tf_python, sizes, repeats)
    native = {}
    for k in counts:
        step(f"texflow, {k} native workers")
        native[k] = measure_native(k, sizes, repeats).times
    two_sharded = None
    if 2 in native:  # 2 workers leave a core idle while the coordinator reduces: use it
        step("texflow, 2 native workers, --shards 2")
        two_sharded = measure_native(2, sizes, repeats, shards=2).times
    shards = None
    if 8 in native:
        step("texflow, 8 native workers, --shards 1 and 2, 10M (same run, back to back)")
        shards = (measure_native(8, [10_000_000], repeats),
                  measure_native(8, [10_000_000], repeats, shards=2))
    step("texflow, 2 native workers, 10M: CPU per all-reduce")
    cpu_run = measure_native(2, [10_000_000], repeats)
    browser = browser_raw = None
    if not args.no_browser:
        from . import collective_browser
        step("texflow, 2 browser workers, and the browser's WebSocket")
        browser, browser_raw, browser_two, version = collective_browser.measure(sizes,
                                                                                repeats)
        out.append(f"browser: Chromium {version} (headless), workers in Web Workers")
        browser_raw = (browser_raw, browser_two)
    tables(sizes, raw, tf, native, browser, browser_raw, shards, out, two_sharded)
    cpu_table(raw_cpu, cpu_run, out)
    if not args.quick:
        step("message sizes of native workers")
        chunk_table({c: tuple(measure_native(2, [n], repeats, chunk=c)
                               for n in (1_000_000, 10_000_000))
                     for c in (256 << 10, 1 << 20, 2 << 20, 4 << 20)}, out)
        step("the native client's transport: sync client vs asyncio loop thread")
        kinds = measure_client_kinds([1_000, 1_000_000, 10_000_000], repeats)
        out += ["", "Native client transport: the same echo through `websockets`' two "
                "clients (ms wall / ms CPU of the client process)", "",
                "| client | 1,000 | 1,000,000 | 10,000,000 |", "|---|---:|---:|---:|"]
        for kind, by_size in kinds.items():
            out.append(f"| {kind} | " + " | ".join(f"{w:.2f} / {c:.2f}" for w, c in
                                                    by_size.values()) + " |")
    out += ["", f"Took {time.perf_counter() - started:.0f} s; {_load()} at the end. The "
            "machine is shared: compare figures within one run, not across runs."]
    from . import report
    report(out, "collective")
    return 0
