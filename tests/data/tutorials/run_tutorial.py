"""Runs a tutorial script unchanged (the tests copy it beside this file) and then prints
what the tests compare: its model's weights, summed, per weight.

    run_tutorial.py TUTORIAL.py [TRAIN_ROWS] [--steps N] [--temp-dir DIR] [--writes FILE]

TRAIN_ROWS keeps only the first rows of MNIST's training set, so a test's run takes
seconds. `--steps N` runs the custom-loop tutorial's epochs with N steps (its
`num_steps_per_epoch = 70` line, the one line that is changed, and only with it).
`--temp-dir DIR` makes `multiprocessing.util.get_temp_dir()` (where the custom loop puts
its checkpoint_dir) return DIR: each process has a folder of its own there, and the
tests give both workers one, the folder all workers reach that the page asks for.
`--writes FILE` records, as JSON lines at exit, what the process wrote, created,
renamed and removed (Python's audit events), so a test can see who wrote where.
"""

import argparse
import atexit
import json
import os
import sys

import numpy as np

import texflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("script")
parser.add_argument("rows", nargs="?", type=int)
parser.add_argument("--steps", type=int)
parser.add_argument("--temp-dir")
parser.add_argument("--writes")
args = parser.parse_args()

if args.rows is not None:
    load_data = tf.keras.datasets.mnist.load_data

    def first_rows(path=None):
        (x, y), test = load_data(path)
        return (x[:args.rows], y[:args.rows]), test

    tf.keras.datasets.mnist.load_data = first_rows

if args.temp_dir:
    from multiprocessing import util
    util.get_temp_dir = lambda: args.temp_dir

if args.writes:
    events = []
    WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT

    def _path(p):
        return os.path.abspath(os.fsdecode(p)) if isinstance(p, (str, bytes, os.PathLike)) \
            else None

    def _audit(event, event_args):
        if event == "open" and event_args[2] is not None and event_args[2] & WRITE_FLAGS:
            path = _path(event_args[0])
        elif event in ("os.mkdir", "os.remove", "shutil.rmtree"):
            path = _path(event_args[0])
        elif event == "os.rename":  # os.rename and os.replace: the destination
            path = _path(event_args[1])
        else:
            return
        if path is not None:
            events.append([event, path])

    def _save_events():
        with open(args.writes, "w") as f:
            json.dump(events, f)

    sys.addaudithook(_audit)
    atexit.register(_save_events)

with open(args.script) as f:
    source = f.read()
if args.steps is not None:
    line = "num_steps_per_epoch = 70\n"
    if line not in source:
        raise SystemExit(f"--steps: {args.script} has no line {line!r}")
    source = source.replace(line, f"num_steps_per_epoch = {args.steps}\n")
sys.argv = [args.script]
names = {"__name__": "__main__", "__file__": os.path.abspath(args.script)}
exec(compile(source, args.script, "exec"), names)
weights = names["multi_worker_model"].get_weights()
print("weights " + json.dumps([[float(np.sum(w, dtype=np.float64)),
                                float(np.sum(np.abs(w), dtype=np.float64))] for w in weights]),
      flush=True)
