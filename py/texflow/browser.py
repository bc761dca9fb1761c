"""Driving headless Chromium with Pyodide and texflow from native Python (Playwright).

Used by `texflow run-browser`, the test harness and the benchmark: one
`BrowserSession` serves the runtime on 127.0.0.1, launches Debian's Chromium
with the flags that give WebGL2 and WebGPU on the software adapter, and boots
Pyodide once; callers then run any number of files or snippets in that page.
"""

import io
import os
import shutil
import sys
import time
import zipfile
from pathlib import Path

from . import assets
from .serve import Server

# Flags measured to give WebGL2 and WebGPU on SwiftShader with no GPU, and no
# connection attempts to Google services (see ENVIRONMENT.md in the team notes).
CHROMIUM_FLAGS = (
    "--no-sandbox", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader", "--enable-unsafe-webgpu", "--enable-features=Vulkan",
    "--use-vulkan=swiftshader", "--use-webgpu-adapter=swiftshader",
)
RUNNER = "/texflow/web/runner.html"


def chromium_path():
    """The Chromium executable: $TEXFLOW_CHROMIUM, else chromium on PATH."""
    explicit = os.environ.get("TEXFLOW_CHROMIUM")
    if explicit:
        return explicit
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("no Chromium found: install Debian's `chromium` (scripts/setup does) "
                       "or set TEXFLOW_CHROMIUM to a Chromium executable")


class BrowserError(RuntimeError):
    pass


class BrowserSession:
    """One headless Chromium page with Pyodide and texflow booted.

    >>> with BrowserSession() as session:          # doctest: +SKIP
    ...     session.run_file("demo.py", backend="webgl")
    0
    """

    def __init__(self, headed=False, root=None, page=RUNNER, on_output=None):
        self.headed = headed
        self.server = Server(root=root)
        self.page_path = page
        self.on_output = on_output or _write_through
        self.boot_seconds = None
        self._pw = self._browser = self.page = None
        self.page_errors = []

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    def start(self):
        from playwright.sync_api import sync_playwright

        assets.check_pyodide()
        self.server.start()
        t0 = time.perf_counter()
        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(
            executable_path=chromium_path(), headless=not self.headed, args=list(CHROMIUM_FLAGS))
        self._open_page()
        self.boot_seconds = time.perf_counter() - t0
        return self

    def reopen(self):
        """A new page in the same browser, booted again (after the page crashed: its
        renderer process is gone, so nothing of it can be reused)."""
        try:
            self.page.close()
        except Exception:  # noqa: BLE001  (a crashed page may refuse to close)
            pass
        self._open_page()

    def _open_page(self):
        self.page = self._browser.new_page()
        self.page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        self.page.on("crash", lambda *_: self.page_errors.append("the page crashed"))
        self.page.expose_function("__texflowStream", self._stream)
        self.page.goto(self.server.url + self.page_path)
        try:
            self.page.evaluate("() => texflowReady")
        except Exception as e:
            raise BrowserError(f"booting Pyodide and texflow failed: {e}") from None

    def _stream(self, stream, text):
        self.on_output(stream, text)

    def run_file(self, path, backend=None, argv=(), with_folder=True):
        """Runs Python file `path` in the page; returns its exit code.

        With `with_folder`, the file's folder is copied into Pyodide's file system
        first (see `folder_bundle`) and the file runs there.
        """
        url = self.server.add_file("script.py", str(path))
        bundle = None
        if with_folder:
            data, skipped = folder_bundle(Path(path).resolve().parent)
            for name, why in skipped:
                self.on_output("stderr", f"texflow run-browser: not copied to the browser: "
                                         f"{name} ({why})\n")
            bundle = self.server.add_file("bundle.zip", data)
        args = [os.path.basename(str(path)), *argv]
        return self.page.evaluate(
            "([url, argv, backend, bundle]) => texflowRunFile(url, argv, backend, bundle)",
            [url, args, backend, bundle])

    def evaluate(self, script, arg=None):
        return self.page.evaluate(script, arg)

    def close(self):
        for closer in (lambda: self._browser and self._browser.close(),
                       lambda: self._pw and self._pw.stop(), self.server.stop):
            try:
                closer()
            except Exception:
                pass


def show_page(url):
    """Opens `url` in a Chromium window (BrowserSession's flags); returns when it is closed."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=False,
                                     args=list(CHROMIUM_FLAGS))
        page = browser.new_page(no_viewport=True)
        page.goto(url)
        try:
            page.wait_for_event("close", timeout=0)
        except Exception:  # the browser itself was closed
            pass
        finally:
            browser.close()


_SKIP_DIRS = {"__pycache__", "node_modules", ".venv", "venv", ".git", "dist", "build"}
FILE_LIMIT = 16 << 20
FOLDER_LIMIT = 64 << 20


def folder_bundle(folder):
    """A zip of `folder` for Pyodide's file system, and what was left out and why.

    Hidden and tool folders (.git, .venv, node_modules, __pycache__, ...) are not
    copied; neither are files over 16 MB nor files past a 64 MB total.
    """
    buf = io.BytesIO()
    skipped, total = [], 0
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
            for name in sorted(files):
                path = Path(root) / name
                rel = path.relative_to(folder).as_posix()
                size = path.stat().st_size
                if size > FILE_LIMIT:
                    skipped.append((rel, f"{size >> 20} MB, over the 16 MB limit per file"))
                elif total + size > FOLDER_LIMIT:
                    skipped.append((rel, "past the 64 MB limit for the folder"))
                else:
                    total += size
                    z.write(path, rel)
    return buf.getvalue(), skipped


def _write_through(stream, text):
    out = sys.stdout if stream == "stdout" else sys.stderr
    out.write(text)
    out.flush()
