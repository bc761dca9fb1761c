"""texflow's WGSL kernels, shared by the `webgpu` (browser) and `wgpu` (native) runtimes.

Importing the package registers every kernel; `runtime.WGSLBackend` is the
runtime-independent half of both backends.
"""

# importing the kernel modules registers their kernels
from . import conv, elementwise, fused, matmul, movement, reduce, scan, sort  # noqa: F401
