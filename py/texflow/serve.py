"""A small HTTP server on 127.0.0.1 for pages, the texflow runtime and Pyodide.

Routes:
  /texflow/pyodide/*   the pinned Pyodide interpreter and wheels (assets cache)
  /texflow/tfjs/*      TensorFlow.js, for the benchmark (assets cache)
  /texflow/vendor/*    page libraries: chart.umd.min.js (Chart.js, assets cache)
  /texflow/web/*       texflow's JS runtime and pages (web/)
  /texflow/wheel/*     texflow's wheel, built from the running package
  /texflow/files/*     files registered by the caller (run-browser's script)
  /texflow/datasets/*  datasets converted by set-up (MNIST), from the assets cache
  everything else      the served root (demos/ by default)

The standard library's http.server is enough here: a handful of large static
files and small requests, all on loopback. Byte ranges (`Range: bytes=a-b`)
are answered with 206 Partial Content, so the browser can stream data files
with synchronous range requests (texflow.data.browser_io).

Every answer makes its page cross-origin isolated (Cross-Origin-Opener-Policy
same-origin, Cross-Origin-Embedder-Policy credentialless: a page of yours may still
load scripts and images from other origins, fetched without cookies, where
require-corp would block those lacking a Cross-Origin-Resource-Policy; everything
served here may be embedded: CORP cross-origin). Chromium's clock
(`performance.now()`, and so Python's `time.perf_counter()` in Pyodide) then ticks
in 5 us steps instead of 100 us, which the benchmarks' per-call times need.
"""

import http.server
import mimetypes
import posixpath
import threading
import urllib.parse
from pathlib import Path

from . import assets, resources, wheel

_TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript",
          ".whl": "application/octet-stream", ".json": "application/json",
          ".py": "text/x-python", ".html": "text/html; charset=utf-8",
          ".zip": "application/zip", ".css": "text/css"}


class Routes:
    """What `Server` answers for a URL path, without a socket: the coordinator
    (texflow.coordinator) serves the same runtime routes on its own port."""

    def __init__(self, root=None):
        self.root = Path(root).resolve() if root else None
        self.files = {}

    def add_file(self, name, data):
        """Serves `data` (bytes or a path) at /texflow/files/<name>; returns its URL path."""
        self.files[name] = data
        return f"/texflow/files/{name}"

    def resolve(self, path):
        """(bytes or Path or None) for URL path `path`."""
        path = posixpath.normpath(urllib.parse.unquote(path))
        if ".." in path.split("/"):
            return None
        if path.startswith("/texflow/"):
            kind, _, rest = path[len("/texflow/"):].partition("/")
            if kind == "wheel":
                name, data = wheel.build()
                return data if rest in (name, "") else None
            if kind == "wheel.json":
                return f'{{"wheel": "/texflow/wheel/{wheel.build()[0]}"}}'.encode()
            if kind == "files":
                data = self.files.get(rest)
                return Path(data) if isinstance(data, (str, Path)) else data
            base = {"pyodide": assets.pyodide_dir, "tfjs": assets.tfjs_dir,
                    "datasets": assets.datasets_dir, "vendor": assets.vendor_dir,
                    "web": lambda: resources.asset_dir("web")}.get(kind)
            return _file_under(base(), rest) if base else None
        if self.root is None:
            return None
        target = _file_under(self.root, path.lstrip("/"))
        if target is None and (self.root / path.lstrip("/")).is_dir():
            index = self.root / path.lstrip("/") / "index.html"
            return index if index.is_file() else _listing(self.root, path)
        return target


def content_type(name):
    """The Content-Type header for a file called `name`."""
    return _TYPES.get(Path(name).suffix) or mimetypes.guess_type(name)[0] \
        or "text/html; charset=utf-8"


class Server(Routes):
    """Serves `root` and texflow's runtime; `start()` runs it in a thread."""

    def __init__(self, root=None, port=0, host="127.0.0.1", quiet=True):
        super().__init__(root)
        self.quiet = quiet
        self.httpd = http.server.ThreadingHTTPServer((host, port), self._handler())
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://{host}:{self.port}"
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self):
        self.httpd.serve_forever()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handler(self):
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                path = urllib.parse.urlsplit(self.path).path
                if not path.endswith("/") and server.root and \
                        (server.root / path.lstrip("/")).is_dir():
                    self.send_response(301)
                    self.send_header("Location", path + "/")
                    self.end_headers()
                    return
                found = server.resolve(path)
                if found is None:
                    self.send_error(404, f"not found: {path}")
                    return
                data = found.read_bytes() if isinstance(found, Path) else found
                name = found.name if isinstance(found, Path) else posixpath.basename(path)
                ctype = content_type(name)
                status, body, extra = _byte_range(self.headers.get("Range"), data)
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Accept-Ranges", "bytes")
                for key, value in extra.items():
                    self.send_header(key, value)
                self.send_header("Cache-Control", "no-cache")
                # cross-origin isolation: a 5 us clock (module docstring)
                self.send_header("Cross-Origin-Opener-Policy", "same-origin")
                self.send_header("Cross-Origin-Embedder-Policy", "credentialless")
                self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            do_HEAD = do_GET

            def log_message(self, fmt, *args):
                if not server.quiet:
                    super().log_message(fmt, *args)

        return Handler


def _byte_range(header, data):
    """(status, body, extra headers) for an optional `Range: bytes=a-b` request header."""
    total = len(data)
    if not header or not header.startswith("bytes=") or "," in header:
        return 200, data, {}
    first, _, last = header[len("bytes="):].strip().partition("-")
    try:
        if first:
            start = int(first)
            end = min(int(last), total - 1) if last else total - 1
        else:  # the last N bytes
            start, end = max(0, total - int(last)), total - 1
    except ValueError:
        return 200, data, {}
    if start >= total or start > end:
        return 416, b"", {"Content-Range": f"bytes */{total}"}
    return 206, data[start:end + 1], {"Content-Range": f"bytes {start}-{end}/{total}"}


def _file_under(base, rel):
    target = (Path(base) / rel).resolve()
    if not target.is_relative_to(Path(base).resolve()) or not target.is_file():
        return None
    return target


def _listing(root, path):
    folder = root / path.lstrip("/")
    items = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir()
                   if not p.name.startswith((".", "__")))
    links = "".join(f'<li><a href="{urllib.parse.quote(i)}">{i}</a></li>' for i in items)
    return (f"<!doctype html><title>texflow: {path}</title><h1>texflow demos: {path}</h1>"
            f"<ul>{links}</ul>").encode()
