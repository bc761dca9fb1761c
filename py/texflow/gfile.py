"""`tf.io.gfile`: file-system functions with TensorFlow's names and errors.

Local paths only (natively, and inside Pyodide's file system in the browser).
Errors are TensorFlow's: NotFoundError for a missing path, AlreadyExistsError
when a rename or copy would overwrite without `overwrite=True`.
"""

import glob as _glob
import os
import shutil

from .checkpoint.atomic import changed
from .errors import AlreadyExistsError, FailedPreconditionError, NotFoundError

__all__ = ["GFile", "copy", "exists", "glob", "isdir", "join", "listdir", "makedirs", "mkdir",
           "remove", "rename", "rmtree", "stat", "walk"]


def exists(path):
    """Whether `path` exists (a file or a directory)."""
    return os.path.exists(path)


def isdir(path):
    """Whether `path` is a directory."""
    return os.path.isdir(path)


def makedirs(path):
    """Creates `path` and any missing parents; an existing directory is fine."""
    os.makedirs(path, exist_ok=True)


def mkdir(path):
    """Creates the directory `path` (its parent must exist)."""
    try:
        os.mkdir(path)
    except FileExistsError:
        if not os.path.isdir(path):
            raise AlreadyExistsError(f"{path}; a file of this name exists") from None
    except FileNotFoundError:
        raise NotFoundError(f"{path}; its parent directory does not exist") from None


def listdir(path):
    """The names in directory `path` (not full paths), sorted."""
    if not os.path.isdir(path):
        raise NotFoundError(f"Could not find directory {path}")
    return sorted(os.listdir(path))


def glob(pattern):
    """The paths matching `pattern` (`*`, `?`, `[...]`), sorted."""
    return sorted(_glob.glob(pattern))


def remove(path):
    """Deletes the file `path`."""
    if os.path.isdir(path):
        raise FailedPreconditionError(f"{path}; Is a directory")
    try:
        os.remove(path)
    except FileNotFoundError:
        raise NotFoundError(f"{path}; No such file or directory") from None
    changed(path)


def rmtree(path):
    """Deletes the directory `path` and everything in it."""
    if not os.path.exists(path):
        raise NotFoundError(f"{path} not found")
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.remove(path)
    changed(path)


def rename(src, dst, overwrite=False):
    """Renames `src` to `dst` (atomically on one file system).

    Raises AlreadyExistsError if `dst` exists and `overwrite` is False.
    """
    if not os.path.exists(src):
        raise NotFoundError(f"{src}; No such file or directory")
    if os.path.exists(dst) and not overwrite:
        raise AlreadyExistsError(f"file already exists: {dst}")
    os.replace(src, dst)
    changed(dst)


def copy(src, dst, overwrite=False):
    """Copies the file `src` to `dst`, atomically (the copy appears whole or not at all)."""
    from .checkpoint.atomic import atomic_write
    if not os.path.isfile(src):
        raise NotFoundError(f"{src}; No such file or directory")
    if os.path.exists(dst) and not overwrite:
        raise AlreadyExistsError(f"file already exists: {dst}")
    with open(src, "rb") as fin, atomic_write(dst) as fout:
        shutil.copyfileobj(fin, fout, 1 << 20)


class FileStatistics:
    """`stat` result: `length` (bytes), `mtime_nsec`, `is_directory`."""

    def __init__(self, length, mtime_nsec, is_directory):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory

    def __repr__(self):
        return (f"FileStatistics(length={self.length}, mtime_nsec={self.mtime_nsec}, "
                f"is_directory={self.is_directory})")


def stat(path):
    """The size, modification time and kind of `path`."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise NotFoundError(f"{path}; No such file or directory") from None
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(path))


def walk(top, topdown=True, onerror=None):
    """(directory, subdirectory names, file names) for `top` and every directory below."""
    for directory, dirs, files in os.walk(top, topdown=topdown, onerror=onerror):
        dirs.sort()
        yield directory, dirs, sorted(files)


def join(path, *paths):
    """`os.path.join` (TensorFlow's gfile.join)."""
    return os.path.join(path, *paths)


def GFile(name, mode="r"):  # noqa: N802  (TensorFlow's name)
    """Opens `name` like `open` (text mode unless `mode` has 'b')."""
    try:
        return open(name, mode)
    except FileNotFoundError:
        raise NotFoundError(f"{name}; No such file or directory") from None


Open = GFile
