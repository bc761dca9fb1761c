"""GLSL ES 3.00 kernels of the WebGL2 backend: program generator, texture layout, ops.

Importing the package registers every kernel (it needs no browser).
"""

from ..base import import_kernel_modules

import_kernel_modules(__name__, __path__)
