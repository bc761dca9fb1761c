"""Atomic file writes: a crash at any moment leaves either the old file or the new one.

Data goes to a hidden temporary file in the same directory, which is flushed,
fsync'ed and then renamed over the target (a rename within one file system is
atomic); the directory is fsync'ed too so the rename itself survives a power
loss. A process killed mid-write leaves only a `.name.tmp-...` file behind.
"""

import contextlib
import os
import secrets

# Called with each path written (or deleted) through this module, after the fact: in the
# browser, texflow.storage persists files under its mounts to IndexedDB from here.
after_write = []


def changed(path):
    """Tells the `after_write` hooks that `path` was written or deleted."""
    for hook in after_write:
        hook(os.fspath(path))


def temporary_name(path):
    """A hidden name beside `path` for its data while it is written."""
    directory, base = os.path.split(os.fspath(path))
    return os.path.join(directory, f".{base}.tmp-{os.getpid()}-{secrets.token_hex(4)}")


def fsync_directory(directory):
    """Makes a rename in `directory` durable (where the platform can; Windows and some
    in-memory file systems cannot open a directory, and need not)."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_write(path, mode="wb"):
    """`with atomic_write(path) as f:` writes `path` all at once or not at all.

    The file appears under its name only when the block ends without an
    exception; otherwise the temporary file is removed and `path` is unchanged.
    """
    path = os.fspath(path)
    tmp = temporary_name(path)
    f = open(tmp, mode)
    try:
        yield f
        f.flush()
        os.fsync(f.fileno())
        f.close()
        os.replace(tmp, path)
    except BaseException:
        f.close()
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    fsync_directory(os.path.dirname(path))
    changed(path)


def write_bytes(path, data):
    """Writes `data` to `path` atomically."""
    with atomic_write(path) as f:
        f.write(data)


def write_text(path, text):
    """Writes `text` (UTF-8) to `path` atomically."""
    write_bytes(path, text.encode("utf-8"))
