"""Merging layers: Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate;
and OpLayer, which arithmetic on symbolic KerasTensors (`x + y`) becomes."""

from ...ops import elementwise as ew
from ...ops.movement import concat
from ..serialization import serializable
from .base import Layer

_MODULE = "keras.layers"


def _broadcast_shapes(name, shapes):
    rank = max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    out = []
    for dims in zip(*padded):
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ValueError(f'Layer "{name}": inputs with shapes {list(shapes)} cannot be '
                             "broadcast together")
        if known:
            out.append(known.pop())
        elif None in dims:
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


class _Merge(Layer):
    _min_inputs = 2

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.built = True

    def _check(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < self._min_inputs:
            raise ValueError(f'Layer "{self.name}" ({type(self).__name__}) should be called '
                             f"on a list of at least {self._min_inputs} inputs. Received: "
                             f"inputs={inputs!r:.200}")

    def call(self, inputs):
        self._check(inputs)
        out = inputs[0]
        for x in inputs[1:]:
            out = self._merge(out, x)
        return self._finish(out, len(inputs))

    def _finish(self, out, n):
        return out

    def compute_output_shape(self, input_shape):
        self._check(input_shape)
        return _broadcast_shapes(self.name, input_shape)


@serializable(_MODULE)
class Add(_Merge):
    """The sum of a list of inputs.

    >>> a = np.ones((2, 3), np.float32)
    >>> tf.keras.layers.Add()([a, a]).tolist()[0]
    [2.0, 2.0, 2.0]
    """

    _merge = staticmethod(ew.add)


@serializable(_MODULE)
class Subtract(_Merge):
    """inputs[0] - inputs[1] (exactly two inputs).

    >>> a = np.ones((1, 2), np.float32)
    >>> tf.keras.layers.Subtract()([a, a]).tolist()
    [[0.0, 0.0]]
    """

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
            raise ValueError(f'Layer "{self.name}" (Subtract) should be called on exactly 2 '
                             f"inputs. Received: inputs={inputs!r:.200}")
        return ew.sub(inputs[0], inputs[1])


@serializable(_MODULE)
class Multiply(_Merge):
    """The elementwise product of a list of inputs.

    >>> a = np.full((1, 2), 3.0, np.float32)
    >>> tf.keras.layers.Multiply()([a, a]).tolist()
    [[9.0, 9.0]]
    """

    _merge = staticmethod(ew.mul)


@serializable(_MODULE)
class Average(_Merge):
    """The elementwise mean of a list of inputs.

    >>> a, b = np.zeros((1, 2), np.float32), np.ones((1, 2), np.float32)
    >>> tf.keras.layers.Average()([a, b]).tolist()
    [[0.5, 0.5]]
    """

    _merge = staticmethod(ew.add)

    def _finish(self, out, n):
        return ew.div(out, float(n))


@serializable(_MODULE)
class Maximum(_Merge):
    """The elementwise maximum of a list of inputs.

    >>> a, b = np.zeros((1, 2), np.float32), np.ones((1, 2), np.float32)
    >>> tf.keras.layers.Maximum()([a, b]).tolist()
    [[1.0, 1.0]]
    """

    _merge = staticmethod(ew.maximum)


@serializable(_MODULE)
class Minimum(_Merge):
    """The elementwise minimum of a list of inputs.

    >>> a, b = np.zeros((1, 2), np.float32), np.ones((1, 2), np.float32)
    >>> tf.keras.layers.Minimum()([a, b]).tolist()
    [[0.0, 0.0]]
    """

    _merge = staticmethod(ew.minimum)


@serializable(_MODULE)
class Concatenate(_Merge):
    """Concatenates a list of inputs along `axis` (default the last).

    >>> a = np.ones((2, 3), np.float32)
    >>> tf.keras.layers.Concatenate()([a, a]).shape
    TensorShape([2, 6])
    """

    _min_inputs = 1

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        self._check(inputs)
        return concat(list(inputs), axis=self.axis)

    def compute_output_shape(self, input_shape):
        self._check(input_shape)
        shapes = [tuple(s) for s in input_shape]
        rank = len(shapes[0])
        axis = self.axis % rank
        out = list(shapes[0])
        for s in shapes[1:]:
            if len(s) != rank or any(a is not None and b is not None and a != b
                                     for i, (a, b) in enumerate(zip(out, s)) if i != axis):
                raise ValueError(f'A `Concatenate` layer "{self.name}" requires inputs with '
                                 f"matching shapes except for the concatenation axis. "
                                 f"Received: input_shape={shapes}")
            out[axis] = None if out[axis] is None or s[axis] is None else out[axis] + s[axis]
        return tuple(out)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


_OPS = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
        "multiply": lambda a, b: a * b, "divide": lambda a, b: a / b,
        "matmul": lambda a, b: a @ b, "negative": lambda a: -a}


@serializable(_MODULE)
class OpLayer(Layer):
    """An arithmetic op on symbolic tensors (what `x + y` or `2 * x` on KerasTensors
    adds to a functional model): `op` is 'add', 'subtract', 'multiply', 'divide',
    'matmul' or 'negative'; `reverse` swaps the operands (for `2 - x`)."""

    def __init__(self, op, reverse=False, **kwargs):
        super().__init__(**kwargs)
        if op not in _OPS:
            raise ValueError(f"OpLayer: unknown op {op!r}; known: {sorted(_OPS)}")
        self.op, self.reverse = op, reverse
        self.built = True

    def call(self, *inputs):
        if self.reverse:
            inputs = inputs[::-1]
        return _OPS[self.op](*inputs)

    def get_config(self):
        config = super().get_config()
        config.update({"op": self.op, "reverse": self.reverse})
        return config
