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

`matmul_epilogue_multi` is a matmul whose epilogue is a program of several outputs
(a `fused_elementwise_multi` reader, such as an optimizer's update of the Variable
whose gradient the product is): one result per program output.
"""

from ..engine.registry import def_op


def _infer(inputs, attrs):
    program = attrs["program"]
    return program.shape, program.dtype


def _infer_multi(inputs, attrs):
    program = attrs["program"]
    return [(program.shape, program.dtype)] * len(program.outputs)


matmul_epilogue = def_op("matmul_epilogue", _infer)
# num_outputs None: every output from one kernel call
matmul_epilogue_multi = def_op("matmul_epilogue_multi", _infer_multi, num_outputs=None)
conv2d_epilogue = def_op("conv2d_epilogue", _infer)

# product op name -> its epilogue op
PRODUCTS = {"matmul": matmul_epilogue, "conv2d": conv2d_epilogue}
