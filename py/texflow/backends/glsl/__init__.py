"""GLSL ES 3.00 kernels of the WebGL2 backend: program generator, texture layout, ops.

Importing the package registers every kernel (it needs no browser).
"""

from . import conv, elementwise, matmul, movement, reduce, scan  # noqa: F401  (register kernels)
