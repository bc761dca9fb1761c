"""Backend targets for tests: `--backend numpy,wgpu,webgl,webgpu,pyodide-numpy` (default all).

Browser targets share one headless Chromium page for the whole session.
"""

import asyncio
import concurrent.futures
import inspect
import json
import logging
from pathlib import Path

import pytest

import harness

TESTS = Path(__file__).resolve().parent


def pytest_addoption(parser):
    parser.addoption("--backend", default="all",
                     help="comma-separated targets among " + ", ".join(harness.ALL_TARGETS))


def _selected(config):
    value = config.getoption("--backend")
    if value == "all":
        return list(harness.ALL_TARGETS), False
    names = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [n for n in names if n not in harness.ALL_TARGETS]
    if unknown:
        raise pytest.UsageError(f"unknown --backend {unknown}; choose from {harness.ALL_TARGETS}")
    return names, True


def pytest_generate_tests(metafunc):
    if "target" in metafunc.fixturenames:
        names, _ = _selected(metafunc.config)
        metafunc.parametrize("target", names, indirect=True, ids=names)


class NativeTarget:
    def __init__(self, name):
        self.name = name

    def call(self, body, kwargs):
        import texflow as tf

        tf.set_backend(self.name)
        result = body(**kwargs)
        if inspect.isawaitable(result):
            # Playwright's sync API keeps an event loop running in this thread.
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                pool.submit(asyncio.run, result).result()


class BrowserTarget:
    def __init__(self, name, session):
        self.name = name
        self.backend = harness.BROWSER_TARGETS[name]
        self.session = session

    def call(self, body, kwargs):
        module = self.session.load_test_module(inspect.getsourcefile(body))
        try:
            error = self.session.page.evaluate(
                "async ([m, f, kw, b]) => await pyodide.pyimport('harness').remote_call("
                "m, f, kw, b)", [module, body.__name__, json.dumps(kwargs), self.backend])
        except Exception as e:
            if "crashed" not in str(e):
                raise
            # The renderer process died: this test fails, and the tests after it get a
            # new page instead of failing one by one against the dead one.
            self.session.reopen()
            pytest.fail(f"[{self.name}] the browser page crashed during this test ({e}); "
                        "the page was opened again for the tests after it", pytrace=False)
        if error:
            pytest.fail(f"[{self.name}, inside Pyodide]\n{error}", pytrace=False)


class TestSession:
    """The shared browser page, with the test helper modules written into Pyodide's FS."""

    DIR = "/texflow_tests"

    def __init__(self):
        from texflow.browser import BrowserSession

        self.browser = BrowserSession().start()
        self.page = self.browser.page
        self.prepare()

    def prepare(self):
        """Writes the test helpers into Pyodide's file system (again after a reload)."""
        self.loaded = set()
        self.page.evaluate(f"""() => {{
            pyodide.FS.mkdirTree('{self.DIR}');
            pyodide.runPython("import sys; sys.path.insert(0, '{self.DIR}')");
        }}""")
        for helper in sorted(TESTS.glob("*.py")):
            if helper.name != "conftest.py":
                self._write(helper)
        # data the helpers read, at the same path relative to them (tfdiff fixtures)
        for data in sorted((TESTS / "data" / "tfdiff").glob("*.json")):
            self._write(data, data.relative_to(TESTS).as_posix())

    def _write(self, path, relative=None):
        target = f"{self.DIR}/{relative or Path(path).name}"
        self.page.evaluate("([p, text]) => { pyodide.FS.mkdirTree(p.slice(0, p.lastIndexOf('/')));"
                           " pyodide.FS.writeFile(p, text); }", [target, Path(path).read_text()])

    def load_test_module(self, path):
        name = Path(path).stem
        if name not in self.loaded:
            self._write(path)
            self.page.evaluate("() => pyodide.runPython('import importlib; "
                               "importlib.invalidate_caches()')")
            self.loaded.add(name)
        return name

    def reopen(self):
        """A new page after a crash, with the helpers written again."""
        self.browser.reopen()
        self.page = self.browser.page
        self.prepare()

    def close(self):
        self.browser.close()


@pytest.fixture(scope="session")
def browser_session():
    session = TestSession()
    yield session
    session.close()


def _wgpu_unavailable():
    from texflow.engine import context
    return context.unavailable_reason("wgpu")


@pytest.fixture
def target(request):
    name = request.param
    if name in harness.BROWSER_TARGETS:
        return BrowserTarget(name, request.getfixturevalue("browser_session"))
    if name == "wgpu":
        reason = _wgpu_unavailable()
        if reason is not None:
            _, explicit = _selected(request.config)
            if explicit:
                pytest.fail(f"--backend wgpu was requested but it is unavailable: {reason}")
            pytest.skip(f"wgpu backend unavailable here: {reason}")
    return NativeTarget(name)


@pytest.fixture(scope="session")
def demo_server():
    """demos/ served on 127.0.0.1 with the texflow runtime."""
    from texflow.serve import Server

    server = Server(root=TESTS.parent / "demos").start()
    yield server
    server.stop()


@pytest.fixture
def page(browser_session):
    """A fresh page in the shared headless Chromium."""
    page = browser_session.browser._browser.new_page()
    yield page
    page.close()


@pytest.fixture
def log_levels():
    """`log_levels({"websockets": logging.WARNING})` sets loggers' levels for one test only.

    A level left raised outlives the test: a later test's `caplog.at_level(WARNING)` sets
    the root's level, not the raised logger's, and sees nothing from it.
    """
    saved = {}

    def set_levels(levels):
        for name, level in levels.items():
            logger = logging.getLogger(name)
            saved.setdefault(name, logger.level)
            logger.setLevel(level)

    yield set_levels
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)
