"""HTTP on the coordinator's own port: the worker page, the dashboard, the runtime, the job.

websockets' `process_request` hook answers plain GET requests before any
WebSocket handshake, so pages, Pyodide and the wheel come from the same origin
(and port) the workers connect to: one URL to share, one origin to check.

    /, /worker          the worker page (web/coordinator/worker.html)
    /dashboard          the dashboard (web/coordinator/dashboard.html)
    /texflow/...        the runtime: Pyodide, the wheel, web/, Chart.js (texflow.serve.Routes)
    /job/manifest.json  the job's script name and arguments   } need the token:
    /job/bundle.zip     the script's folder                   } `Authorization: Bearer T`
"""

import email.utils
import hmac
import http
import json
from pathlib import Path

from websockets.datastructures import Headers
from websockets.http11 import Response

from .. import serve

PAGES = {"/": "coordinator/worker.html", "/worker": "coordinator/worker.html",
         "/dashboard": "coordinator/dashboard.html"}


class Job:
    """A script every worker runs: its folder as a zip, its name and arguments."""

    def __init__(self, script, args=()):
        from ..browser import folder_bundle

        self.script = Path(script).resolve()
        if not self.script.is_file():
            raise FileNotFoundError(f"no such script: {script}")
        self.args = list(args)
        self.bundle, self.skipped = folder_bundle(self.script.parent)

    def manifest(self):
        return {"script": self.script.name, "argv": [self.script.name, *self.args],
                "bundle": "/job/bundle.zip"}


class Pages:
    """Answers HTTP requests for the coordinator (see the module docstring)."""

    def __init__(self, token, job=None, num_workers=None):
        self.token, self.job = token, job
        self.num_workers = num_workers  # the manifest's: the job's TF_CONFIG
        self.routes = serve.Routes()
        self._cache = {}

    def respond(self, path, headers):
        """A Response for GET `path`, or an error Response."""
        path = path.split("?", 1)[0].split("#", 1)[0]
        if path == "/favicon.ico":
            return response(204, b"")
        if path in PAGES:
            path = "/texflow/web/" + PAGES[path]
        if path.startswith("/job/"):
            return self._job(path, headers)
        found = self._cached(path)
        if found is None:
            return response(404, f"not found: {path}\n")
        return response(200, found, serve.content_type(path.rsplit("/", 1)[-1]))

    def _cached(self, path):
        if path.startswith("/texflow/web/") or path.startswith("/texflow/wheel"):
            found = self.routes.resolve(path)  # small, and may change while developing
            return found.read_bytes() if isinstance(found, Path) else found
        if path not in self._cache:
            found = self.routes.resolve(path)
            self._cache[path] = found.read_bytes() if isinstance(found, Path) else found
        return self._cache[path]

    def _job(self, path, headers):
        auth = headers.get("Authorization", "")
        given = auth[len("Bearer "):] if auth.startswith("Bearer ") else ""
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return response(401, "the job needs the coordinator's token "
                                 "(Authorization: Bearer TOKEN)\n")
        if self.job is None:
            return response(404, "this coordinator runs no job (start it with --script)\n")
        if path == "/job/manifest.json":
            manifest = dict(self.job.manifest(), num_workers=self.num_workers)
            return response(200, json.dumps(manifest).encode(), "application/json")
        if path == "/job/bundle.zip":
            return response(200, self.job.bundle, "application/zip")
        return response(404, f"not found: {path}\n")


def response(status, body, ctype="text/plain; charset=utf-8"):
    body = body.encode() if isinstance(body, str) else bytes(body)
    headers = Headers([("Date", email.utils.formatdate(usegmt=True)),
                       ("Connection", "close"), ("Content-Length", str(len(body))),
                       ("Content-Type", ctype), ("Cache-Control", "no-cache"),
                       ("X-Content-Type-Options", "nosniff")])
    status = http.HTTPStatus(status)
    return Response(status.value, status.phrase, headers, body)
