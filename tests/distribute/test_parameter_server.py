"""ParameterServerStrategy across processes, as TensorFlow's parameter-server tutorial runs
it: this test is the chief; 2 worker and 2 ps tasks are native processes running
`tf.distribute.Server(...).join()`. The workers replay the scheduled function's trace
on variables pulled from the ps tasks and push their updates without waiting for each
other; a worker killed mid-run has its call run again by the other."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import texflow as tf
from texflow.bench.collective import _free_ports
from texflow.distribute.ps_server import connect

ROOT = Path(__file__).parent.parent.parent
# the README's script: its "ps" and "worker" tasks serve, its chief trains
SCRIPT = ROOT / "scripts" / "parameter_server_train.py"
X = np.random.RandomState(2).rand(64, 2).astype(np.float32)
Y = (X @ np.array([2.0, -1.0], np.float32) + 0.5)[:, None]


class Cluster:
    def __init__(self):
        ports = _free_ports(4)
        self.spec = {"chief": ["127.0.0.1:1"],
                     "worker": [f"127.0.0.1:{p}" for p in ports[:2]],
                     "ps": [f"127.0.0.1:{p}" for p in ports[2:]]}
        self.env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(ROOT / "py"), os.environ.get("PYTHONPATH", "")]))
        self.procs = {(job, i): self.start(job, i) for job in ("worker", "ps") for i in (0, 1)}
        for job in ("worker", "ps"):  # all up, so that both workers take calls from the start
            for address in self.spec[job]:
                connect(address).close()

    def start(self, job, index):
        return subprocess.Popen([sys.executable, str(SCRIPT)], env=self.env_for(job, index))

    def env_for(self, job, index):
        return dict(self.env, TF_CONFIG=json.dumps({"cluster": self.spec,
                                                   "task": {"type": job, "index": index}}))

    def kill(self, job, index):
        proc = self.procs[(job, index)]
        proc.kill()
        proc.wait()

    def close(self):
        for proc in self.procs.values():
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def cluster():
    """One cluster for the module's tests (each makes its own coordinator, whose variables
    and traces the tasks keep apart); the test that kills a worker restarts it."""
    c = Cluster()
    saved = os.environ.get("TF_CONFIG")
    os.environ["TF_CONFIG"] = json.dumps({"cluster": c.spec,
                                          "task": {"type": "chief", "index": 0}})
    yield c
    c.close()
    if saved is None:
        del os.environ["TF_CONFIG"]
    else:
        os.environ["TF_CONFIG"] = saved


def _model():
    tf.keras.utils.set_random_seed(3)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.build((None, 2))
    return model


def _dataset_fn(context):
    return tf.data.Dataset.from_tensor_slices((X, Y)).shard(
        context.num_input_pipelines, context.input_pipeline_id).batch(8).repeat()


def _loss(model):
    return float(np.mean((model.predict(X, verbose=0) - Y) ** 2))


def _setup():
    strategy = tf.distribute.ParameterServerStrategy(
        tf.distribute.cluster_resolver.TFConfigClusterResolver())
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    with strategy.scope():
        model = _model()
        optimizer = tf.keras.optimizers.Adam(0.05)

    @tf.function
    def step_fn(iterator):
        def replica_fn(xb, yb):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        xb, yb = next(iterator)
        losses = strategy.run(replica_fn, args=(xb, yb))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)

    iterator = iter(coordinator.create_per_worker_dataset(_dataset_fn))
    return coordinator, model, optimizer, step_fn, iterator


def test_workers_train_variables_held_by_the_ps_tasks(cluster):
    steps = 120
    initial = _loss(_model())
    # one process, the same model, optimizer and batches
    local = _model()
    optimizer = tf.keras.optimizers.Adam(0.05)
    data = iter(_dataset_fn(tf.distribute.InputContext(1, 0, 1)))

    @tf.function
    def local_step(xb, yb):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(local(xb) - yb))
        optimizer.apply_gradients(zip(tape.gradient(loss, local.trainable_variables),
                                      local.trainable_variables))
    for _ in range(steps):
        local_step(*next(data))

    coordinator, model, optimizer, step_fn, iterator = _setup()
    start = {w.name: w.numpy().copy() for w in model.weights}
    first = coordinator.schedule(step_fn, args=(iterator,))
    values = [coordinator.schedule(step_fn, args=(iterator,)) for _ in range(steps - 1)]
    assert isinstance(values[0], tf.distribute.experimental.coordinator.RemoteValue)
    coordinator.join()
    on_ps = coordinator.ps_values()
    assert len(on_ps) == 6, sorted(on_ps)  # the weights and Adam's two slots of each
    for w in model.weights:  # the ps tasks' values moved, and the chief reads them
        assert not np.allclose(on_ps[w.name], start[w.name])
        np.testing.assert_array_equal(w.numpy(), on_ps[w.name])
    # both workers took calls (how many each depends on timing: a worker's first replay
    # builds its kernels), the first call too (the chief only traced it)
    assert min(coordinator.runs) >= 1 and sum(coordinator.runs) == steps, coordinator.runs
    assert int(optimizer.iterations.numpy()) == steps
    # the last calls' losses (one batch each, asynchronous: averaged) fell; against the
    # initial model's, since the first call need not run first (under load a worker can
    # take it after the other has pushed updates)
    assert np.isfinite(float(first.fetch()))
    assert np.mean([v.fetch() for v in values[-10:]]) < 0.1 * initial
    assert isinstance(coordinator.fetch(values[-1]), np.ndarray)
    assert isinstance(values[-1].get(), tf.Tensor)
    one, ps = _loss(local), _loss(model)  # asynchronous: close to, not equal to, one's
    assert ps < 0.1 * initial and abs(ps - one) < 0.25 * one + 0.01, (initial, ps, one)

    @tf.function
    def printing_fn(iterator):  # a host step on a computed value: runs on the chief
        xb, _ = next(iterator)
        total = tf.reduce_sum(xb)
        tf.print("sum", total)
        return total
    with pytest.warns(UserWarning, match="its calls run on the chief"):
        coordinator.schedule(printing_fn, args=(iterator,))
    again = coordinator.schedule(printing_fn, args=(iterator,))
    assert float(again.fetch()) > 0
    # the workers made their own batches (the datasets went to them) ...
    assert all(t.worker_next for t in coordinator._traces.values())

    def mapped_fn(context):  # ... unless a Python function is in the pipeline
        return _dataset_fn(context).map(lambda x, y: (x * 2.0, y))
    mapped = iter(coordinator.create_per_worker_dataset(mapped_fn))
    with pytest.warns(UserWarning, match="batches are made on the chief"):
        twice = coordinator.schedule(printing_fn, args=(mapped,))
    assert float(twice.fetch()) > 0
    coordinator._close()


def test_each_element_of_a_per_worker_dataset_is_read_once(cluster):
    """Worker w's dataset is rows w*N.. of an identity matrix, so the sum of the rows the
    calls read counts each element: every call (the first, which the chief traced, too)
    reads one, none twice, and each worker its own from the start. Both when the dataset
    goes to the workers and when it cannot (a Python function in it: its elements are
    made on the chief)."""
    n, calls = 12, 10
    strategy = tf.distribute.ParameterServerStrategy(
        tf.distribute.cluster_resolver.TFConfigClusterResolver())
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    rows = np.eye(2 * n, dtype=np.float32)
    with strategy.scope():
        seen = tf.Variable(np.zeros(2 * n, np.float32))
        seen_mapped = tf.Variable(np.zeros(2 * n, np.float32))

    def dataset_fn(context):
        w = context.input_pipeline_id
        return tf.data.Dataset.from_tensor_slices(rows[w * n:(w + 1) * n])

    @tf.function
    def read(shipped, mapped):
        a, b = next(shipped), next(mapped)
        seen.assign_add(a)
        seen_mapped.assign_add(b)
        return tf.reduce_sum(a)

    shipped = iter(coordinator.create_per_worker_dataset(dataset_fn))
    mapped = iter(coordinator.create_per_worker_dataset(
        lambda context: dataset_fn(context).map(lambda x: x)))
    with pytest.warns(UserWarning, match="batches are made on the chief"):
        values = [coordinator.schedule(read, args=(shipped, mapped)) for _ in range(calls)]
    coordinator.join()
    assert [float(v.fetch()) for v in values] == [1.0] * calls
    for counts in (seen.numpy(), seen_mapped.numpy()):
        assert set(counts) <= {0.0, 1.0} and counts.sum() == calls, counts
        for w in range(2):  # each worker read a prefix of its own dataset
            mine = counts[w * n:(w + 1) * n]
            k = int(mine.sum())
            assert list(mine) == [1.0] * k + [0.0] * (n - k), counts
    assert sum(coordinator.runs) == calls, coordinator.runs  # the trace was not a call
    coordinator._close()


def test_a_killed_worker_has_its_call_run_by_another(cluster):
    coordinator, model, _, step_fn, iterator = _setup()
    values = [coordinator.schedule(step_fn, args=(iterator,)) for _ in range(10)]
    coordinator.join()
    cluster.kill("worker", 0)
    values += [coordinator.schedule(step_fn, args=(iterator,)) for _ in range(30)]
    coordinator.join()
    assert coordinator.restarts >= 1
    assert all(np.isfinite(v.fetch()) for v in values)
    runs = list(coordinator.runs)
    cluster.procs[("worker", 0)] = cluster.start("worker", 0)  # it comes back
    deadline = time.monotonic() + 30
    while coordinator.runs[0] == runs[0] and time.monotonic() < deadline:
        coordinator.schedule(step_fn, args=(iterator,))
        time.sleep(0.05)
    coordinator.join()
    assert coordinator.runs[0] > runs[0]  # it was sent the trace again and took calls
    assert _loss(model) < 0.5
    coordinator._close()


def test_bad_input_is_named(monkeypatch):
    spec = {"worker": ["127.0.0.1:1"], "ps": ["127.0.0.1:2"]}
    with pytest.raises(ValueError, match="job_name='chief'"):
        tf.distribute.Server(spec, job_name="chief", task_index=0)
    with pytest.raises(ValueError, match="No task with index 3 in job 'ps'"):
        tf.distribute.Server(spec, job_name="ps", task_index=3)
    resolvers = tf.distribute.cluster_resolver
    resolver = resolvers.SimpleClusterResolver(
        resolvers.ClusterSpec(dict(spec, trainer=["127.0.0.1:3"])))
    with pytest.raises(ValueError, match=r"received jobs \['trainer'\]"):
        tf.distribute.ParameterServerStrategy(resolver)
    with pytest.raises(ValueError, match="takes a ParameterServerStrategy; received "
                                         "_DefaultStrategy"):
        tf.distribute.coordinator.ClusterCoordinator(tf.distribute.get_strategy())
    strategy = tf.distribute.ParameterServerStrategy(
        resolvers.SimpleClusterResolver(resolvers.ClusterSpec(spec)))
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    assert tf.distribute.coordinator.ClusterCoordinator(strategy) is coordinator  # one
    iterator = iter(coordinator.create_per_worker_dataset(_dataset_fn))
    with pytest.raises(TypeError, match="read by the scheduled functions"):
        next(iterator)
    coordinator._close()


def test_keras_fit_trains_on_the_workers(cluster):
    strategy = tf.distribute.ParameterServerStrategy(
        tf.distribute.cluster_resolver.TFConfigClusterResolver())
    with strategy.scope():
        model = _model()
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    initial = _loss(model)
    dataset = tf.data.Dataset.from_tensor_slices((X, Y)).batch(8).repeat()
    history = model.fit(dataset, epochs=3, steps_per_epoch=8, verbose=0)
    local = _model()  # one process, the same batches
    local.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    expected = local.fit(dataset, epochs=3, steps_per_epoch=8, verbose=0).history
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)  # fit's, as in TF
    # the first step ran on the chief eagerly (it builds the metrics); the others, the
    # second too (which the chief traced), on the workers
    assert sum(coordinator.runs) == 3 * 8 - 1, coordinator.runs
    # each epoch's logs are its own steps' (the metrics reset on the ps tasks too), close
    # to one process's once the loss has settled (asynchronous updates: close, not equal;
    # in the first epoch how stale a worker's gradients are depends on the machine's load,
    # and the loss moves fast there, so it is only required to fall). Were the metrics
    # not reset, the later epochs' means would hold the first epoch's large losses.
    for key in ("loss", "mae"):
        got, want = history.history[key], expected[key]
        np.testing.assert_allclose(got[1:], want[1:], rtol=0.3, atol=0.05)
        assert got[0] > got[-1], (key, got)
    assert _loss(model) < 0.1 * initial
    coordinator._close()


def test_the_readme_script_trains_as_chief(cluster):
    out = subprocess.run([sys.executable, str(SCRIPT), "--steps", "60"], timeout=120,
                         env=cluster.env_for("chief", 0), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    words = out.stdout.split()
    first, final = float(words[2].rstrip(",")), float(words[5].rstrip(","))
    assert final < 0.5 * first and "optimizer steps 60" in out.stdout, out.stdout
