"""A concrete function of specs with unknown dimensions (`TensorSpec([None])`), for
autodiff/function.py: TensorFlow's takes every compatible shape, texflow's traces are
per shape (a new compatible shape traces again); its structured_outputs have None where
a dimension is unknown."""

from ..tensor_spec import TensorSpec


class RelaxedConcreteFunction:
    """A concrete function of specs with unknown dimensions (`TensorSpec([None])`).

    TensorFlow's takes every compatible shape. texflow's traces are per shape, so a
    call with a new compatible shape traces again through the tf.function (running its
    Python again); other attributes are those of the first trace's ConcreteFunction.
    """

    def __init__(self, function, instance, specs, concrete, arguments):
        self._function, self._instance = function, instance
        self._specs, self._concrete = specs, concrete
        self._arguments = arguments  # the specs as given, for structured_outputs
        self._outputs = None

    @property
    def structured_input_signature(self):
        return list(self._specs)

    @property
    def structured_outputs(self):
        """The results' TensorSpecs with None for each dimension unknown for these specs:
        those that differ between the dry trace (unknown dimensions 1) and a second one
        (unknown dimensions 2), which runs the function's Python again, once, on first
        use (a texflow trace has static shapes; TensorFlow infers them symbolically)."""
        if self._outputs is None:
            first = self._concrete.structured_outputs
            try:
                second = self._function._concrete_at_zeros(
                    self._instance, *self._arguments, size=2, probe=True).structured_outputs
                self._outputs = _relaxed(first, second)
            except Exception:  # noqa: BLE001  (shape errors at 2: the first trace's shapes)
                self._outputs = first
        return self._outputs

    def __call__(self, *args, **kwargs):
        tensors = self._function._flat_tensors(args, kwargs, self._instance is not None)
        if len(tensors) != len(self._specs) or not all(
                spec.is_compatible_with(x) for spec, x in zip(self._specs, tensors)):
            got = [f"{list(x.shape)} {x.dtype}" for x in tensors]
            raise TypeError(f"{self._concrete.name}: this concrete function takes tensors "
                            f"{self._specs!r}, received {got}")
        return self._function._call(self._instance, args, kwargs)

    def __getattr__(self, name):
        return getattr(self._concrete, name)


def _relaxed(first, second):
    """Structure `first` with each TensorSpec's dimensions that differ in `second` None
    (its rank unknown where the ranks differ)."""
    if isinstance(first, TensorSpec) and isinstance(second, TensorSpec):
        a, b = first.shape.as_list(), second.shape.as_list()
        shape = None if len(a) != len(b) else [x if x == y else None for x, y in zip(a, b)]
        return TensorSpec(shape, first.dtype, first.name)
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*[_relaxed(x, y) for x, y in zip(first, second)])
    if isinstance(first, (list, tuple)):
        return type(first)(_relaxed(x, y) for x, y in zip(first, second))
    if isinstance(first, dict):
        return {k: _relaxed(v, second[k]) for k, v in first.items()}
    return first
