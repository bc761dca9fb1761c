"""Worker processes for recovery tests: spawn, read their JSON lines, wait, kill."""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

LOOP_WORKER = Path(__file__).with_name("loop_worker.py")
FIT_WORKER = Path(__file__).with_name("fit_worker.py")


class Worker:
    """A worker process whose stdout JSON lines are collected in `lines` (non-JSON lines
    in `other`)."""

    def __init__(self, argv, name="", env=None):
        self.name = name
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, bufsize=1, env=env)
        self.pid = self.proc.pid
        self.lines, self.other = [], []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            with self._changed:
                try:
                    self.lines.append(json.loads(line))
                except ValueError:
                    self.other.append(line.rstrip())
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def wait_for(self, predicate, timeout=60):
        """The first line satisfying `predicate` (waiting for it), else AssertionError."""
        end = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.lines:
                    if predicate(line):
                        return line
                left = end - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(f"{self.name}: no such line; output:\n{self.dump()}")
                self._changed.wait(min(left, 0.5))

    def finish(self, timeout=90):
        """Waits for the process to exit; returns its exit code."""
        code = self.proc.wait(timeout)
        self._reader.join(10)
        return code

    def kill(self):
        self.proc.kill()
        self.proc.wait()

    def find(self, key):
        return [line[key] for line in self.lines if key in line]

    def dump(self):
        return "\n".join([json.dumps(x) for x in self.lines[-40:]] + self.other[-40:])


def loop_worker(c, steps, out, *extra, name=""):
    return Worker([sys.executable, str(LOOP_WORKER), c.url, c.token, str(steps), str(out),
                   *map(str, extra)], name=name)


def fit_worker(out, seed, pause=0.0, name="", **env):
    """fit_worker.py with `env` added to the environment (TEXFLOW_COORDINATOR, ...)."""
    full = {k: v for k, v in os.environ.items() if k not in ("TF_CONFIG", "TEXFLOW_TOKEN",
                                                             "TEXFLOW_COORDINATOR")}
    full.update({k: str(v) for k, v in env.items()})
    return Worker([sys.executable, str(FIT_WORKER), str(out), str(seed), str(pause)],
                  name=name, env=full)
