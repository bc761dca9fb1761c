"""Backend choice in the browser: the default order, and no WebGPU adapter."""

SCRIPT = r"""
import js, warnings, texflow
from texflow.engine import context
from pyodide.ffi import to_js

saved = (js.texflowWebGPUInfo, context._instances.pop("webgpu", None), context._current[0])
result = {"available": texflow.available_backends()}
js.texflowWebGPUInfo = to_js(
    {"device": None, "error": "navigator.gpu.requestAdapter() returned null (no WebGPU adapter)"},
    dict_converter=js.Object.fromEntries)
try:
    context._current[0] = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result["default"] = texflow.get_backend()
    result["warning"] = str(caught[0].message) if caught else ""
    result["without"] = texflow.available_backends()
    try:
        texflow.set_backend("webgpu")
        result["error"] = ""
    except texflow.BackendError as e:
        result["error"] = str(e)
finally:
    js.texflowWebGPUInfo = saved[0]
    if saved[1] is not None:
        context._instances["webgpu"] = saved[1]
    context._current[0] = saved[2]
import json
json.dumps(result)
"""


def test_default_order_and_no_webgpu_adapter(browser_session):
    import json

    out = json.loads(browser_session.page.evaluate(
        "async (code) => await pyodide.runPythonAsync(code)", SCRIPT))
    assert out["available"] == ["webgpu", "webgl", "numpy"]
    assert out["default"] == "webgl", "with no adapter the default falls back to webgl"
    assert "'webgpu' is not available" in out["warning"]
    assert "requestAdapter() returned null" in out["warning"]
    assert out["without"] == ["webgl", "numpy"]
    assert "backend 'webgpu' is not available here" in out["error"]
    assert "no WebGPU adapter" in out["error"]


SYNC_READ = r"""
import texflow
texflow.set_backend("webgpu")
x = texflow.mul(texflow.array([1.0, 2.0]), 3.0)
try:
    x.get_values()
    message = "no error"
except Exception as e:
    message = f"{type(e).__name__}: {e}"
message
"""


def test_webgpu_sync_read_without_jspi_says_to_await(browser_session):
    # runPython (not runPythonAsync) enters Python without JSPI: a synchronous
    # WebGPU read cannot block there, and the error says what to do instead.
    message = browser_session.page.evaluate("(code) => pyodide.runPython(code)", SYNC_READ)
    assert "await x.data()" in message, message
    values = browser_session.page.evaluate(
        "async (code) => (await pyodide.runPythonAsync(code)).toJs()",
        "import texflow\ntexflow.set_backend('webgpu')\n"
        "(await (texflow.array([1.0, 2.0]) * 3.0).data()).tolist()")
    assert list(values) == [3.0, 6.0]


MATH_GPU = r"""
import json, texflow as tf
from texflow.engine import context
saved = context._current[0]
out = {}
try:
    for chosen in ("webgl", "webgpu", "numpy"):
        tf.set_backend(chosen)
        math = tf.NDArrayMathGPU()
        x = tf.constant([1.0, 2.0]) * 2.0            # made on the chosen backend
        before = tf.memory()
        with math.scope():
            y = math.add(x, 1.0)
            out[chosen] = [math.backend.name, y.backend, x.backend,
                           tf.memory()["num_uploads"] - before["num_uploads"],
                           tf.memory()["num_downloads"] - before["num_downloads"],
                           y.numpy().tolist()]
finally:
    context._current[0] = saved
json.dumps(out)
"""


def test_ndarray_math_gpu_follows_the_chosen_backend(browser_session):
    import json

    out = json.loads(browser_session.page.evaluate(
        "async (code) => await pyodide.runPythonAsync(code)", MATH_GPU))
    # a GPU backend chosen with set_backend (or run-browser --backend) is the math's
    # device: x stays there, nothing moves between WebGL and WebGPU
    assert out["webgl"] == ["webgl", "webgl", "webgl", 0, 0, [3.0, 5.0]], out
    assert out["webgpu"] == ["webgpu", "webgpu", "webgpu", 0, 0, [3.0, 5.0]], out
    # numpy chosen: the math object still runs on the best GPU backend
    assert out["numpy"][:2] == ["webgpu", "webgpu"] and out["numpy"][5] == [3.0, 5.0], out
