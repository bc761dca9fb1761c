"""Checkpoints in the browser: saved into IndexedDB-backed storage, they survive a page
reload and restore; a file handed to the browser's downloads arrives byte for byte."""

import hashlib
import json
import time

import numpy as np

import texflow as tf

COMMON = r"""
import json, os
import numpy as np
import texflow as tf
from texflow import storage

X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10

def make(seed):
    tf.keras.utils.set_random_seed(seed)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    model.compile(tf.keras.optimizers.Adam(0.1), "mse")
    return model
"""

SAVE = COMMON + r"""
await storage.mount("/persist")
model = make(1)
model.fit(X, np.ones((4, 2), np.float32), epochs=2, verbose=0)
manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model, optimizer=model.optimizer),
                                     "/persist/ckpt", max_to_keep=2)
for _ in range(3):
    manager.save()              # persisted at once: Python can block on promises here
model.save("/persist/model.keras")
json.dumps({"weights": [w.tolist() for w in model.get_weights()],
            "slots": [v.numpy().tolist() for v in model.optimizer.variables],
            "latest": manager.latest_checkpoint})
"""

# Run with pyodide.runPython (no JSPI): the write is persisted in the background.
BACKGROUND = r"""
from texflow.checkpoint import atomic
atomic.write_bytes("/persist/background.bin", b"written without JSPI")
"""

RESTORE = COMMON + r"""
await storage.mount("/persist")
model = make(7)
status = tf.train.Checkpoint(model=model, optimizer=model.optimizer).restore(
    tf.train.latest_checkpoint("/persist/ckpt"))
model.fit(X[:1], np.ones((1, 2), np.float32), epochs=1, verbose=0, shuffle=False)
status.assert_consumed()        # the optimizer's slots were restored when it built them
restored = make(7)
tf.train.Checkpoint(model=restored).restore(
    tf.train.latest_checkpoint("/persist/ckpt")).expect_partial()
loaded = tf.keras.models.load_model("/persist/model.keras")
out = {"weights": [w.tolist() for w in restored.get_weights()],
       "loaded": [w.tolist() for w in loaded.get_weights()],
       "slots_after_step": int(model.optimizer.iterations.numpy()),
       "latest": tf.train.latest_checkpoint("/persist/ckpt"),
       "files": sorted(os.listdir("/persist/ckpt")),
       "background": open("/persist/background.bin", "rb").read().decode()}
for name in os.listdir("/persist/ckpt"):
    os.remove("/persist/ckpt/" + name)
for name in ("model.keras", "background.bin"):
    os.remove("/persist/" + name)
await storage.sync()            # leaves IndexedDB empty for the next run
json.dumps(out)
"""


def _python(page, code):
    return page.evaluate("async (code) => await pyodide.runPythonAsync(code)", code)


# The paths Emscripten's IDBFS has stored in IndexedDB for the mount at /persist.
STORED = """async () => await new Promise((resolve, reject) => {
    const open = indexedDB.open("/persist");
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
        const db = open.result;
        const keys = db.transaction("FILE_DATA", "readonly").objectStore("FILE_DATA").getAllKeys();
        keys.onsuccess = () => { db.close(); resolve(keys.result.map(String).sort()); };
        keys.onerror = () => reject(keys.error);
    };
})"""


def test_checkpoints_survive_a_page_reload(browser_session):
    page = browser_session.page
    try:
        saved = json.loads(_python(page, SAVE))
        # already in IndexedDB, with no explicit sync: each atomic write persisted itself
        assert {"/persist/ckpt/ckpt-3.index", "/persist/ckpt/checkpoint",
                "/persist/model.keras"} <= set(page.evaluate(STORED))
        assert "/persist/ckpt/ckpt-1.index" not in page.evaluate(STORED)   # deleted there too
        page.evaluate("(code) => pyodide.runPython(code)", BACKGROUND)
        deadline = time.monotonic() + 10
        while "/persist/background.bin" not in page.evaluate(STORED):   # a background sync
            assert time.monotonic() < deadline, "the background sync never stored the file"
            page.wait_for_timeout(50)
        page.reload()
        page.evaluate("() => texflowReady")
        restored = json.loads(_python(page, RESTORE))
    finally:
        page.evaluate("() => texflowReady")
        browser_session.prepare()
    assert restored["latest"] == saved["latest"] == "/persist/ckpt/ckpt-3"
    assert restored["files"] == ["checkpoint", "ckpt-2.index", "ckpt-3.index"]
    for mine, theirs in zip(restored["weights"], saved["weights"], strict=True):
        assert np.array_equal(np.array(mine), np.array(theirs))
    for mine, theirs in zip(restored["loaded"], saved["weights"], strict=True):
        assert np.array_equal(np.array(mine), np.array(theirs))
    assert restored["slots_after_step"] == int(saved["slots"][0]) + 1
    assert restored["background"] == "written without JSPI"


DOWNLOAD = r"""
import hashlib
import numpy as np
import texflow as tf
model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
model.save("/tmp/for_download.keras")
tf.keras.utils.download_file("/tmp/for_download.keras")
data = open("/tmp/for_download.keras", "rb").read()
hashlib.sha256(data).hexdigest() + " " + str(len(data))
"""


def test_a_download_delivers_the_file(browser_session, tmp_path):
    page = browser_session.page
    with page.expect_download() as info:
        digest, size = _python(page, DOWNLOAD).split()
    download = info.value
    assert download.suggested_filename == "for_download.keras"
    target = tmp_path / "for_download.keras"
    download.save_as(target)
    data = target.read_bytes()
    assert len(data) == int(size) and hashlib.sha256(data).hexdigest() == digest
    model = tf.keras.models.load_model(target)     # saved in the browser, loaded natively
    assert model.layers[0].kernel.shape == (3, 2)
