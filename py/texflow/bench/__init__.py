"""`texflow bench`: texflow against TensorFlow.js 4.22 in ONE headless Chromium run,
and the native numpy backend against plain numpy, as tables of ratios; Keras `fit` of
the MNIST CNN against tfjs-layers and TensorFlow Keras (bench/fit.py).

A benchmark, not a test: it prints what it measured and the targets next to it.
"""

import json
import platform
import sys
import time
from pathlib import Path

from . import cases, compiled, fit

TARGETS = {  # (backend, case) -> (minimum speed-up over the reference, label)
    ("webgl", "matmul 512"): (1.0, ">= 1x tfjs"),
    ("webgl", "matmul 1024"): (1.0, ">= 1x tfjs"),
    ("webgpu", "matmul 1024"): (2.0, ">= 2x tfjs"),
    ("webgl", "conv2d forward+backward"): (1 / 1.5, "within 1.5x of tfjs"),
}
DISPATCH_TARGET_US = 25.0
NUMPY_TARGET = 1.2  # texflow's numpy backend within 1.2x of plain numpy on matmul 512
FIT_BROWSER_TARGET = (0.5, "<= 0.5x tfjs-layers")  # a fit step's time, texflow / tfjs
FIT_NATIVE_TARGET = (1.5, "<= 1.5x Keras")  # numpy backend / TensorFlow Keras


def _fmt(ms):
    return f"{ms:9.3f}" if ms < 10 else f"{ms:9.1f}"


def _browser_tables(backends, quick, out, wanted):
    from ..browser import BrowserSession

    rows, fit_rows, compiled_rows = {}, {}, {}
    with BrowserSession(on_output=lambda stream, text: sys.stderr.write(text)) as session:
        page = session.page
        page.add_script_tag(url="/texflow/tfjs/tf.min.js")
        page.add_script_tag(url="/texflow/tfjs/tf-backend-webgpu.min.js")
        page.add_script_tag(url="/texflow/web/bench_tfjs.js")
        page.add_script_tag(url="/texflow/web/bench_tfjs_fit.js")
        out.append("")
        out.append(f"browser: Chromium {session._browser.version} (headless, software GPU)")
        for backend in backends:
            if "fit" in wanted:
                fit_rows[backend] = fit.measure_browser(page, backend, quick)
                _fit_progress(f"fit on {backend}", "tfjs-layers", fit_rows[backend])
            if "compiled" in wanted:
                print(f"[bench] eager vs tf.function on {backend} ...", file=sys.stderr,
                      flush=True)
                compiled_rows[backend] = compiled.measure_browser(page, backend, quick)
            if "ops" not in wanted:
                continue
            print(f"[bench] TensorFlow.js on {backend} ...", file=sys.stderr, flush=True)
            ref = page.evaluate("([b, q]) => texflowBenchTfjs(b, q)", [backend, quick])
            print(f"[bench] texflow on {backend} ...", file=sys.stderr, flush=True)
            mine = json.loads(page.evaluate(
                "async ([b, q]) => await pyodide.runPythonAsync(`"
                "import json\nfrom texflow.bench.cases import measure_texflow\n"
                "json.dumps(await measure_texflow('${b}', ${q ? 'True' : 'False'}))`)",
                [backend, quick]))
            rows[backend] = (mine, ref)
    return rows, fit_rows, compiled_rows


def _print_browser(rows, out):
    for backend, (mine, ref) in rows.items():
        out.append("")
        out.append(f"texflow vs TensorFlow.js 4.22, backend {backend} (ms, readback included; "
                   "speed-up = tfjs / texflow)")
        out.append("")
        out.append("| case | texflow | tfjs | speed-up | target |")
        out.append("|---|---:|---:|---:|---|")
        for case, ms in mine.items():
            speedup = ref[case] / ms if ms else float("inf")
            target = ""
            if (backend, case) in TARGETS:
                need, label = TARGETS[(backend, case)]
                target = f"{label}: {'met' if speedup >= need else 'NOT met'}"
            if case == cases.TINY_ISSUE:
                target = (f"< {DISPATCH_TARGET_US:.0f} us: "
                          f"{'met' if ms < DISPATCH_TARGET_US else 'NOT met'}")
            out.append(f"| {case} | {_fmt(ms)} | {_fmt(ref[case])} | {speedup:6.2f}x "
                       f"| {target} |")
        out.append("")
        out.append("TensorFlow.js runs ops on small arrays still on the host on its CPU backend "
                   "(WEBGL_CPU_FORWARD / WEBGPU_CPU_FORWARD), so its tiny-op figures measure "
                   "that path, not GPU launches.")


def _print_numpy(results, out):
    out.append("")
    out.append("texflow numpy backend vs plain numpy, native (ms; ratio = texflow / numpy)")
    out.append("")
    out.append("| case | texflow numpy | plain numpy | ratio | target |")
    out.append("|---|---:|---:|---:|---|")
    for case, (mine, ref) in results.items():
        ratio = mine / ref
        target = ""
        if case == "matmul 512":
            target = f"<= {NUMPY_TARGET}x: {'met' if ratio <= NUMPY_TARGET else 'NOT met'}"
        out.append(f"| {case} | {_fmt(mine)} | {_fmt(ref)} | {ratio:5.2f}x | {target} |")


def _native_wgpu(quick, out):
    """The browser tables' cases on the wgpu backend against the numpy backend, both
    native, in one process: what the same WGSL kernels do on this machine's adapter
    (named in the title: a GPU, or a CPU rasterizer such as llvmpipe)."""
    import asyncio

    import texflow as tf
    from ..backends.wgpu import _adapter

    if "wgpu" not in tf.available_backends():
        out.append("")
        out.append("(backend wgpu is not available here: its native table skipped)")
        return
    info = _adapter().info
    print("[bench] texflow wgpu and numpy natively ...", file=sys.stderr, flush=True)
    mine = asyncio.run(cases.measure_texflow("wgpu", quick))
    ref = asyncio.run(cases.measure_texflow("numpy", quick))
    out.append("")
    out.append(f"texflow wgpu backend vs texflow numpy backend, native; adapter "
               f"{info['device']} ({info['adapter_type']}, {info['backend_type']}) "
               f"(ms, readback included; speed-up = numpy / wgpu)")
    out.append("")
    out.append("| case | texflow wgpu | texflow numpy | speed-up |")
    out.append("|---|---:|---:|---:|")
    for case, ms in mine.items():
        speedup = ref[case] / ms if ms else float("inf")
        out.append(f"| {case} | {_fmt(ms)} | {_fmt(ref[case])} | {speedup:6.2f}x |")


def _print_fit(title, reference, rows, target, out):
    """A table of the `fit` cases: rows {case: (texflow ms, reference ms)}."""
    need, label = target
    out.append("")
    out.append(title)
    out.append("")
    out.append(f"| case | texflow | {reference} | ratio | target |")
    out.append("|---|---:|---:|---:|---|")
    for case, (mine, ref) in rows.items():
        ratio = mine / ref
        met = f"{label}: {'met' if ratio <= need else 'NOT met'}" if case == fit.FIT_STEP else ""
        out.append(f"| {case} | {_fmt(mine)} | {_fmt(ref)} | {ratio:5.2f}x | {met} |")


def _fit_progress(what, reference, rows):
    """Each fit case's figures on stderr as soon as measured: a long run stopped early
    still shows what it had measured (the tables come at the end)."""
    for case, (mine, ref) in rows.items():
        print(f"[bench] {what}: {case}: texflow {mine:.1f}, {reference} {ref:.1f} "
              f"({mine / ref:.2f}x)", file=sys.stderr, flush=True)


def _native_fit(args, out):
    """texflow's numpy backend against TensorFlow Keras run by `args.tf_python`."""
    import subprocess

    python = args.tf_python or sys.executable
    found = subprocess.run([python, "-c", "import tensorflow"], capture_output=True)
    if found.returncode != 0:
        out.append("")
        out.append(f"(fit against TensorFlow Keras skipped: TensorFlow is not importable by "
                   f"{python}; pass --tf-python /path/to/tf-venv/bin/python)")
        return
    print("[bench] fit natively: texflow numpy and TensorFlow Keras ...", file=sys.stderr,
          flush=True)
    rows, version = fit.measure_native(python, 1 if args.quick else 3, epoch=not args.quick)
    _fit_progress("fit natively", "TensorFlow Keras", rows)
    _print_fit(f"texflow numpy backend vs TensorFlow {version} Keras, native: `fit` of the "
               f"MNIST CNN (ms; ratio = texflow / Keras, lower is better)",
               "TensorFlow Keras", rows, FIT_NATIVE_TARGET, out)


def main(args):
    if getattr(args, "collective", False):
        from .collective import main as collective_main
        return collective_main(args)
    if getattr(args, "multiworker", False):
        from .multiworker import main as multiworker_main
        return multiworker_main(args)
    backends = [b for b in args.backends.split(",") if b]
    unknown = [b for b in backends if b not in ("webgl", "webgpu")]
    if unknown:
        raise SystemExit(f"texflow bench: --backends takes the browser backends webgl and "
                         f"webgpu (numpy and wgpu run natively in every bench; --backends '' "
                         f"runs only those), received {args.backends!r}")
    wanted = {c for c in args.cases.split(",") if c}
    if not wanted or wanted - {"ops", "fit", "compiled"}:
        raise SystemExit(f"texflow bench: --cases takes ops, fit, compiled or several, "
                         f"received {args.cases!r}")
    out = [f"texflow bench, {time.strftime('%Y-%m-%d %H:%M')}, {platform.machine()}, "
           f"{platform.python_implementation()} {platform.python_version()}"]
    if "ops" in wanted:
        _print_numpy(cases.measure_numpy_native(args.quick), out)
        _native_wgpu(args.quick, out)
    if "fit" in wanted:
        _native_fit(args, out)
    if "compiled" in wanted:
        print("[bench] eager vs tf.function natively ...", file=sys.stderr, flush=True)
        compiled.measure_native(("numpy", "wgpu"), args.quick, out)
    if backends:
        rows, fit_rows, compiled_rows = _browser_tables(backends, args.quick, out, wanted)
        _print_browser(rows, out)
        for backend, fit_row in fit_rows.items():
            _print_fit(f"texflow vs TensorFlow.js 4.22 tfjs-layers, backend {backend}: `fit` "
                       f"of the MNIST CNN (ms; ratio = texflow / tfjs, lower is better)",
                       "tfjs-layers", fit_row, FIT_BROWSER_TARGET, out)
        for backend, compiled_row in compiled_rows.items():
            compiled.table(backend, compiled_row, out)
    report(out, "bench")
    return 0


def report(lines, name):
    """Prints the tables and keeps a copy in bench-results/<name>-<time>.md."""
    text = "\n".join(lines)
    print(text)
    folder = Path("bench-results")
    folder.mkdir(exist_ok=True)
    (folder / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}.md").write_text(text + "\n")
