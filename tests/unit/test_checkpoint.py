"""tf.train.Checkpoint, CheckpointManager, latest_checkpoint and tf.io.gfile, natively
(numpy backend). Expected behaviour was observed in TensorFlow 2.21."""

import os

import numpy as np
import pytest

import texflow as tf
from texflow.checkpoint import files, manager


def _var(value, name=None):
    return tf.Variable(np.asarray(value, np.float32), name=name)


def test_save_numbers_checkpoints_and_records_only_the_latest(tmp_path):
    v = _var(1.0)
    checkpoint = tf.train.Checkpoint(v=v)
    paths = [checkpoint.save(str(tmp_path / "a")) for _ in range(3)]
    assert paths == [str(tmp_path / f"a-{i}") for i in (1, 2, 3)]
    assert (tmp_path / "checkpoint").read_text() == \
        'model_checkpoint_path: "a-3"\nall_model_checkpoint_paths: "a-3"\n'
    assert sorted(os.listdir(tmp_path)) == ["a-1.index", "a-2.index", "a-3.index", "checkpoint"]
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[-1]
    assert tf.train.list_variables(paths[-1]) == [("save_counter", []), ("v", [])]
    # write(): no number, no checkpoint file change
    assert checkpoint.write(str(tmp_path / "w")) == str(tmp_path / "w")
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[-1]


def test_restore_sets_values_and_the_save_counter(tmp_path):
    v, w = _var(1.0), _var([1.0, 2.0])
    checkpoint = tf.train.Checkpoint(v=v, pair={"w": w})
    checkpoint.save(str(tmp_path / "c"))
    path = checkpoint.save(str(tmp_path / "c"))
    v.assign(np.float32(9)), w.assign(np.zeros(2, np.float32))
    other = tf.train.Checkpoint(v=v, pair={"w": w})
    status = other.restore(path)
    assert float(v.numpy()) == 1.0 and w.numpy().tolist() == [1.0, 2.0]
    assert int(other.save_counter.numpy()) == 2
    assert status.assert_consumed() is status
    assert other.save(str(tmp_path / "c")).endswith("c-3")   # numbering goes on
    # read() of a write() checkpoint: no save counter involved
    written = tf.train.Checkpoint(v=v).write(str(tmp_path / "plain"))
    tf.train.Checkpoint(v=v).read(written).assert_consumed()


def test_status_assertions(tmp_path):
    path = tf.train.Checkpoint(a=_var(1.0), b=_var(2.0)).write(str(tmp_path / "x"))
    partial = tf.train.Checkpoint(a=_var(0.0))
    status = partial.read(path)
    with pytest.raises(AssertionError, match="Unresolved values.*b"):
        status.assert_consumed()
    status.assert_existing_objects_matched().assert_nontrivial_match()
    assert status.expect_partial() is status
    extra = tf.train.Checkpoint(a=_var(0.0), c=_var(0.0))
    with pytest.raises(AssertionError, match="no value.*c"):
        extra.read(path).assert_existing_objects_matched()
    nothing = tf.train.Checkpoint(a=_var(0.0)).restore(None)
    with pytest.raises(AssertionError, match=r"No checkpoint specified \(save_path=None\)"):
        nothing.assert_consumed()


def test_restore_is_all_or_nothing_with_an_error_naming_the_variable(tmp_path):
    path = tf.train.Checkpoint(a=_var(1.0), b=_var([1.0, 2.0])).write(str(tmp_path / "x"))
    a, b = _var(5.0), _var([1.0, 2.0, 3.0], name="bee")
    with pytest.raises(ValueError, match=r"shape \(2,\) .*'bee' \(key 'b'\) with shape \(3,\)"):
        tf.train.Checkpoint(a=a, b=b).read(path)
    assert float(a.numpy()) == 5.0   # nothing changed


def test_errors_for_missing_checkpoints_and_untrackable_values(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        tf.train.Checkpoint(a=_var(1.0)).restore(str(tmp_path / "nope" / "ckpt-1"))
    with pytest.raises(ValueError, match="expecting x to be a trackable object.*got 5"):
        tf.train.Checkpoint(x=5)
    assert tf.train.latest_checkpoint(str(tmp_path / "missing")) is None
    with pytest.raises(ValueError, match="positive integer or `None` for `max_to_keep`, got 0"):
        tf.train.CheckpointManager(tf.train.Checkpoint(), str(tmp_path), max_to_keep=0)
    with pytest.raises(ValueError, match="`step_counter` should be passed"):
        tf.train.CheckpointManager(tf.train.Checkpoint(), str(tmp_path), 1,
                                   checkpoint_interval=2)


def test_a_corrupted_checkpoint_raises_data_loss(tmp_path):
    path = tf.train.Checkpoint(a=_var(np.arange(100))).write(str(tmp_path / "x"))
    data = bytearray((tmp_path / "x.index").read_bytes())
    data[-10] ^= 0xFF
    (tmp_path / "x.index").write_bytes(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match="corrupted"):
        tf.train.Checkpoint(a=_var(np.zeros(100))).read(path)


def test_manager_numbers_keeps_and_deletes_as_tensorflow(tmp_path):
    checkpoint = tf.train.Checkpoint(v=_var(1.0))
    for _ in range(3):
        checkpoint.save(str(tmp_path / "a"))
    mgr = tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=2)
    assert mgr.checkpoints == [] and mgr.latest_checkpoint == str(tmp_path / "a-3")
    saved = [mgr.save(), mgr.save(checkpoint_number=10), mgr.save()]
    assert saved == [str(tmp_path / n) for n in ("ckpt-4", "ckpt-10", "ckpt-6")]
    assert mgr.checkpoints == saved[1:] and mgr.latest_checkpoint == saved[-1]
    assert not os.path.exists(saved[0] + ".index")
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.all_model_checkpoint_paths == saved[1:]
    assert len(state.all_model_checkpoint_timestamps) == 2
    again = tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=2)
    assert again.checkpoints == saved[1:]          # recovered from the checkpoint file
    again.save()
    assert again.checkpoints == [saved[2], str(tmp_path / "ckpt-7")]


def test_manager_keep_every_n_hours_preserves_old_checkpoints(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(manager.time, "time", lambda: clock[0])
    mgr = tf.train.CheckpointManager(tf.train.Checkpoint(v=_var(1.0)), str(tmp_path),
                                     max_to_keep=1, keep_checkpoint_every_n_hours=1)
    paths = []
    for step in range(5):
        clock[0] = 1000.0 + step * 1800.0   # half an hour apart
        paths.append(mgr.save())
    kept = [p for p in paths if files.checkpoint_exists(p)]
    # TensorFlow's rule: one leaving the active set is kept if it is at least an hour
    # newer than the last one kept (the clock starts 1 s before the manager was made)
    assert kept == [paths[2], paths[4]]
    assert mgr.checkpoints == [paths[4]]


def test_manager_checkpoint_interval_and_restore_or_initialize(tmp_path):
    step = tf.Variable(np.int32(0))
    v = _var(3.0)
    calls = []
    mgr = tf.train.CheckpointManager(tf.train.Checkpoint(v=v, step=step), str(tmp_path), 3,
                                     step_counter=step, checkpoint_interval=5,
                                     init_fn=lambda: calls.append("init"))
    assert mgr.restore_or_initialize() is None and calls == ["init"]
    saved = []
    for i in range(12):
        step.assign(np.int32(i))
        saved.append(mgr.save())
    assert [s is not None for s in saved].count(True) == 3     # steps 0, 5 and 10
    assert mgr.save(check_interval=False) is not None         # step 11, interval ignored
    assert mgr.save(check_interval=False) is None             # never twice for one step
    v.assign(np.float32(0))
    again = tf.train.CheckpointManager(tf.train.Checkpoint(v=v, step=step), str(tmp_path), 3)
    assert again.restore_or_initialize() == mgr.latest_checkpoint
    assert float(v.numpy()) == 3.0 and int(step.numpy()) == 11


def test_state_file_survives_odd_paths_and_absolute_entries(tmp_path):
    odd = tmp_path / 'we"ird dir'
    manager.update_checkpoint_state(str(odd), str(odd / "c-1"), [str(odd / "c-1"), "/abs/c-0"])
    state = tf.train.get_checkpoint_state(str(odd))
    assert state.model_checkpoint_path == str(odd / "c-1")
    assert state.all_model_checkpoint_paths == [str(odd / "c-1"), "/abs/c-0"]
    (odd / "checkpoint").write_text("garbage without a colon\n")
    assert tf.train.get_checkpoint_state(str(odd)) is None


def test_gfile(tmp_path):
    g = tf.io.gfile
    base = str(tmp_path / "g")
    g.makedirs(base + "/a/b")
    g.makedirs(base + "/a/b")
    g.mkdir(base + "/a")
    with g.GFile(base + "/x.txt", "w") as f:
        f.write("hi")
    with g.GFile(base + "/y.txt", "w") as f:
        f.write("yo")
    with pytest.raises(tf.errors.AlreadyExistsError):
        g.rename(base + "/x.txt", base + "/y.txt")
    g.rename(base + "/x.txt", base + "/y.txt", overwrite=True)
    assert g.listdir(base) == ["a", "y.txt"]
    assert g.glob(base + "/*") == [base + "/a", base + "/y.txt"]
    assert g.exists(base + "/a") and not g.isdir(base + "/y.txt")
    assert g.stat(base + "/y.txt").length == 2
    assert [d for d, _, _ in g.walk(base)] == [base, base + "/a", base + "/a/b"]
    g.copy(base + "/y.txt", base + "/z.txt")
    with pytest.raises(tf.errors.AlreadyExistsError):
        g.copy(base + "/y.txt", base + "/z.txt")
    for call, error in [(lambda: g.rmtree(base + "/zz"), tf.errors.NotFoundError),
                        (lambda: g.remove(base + "/zz"), tf.errors.NotFoundError),
                        (lambda: g.listdir(base + "/zz"), tf.errors.NotFoundError),
                        (lambda: g.remove(base + "/a"), tf.errors.FailedPreconditionError)]:
        with pytest.raises(error):
            call()
    g.rmtree(base + "/a")
    g.remove(base + "/z.txt")
    assert g.listdir(base) == ["y.txt"]


def test_browser_storage_says_it_is_for_the_browser(tmp_path):
    from texflow import storage
    mounting = storage.mount(str(tmp_path / "p"))
    with pytest.raises(RuntimeError, match="inside Pyodide only"):
        mounting.send(None)   # runs the coroutine without an event loop (pytest may have one)
    (tmp_path / "f").write_bytes(b"x")
    with pytest.raises(RuntimeError, match="natively the file is already at"):
        tf.keras.utils.download_file(str(tmp_path / "f"))
    assert not storage.is_persistent(str(tmp_path / "f"))


def test_an_optimizer_the_model_also_holds_is_keyed_under_the_checkpoint(tmp_path):
    def model():
        m = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
        m.compile(tf.keras.optimizers.Adam(0.1), "mse")
        return m
    trained = model()
    trained.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), verbose=0)
    path = tf.train.Checkpoint(model=trained, optimizer=trained.optimizer).write(
        str(tmp_path / "c"))
    keys = [k for k, _ in tf.train.list_variables(path)]
    assert "optimizer/vars/0" in keys and not any(k.startswith("model/optimizer") for k in keys)
    # a custom loop restores it: an uncompiled model and an optimizer of its own
    plain = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.Adam(0.1)
    status = tf.train.Checkpoint(model=plain, optimizer=optimizer).read(path)
    optimizer.build(plain.trainable_variables)
    status.assert_consumed()
    assert int(optimizer.iterations.numpy()) == 1
