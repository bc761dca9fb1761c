"""texflow's WGSL kernels, shared by the `webgpu` (browser) and `wgpu` (native) runtimes.

Importing the package registers every kernel; `runtime.WGSLBackend` is the
runtime-independent half of both backends.
"""

from . import conv, elementwise, matmul, movement, reduce, scan  # noqa: F401  (register kernels)
