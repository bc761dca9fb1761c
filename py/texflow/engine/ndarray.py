"""NDArray: an n-dimensional array whose data may live on the host or a device.

Storage follows deeplearn.js. Data made on the host (from a list or numpy) stays in
host memory until a device op first needs it, then it is uploaded. Op results live on
the device of the backend that computed them and stay there between chained ops;
reading (`get_values`, `numpy`) downloads a copy and keeps it, so repeated reads cost
nothing (`await data()` keeps none: see Storage). Several NDArrays may share one
Storage (a reshape is a new view, not a copy). The storage is freed when the last
NDArray using it is disposed, either by `dispose()`, by the end of the scope that
tracks it, or when Python drops the last reference to it.
"""

import math

import numpy as np

from .. import dtypes
from ..errors import DisposedError, ShapeError, missing_attribute
from ..tensor_shape import TensorShape, known
from . import memory
from .reference import Reference

_DType, _ITEMSIZE = dtypes.DType, dtypes.ITEMSIZE
_counts = memory._state  # memory's counters, counted inline: every op makes both objects
# While a tf.function traces: a check(array, what) that raises for a traced value
# (engine/trace.py); None otherwise, so a read costs one list lookup.
_read_guard = [None]


class Storage:
    """A flat block of `size` elements of `dtype`, shared by views."""

    __slots__ = ("size", "dtype", "values", "backend", "handle", "refs", "__weakref__")

    def __init__(self, size, dtype, values=None, backend=None, handle=None):
        self.size = size
        self.dtype = dtype
        self.values = values      # flat host copy (numpy), or None
        self.backend = backend    # backend owning `handle`, or None
        self.handle = handle      # backend data (texture, buffer, ndarray)
        self.refs = 0
        _counts["num_storages"] += 1  # memory.storage_created(self), inline
        memory.held(backend, size * _ITEMSIZE[dtype])  # num_bytes, and per device

    def release(self):
        self.refs -= 1
        if self.refs == 0:
            if self.backend is not None:
                self.backend.free(self.handle)
            memory.storage_freed(self)
            self.handle = self.backend = self.values = None

    def host_values(self):
        """The flat host copy, downloading it once from the device."""
        if self.values is None:
            self.values = self.backend.download(self.handle, self.size, self.dtype)
            memory.transferred("num_downloads")
        return self.values

    async def new_values_async(self):
        """A new flat array of the data: a fresh download, uncopied and not kept, or a copy."""
        backend = self.backend
        if self.values is None:
            values = await backend.download_async(self.handle, self.size, self.dtype)
            memory.transferred("num_downloads")
            if backend.fresh_downloads:
                return values
            self.values = values
        return self.values.copy()

    def move_to(self, backend):
        """Makes `backend` own this data (uploading, downloading as needed)."""
        if self.backend is backend:
            return self.handle
        values, source = self.host_values(), self.backend
        if source is not None:
            source.free(self.handle)
        self.backend = None
        self.handle = backend.upload(values, self.dtype)
        self.backend = backend
        memory.uploaded(self, source)  # its bytes go from source (None: the host) to backend
        return self.handle


class NDArray:
    """An n-dimensional array of float32, int32 or bool: TensorFlow 2's eager
    `tf.Tensor` (`tf.Tensor` is this class) and deeplearn.js's NDArray.

    Make one with `tf.constant`, `tf.zeros`, the rank classes (`tf.Array2D.new`)
    or any op. Attributes: `shape` (a TensorShape), `dtype` (a DType), `size`,
    `rank`.

    >>> import texflow as tf
    >>> a = tf.Array2D.new([2, 3], [1, 2, 3, 10, 20, 30])
    >>> (a + 1).numpy().tolist()
    [[2.0, 3.0, 4.0], [11.0, 21.0, 31.0]]
    """

    __slots__ = ("shape", "dtype", "size", "_storage", "_kept", "__weakref__")
    __array_priority__ = 100  # numpy defers `ndarray + NDArray` to NDArray

    def __init__(self, storage, shape, dtype):
        self.shape = shape if type(shape) is TensorShape else known(shape)
        self.dtype = dtype if type(dtype) is _DType else dtypes.device_dtype(dtype)
        self.size = storage.size
        self._storage = storage
        self._kept = False
        storage.refs += 1
        _counts["num_arrays"] += 1  # memory.array_created(), inline

    @classmethod
    def make(cls, shape, values=None, dtype=None):
        """Creates an NDArray of `shape` from flat or nested `values` (zeros if None).

        Raises ShapeError when the number of values does not match the shape.
        """
        shape = normalize_shape(shape)
        dtype = dtypes.device_dtype(dtype) if dtype is not None else None
        if values is None:
            data = np.zeros(shape, dtypes.NUMPY[dtype or dtypes.float32])
        else:
            data = to_numpy(values, dtype if dtype is not None else dtypes.float32)
            if data.size != math.prod(shape):
                numpy = f" (numpy shape {list(values.shape)})" \
                    if isinstance(values, np.ndarray) else ""
                raise ShapeError(f"{data.size} values{numpy} do not fit shape {list(shape)}, "
                                 f"which holds {math.prod(shape)} values")
            data = data.reshape(shape)
        return from_numpy(data, cls=cls)

    # -- properties --------------------------------------------------------

    @property
    def rank(self):
        return len(self.shape)

    @property
    def ndim(self):
        return len(self.shape)

    def get_shape(self):
        """The shape, a TensorShape (TensorFlow's alias of `.shape`)."""
        return self.shape

    @property
    def is_disposed(self):
        return self._storage is None

    @property
    def backend(self):
        """The name of the backend holding this array's data, or None on the host."""
        backend = self._live().backend
        return None if backend is None else backend.name

    def _live(self):
        storage = self._storage
        if storage is None:
            raise DisposedError(f"this NDArray (shape {list(self.shape)}, {self.dtype}) "
                                "was disposed and cannot be used")
        return storage

    # -- reads ---------------------------------------------------------------

    def get_values(self):
        """A flat numpy copy of the data (synchronous; downloads from the device)."""
        if _read_guard[0] is not None:
            _read_guard[0](self, "get_values()")
        return self._live().host_values().copy()

    async def data(self):
        """A flat numpy copy of the data; awaits the device without blocking."""
        if _read_guard[0] is not None:
            _read_guard[0](self, "data()")
        return await self._live().new_values_async()

    def numpy(self):
        """A numpy copy of the data with this array's shape; a 0-d array's value as a
        numpy scalar (`np.float32(1.0)`), as TensorFlow's `Tensor.numpy()` returns."""
        if _read_guard[0] is not None:
            _read_guard[0](self, "numpy()")
        values = self._live().host_values().reshape(self.shape).copy()
        return values[()] if values.ndim == 0 else values

    def __array__(self, dtype=None, copy=None):
        if _read_guard[0] is not None:
            _read_guard[0](self, "numpy conversion")
        values = self._live().host_values().reshape(self.shape)
        if dtype is not None:
            return values.astype(dtype)
        return values.copy()

    def get(self, *index):
        """The element at `index` as a Python number (`x.get(1, 2)`)."""
        if _read_guard[0] is not None:
            _read_guard[0](self, "get()")
        if len(index) != len(self.shape):
            raise ShapeError(f"get() needs {len(self.shape)} indices for shape "
                             f"{list(self.shape)}, received {len(index)}: {list(index)}")
        flat = 0
        for i, (k, n) in enumerate(zip(index, self.shape)):
            k = int(k)
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of range for axis {i} of size {n} "
                                 f"(shape {list(self.shape)})")
            flat = flat * n + (k % n)
        return self._live().host_values()[flat].item()

    def tolist(self):
        return self.numpy().tolist()

    def item(self):
        if self.size != 1:
            raise ShapeError(f"item() needs an array of one element, not shape {list(self.shape)}")
        if _read_guard[0] is not None:
            _read_guard[0](self, "item()")
        return self._live().host_values()[0].item()

    # -- lifetime ------------------------------------------------------------

    def dispose(self):
        """Frees this array's data now. Using it afterwards raises DisposedError."""
        storage = self._storage
        if storage is not None:
            self._storage = None
            memory.array_freed()
            storage.release()

    def __del__(self):
        storage = getattr(self, "_storage", None)  # None too if its constructor raised
        if storage is not None:
            self._storage = None
            try:
                memory.array_freed()
                storage.release()
            except Exception:  # interpreter shutdown: modules may be gone
                pass

    # -- views -----------------------------------------------------------------

    def _view(self, shape):
        """A new NDArray sharing this array's storage with another shape."""
        return view_class(len(shape))(self._live(), shape, self.dtype)

    # -- Python protocol ---------------------------------------------------------

    def __bool__(self):
        if self.size != 1:
            raise ValueError(f"the truth value of an NDArray of shape {list(self.shape)} "
                             "is ambiguous; use tf.any/tf.all or compare elements")
        if _read_guard[0] is not None:
            _read_guard[0](self, "bool")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype == dtypes.float32:
            raise TypeError("a float32 NDArray cannot be used as an index")
        return int(self.item())

    def __hash__(self):
        # TensorFlow 2's tensors are unhashable (`==` is elementwise); `ref()` is the key.
        kind = "Variable" if any(c.__name__ == "Variable" for c in type(self).__mro__) \
            else "Tensor"
        raise TypeError(f"{kind} is unhashable. Instead, use {kind.lower()}.ref() as the key.")

    def ref(self):
        """A hashable reference to this array, for dict keys and sets (`Tensor.ref()`):
        equal for the same object; `.deref()` gives the array back."""
        return Reference(self)

    experimental_ref = ref

    def _value_text(self, is_repr):
        """TensorFlow's rendering of the values: numpy's str or repr (a scalar as its
        Python value), after a newline when it spans lines."""
        values = self.numpy()
        if values.ndim == 0 or not is_repr:
            text = str(values)
        elif values.dtype == np.int32 and np.dtype(np.int_) == np.int32:
            # Pyodide's numpy (wasm32) leaves out the default int's dtype; int64 has a
            # name as long, so the layout is the one 64-bit numpy gives int32
            text = repr(values.astype(np.int64))[:-len("int64)")] + "int32)"
        else:
            text = repr(values)
        return "\n" + text if "\n" in text else text

    def _unreadable(self):
        """`(disposed)` or `(traced)` when the values cannot be shown, else None."""
        if self._storage is None:
            return "(disposed)"
        if _read_guard[0] is not None:
            try:
                _read_guard[0](self, "repr")
            except TypeError:  # a traced value has no value to show yet
                return "(traced)"
        return None

    def __str__(self):
        text = self._unreadable() or self._value_text(False)
        return f"tf.Tensor({text}, shape={self.shape}, dtype={self.dtype.name})"

    def __repr__(self):
        state = self._unreadable()
        tail = f" {state}" if state else f", numpy={self._value_text(True)}"
        return f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}{tail}>"

    def __format__(self, format_spec):
        # as TensorFlow: numpy's formatting (a format spec works on a scalar only)
        return self.numpy().__format__(format_spec)


class _CamelCase:
    """A deeplearn.js camelCase name on the array classes: reading it (on a class or an
    array) raises the AttributeError that names the snake_case one. (A __getattr__
    would slow every attribute read; a metaclass, every isinstance check.)"""

    def __init__(self, camel):
        self.camel = camel

    def __get__(self, obj, cls):
        owner = f"type object {cls.__name__!r}" if obj is None else f"{cls.__name__!r} object"
        raise missing_attribute(owner, self.camel, lambda n: hasattr(cls, n))


for _camel in ("getValues", "getValuesAsync", "dataSync", "asScalar", "as1D", "as2D", "as3D",
               "as4D", "asType", "isDisposed", "randNormal", "randUniform",
               "randTruncatedNormal", "zerosLike", "onesLike"):
    setattr(NDArray, _camel, _CamelCase(_camel))


class Scalar(NDArray):
    """A rank-0 NDArray. `tf.Scalar.new(2)`."""

    __slots__ = ()

    @classmethod
    def new(cls, value, dtype=None):
        return from_numpy(to_numpy(value, dtype, rank=0), cls=cls)


class _RankArray(NDArray):
    __slots__ = ()
    _rank = None

    @classmethod
    def new(cls, shape_or_values, values=None, dtype=None):
        """`Array1D.new(values)`, or `ArrayND.new(shape, values)` for rank 2 to 4."""
        if cls._rank == 1:
            if values is not None and dtype is None and isinstance(values, str):
                dtype, values = values, None
            if values is None:
                data = to_numpy(shape_or_values, dtype)
                if data.ndim != 1:
                    raise ShapeError(f"Array1D.new needs a flat list of values, "
                                     f"received data of shape {list(data.shape)}")
                return from_numpy(data, cls=cls)
            return cls.make(shape_or_values, values, dtype)
        shape = normalize_shape(shape_or_values)
        if len(shape) != cls._rank:
            raise ShapeError(f"{cls.__name__} needs a shape of rank {cls._rank}, "
                             f"received {list(shape)}")
        return cls.make(shape, values, dtype)

    @classmethod
    def zeros(cls, shape, dtype=None):
        return cls.make(shape, None, dtype)

    @classmethod
    def rand_normal(cls, shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
        """Samples of a normal distribution (deeplearn.js `randNormal`)."""
        shape = normalize_shape(shape)
        rng = np.random.default_rng(seed)
        data = rng.normal(mean, stddev, shape).astype(np.float32)
        if dtype is not None and dtypes.device_dtype(dtype) != dtypes.float32:
            data = np.round(data).astype(dtypes.NUMPY[dtypes.device_dtype(dtype)])
        return from_numpy(data, cls=cls)

    @classmethod
    def rand_uniform(cls, shape, a=0.0, b=1.0, seed=None):
        """Samples of a uniform distribution on [a, b)."""
        shape = normalize_shape(shape)
        data = np.random.default_rng(seed).uniform(a, b, shape).astype(np.float32)
        return from_numpy(data, cls=cls)


class Array1D(_RankArray):
    __slots__ = ()
    _rank = 1


class Array2D(_RankArray):
    __slots__ = ()
    _rank = 2


class Array3D(_RankArray):
    __slots__ = ()
    _rank = 3


class Array4D(_RankArray):
    __slots__ = ()
    _rank = 4


_CLASSES = (Scalar, Array1D, Array2D, Array3D, Array4D)


def view_class(rank):
    """The NDArray subclass results of `rank` get (Scalar, Array1D, ... Array4D)."""
    return _CLASSES[rank] if rank < 5 else NDArray


# -- conversion helpers --------------------------------------------------------

def normalize_shape(shape):
    """A TensorShape of non-negative Python ints, or ShapeError naming the bad entry."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    elif isinstance(shape, NDArray):  # a shape tensor (tf.shape(x)): its values
        shape = shape.numpy().reshape(-1).tolist()
    try:
        dims = tuple(shape)
    except TypeError:
        raise ShapeError(f"a shape must be a list of ints, received {shape!r}") from None
    out = []
    for d in dims:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            if not (isinstance(d, NDArray) and d.size == 1 and d.dtype == dtypes.int32):
                raise ShapeError(f"a shape must be a list of ints, received {list(dims)!r}")
            d = d.item()
        if d < 0:
            raise ShapeError(f"shape dimensions must not be negative, received {list(dims)}")
        out.append(int(d))
    return known(out)


_INT32_MIN, _INT32_MAX = -2**31, 2**31 - 1
_FRESH = (list, tuple, int, float, bool, np.generic)  # np.asarray makes new arrays of these


def to_numpy(values, dtype=None, rank=None):
    """A numpy array of a texflow dtype holding `values` (list, number or numpy); with
    `dtype` None the dtype is inferred as TensorFlow does. A numpy array (any buffer) is
    copied, as TensorFlow copies it: changing it later changes no tensor."""
    borrowed = not isinstance(values, (NDArray, *_FRESH))
    if isinstance(values, NDArray):
        data = values.numpy()
    else:
        try:
            data = np.asarray(values)
        except ValueError as e:
            raise ShapeError(f"values must form a rectangular array: {e}") from None
    if data.dtype == object or data.dtype.kind in "USV":
        raise dtypes.DTypeError(
            f"cannot make an NDArray from values of numpy dtype {data.dtype} "
            f"(received {type(values).__name__})")
    if rank is not None and data.ndim != rank:
        raise ShapeError(f"expected a value of rank {rank}, received shape {list(data.shape)}")
    target = dtypes.device_dtype(dtype) if dtype is not None else dtypes.from_numpy(data.dtype)
    np_target = dtypes.NUMPY[target]
    if data.dtype != np_target:
        if target == dtypes.int32 and data.dtype.kind in "iu" and data.size:
            lo, hi = data.min(), data.max()
            if lo < _INT32_MIN or hi > _INT32_MAX:
                raise dtypes.DTypeError(f"values from {lo} to {hi} do not fit int32")
        if target == dtypes.int32 and data.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                data = np.trunc(data)
        data = data.astype(np_target)
    elif borrowed:
        data = data.copy()
    return data


def from_numpy(data, cls=None):
    """An NDArray holding `data` (a numpy array of a texflow dtype) on the host."""
    flat = np.ascontiguousarray(data).reshape(-1)
    dtype = dtypes.from_numpy(flat.dtype)
    if flat.dtype != dtypes.NUMPY[dtype]:
        flat = flat.astype(dtypes.NUMPY[dtype])
    shape = tuple(data.shape)
    if cls is None or cls is NDArray or cls is _RankArray:
        cls = view_class(len(shape))
    # (as in deeplearn.js, the active scope does not track it; `tf.track(x)` does)
    return cls(Storage(flat.size, dtype, values=flat), shape, dtype)


def as_array(x):
    """`x` if an NDArray, else a new one of its values (a list holding NDArrays: packed)."""
    if not isinstance(x, (list, tuple)):
        return x if isinstance(x, NDArray) else from_numpy(to_numpy(x))
    from ..ops.packing import as_packed
    return as_packed(x)
