"""`tf.distribute.Server` for parameter-server training: what the "ps" and "worker" tasks run.

A ps task holds variables (numpy arrays, by the chief's variable ids) and answers
`pull` (the current values) and `push` (an update per variable: a delta added to the
current value, from `assign_add`/`assign_sub`, or a value written over it, from a plain
`assign`). A worker task takes closures from the chief: a trace once per function
(distribute/ps_trace.py), then per call its inputs; it pulls the variables the trace
reads from their ps tasks, replays the trace, pushes what it assigned and answers with
the outputs. Nothing makes the workers wait for each other: each closure's update is
applied to the ps values as they are when it arrives (asynchronous training).

Transport: Python's `multiprocessing.connection` (length-prefixed pickles over TCP with
an HMAC handshake on `TEXFLOW_PS_AUTHKEY`, default "texflow-ps"): the tasks are native
processes of one trusted cluster, as TensorFlow's gRPC servers are, and must not be
reachable from untrusted networks (a pickle can run code). README "tf.distribute:
strategies" says why this and not the coordinator's websockets.
"""

import os
import threading
import time
import traceback
from multiprocessing.connection import Client, Listener

import numpy as np

from .cluster_resolver import ClusterSpec

CONNECT_TIMEOUT = 60.0  # seconds a task waits for another to come up
TASK_JOBS = ("ps", "worker")


def authkey():
    return os.environ.get("TEXFLOW_PS_AUTHKEY", "texflow-ps").encode()


def split_address(address):
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"a task address must be 'host:port'; received {address!r}")
    return host, int(port)


def connect(address, timeout=CONNECT_TIMEOUT):
    """A connection to the task at `address`, retrying while it is not up yet."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return Client(split_address(address), authkey=authkey())
        except (ConnectionRefusedError, ConnectionResetError, FileNotFoundError):
            if time.monotonic() > deadline:
                raise ConnectionError(f"no parameter-server task answers at {address} after "
                                      f"{timeout:.0f} s: start it with tf.distribute.Server("
                                      "cluster_spec, job_name=..., task_index=...).join()")
            time.sleep(0.2)


def call(conn, *message):
    """Sends a request and returns its answer (raising the task's error)."""
    conn.send(message)
    status, value = conn.recv()
    if status == "error":
        raise value
    return value


class Server:
    """A task of a parameter-server cluster (`tf.distribute.Server`).

    Args:
        server_or_cluster_def: the cluster (a ClusterSpec or its dict).
        job_name: "ps" or "worker".
        task_index: this task's index in its job; it listens at that task's address.
        protocol, config: accepted ("grpc" or None).
        start: listen now (else at `start()`).
    """

    def __init__(self, server_or_cluster_def=None, job_name=None, task_index=None,
                 protocol=None, config=None, start=True):
        spec = ClusterSpec(server_or_cluster_def)
        if job_name not in TASK_JOBS:
            raise ValueError(f"tf.distribute.Server runs a parameter-server cluster's 'ps' or "
                             f"'worker' task; received job_name={job_name!r} (the chief runs "
                             "the training program with ParameterServerStrategy, no Server)")
        if job_name not in spec.jobs:
            raise ValueError(f"job {job_name!r} is not in the cluster {spec.as_dict()!r}")
        if task_index is None:
            task_index = 0
        self.cluster_spec = spec
        self.job_name, self.task_index = job_name, int(task_index)
        self.address = spec.task_address(job_name, self.task_index)
        self._listener = None
        self._service = PsStore() if job_name == "ps" else _worker_service(spec)
        if start:
            self.start()

    @property
    def target(self):
        return f"grpc://{self.address}"

    def start(self):
        if self._listener is not None:
            return
        host, port = split_address(self.address)
        self._listener = Listener((host, port), authkey=authkey())
        threading.Thread(target=self._accept, daemon=True,
                         name=f"texflow-{self.job_name}-{self.task_index}").start()

    def join(self):
        """Serves until the process ends (as TensorFlow's, it does not return)."""
        self.start()
        threading.Event().wait()

    def _accept(self):
        while True:
            try:
                conn = self._listener.accept()
            except Exception:  # a failed handshake (wrong authkey, a port probe), or closed
                if self._listener is None:
                    return
                continue
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        try:
            while True:
                message = conn.recv()
                try:
                    reply = ("ok", self._service.handle(*message))
                except Exception as e:  # the caller raises it; the task's log shows where
                    traceback.print_exc()
                    reply = ("error", _sendable(e))
                conn.send(reply)
        except (EOFError, OSError):
            conn.close()

    def stop(self):
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()


def _sendable(error):
    import pickle
    try:
        pickle.dumps(error)
        return error
    except Exception:
        return RuntimeError("".join(traceback.format_exception_only(type(error), error)))


def _worker_service(spec):
    from .ps_trace import WorkerService
    return WorkerService(spec)


class PsStore:
    """A ps task's variables: {variable id: numpy array}."""

    def __init__(self):
        self._values = {}
        self._lock = threading.Lock()

    def handle(self, kind, *args):
        if kind == "create":
            return self.create(*args)
        if kind == "pull":
            return self.pull(*args)
        if kind == "push":
            return self.push(*args)
        if kind == "snapshot":
            with self._lock:
                return {k: v.copy() for k, v in self._values.items()}
        raise ValueError(f"a ps task has no request {kind!r}")

    def create(self, variables):
        """Sets {id: value}, as the chief made them (a restarted chief sets them again)."""
        with self._lock:
            for key, value in variables.items():
                self._values[key] = np.array(value)
        return len(self._values)

    def pull(self, keys):
        with self._lock:
            missing = [k for k in keys if k not in self._values]
            if missing:
                raise KeyError(f"this ps task holds no variables {missing}")
            return [self._values[k].copy() for k in keys]

    def push(self, updates):
        """Applies [(kind, id, array)]: "delta" adds, "write" replaces."""
        with self._lock:
            for kind, key, value in updates:
                current = self._values[key]
                if kind == "delta":
                    current += value.astype(current.dtype, copy=False)
                else:
                    current[...] = value
        return len(updates)
