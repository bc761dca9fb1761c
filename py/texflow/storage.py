"""Browser storage for checkpoints: files that survive a page reload, and downloads.

Inside Pyodide, files live in memory (Emscripten's MEMFS): every texflow path
works there, but the files vanish with the page. `await storage.mount(path)`
mounts storage backed by the origin's IndexedDB (Emscripten's IDBFS) at `path`,
with the files saved there before:

    from texflow import storage
    await storage.mount("/persistent")
    manager = tf.train.CheckpointManager(checkpoint, "/persistent/ckpt", max_to_keep=3)
    manager.restore_or_initialize()          # after a reload: the latest checkpoint
    ...
    manager.save()                           # written, then persisted to IndexedDB

texflow's atomic writes (checkpoints, the `checkpoint` index, weights files, .keras
archives) persist the mounted storage after each write: synchronously when Python
can block on promises (JSPI, as in code run through `runPythonAsync`), otherwise
in the background; `await storage.sync()` waits until everything written so far
is persisted (call it after writing files of your own). One IDBFS sync writes all
changes in one IndexedDB transaction, so a reload during a sync leaves the files
as they were before it or as they are after it, never a mix.

`storage.download(path)` hands a file to the browser's downloads (on the page's
thread; a Web Worker has no page to click on).
"""

import os
import sys

from .checkpoint import atomic

IN_BROWSER = sys.platform == "emscripten"
_mounts = set()
_pending = []   # background syncs in flight (when Python cannot block on a promise)


def _fs():
    if not IN_BROWSER:
        raise RuntimeError("texflow.storage mounts browser storage: it works inside Pyodide "
                           "only (natively, files are persistent already)")
    import pyodide_js
    return pyodide_js.FS


def _syncfs(populate):
    """A JS promise for Emscripten's FS.syncfs (populate: IndexedDB -> memory)."""
    import js
    from pyodide.ffi import create_once_callable

    fs = _fs()

    def executor(resolve, reject):
        def done(error=None):
            if error:
                reject(error)
            else:
                resolve(None)
        fs.syncfs(populate, create_once_callable(done))
    return js.Promise.new(create_once_callable(executor))


def is_persistent(path):
    """Whether `path` is under a mounted persistent directory."""
    full = os.path.abspath(os.fspath(path))
    return any(full == m or full.startswith(m + "/") for m in _mounts)


async def mount(path="/persistent"):
    """Mounts IndexedDB-backed storage at `path` and loads what was saved there.

    Returns the path. Mounting the same path again only reloads nothing new.
    """
    path = os.path.abspath(os.fspath(path))
    fs = _fs()
    if path in _mounts:
        return path
    os.makedirs(path, exist_ok=True)
    if os.listdir(path):
        raise OSError(f"cannot mount persistent storage at {path}: the directory is not "
                      "empty (its files would be hidden)")
    fs.mount(fs.filesystems.IDBFS, {}, path)
    _mounts.add(path)
    try:
        await _syncfs(True)
    except Exception as e:
        _mounts.discard(path)
        fs.unmount(path)
        raise OSError(f"could not load {path} from IndexedDB: {e}") from None
    return path


async def sync():
    """Writes every change under the mounted paths to IndexedDB (and waits for any
    background sync in flight)."""
    if not _mounts:
        return
    while _pending:
        await _pending.pop()
    await _syncfs(False)


def _sync_after_write(path):
    """Persists a file just written under a mounted path (atomic.py calls this)."""
    if not _mounts or not is_persistent(path):
        return
    from pyodide.ffi import can_run_sync, run_sync
    promise = _syncfs(False)
    if can_run_sync():
        run_sync(promise)
    else:
        _pending.append(promise)


def download(path, filename=None, mime_type="application/octet-stream"):
    """Makes the browser download the file at `path` (as `filename`, default its name).

    Raises RuntimeError natively, and in a Web Worker (post the bytes to the page and
    download them there).
    """
    path = os.fspath(path)
    if not IN_BROWSER:
        raise RuntimeError(f"download() hands files to a browser; natively the file is "
                           f"already at {path}")
    import js
    from pyodide.ffi import create_once_callable, to_js

    if not hasattr(js, "document"):
        raise RuntimeError("download() needs a page: in a Web Worker, read the file's bytes "
                           "and postMessage them to the page, which can download a Blob")
    with open(path, "rb") as f:
        data = f.read()
    blob = js.Blob.new(to_js([memoryview(data)]),
                       to_js({"type": mime_type}, dict_converter=js.Object.fromEntries))
    url = js.URL.createObjectURL(blob)
    link = js.document.createElement("a")
    link.href, link.download = url, filename or os.path.basename(path)
    js.document.body.appendChild(link)
    link.click()
    link.remove()
    # Revoked later: the download reads the Blob after click() returns.
    js.setTimeout(create_once_callable(lambda: js.URL.revokeObjectURL(url)), 60_000)


if IN_BROWSER:
    atomic.after_write.append(_sync_after_write)
