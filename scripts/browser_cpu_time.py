#!/usr/bin/env python3
"""CPU time of Chromium's GPU process (and renderer) per case of a browser script: a
steadier measure of GPU work than wall time on a loaded machine, where SwiftShader's
"GPU" is threads of that process.

    .venv/bin/python scripts/browser_cpu_time.py SCRIPT.py --backend webgl -- ARGS...

runs `texflow run-browser` with these arguments and passes its output through, except
lines `MARK begin NAME` and `MARK end NAME`, at which it reads the CPU time (all
threads, /proc/*/task/*/schedstat, Linux only) of the GPU process and the renderer
started under it. At the end it prints, per NAME, the median and least GPU-process CPU
ms and the median renderer ms over its begin/end pairs. The script brackets each case
with the marks, sleeping a little after `begin` and before `end` (the marks reach this
process through the browser's console) and syncing the backend before `end`:

    print("MARK begin tanh", flush=True); await asyncio.sleep(0.15)
    for _ in range(10): tf.tanh(x)
    backend.sync(); await asyncio.sleep(0.15); print("MARK end tanh", flush=True)
"""

import collections
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

TEXFLOW = Path(sys.executable).with_name("texflow")


def _descendants(pid):
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return found


def _kind(pid):
    """Chromium's --type of process `pid` (it rewrites its command line: search it)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            found = re.search(rb"--type=([a-z-]+)", f.read())
    except OSError:
        return None
    return found and found.group(1).decode()


def _cpu_ns(pid):
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
    except (OSError, ValueError):
        pass
    return total


def _sample(root):
    ns = collections.Counter()
    for pid in _descendants(root):
        kind = _kind(pid)
        if kind in ("gpu-process", "renderer"):
            ns[kind] += _cpu_ns(pid)
    return ns


def main(args):
    proc = subprocess.Popen([str(TEXFLOW), "run-browser", *args], stdout=subprocess.PIPE,
                            text=True, bufsize=1)
    cases, open_marks = collections.defaultdict(list), {}
    for line in proc.stdout:
        if not line.startswith("MARK "):
            print(line, end="", flush=True)
            continue
        _, what, name = line.split(maxsplit=2)
        name = name.strip()
        now = _sample(proc.pid)
        if what == "begin":
            open_marks[name] = now
        else:
            start = open_marks.pop(name)
            cases[name].append({k: (now[k] - start[k]) / 1e6 for k in ("gpu-process",
                                                                       "renderer")})
    code = proc.wait()
    print(f"{'case':24s} {'GPU process ms median':>21s} {'least':>8s} {'renderer ms':>12s}")
    for name, rows in cases.items():
        gpu = [r["gpu-process"] for r in rows]
        renderer = statistics.median(r["renderer"] for r in rows)
        print(f"{name:24s} {statistics.median(gpu):21.2f} {min(gpu):8.2f} {renderer:12.2f}")
    with open("/proc/loadavg") as f:
        print("load average:", " ".join(f.read().split()[:3]))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
