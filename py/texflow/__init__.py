"""texflow: browser-first machine learning in Python.

`import texflow as tf` gives NDArrays that live on the GPU (WebGL2 textures or
WebGPU buffers in the browser, wgpu natively) or in numpy, the deeplearn.js
math API with scopes, and the TensorFlow-style op names.
"""

from . import dtypes, nn
from . import tfmath as math
from .tfmath import bitwise, linalg
from .dtypes import (DType, as_dtype, bool_, complex64, complex128, double, float16, float32,
                     float64, half, int8, int16, int32, int64, string, uint8, uint16, uint32,
                     uint64)
from .tensor_shape import TensorShape
from .engine.context import available_backends, get_backend, set_backend
from .engine.ndarray import NDArray, Array1D, Array2D, Array3D, Array4D, Scalar
from .engine.ndarray import NDArray as Tensor  # TensorFlow 2's eager tensor is the NDArray
from .engine.scope import keep, scope, tidy, track
from .errors import (BackendError, DisposedError, DTypeError, KernelNotFoundError,
                     ScopeError, ShapeError, TexflowError)
from .memory import memory
from .ops import operators as _operators  # noqa: F401  (installs NDArray operators)
from .engine.registry import install_exports as _install_exports
# Every op states its public names where it is defined (`@export("tf", ...)` in ops/, or
# the exports of an elementwise declaration); this installs the "tf" ones here, and any
# defined later. Other names are imported below.
_install_exports("tf", globals().__setitem__)
from .autodiff.gradient_tape import GradientTape, UnconnectedGradients
from .autodiff.graph import CostReduction, Graph, SymbolicTensor
from .autodiff.input_provider import (InCPUMemoryShuffledInputProviderBuilder,
                                      InGPUMemoryShuffledInputProviderBuilder, InputProvider,
                                      InMemoryShuffledInputProviderBuilder)
from .autodiff.optimizers import (AdagradOptimizer, AdamOptimizer, MomentumOptimizer,
                                  Optimizer, RMSPropOptimizer, SGDOptimizer)
from .autodiff.session import FeedEntry, Session
from .autodiff.variable import Variable, VariableAggregation, VariableSynchronization
from .ops.ndarray_math import (MatrixOrientation, NDArrayMath, NDArrayMathCPU,
                               NDArrayMathGPU)

from . import version  # noqa: E402
from .version import VERSION as __version__  # noqa: E402

# Input pipelines (issue 4): tf.data, tf.io, tf.train, tf.errors, tf.keras.datasets.
from . import data, errors, io, keras, train  # noqa: E402
from .data.sparse import SparseTensor  # noqa: E402
from .framework import TensorSpec, executing_eagerly, is_tensor, newaxis  # noqa: E402

# TensorFlow 2's first-hour names (issue 8): tf.random, tf.function, tf.print, tf.config,
# tf.device, tf.debugging, and the assertions TensorFlow also has at the top level.
from . import compat, config, debugging, random  # noqa: E402
from . import image  # noqa: E402  (tf.image: composed of the ops above, and tf.random)
from .autodiff.control_flow import Assert, case, cond, switch_case, while_loop  # noqa: E402
from .autodiff.functional_ops import foldl, foldr, map_fn, scan, vectorized_map  # noqa: E402
from .autodiff.tensor_array import TensorArray  # noqa: E402
from .autodiff.custom_gradient import custom_gradient, recompute_grad  # noqa: E402
from .autodiff.function import function  # noqa: E402
from .config import device  # noqa: E402
from .debugging import (assert_equal, assert_greater, assert_less, assert_rank,  # noqa: E402
                        check_numerics)
from .printing import print  # noqa: E402,A001
from .script_ops import numpy_function, py_function  # noqa: E402
from .initializers import (constant_initializer, ones_initializer,  # noqa: E402
                           random_normal_initializer, random_uniform_initializer,
                           zeros_initializer)
from .errors import (DataLossError, InvalidArgumentError, OpError,  # noqa: E402,F401
                     OutOfRangeError)

# TensorFlow 2's core names: tf.Module, tf.name_scope, tf.nest, tf.custom_gradient, ...
from . import nest  # noqa: E402
from .framework import (control_dependencies, get_logger, get_static_value,  # noqa: E402
                        group, init_scope, inside_function, no_op)
from .engine.name_scope import get_current_name_scope, name_scope  # noqa: E402
from .module import Module  # noqa: E402

# tf.distribute (issue 10): the strategies, distributed input, TF_CONFIG, collectives.
from . import distribute  # noqa: E402

bool = bool_  # noqa: A001  (tf.bool; defined last: this module uses the builtin above)
from .framework import tuple_ as tuple  # noqa: E402,A001  (tf.tuple; last, as tf.bool)
