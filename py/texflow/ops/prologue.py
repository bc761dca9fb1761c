"""`reduce_prologue`: a reduction (sum, prod, max, min) whose input is computed by a
tree of elementwise ops (its prologue: a loss's squared error, softmax's exp of
the shifted logits, a gradient mask) as the reduction reads it, so the tree's
result is never stored.

tf.function builds these from traces (autodiff/fusion_prologue.py); it is not a
public op. Inputs are the tree's arrays; `program` is a `FusedProgram`
(ops/fused.py) of the reduced input's shape and dtype, `reduction` the reduction's
op name, `axes` and `keepdims` its attrs. Each kernel language evaluates the tree
with the bodies its elementwise kernels use where its reduction kernel reads an
element, in the same order, so the result equals the separate launches'.
"""

from ..dtypes import bool_, int32
from ..engine.registry import def_op
from .shape_util import reduced_shape

# the reductions a prologue fuses into
REDUCTIONS = ("sum", "prod", "max", "min")


def _infer(inputs, attrs):
    program = attrs["program"]
    dtype = program.dtype
    if attrs["reduction"] == "sum" and dtype == bool_:
        dtype = int32  # as reduce_sum counts True as 1
    return reduced_shape(program.shape, attrs["axes"], attrs["keepdims"]), dtype


reduce_prologue = def_op("reduce_prologue", _infer)
