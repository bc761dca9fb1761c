"""`matmul_epilogue` and `conv2d_epilogue`: a matmul or conv2d whose result goes
straight through a tree of elementwise ops (its epilogue: bias add, activation,
a gradient mask) before the one write of the output.

tf.function builds these from traces (autodiff/fusion_epilogue.py); they are not
public ops. Inputs are the product's two operands, then the epilogue's other
arrays. `program` is a `FusedProgram` (ops/fused.py) in which ("in", 0) is the
product's value and ("in", k) for k >= 1 the k-th array after the operands; the
product's own attrs (transposes; conv2d's strides, pads, dilations) come with it.
Each kernel language computes the product as its matmul/conv2d kernel does and
applies the epilogue with the bodies its elementwise kernels use, so the result
equals the separate launches'.
"""

from ..engine.registry import def_op


def _infer(inputs, attrs):
    program = attrs["program"]
    return program.shape, program.dtype


matmul_epilogue = def_op("matmul_epilogue", _infer)
conv2d_epilogue = def_op("conv2d_epilogue", _infer)

# product op name -> its epilogue op
PRODUCTS = {"matmul": matmul_epilogue, "conv2d": conv2d_epilogue}
