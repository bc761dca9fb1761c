"""The numpy kernel of `reduce_prologue` (ops/prologue.py): the tree evaluated as
`fused_elementwise` evaluates it (each intermediate freed after its last reader),
then the reduction's own numpy kernel on its result, which is freed at once: the
numbers of the separate launches, in one call.
"""

from ..base import kernel, kernels_for
from .fused import evaluate


@kernel("reduce_prologue", "numpy")
def reduce_prologue(k, *args, program, reduction, axes, keepdims):
    value = evaluate(args, program)[-1]
    return kernels_for("numpy")[reduction](k, value, axes=axes, keepdims=keepdims)
