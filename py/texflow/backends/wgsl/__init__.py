"""texflow's WGSL kernels, shared by the `webgpu` (browser) and `wgpu` (native) runtimes.

Importing the package registers every kernel; `runtime.WGSLBackend` is the
runtime-independent half of both backends.
"""

from ..base import import_kernel_modules

import_kernel_modules(__name__, __path__)
