"""ModelCheckpoint and BackupAndRestore (numpy backend; a killed process too). An
interrupted fit resumed from a backup must end with the very weights of a fit that was
never interrupted."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import texflow as tf

RNG = np.random.default_rng(0)
X = RNG.normal(size=(20, 3)).astype(np.float32)
Y = RNG.integers(0, 3, 20).astype(np.int32)


def model(seed=4):
    tf.keras.utils.set_random_seed(seed)
    m = tf.keras.Sequential([tf.keras.Input((3,)),
                             tf.keras.layers.Dense(8, activation="relu"),
                             tf.keras.layers.Dropout(0.3),
                             tf.keras.layers.Dense(3)])
    m.compile(tf.keras.optimizers.Adam(0.02),
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
    return m


class Interrupt(tf.keras.callbacks.Callback):
    def __init__(self, after):
        super().__init__()
        self.after, self.seen = after, 0

    def on_train_batch_end(self, batch, logs=None):
        self.seen += 1
        if self.seen == self.after:
            raise RuntimeError("interrupted")


def _dataset(stream):
    data = tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(20, seed=3).batch(4)
    return data.repeat() if stream else data


INPUTS = {  # fit arguments: shuffled arrays, a dataset read per epoch, one stream
    "arrays": lambda: dict(x=X, y=Y, batch_size=4),
    "dataset": lambda: dict(x=_dataset(False)),
    "stream": lambda: dict(x=_dataset(True), steps_per_epoch=5),
}


@pytest.mark.parametrize("data", sorted(INPUTS))
@pytest.mark.parametrize("save_freq, interrupt_after", [("epoch", 7), (3, 13), (2, 5)])
def test_interrupted_fit_resumes_exactly(tmp_path, data, save_freq, interrupt_after):
    reference = model()
    reference.fit(**INPUTS[data](), epochs=4, verbose=0)
    backup = str(tmp_path / "backup")
    with pytest.raises(RuntimeError, match="interrupted"):
        model().fit(**INPUTS[data](), epochs=4, verbose=0, callbacks=[
            tf.keras.callbacks.BackupAndRestore(backup, save_freq=save_freq),
            Interrupt(interrupt_after)])
    assert os.path.isfile(os.path.join(backup, "latest.index"))
    resumed = model(seed=99)   # another initialization: the backup must override it
    history = resumed.fit(**INPUTS[data](), epochs=4, verbose=0, callbacks=[
        tf.keras.callbacks.BackupAndRestore(backup, save_freq=save_freq)])
    # epochs run after the resume: from the epoch of the last backup to the end
    backed_up = (interrupt_after // save_freq * save_freq if save_freq != "epoch"
                 else interrupt_after // 5 * 5)
    assert len(history.history["loss"]) == 4 - backed_up // 5
    for mine, theirs in zip(resumed.get_weights(), reference.get_weights(), strict=True):
        assert np.array_equal(mine, theirs)
    assert not os.path.exists(backup)   # deleted when fit finished


def test_backup_and_restore_options(tmp_path):
    with pytest.raises(ValueError, match="Empty `backup_dir`"):
        tf.keras.callbacks.BackupAndRestore("")
    with pytest.raises(ValueError, match="Received: save_freq=sometimes"):
        tf.keras.callbacks.BackupAndRestore(str(tmp_path), save_freq="sometimes")
    backup = str(tmp_path / "keep")
    m = model()
    m.fit(X, Y, batch_size=4, epochs=2, verbose=0, callbacks=[
        tf.keras.callbacks.BackupAndRestore(backup, delete_checkpoint=False)])
    again = model().fit(X, Y, batch_size=4, epochs=3, verbose=0, callbacks=[
        tf.keras.callbacks.BackupAndRestore(backup, delete_checkpoint=False)])
    assert len(again.history["loss"]) == 1      # epochs 0 and 1 were done
    # a damaged latest backup falls back to the previous one with double_checkpoint
    backup = str(tmp_path / "double")
    with pytest.raises(RuntimeError):
        model().fit(X, Y, batch_size=4, epochs=4, verbose=0, callbacks=[
            tf.keras.callbacks.BackupAndRestore(backup, double_checkpoint=True),
            Interrupt(12)])
    latest = Path(backup) / "latest.index"
    latest.write_bytes(latest.read_bytes()[:-8])
    with pytest.warns(UserWarning, match="damaged; restoring the previous one"):
        history = model().fit(X, Y, batch_size=4, epochs=4, verbose=0, callbacks=[
            tf.keras.callbacks.BackupAndRestore(backup, double_checkpoint=True)])
    assert len(history.history["loss"]) == 3    # from the backup of epoch 1's end


CHILD = """
import sys
sys.path.insert(0, sys.argv[2])
import numpy as np
import texflow as tf
from test_saving_callbacks import X, Y, model

class Slow(tf.keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        import time
        print("batch", flush=True)
        time.sleep(0.03)

m = model()
m.fit(X, Y, batch_size=2, epochs=4, verbose=0,
      callbacks=[tf.keras.callbacks.BackupAndRestore(sys.argv[1], save_freq=3), Slow()])
np.savez(sys.argv[1] + "-final.npz", *m.get_weights())
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_killed_fit_resumes_exactly_in_a_new_process(tmp_path):
    backup = str(tmp_path / "backup")
    here = str(Path(__file__).parent)
    for batches in (7, 23):   # killed twice, at different points
        proc = subprocess.Popen([sys.executable, "-c", CHILD, backup, here],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            for _ in range(batches):
                assert proc.stdout.readline() == "batch\n", proc.stderr.read()
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            proc.kill()
            proc.communicate()
    done = subprocess.run([sys.executable, "-c", CHILD, backup, here], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("batch") < 40     # it did not start over
    final = np.load(backup + "-final.npz")
    reference = model()
    reference.fit(X, Y, batch_size=2, epochs=4, verbose=0)
    for i, theirs in enumerate(reference.get_weights()):
        assert np.array_equal(final[f"arr_{i}"], theirs)


def test_model_checkpoint_every_epoch_with_formatted_names(tmp_path):
    pattern = str(tmp_path / "m-{epoch:02d}-{val_loss:.2f}.keras")
    m = model()
    history = m.fit(X, Y, batch_size=4, epochs=3, verbose=0, validation_data=(X, Y),
                    callbacks=[tf.keras.callbacks.ModelCheckpoint(pattern)])
    names = sorted(os.listdir(tmp_path))
    assert names == [f"m-{e + 1:02d}-{v:.2f}.keras"
                     for e, v in enumerate(history.history["val_loss"])]
    last = tf.keras.models.load_model(tmp_path / names[-1])
    assert np.array_equal(last.predict(X, verbose=0), m.predict(X, verbose=0))


def test_model_checkpoint_best_only_weights_and_thresholds(tmp_path, capsys):
    path = str(tmp_path / "best.weights.safetensors")
    saves = []

    class Watch(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            saves.append(os.path.getmtime(path) if os.path.exists(path) else None)

    losses = [3.0, 2.0, 2.5, 1.0]

    class FakeLoss(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            logs["val_loss"] = losses[epoch]

    checkpoint = tf.keras.callbacks.ModelCheckpoint(
        path, save_best_only=True, save_weights_only=True, verbose=1,
        initial_value_threshold=2.5)
    model().fit(X, Y, batch_size=10, epochs=4, verbose=0,
                callbacks=[FakeLoss(), checkpoint, Watch()])
    out = capsys.readouterr().out
    assert "Epoch 1: val_loss did not improve from 2.50000" in out
    assert "Epoch 2: val_loss improved from 2.50000 to 2.00000, saving model to" in out
    assert "Epoch 3: val_loss did not improve from 2.00000" in out
    assert "Epoch 4: val_loss improved from 2.00000 to 1.00000" in out
    assert saves[0] is None and saves[1] is not None and saves[2] == saves[1]
    assert checkpoint.best == 1.0
    with pytest.warns(UserWarning, match="Can save best model only with val_acc available"):
        model().fit(X, Y, batch_size=10, epochs=1, verbose=0, callbacks=[
            tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "x.keras"), monitor="val_acc",
                                               mode="max", save_best_only=True)])
    assert os.path.exists(tmp_path / "x.keras")


def test_model_checkpoint_every_n_batches_and_bad_paths(tmp_path):
    pattern = str(tmp_path / "e{epoch}-b{batch}.weights.safetensors")
    model().fit(X, Y, batch_size=4, epochs=2, verbose=0, callbacks=[
        tf.keras.callbacks.ModelCheckpoint(pattern, save_weights_only=True, save_freq=3)])
    # 5 batches per epoch; a save every 3 batches, counted across epochs as Keras does
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["e1-b3.weights.safetensors", "e2-b1.weights.safetensors",
         "e2-b4.weights.safetensors"])
    with pytest.raises(ValueError, match="must end in `.keras`.*filepath=/tmp/keras-ckpt"):
        tf.keras.callbacks.ModelCheckpoint(filepath="/tmp/keras-ckpt")   # seed 000's path
    with pytest.raises(ValueError, match="must end in `.weights.safetensors`"):
        tf.keras.callbacks.ModelCheckpoint("w.weights.h5", save_weights_only=True)
    with pytest.raises(ValueError, match="Unrecognized save_freq"):
        tf.keras.callbacks.ModelCheckpoint("m.keras", save_freq="batch")
    with pytest.raises(KeyError, match="Failed to format this callback filepath"):
        model().fit(X, Y, batch_size=10, epochs=1, verbose=0, callbacks=[
            tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "{nope}.keras"))])
