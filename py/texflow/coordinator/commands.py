"""`texflow coordinator` and `texflow worker` (wired into texflow.cli)."""

import asyncio
import io
import json
import logging
import os
import runpy
import sys
import tempfile
import traceback
import urllib.error
import urllib.request
import zipfile
from pathlib import Path


def add_commands(sub):
    coord = sub.add_parser(
        "coordinator", help="serve a group of browser and native workers (all-reduce, "
                            "membership, checkpoints, the worker page and dashboard)",
        usage="texflow coordinator --num-workers N [--host H] [--port P] [--token T] "
              "[--allow-origin URL ...] [--checkpoint-dir DIR] [--shards K] [--elastic] "
              "[--max-workers M] [--allow-nonfinite] [--heartbeat S] "
              "[--script FILE.py [-- ARGS]]")
    coord.add_argument("--num-workers", type=int, required=True,
                       help="workers in the group (in its first generation when elastic)")
    coord.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    coord.add_argument("--port", type=int, default=8470,
                       help="port for the pages and WebSockets (default 8470; 0: a free one)")
    coord.add_argument("--token", default=None,
                       help="join token (default: $TEXFLOW_TOKEN, else a random one)")
    coord.add_argument("--allow-origin", action="append", default=[], metavar="URL",
                       help="a page origin allowed to connect, besides the coordinator's own")
    coord.add_argument("--checkpoint-dir", default=None,
                       help="where the chief's checkpoints are kept")
    coord.add_argument("--shards", type=int, default=1,
                       help="coordinator processes sharing the reductions (default 1)")
    coord.add_argument("--elastic", action="store_true",
                       help="go on with fewer workers and admit new ones at resize()")
    coord.add_argument("--max-workers", type=int, default=None,
                       help="the most workers an elastic group admits (default 4x)")
    coord.add_argument("--allow-nonfinite", action="store_true",
                       help="pass NaN and infinity through collectives")
    coord.add_argument("--heartbeat", type=float, default=1.5,
                       help="seconds between pings (a worker is lost ~5 s after it stops "
                            "answering)")
    coord.add_argument("--script", default=None,
                       help="a Python file every browser worker runs (args after --)")
    coord.set_defaults(fn=coordinator_command, args=[])

    worker = sub.add_parser(
        "worker", help="run a Python file as a worker of a coordinator",
        usage="texflow worker --coordinator ws://HOST:PORT [--token T] [--task-id I] "
              "[FILE.py] [-- ARGS]")
    worker.add_argument("file", nargs="?", default=None,
                        help="the script (default: the coordinator's job)")
    worker.add_argument("--coordinator", default=os.environ.get("TEXFLOW_COORDINATOR"),
                        required="TEXFLOW_COORDINATOR" not in os.environ)
    worker.add_argument("--token", default=None, help="default: $TEXFLOW_TOKEN")
    worker.add_argument("--task-id", type=int, default=None, help="the rank wanted")
    worker.set_defaults(fn=worker_command, args=[])


def coordinator_command(args):
    from . import Coordinator, Job

    logging.basicConfig(level=logging.INFO, format="[coordinator] %(message)s")
    logging.getLogger("websockets").setLevel(logging.WARNING)
    problem = _bad_coordinator_args(args)
    if problem:
        print(f"texflow coordinator: {problem}", file=sys.stderr)
        return 2
    job = None
    if args.script:
        job = Job(args.script, args.args)
        for name, why in job.skipped:
            print(f"texflow coordinator: not served to workers: {name} ({why})",
                  file=sys.stderr)
    coordinator = Coordinator(
        args.num_workers, host=args.host, port=args.port,
        token=args.token or os.environ.get("TEXFLOW_TOKEN"), allow_origins=args.allow_origin,
        checkpoint_dir=args.checkpoint_dir, shards=args.shards, elastic=args.elastic,
        allow_nonfinite=args.allow_nonfinite, job=job, heartbeat=args.heartbeat,
        max_workers=args.max_workers)

    async def main():
        try:
            await coordinator.start()
        except OSError as e:  # the port is taken, or the host is not this machine's
            print(f"texflow coordinator: cannot listen on {args.host}:{args.port}: "
                  f"{e.strerror or e}", file=sys.stderr)
            await coordinator.close()
            return 2
        # With a job, a native worker needs no script: it fetches the coordinator's.
        script = "" if job else " SCRIPT.py"
        print(f"texflow coordinator: {args.num_workers} workers"
              f"{' (elastic)' if args.elastic else ''}, {args.shards} shard(s)\n"
              f"  join page:  {coordinator.join_url}\n"
              f"  dashboard:  {coordinator.origin}/dashboard#token={coordinator.token}\n"
              f"  native:     texflow worker --coordinator {coordinator.url} "
              f"--token {coordinator.token}{script}\n"
              f"  token:      {coordinator.token}", flush=True)
        try:
            await coordinator.serve_forever()
        finally:
            await coordinator.close()
        return 0

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        return 0


def _bad_coordinator_args(args):
    """What is wrong with `texflow coordinator`'s arguments (None: nothing)."""
    for flag, value, least in (("--num-workers", args.num_workers, 1),
                               ("--shards", args.shards, 1), ("--port", args.port, 0)):
        if value < least:
            return f"{flag} must be at least {least}; received {value}"
    if args.port > 65535:
        return f"--port must be at most 65535; received {args.port}"
    if not args.heartbeat > 0:
        return f"--heartbeat must be a positive number of seconds; received {args.heartbeat}"
    if args.max_workers is not None and args.max_workers < args.num_workers:
        return (f"--max-workers ({args.max_workers}) must be at least --num-workers "
                f"({args.num_workers})")
    if args.max_workers is not None and not args.elastic:
        return "--max-workers needs --elastic (a fixed group has exactly --num-workers)"
    if args.args and not args.script:
        return f"arguments after -- need --script; received {args.args}"
    if args.script and not Path(args.script).is_file():
        return f"no such script: {args.script}"
    return None


def worker_command(args):
    token = args.token or os.environ.get("TEXFLOW_TOKEN")
    if not token:
        print("texflow worker: no token (pass --token or set TEXFLOW_TOKEN)", file=sys.stderr)
        return 2
    url = args.coordinator
    os.environ["TEXFLOW_COORDINATOR"] = url
    os.environ["TEXFLOW_TOKEN"] = token
    if args.task_id is not None:
        os.environ["TEXFLOW_TASK_ID"] = str(args.task_id)
    if args.file is None:
        if args.args:
            print(f"texflow worker: arguments after -- need FILE.py (the coordinator's job "
                  f"brings its own); received {args.args}", file=sys.stderr)
            return 2
        try:
            script, argv, num_workers = _fetch_job(url, token)
        except JobUnavailable as e:
            print(f"texflow worker: {e}", file=sys.stderr)
            return 2
        # The tutorials read TF_CONFIG before making their strategy: give them one.
        from ..distribute.cluster_resolver import set_job_tf_config
        set_job_tf_config(num_workers)
    else:
        script, argv = Path(args.file).resolve(), [args.file, *args.args]
        if not script.is_file():
            print(f"texflow worker: no such file: {args.file}", file=sys.stderr)
            return 2
    sys.argv = list(argv)
    sys.path.insert(0, str(script.parent))
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


class JobUnavailable(Exception):
    """The coordinator's job cannot be fetched; the message says why."""


def _fetch_job(url, token):
    """Downloads the coordinator's job (its --script and folder) into a temporary folder."""
    base = "http" + url[2:].split("/ws", 1)[0] if url.startswith("ws") else url
    headers = {"Authorization": f"Bearer {token}"}

    def get(path):
        try:
            with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers),
                                        timeout=60) as r:
                return r.read()
        except urllib.error.HTTPError as e:  # the body says why (wrong token, no job)
            why = e.read().decode(errors="replace").strip() or e.reason
            raise JobUnavailable(f"{base}{path}: HTTP {e.code}: {why}") from None
        except (urllib.error.URLError, OSError) as e:
            raise JobUnavailable(f"cannot reach the coordinator at {base}: "
                                 f"{getattr(e, 'reason', e)}") from None

    manifest = json.loads(get("/job/manifest.json"))
    folder = Path(tempfile.mkdtemp(prefix="texflow-job-"))
    with zipfile.ZipFile(io.BytesIO(get(manifest["bundle"]))) as z:
        for member in z.namelist():  # never outside the folder
            target = (folder / member).resolve()
            if not target.is_relative_to(folder.resolve()):
                raise RuntimeError(f"the job's bundle names a path outside it: {member}")
        z.extractall(folder)
    os.chdir(folder)
    return folder / manifest["script"], manifest["argv"], manifest.get("num_workers")
