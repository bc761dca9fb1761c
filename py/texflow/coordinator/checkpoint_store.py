"""The chief's checkpoints, kept by the coordinator (`--checkpoint-dir`).

The coordinator outlives any worker, so a rejoining worker (or a new chief
after the old one was lost) asks it for the latest checkpoint. A checkpoint is
a step number and a few named blobs (whatever the chief's saving code wrote):

    DIR/ckpt-00000120/<name>...     one folder per step
    DIR/latest                      {"step": 120, "files": {...}} (JSON)

Writes are atomic: blobs go to a temporary folder, each file is fsynced, the
folder is renamed into place and fsynced, and only then is `latest` replaced
(itself written to a temporary file, fsynced and renamed). A crash at any
moment leaves the previous checkpoint readable. The newest `keep` are kept.

Over the wire (see wire.py): the chief sends `{"type": "ckpt_put", "id", "step"}`
then CKPT_PUT messages whose table names the blobs (uint8 tensors); the
coordinator answers `ckpt_saved`. `ckpt_get` is answered by CKPT_DATA
messages in the same layout, `ckpt_latest` by `ckpt_info`.
"""

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")


class CheckpointError(ValueError):
    """A checkpoint that cannot be stored or found; the message says why."""


class CheckpointStore:
    """Checkpoints under `root`; see the module docstring.

    >>> store = CheckpointStore(tempfile.mkdtemp())
    >>> store.put(5, {"weights.npz": b"..."})["step"]
    5
    >>> store.get()["weights.npz"]
    b'...'
    """

    def __init__(self, root, keep=3):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.keep = keep

    def latest(self):
        """{"step": int, "files": {name: size}} of the newest checkpoint, or None."""
        try:
            info = json.loads((self.root / "latest").read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            raise CheckpointError(f"{self.root / 'latest'} is unreadable: {e}") from None
        return info

    def put(self, step, files):
        """Stores `files` ({name: bytes}) as the checkpoint of `step`; returns its info."""
        if not isinstance(step, int) or isinstance(step, bool) or step < 0:
            raise CheckpointError(f"step must be a non-negative int; received {step!r}")
        for name in files:
            if not isinstance(name, str) or not _NAME.match(name):
                raise CheckpointError(f"checkpoint file name {name!r} is not allowed (letters, "
                                      "digits, '.', '_', '-'; no folders; at most 128)")
        final = self.root / f"ckpt-{step:08d}"
        tmp = Path(tempfile.mkdtemp(prefix=f".ckpt-{step:08d}-", dir=self.root))
        try:
            for name, data in files.items():
                with open(tmp / name, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
            _fsync_dir(tmp)
            if final.exists():  # the same step again replaces it
                shutil.rmtree(final)
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        _fsync_dir(self.root)
        info = {"step": step, "files": {name: len(data) for name, data in files.items()}}
        _atomic_write(self.root / "latest", json.dumps(info).encode())
        self._prune()
        return info

    def get(self, step=None):
        """{name: bytes} of checkpoint `step` (default: the latest)."""
        if step is None:
            info = self.latest()
            if info is None:
                raise CheckpointError(f"no checkpoint in {self.root} yet")
            step = info["step"]
        folder = self.root / f"ckpt-{int(step):08d}"
        if not folder.is_dir():
            raise CheckpointError(f"no checkpoint for step {step} in {self.root}")
        return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}

    def steps(self):
        return sorted(int(p.name[5:]) for p in self.root.glob("ckpt-*") if p.name[5:].isdigit())

    def _prune(self):
        for step in self.steps()[:-self.keep]:
            shutil.rmtree(self.root / f"ckpt-{step:08d}", ignore_errors=True)


def _atomic_write(path, data):
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
