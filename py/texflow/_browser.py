"""Running user files inside Pyodide (used by `texflow run-browser`).

A file runs as `__main__` with top-level `await` allowed; SystemExit gives
its exit code and an uncaught exception prints its traceback (the user's frames,
texflow's hidden and counted) and gives 1.
With a `workdir` (where run-browser unpacked the script's folder), the file
runs there, as it would natively: sibling modules import and relative paths open.
"""

import ast
import linecache
import os
import sys
import traceback
import types


async def run_source(source, filename, argv, backend=None, workdir=None):
    """Runs `source` as a script; returns its exit code."""
    sys.argv = list(argv)
    if workdir:
        os.chdir(workdir)
        sys.path.insert(0, workdir)
        filename = os.path.join(workdir, filename)
    try:
        if backend:
            import texflow
            texflow.set_backend(backend)
        # tracebacks show the source lines even where the file is not on disk (pages)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        code = compile(source, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        module = types.ModuleType("__main__")
        module.__file__ = filename
        saved_main = sys.modules.get("__main__")
        sys.modules["__main__"] = module
        try:
            result = eval(code, module.__dict__)
            if result is not None and hasattr(result, "__await__"):
                await result
        finally:
            if saved_main is not None:
                sys.modules["__main__"] = saved_main
    except SystemExit as e:
        return _exit_code(e.code)
    except BaseException as e:
        print(user_traceback(e), end="", file=sys.stderr)
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return 0


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _format(te):
    """Lines of TracebackException `te` (and its causes) without texflow's own frames."""
    out = []
    if te.__cause__ is not None:
        out += _format(te.__cause__)
        out.append("\nThe above exception was the direct cause of the following exception:\n\n")
    elif te.__context__ is not None and not te.__suppress_context__:
        out += _format(te.__context__)
        out.append("\nDuring handling of the above exception, another exception occurred:\n\n")
    frames = [f for f in te.stack if not os.path.abspath(f.filename).startswith(_PACKAGE)]
    hidden = len(te.stack) - len(frames)
    if te.stack:
        out.append("Traceback (most recent call last):\n")
        out += traceback.StackSummary.from_list(frames).format()
        if hidden:
            out.append(f"  [{hidden} frame{'s' if hidden > 1 else ''} inside texflow hidden]\n")
    out += list(te.format_exception_only())
    return out


def user_traceback(exc):
    """The traceback of `exc` as a user reads it: the frames of their own code, a note of
    how many were inside texflow, then the error line.

    >>> print(user_traceback(error), end="")  # doctest: +SKIP
    Traceback (most recent call last):
      File "demo.py", line 3, in <module>
        x[5]
      [4 frames inside texflow hidden]
    texflow.errors.InvalidArgumentError: slice index 5 of dimension 0 out of bounds (size 3).
    """
    return "".join(_format(traceback.TracebackException.from_exception(exc)))


def _exit_code(code):
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1
