"""The strategies inside one process, TF_CONFIG parsing, auto-sharding and chief-only
writes (the multi-worker runs are in test_multi_worker.py)."""

import json
import os

import numpy as np
import pytest

import texflow as tf
from texflow.distribute import input_lib
from texflow.distribute.strategy import StrategyExtended


def _model():
    return tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                tf.keras.layers.Dense(1)])


def _devices():
    return ["/cpu:0"] + [d.name for d in tf.config.list_logical_devices("GPU")]


def test_default_strategy_passes_through():
    s = tf.distribute.get_strategy()
    assert not tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context()
    assert s.num_replicas_in_sync == 1
    assert float(s.reduce("SUM", 1.0, axis=None)) == 1.0
    assert s.run(lambda a, b: a + b, args=(2, 3)) == 5
    assert tf.distribute.get_replica_context().replica_id_in_sync_group == 0


def test_mirrored_fit_matches_one_replica_and_run_reduce_gather():
    tf.keras.utils.set_random_seed(3)
    strategy = tf.distribute.MirroredStrategy(_devices())
    n = strategy.num_replicas_in_sync
    with strategy.scope():
        assert tf.distribute.get_strategy() is strategy
        assert tf.distribute.in_cross_replica_context()
        model = _model()
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    plain = _model()
    plain.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    plain.set_weights(model.get_weights())
    x = np.random.RandomState(0).rand(20, 3).astype(np.float32)
    y = x.sum(1, keepdims=True)
    h1 = model.fit(x, y, batch_size=10, epochs=2, shuffle=False, verbose=0)
    h2 = plain.fit(x, y, batch_size=10, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(h1.history["loss"], h2.history["loss"], rtol=1e-5)
    for a, b in zip(model.get_weights(), plain.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # evaluate and predict with a short last batch (8 + 8 + 4 rows over the replicas)
    got, want = (m.evaluate(x, y, batch_size=8, verbose=0, return_dict=True)
                 for m in (model, plain))
    assert got == pytest.approx(want, rel=1e-5)
    np.testing.assert_allclose(model.predict(x, batch_size=8, verbose=0),
                               plain.predict(x, batch_size=8, verbose=0), rtol=1e-5, atol=1e-6)
    ids = strategy.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)
    values = strategy.experimental_local_results(ids)
    assert list(values) == list(range(n))
    assert int(strategy.reduce(tf.distribute.ReduceOp.SUM, ids, axis=None)) == sum(range(n))
    rows = strategy.run(lambda: tf.constant([[1.0, 2.0], [3.0, 5.0]]))
    np.testing.assert_allclose(strategy.reduce("MEAN", rows, axis=0).numpy(), [2.0, 3.5])
    assert strategy.gather(rows, axis=0).shape == (2 * n, 2)
    if n > 1:  # a plain value would be counted once per replica
        with pytest.raises(ValueError, match="non-DistributedValues"):
            strategy.reduce("SUM", 1.0, axis=None)


def test_reduce_and_gather_of_plain_values_integers_and_scalars_follow_tensorflow():
    # What TensorFlow 2.21's MirroredStrategy over two CPUs gave (scripts run by hand).
    strategy = tf.distribute.MirroredStrategy(_devices())
    n = strategy.num_replicas_in_sync
    plain = tf.constant([1.0, 2.0])
    assert strategy.gather(plain, axis=0).numpy().tolist() == [1.0, 2.0]  # one copy
    assert strategy.reduce("MEAN", plain, axis=0).numpy() == 1.5
    kept = strategy.reduce("MEAN", 3, axis=None)  # the same everywhere: itself
    assert kept.dtype == tf.int32 and int(kept) == 3
    ints = strategy.run(lambda: tf.constant([1, 2]) +
                        tf.distribute.get_replica_context().replica_id_in_sync_group)
    mean = strategy.reduce("MEAN", ints, axis=None)  # truediv: floats (TF: float64)
    assert mean.dtype == tf.float32
    np.testing.assert_allclose(mean.numpy(), [1 + (n - 1) / 2, 2 + (n - 1) / 2])
    assert strategy.reduce("SUM", ints, axis=None).dtype == tf.int32
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def gathered(x):  # a host call, as reduce: each replay gathers its own values
        per_replica = strategy.run(lambda: v * x)
        return strategy.gather(per_replica, axis=0), strategy.reduce("MEAN", x, axis=None)
    for x in (1.0, 10.0):
        got, mean = gathered(tf.constant(x))
        assert got.numpy().tolist() == [x, 2 * x] * n and float(mean) == x
    nested = strategy.run(lambda: (tf.constant(1.0), {"a": tf.constant([2.0, 3.0])}))
    total, parts = strategy.reduce("SUM", nested, axis=None)  # leaf by leaf, as TF's
    assert float(total) == n and parts["a"].numpy().tolist() == [2.0 * n, 3.0 * n]
    assert strategy.gather(nested[1], axis=0)["a"].numpy().tolist() == [2.0, 3.0] * n
    scalars = strategy.run(lambda: tf.constant(1.0))  # a scalar has no axis 0
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank 0"):
        strategy.reduce("SUM", scalars, axis=0)
    if n > 1:
        with pytest.raises(tf.errors.InvalidArgumentError, match="rank 0"):
            strategy.gather(scalars, axis=0)


def test_distributed_datasets_split_global_batches():
    strategy = tf.distribute.MirroredStrategy(_devices())
    n = strategy.num_replicas_in_sync
    ds = tf.data.Dataset.range(10).batch(5)
    got = [strategy.experimental_local_results(b) for b in
           strategy.experimental_distribute_dataset(ds)]
    flat = [int(v) for step in got for part in step for v in np.asarray(part.numpy())]
    assert flat == list(range(10)) and len(got) == 2
    assert [len(part.numpy()) for part in got[0]] == input_lib.split_sizes(5, n)
    total = sum(float(strategy.reduce("SUM", strategy.run(tf.reduce_sum, args=(batch,)),
                                      axis=None))
                for batch in strategy.experimental_distribute_dataset(ds))
    assert total == 45.0  # each replica ran on its own piece (a PerReplica argument)
    seen = []

    def dataset_fn(context):
        seen.append((context.num_input_pipelines, context.input_pipeline_id,
                     context.get_per_replica_batch_size(4 * n)))
        return tf.data.Dataset.range(8).batch(4)
    steps = list(strategy.distribute_datasets_from_function(dataset_fn))
    assert seen == [(1, 0, 4)] and len(steps) == 2 // n + (2 % n > 0)
    per_replica = tf.distribute.InputOptions(
        experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA)
    if n > 1:  # not silently one pipeline per worker
        with pytest.raises(NotImplementedError, match="PER_REPLICA with"):
            strategy.distribute_datasets_from_function(dataset_fn, per_replica)


def test_fit_and_evaluate_take_distributed_datasets_as_keras_3_does():
    strategy = tf.distribute.MirroredStrategy(_devices())
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((3,)),
                                     tf.keras.layers.Dense(1, kernel_initializer="ones")])
        model.compile(optimizer="sgd", loss="mse")
    x = np.arange(60, dtype=np.float32).reshape(20, 3) / 60
    ds = tf.data.Dataset.from_tensor_slices((x, 2 * x.sum(1, keepdims=True))).batch(10)
    evaluated = []
    for data in (strategy.experimental_distribute_dataset(ds),
                 strategy.distribute_datasets_from_function(
                     lambda context: ds.unbatch().batch(
                         context.get_per_replica_batch_size(10)))):
        model.set_weights([np.ones((3, 1), np.float32), np.zeros(1, np.float32)])
        loss = model.fit(data, epochs=1, verbose=0).history["loss"]
        # TensorFlow 2.21's MirroredStrategy over two CPUs, the plain ds and these
        np.testing.assert_allclose(loss, [2.867431163787842], rtol=1e-5)
        np.testing.assert_allclose(model.get_weights()[0].ravel(),
                                   [1.0376308, 1.0386058, 1.0395807], rtol=1e-5)
        evaluated.append((model.evaluate(data, verbose=0), model.evaluate(ds, verbose=0)))
    assert evaluated[0][0] == pytest.approx(evaluated[0][1], rel=1e-6)  # as the plain ds
    assert evaluated[1] == pytest.approx(evaluated[0], rel=1e-6)


class _Worker:
    """A stand-in strategy: worker `index` of `count` (nothing is sent)."""

    def __init__(self, count, index):
        self.extended = StrategyExtended(self)
        self.extended.worker_count, self.extended.worker_index = count, index


# What TensorFlow 2.21's MultiWorkerMirroredStrategy gave worker 1 of 2 processes.
@pytest.mark.parametrize("policy,size,expect", [
    ("DATA", 8, [[2, 3], [6, 7]]), ("AUTO", 8, [[2, 3], [6, 7]]),
    ("OFF", 8, [[0, 1], [2, 3], [4, 5], [6, 7]]), ("DATA", 10, [[3, 4], [8, 9]]),
    ("OFF", 10, [[0, 1], [2, 3, 4], [5, 6], [7, 8, 9]])])
def test_auto_shard_policies(policy, size, expect):
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = \
        getattr(tf.data.experimental.AutoShardPolicy, policy)
    ds = tf.data.Dataset.range(size).batch(size // 2).with_options(options)
    got = [b.tolist() for b in input_lib.worker_dataset(_Worker(2, 1), ds)]
    assert got == expect


def test_file_policy_falls_back_to_data_with_a_warning():
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = \
        tf.data.experimental.AutoShardPolicy.FILE
    ds = tf.data.Dataset.range(6).batch(3).with_options(options)
    with pytest.warns(UserWarning, match="falls back to sharding by data"):
        got = [b.tolist() for b in input_lib.worker_dataset(_Worker(2, 0), ds)]
    assert got == [[0, 1], [3, 4]]


def test_tf_config_cluster_resolver(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert (r.task_type, r.task_id, r.cluster_spec().as_dict(), r.master()) == \
        (None, None, {}, "")
    cluster = {"worker": ["localhost:12345", "localhost:23456"]}
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster,
                                                "task": {"type": "worker", "index": 1}}))
    assert (r.task_type, r.task_id, r.master()) == ("worker", 1, "localhost:23456")
    assert r.cluster_spec().num_tasks("worker") == 2
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster,
                                                "task": {"type": "worker", "index": 2}}))
    with pytest.raises(ValueError, match="index 2"):
        r.task_id
    monkeypatch.setenv("TF_CONFIG", "{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        r.cluster_spec()
    # A "chief" task is rank 0 and the workers follow it (TensorFlow's id_in_cluster)
    from texflow.distribute import cluster_resolver as resolvers
    spec = resolvers.ClusterSpec({"chief": ["c:1"], "worker": ["w:1", "w:2"], "ps": ["p:1"]})
    assert [resolvers.rank_of(spec, "chief", 0), resolvers.rank_of(spec, "worker", 1)] == [0, 2]
    assert resolvers.task_of(spec, 1) == ("worker", 0) and resolvers.num_sync_workers(spec) == 3
    with pytest.raises(ValueError, match="'ps'"):
        resolvers.rank_of(spec, "ps", 0)


def test_a_coordinator_job_gets_a_tf_config_naming_its_rank(monkeypatch):
    from texflow.distribute import cluster_resolver as resolvers
    given = {"TF_CONFIG": "{}"}
    assert not resolvers.set_job_tf_config(3, given) and given == {"TF_CONFIG": "{}"}
    monkeypatch.setenv("TF_CONFIG", "")  # restored afterwards: set_job_tf_config sets both
    monkeypatch.setenv(resolvers.PROVISIONAL, "")
    monkeypatch.setenv("TEXFLOW_TASK_ID", "2")
    assert resolvers.settle_job_tf_config(3, 1) is None  # not made by set_job_tf_config
    assert resolvers.set_job_tf_config(3)
    r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert (r.task_type, r.task_id, r.cluster_spec().num_tasks("worker")) == ("worker", 2, 3)
    spec = resolvers.settle_job_tf_config(3, 0)  # the coordinator gave rank 0
    assert (r.task_id, spec.num_tasks("worker")) == (0, 3)


def test_small_types():
    ctx = tf.distribute.InputContext(2, 1, 4)
    assert ctx.get_per_replica_batch_size(8) == 2
    with pytest.raises(ValueError, match="not divisible"):
        ctx.get_per_replica_batch_size(7)
    opts = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING)
    assert opts.implementation.name == "RING"
    for bad, why in (({"implementation": "TCP"}, "'TCP'"), ({"bytes_per_pack": -1}, "-1"),
                     ({"timeout_seconds": -2}, "-2")):
        with pytest.raises(ValueError, match=why):
            tf.distribute.experimental.CommunicationOptions(**bad)
    assert tf.distribute.experimental.CommunicationOptions(
        implementation="nccl").implementation.name == "NCCL"
    s = tf.distribute.MultiWorkerMirroredStrategy(communication_options=opts)
    assert s.num_replicas_in_sync == 1 and s.cluster_resolver.task_type is None
    assert tf.nn.compute_average_loss(tf.constant([1.0, 3.0])).numpy() == 2.0


def test_losses_per_replica_and_contexts_as_in_tensorflow():
    strategy = tf.distribute.MirroredStrategy(_devices())
    n = strategy.num_replicas_in_sync
    per_replica = strategy.experimental_local_results(strategy.run(
        lambda: (tf.nn.compute_average_loss(tf.constant([1.0, 3.0])),
                 tf.nn.scale_regularization_loss(tf.constant([2.0, 4.0])))))
    assert [(float(a), float(r)) for a, r in per_replica] == [(2.0 / n, 6.0 / n)] * n
    assert float(tf.nn.scale_regularization_loss(tf.constant(4.0))) == 4.0  # no strategy
    with strategy.scope():  # cross-replica context: TensorFlow's RuntimeError
        for call in (lambda: tf.nn.compute_average_loss(tf.constant([1.0])),
                     lambda: tf.nn.scale_regularization_loss(tf.constant(1.0))):
            with pytest.raises(RuntimeError, match="in cross replica context"):
                call()
        assert float(tf.nn.compute_average_loss(tf.constant([1.0, 3.0]),
                                                global_batch_size=4)) == 1.0
        with pytest.raises(RuntimeError, match="Mixing different tf.distribute.Strategy"):
            with tf.distribute.OneDeviceStrategy("/cpu:0").scope():
                pass


def test_only_the_chief_writes_model_checkpoints(tmp_path):
    path = str(tmp_path / "ckpt.keras")
    chief, other = _Worker(2, 0).extended, _Worker(2, 1).extended
    assert chief._write_path(path) == (path, None)
    where, temporary = other._write_path(path)
    assert where == str(tmp_path / "workertemp_1" / "ckpt.keras")
    assert os.path.isdir(temporary)


def test_dropout_and_initializers_are_reproducible_per_replica_from_the_seed():
    def train(seed):
        tf.keras.utils.set_random_seed(seed)
        strategy = tf.distribute.MirroredStrategy(_devices())
        with strategy.scope():
            model = tf.keras.Sequential([
                tf.keras.layers.Dense(8, activation="relu", input_shape=(3,)),
                tf.keras.layers.Dropout(0.5), tf.keras.layers.Dense(1)])
            model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        x = np.random.RandomState(1).rand(16, 3).astype(np.float32)
        model.fit(x, x[:, :1], batch_size=8, epochs=2, verbose=0)
        return model.get_weights()

    first, second, other = train(11), train(11), train(12)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(first, other))


def test_parameter_server_strategy_schedules_steps_asynchronously(monkeypatch):
    # no "ps" tasks: the chief's own process holds the variables (test_parameter_server.py
    # runs ps and worker processes)
    cluster = {"worker": ["localhost:1", "localhost:2"], "chief": ["localhost:4"]}
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster,
                                                "task": {"type": "chief", "index": 0}}))
    strategy = tf.distribute.ParameterServerStrategy(
        tf.distribute.cluster_resolver.TFConfigClusterResolver())
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    assert strategy.num_workers == 2
    with strategy.scope():
        w = tf.Variable([0.0, 0.0])
        optimizer = tf.keras.optimizers.SGD(0.1)
    x = np.random.RandomState(2).rand(64, 2).astype(np.float32)
    y = x @ np.array([2.0, -1.0], np.float32)
    contexts = []

    def dataset_fn(context):
        contexts.append((context.num_input_pipelines, context.input_pipeline_id))
        return tf.data.Dataset.from_tensor_slices((x, y)).shard(
            context.num_input_pipelines, context.input_pipeline_id).batch(8).repeat()
    iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))

    def step(it):
        xb, yb = next(it)
        with tf.GradientTape() as tape:
            pred = tf.reshape(tf.matmul(tf.constant(xb), tf.reshape(w, [2, 1])), [-1])
            loss = tf.reduce_mean(tf.square(pred - yb))
        optimizer.apply_gradients([(tape.gradient(loss, w), w)])
        return loss

    first = coordinator.schedule(step, args=(iterator,))
    values = [coordinator.schedule(step, args=(iterator,)) for _ in range(300)]
    coordinator.join()
    assert coordinator.done() and contexts == [(2, 0), (2, 1)]
    assert float(values[-1].fetch()) < 0.1 * float(first.fetch())
    np.testing.assert_allclose(w.numpy(), [2.0, -1.0], atol=0.2)
    failing = coordinator.schedule(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        coordinator.join()
    with pytest.raises(ZeroDivisionError):
        failing.fetch()


def test_one_device_and_central_storage_strategies():
    gpus = [d.name for d in tf.config.list_logical_devices("GPU")]
    device = gpus[0] if gpus else "/device:CPU:0"
    one = tf.distribute.OneDeviceStrategy(device)
    with one.scope():
        v = tf.Variable([1.0, 2.0])
    assert one.num_replicas_in_sync == 1
    assert one.run(lambda: (v * 2.0).device).endswith(device[1:])  # run on its device
    assert float(one.reduce("SUM", one.run(lambda: tf.reduce_sum(v)), axis=None)) == 3.0
    central = tf.distribute.experimental.CentralStorageStrategy(_devices())
    assert central.num_replicas_in_sync == len(_devices())
    assert central.extended.parameter_devices == (
        "/job:localhost/replica:0/task:0/device:CPU:0",)
    assert len(central.extended.worker_devices) == len(_devices())
    with central.scope():
        model = _model()
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    plain = _model()
    plain.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    plain.set_weights(model.get_weights())
    x = np.random.RandomState(4).rand(8, 3).astype(np.float32)
    for m in (model, plain):
        m.fit(x, x[:, :1], batch_size=4, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(model.get_weights(), plain.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
