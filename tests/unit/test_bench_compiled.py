"""`texflow bench --cases compiled` without a browser: the table's Python columns and the
clock that splits a call's time into Python's and JavaScript's (bench/js_clock.py)."""

import time
from types import SimpleNamespace

import pytest

from texflow.bench import compiled
from texflow.bench.js_clock import JsClock


def test_table_gives_python_columns_in_the_browser_and_dashes_natively():
    rows = {compiled.MLP_CASE: {"eager": [40.0, 12.0, 107, 8.0],
                                "compiled": [20.0, 1.5, 38, 0.6]}}
    out = []
    compiled.table("webgl", rows, out)
    head = out[3].split(" | ")
    assert head[6:9] == ["eager Python", "compiled Python", "Python compiled / eager"]
    assert out[5].startswith(f"| {compiled.MLP_CASE} | 40.000 | 20.000 | 2.00x | 12.000 | "
                             "1.500 | 8.000 | 0.600 | 8% | 107 -> 38 | compiled <= 0.5x")
    assert out[5].endswith("Pyodide: compiled Python < 10% of eager's |")
    out = []
    compiled.table("numpy (native)", {compiled.MLP_CASE: {
        "eager": (7.0, 7.0, 102, None), "compiled": (3.5, 3.5, 33, None)}}, out)
    assert "| 7.000 | 3.500 | - | - | - | 102 -> 33 |" in out[5]
    assert len(out[5].split("|")) == len(out[3].split("|"))


def _fake_webgl(calls):
    def js_fn(name, seconds=0.0):
        def fn(*args):
            calls.append((name, args))
            time.sleep(seconds)
            return name
        return fn
    js = SimpleNamespace(launch=js_fn("launch"), launchList=js_fn("launchList", 0.002),
                         deleteTexture=js_fn("deleteTexture"), maxDrawBuffers=8)
    pool = SimpleNamespace(_create=js_fn("createTexture"), _delete=js.deleteTexture)
    return SimpleNamespace(name="webgl", js=js, _launch=js.launch, _many=js, pool=pool,
                           _delete_texture=pool._delete)


def test_clock_times_every_way_into_js_and_puts_the_backend_back():
    calls = []
    be = _fake_webgl(calls)
    before = dict(vars(be)), dict(vars(be.pool))
    clock = JsClock(be)
    with clock:
        clock.reset()
        assert be._launch(1, 2) == "launch" and be._many.launch(3) == "launch"
        assert be.js.launchList([4]) == "launchList" and be.js.maxDrawBuffers == 8
        be.pool._create(5), be.pool._delete(6), be._delete_texture(7)
        assert clock.calls == 6 and clock.seconds >= 0.002  # launchList sleeps 2 ms
        total_ms = (clock.seconds + 6 * clock.overhead) * 1e3 + 1.0
        assert clock.python_ms(total_ms) == pytest.approx(1.0)
    assert [name for name, _ in calls] == ["launch", "launch", "launchList", "createTexture",
                                           "deleteTexture", "deleteTexture"]
    assert calls[0][1] == (1, 2)
    assert (dict(vars(be)), dict(vars(be.pool))) == before
    be._launch(8)
    assert clock.calls == 6  # not timed once the clock is left


def test_clock_refuses_a_native_backend_naming_it():
    with pytest.raises(ValueError, match="webgl, webgpu.*'numpy'"):
        with JsClock(SimpleNamespace(name="numpy")):
            pass
