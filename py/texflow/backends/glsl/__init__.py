"""GLSL ES 3.00 kernels of the WebGL2 backend: program generator, texture layout, ops.

Importing the package registers every kernel (it needs no browser).
"""

# importing the kernel modules registers their kernels
from . import conv, elementwise, fused, matmul, movement, reduce, scan, sort  # noqa: F401
