"""Raw WebGL2 helpers for the measuring scripts that run in a page with `texflow
run-browser` (webgl_fetch_cost.py, webgl_transform_feedback.py), no texflow kernels."""

from pyodide.ffi import to_js


def link(gl, vertex, fragment, captured=None):
    """A linked program of GLSL `vertex` and `fragment` sources (RuntimeError with the
    compiler's log otherwise); `captured`: a varying recorded by transform feedback."""
    prog = gl.createProgram()
    for kind, text in ((gl.VERTEX_SHADER, vertex), (gl.FRAGMENT_SHADER, fragment)):
        shader = gl.createShader(kind)
        gl.shaderSource(shader, text)
        gl.compileShader(shader)
        if not gl.getShaderParameter(shader, gl.COMPILE_STATUS):
            raise RuntimeError(gl.getShaderInfoLog(shader))
        gl.attachShader(prog, shader)
    if captured:
        gl.transformFeedbackVaryings(prog, to_js([captured]), gl.SEPARATE_ATTRIBS)
    gl.linkProgram(prog)
    if not gl.getProgramParameter(prog, gl.LINK_STATUS):
        raise RuntimeError(gl.getProgramInfoLog(prog))
    return prog
