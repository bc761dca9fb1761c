"""The `texflow` command: run-browser, serve, setup-browser, bench, coordinator, worker."""

import argparse
import sys
from pathlib import Path


def _run_browser(args):
    from .browser import BrowserSession

    script = Path(args.file)
    if not script.is_file():
        print(f"texflow run-browser: no such file: {script}", file=sys.stderr)
        return 2
    with BrowserSession(headed=args.headed, root=script.parent) as session:
        code = session.run_file(script, backend=args.backend, argv=args.args)
        for error in session.page_errors:
            print(f"texflow run-browser: page error: {error}", file=sys.stderr)
    return code


def _serve(args):
    from . import assets
    from .serve import Server

    root = Path(args.root) if args.root else (Path("demos") if Path("demos").is_dir() else None)
    server = Server(root=root, port=args.port, host=args.host, quiet=False)
    if not assets.pyodide_ready():
        print("texflow serve: Pyodide is not set up yet; run `texflow setup-browser` first",
              file=sys.stderr)
    print(f"texflow: serving {root or 'the runtime only'} at {server.url}/ "
          f"(runner: {server.url}/texflow/web/runner.html)", flush=True)
    try:
        if args.open is not None:
            from .browser import show_page

            url = server.url + "/" + args.open.lstrip("/")
            server.start()
            print(f"texflow: opening {url} in Chromium; close the window to stop", flush=True)
            show_page(url)
            server.stop()
        else:
            server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def _setup_browser(args):
    from . import assets

    assets.setup(tfjs=not args.no_tfjs)
    return 0


def _bench(args):
    from .bench import main as bench_main

    return bench_main(args)


def main(argv=None):
    from . import __version__

    parser = argparse.ArgumentParser(prog="texflow", description=__doc__)
    parser.add_argument("--version", action="version", version=f"texflow {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run-browser", usage="texflow run-browser FILE.py [--backend B] "
                         "[--headed] [-- ARGS...]",
                         help="run a Python file inside Pyodide in headless Chromium with "
                              "texflow installed")
    run.add_argument("file")
    run.add_argument("--backend", choices=["webgl", "webgpu", "numpy"], default=None,
                     help="backend selected before the file runs (default: the best available)")
    run.add_argument("--headed", action="store_true", help="show the browser window")
    run.set_defaults(fn=_run_browser, args=[])

    serve = sub.add_parser("serve", help="serve demos/ and the runtime on 127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--root", default=None, help="folder to serve (default: ./demos)")
    serve.add_argument("--open", default=None, metavar="PATH",
                       help="open this page (e.g. /mnist/) in a Chromium window and serve "
                            "until the window is closed")
    serve.set_defaults(fn=_serve)

    setup = sub.add_parser("setup-browser", help="fetch and verify Pyodide (and TensorFlow.js "
                                                 "for the benchmark) into the cache")
    setup.add_argument("--no-tfjs", action="store_true")
    setup.set_defaults(fn=_setup_browser)

    bench = sub.add_parser("bench", help="benchmark texflow against TensorFlow.js and numpy")
    bench.add_argument("--backends", default="webgl,webgpu",
                       help="browser backends (webgl, webgpu; '' for native only)")
    bench.add_argument("--quick", action="store_true", help="fewer repetitions")
    bench.add_argument("--cases", default="ops,fit,compiled",
                       help="ops (single ops), fit (Keras fit of the MNIST CNN), compiled "
                            "(eager vs tf.function), comma-separated")
    bench.add_argument("--tf-python", default=None, metavar="PYTHON",
                       help="an interpreter with TensorFlow: the native Keras side of the fit "
                            "cases (default: this one, if it can import tensorflow), and with "
                            "--collective, MultiWorkerMirroredStrategy's all-reduce")
    bench.add_argument("--collective", action="store_true",
                       help="all-reduce through the coordinator instead (native and browser "
                            "workers, against raw websockets and TensorFlow)")
    bench.add_argument("--multiworker", action="store_true",
                       help="the MNIST CNN trained by 1, 2 and 4 native and 2 browser workers "
                            "through the coordinator: step time, samples/s, all-reduce share, "
                            "recovery after a kill (and TensorFlow MWMS with --tf-python)")
    bench.add_argument("--workers", default=None,
                       help="native group sizes (default: 2,4,8 with --collective, 1,2,4 "
                            "with --multiworker)")
    bench.add_argument("--no-browser", action="store_true",
                       help="with --collective or --multiworker: skip the browser workers")
    bench.set_defaults(fn=_bench)

    from .coordinator.commands import add_commands
    add_commands(sub)

    argv = list(sys.argv[1:] if argv is None else argv)
    script_args = []
    if "--" in argv:  # everything after `--` belongs to the script
        cut = argv.index("--")
        argv, script_args = argv[:cut], argv[cut + 1:]
    args = parser.parse_args(argv)
    if args.command in ("run-browser", "coordinator", "worker"):
        args.args = script_args
    elif script_args:
        parser.error(f"unexpected arguments after --: {script_args}")
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
