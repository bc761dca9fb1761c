"""TensorFlow's dtypes as objects, and how values map onto the device dtypes.

`tf.float32`, `tf.int64`, ... are DType objects, as in TensorFlow: `.name`,
`.as_numpy_dtype`, `.is_floating`, `.size`, `.min`/`.max`, repr `tf.float32`.
A DType is also a `str` equal to (and hashing like) its name, so
`x.dtype == "float32"` and dicts keyed by names keep working at no cost.

NDArrays live in three device dtypes: float32, int32 and bool. The others
are host dtypes of the data layer (uint8 images, string records, int64
labels); an array made with one of them is stored in the nearest device
dtype (`device_dtype`): int64 and the small integers as int32 (values
outside int32 raise), float64 as float32. Python ints become int32, Python
floats float32, as in TensorFlow.
"""

import numpy as np

from .errors import DTypeError

# name -> (TensorFlow's DataType enum, numpy type, kind), kind: f float, i signed int,
# u unsigned int, b bool, c complex, s string. Sizes and limits come from numpy.
_SPECS = {
    "float16": (19, np.float16, "f"), "float32": (1, np.float32, "f"),
    "float64": (2, np.float64, "f"), "int8": (6, np.int8, "i"), "int16": (5, np.int16, "i"),
    "int32": (3, np.int32, "i"), "int64": (9, np.int64, "i"), "uint8": (4, np.uint8, "u"),
    "uint16": (17, np.uint16, "u"), "uint32": (22, np.uint32, "u"),
    "uint64": (23, np.uint64, "u"), "bool": (10, np.bool_, "b"),
    "complex64": (8, np.complex64, "c"), "complex128": (18, np.complex128, "c"),
    "string": (7, np.object_, "s"),
}
_BY_NAME = {}
_BY_ENUM = {}


class DType(str):
    """A TensorFlow dtype (`tf.float32`, `tf.int32`, ...); also the str of its name.

    >>> tf.float32.name, tf.float32.size, tf.int32.max
    ('float32', 4, 2147483647)
    >>> tf.constant([1.0]).dtype == tf.float32 == "float32"
    True
    """

    __slots__ = ()

    def __new__(cls, type_value):
        if isinstance(type_value, int) and not isinstance(type_value, bool):
            found = _BY_ENUM.get(type_value)
        else:
            found = _BY_NAME.get(type_value)
        if found is None:
            raise DTypeError(f"{type_value!r} does not name a TensorFlow dtype")
        return found

    @classmethod
    def _make(cls, name):
        dtype = str.__new__(cls, name)
        _BY_NAME[name] = dtype
        _BY_ENUM[_SPECS[name][0]] = dtype
        return dtype

    # -- TensorFlow's attributes ----------------------------------------------------------

    @property
    def name(self):
        return str.__str__(self)

    @property
    def as_numpy_dtype(self):
        return _SPECS[self][1]

    @property
    def as_datatype_enum(self):
        return _SPECS[self][0]

    @property
    def base_dtype(self):
        return self

    @property
    def real_dtype(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def is_floating(self):
        return _SPECS[self][2] == "f"

    @property
    def is_integer(self):
        return _SPECS[self][2] in "iu"

    @property
    def is_unsigned(self):
        return _SPECS[self][2] == "u"

    @property
    def is_bool(self):
        return _SPECS[self][2] == "b"

    @property
    def is_complex(self):
        return _SPECS[self][2] == "c"

    @property
    def is_numeric(self):
        return _SPECS[self][2] in "fiuc"

    @property
    def is_quantized(self):
        return False

    @property
    def is_numpy_compatible(self):
        return True

    @property
    def size(self):
        """Bytes per element (0 for string, as in TensorFlow)."""
        return 0 if self == "string" else np.dtype(_SPECS[self][1]).itemsize

    @property
    def min(self):
        return self._limit(0)

    @property
    def max(self):
        return self._limit(1)

    @property
    def limits(self):
        return (self.min, self.max)

    def _limit(self, end):
        kind = _SPECS[self][2]
        if kind == "f":
            info = np.finfo(_SPECS[self][1])
            return _SPECS[self][1](-info.max if end == 0 else info.max)
        if kind in "iu":
            info = np.iinfo(_SPECS[self][1])
            return int(info.min if end == 0 else info.max)
        raise TypeError(f"Cannot find {'minimum' if end == 0 else 'maximum'} value of "
                        f"{self!r}.")

    def is_compatible_with(self, other):
        try:
            return self == as_dtype(other)
        except TypeError:
            return False

    # -- str and comparison ------------------------------------------------------------------

    def __repr__(self):
        return "tf." + str.__str__(self)

    def __str__(self):
        # NOTE: TensorFlow prints "<dtype: 'float32'>"; texflow keeps the bare name so the
        # many error messages that format a dtype stay readable.
        return str.__str__(self)

    def __eq__(self, other):
        if isinstance(other, str):
            return str.__eq__(self, other)
        if other is None:
            return False
        try:
            return str.__eq__(self, as_dtype(other))
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = str.__hash__

    def __reduce__(self):
        return (DType, (self.name,))


for _name in _SPECS:
    DType._make(_name)

float16 = half = _BY_NAME["float16"]
float32 = _BY_NAME["float32"]
float64 = double = _BY_NAME["float64"]
int8, int16, int32, int64 = (_BY_NAME[n] for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (_BY_NAME[n] for n in ("uint8", "uint16", "uint32", "uint64"))
complex64, complex128 = _BY_NAME["complex64"], _BY_NAME["complex128"]
string = _BY_NAME["string"]
bool_ = _BY_NAME["bool"]

DTYPES = (float32, int32, bool_)  # the device dtypes
NUMPY = {float32: np.dtype(np.float32), int32: np.dtype(np.int32), bool_: np.dtype(np.bool_)}
ITEMSIZE = {float32: 4, int32: 4, bool_: 1}
# Promotion order for arithmetic: bool < int32 < float32.
_RANK = {bool_: 0, int32: 1, float32: 2}

# TensorFlow's other spellings (tf.as_dtype("float") is float32; "half", "double").
_ALIASES = {"float": float32, "half": float16, "double": float64, "bool_": bool_}


def as_dtype(type_value):
    """The DType of `type_value` (a DType, a name, a numpy type or dtype, Python's
    float or bool), as `tf.as_dtype`; TypeError (DTypeError) for anything else.

    >>> tf.as_dtype("float32"), tf.as_dtype(np.int64)
    (tf.float32, tf.int64)
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        found = _BY_NAME.get(type_value) or _ALIASES.get(type_value)
        if found is not None:
            return found
    elif isinstance(type_value, int) and not isinstance(type_value, bool) \
            and type_value in _BY_ENUM:
        return _BY_ENUM[type_value]
    elif type_value is float:
        return float32
    elif type_value is bool:
        return bool_
    elif type_value in (bytes, str):
        return string
    else:
        found = _from_numpy_type(type_value)
        if found is not None:
            return found
    raise DTypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a "
                     "TensorFlow DType.")


def _from_numpy_type(value):
    try:
        np_dtype = np.dtype(value)
    except (TypeError, ValueError):
        return None
    if np_dtype.kind in "OSU":
        return string
    return _BY_NAME.get(np_dtype.name)


# Host dtypes stored in a device dtype: narrowed by the GPU's 32-bit storage.
_NARROWED = {int64: int32, int8: int32, int16: int32, uint8: int32, uint16: int32,
             uint32: int32, uint64: int32, float64: float32}


def device_dtype(dtype):
    """The device dtype (float32, int32 or bool) an array of `dtype` is stored in.

    int64, uint8 and the other integers narrow to int32 and float64 to float32
    (texflow's GPU storage is 32-bit); Python's `int` and the name 'int' mean int32.
    float16, complex and string have no device storage and raise DTypeError.
    """
    if isinstance(dtype, DType) and dtype in DTYPES:
        return dtype
    if dtype is int or (isinstance(dtype, str) and dtype == "int"):
        return int32
    found = as_dtype(dtype)
    found = _NARROWED.get(found, found)
    if found not in DTYPES:
        reason = ("float16 has no storage on texflow's devices (WebGL2 float textures and "
                  "WebGPU buffers hold float32); use tf.float32" if found == float16 else
                  f"{found.name} tensors exist only as host data in texflow "
                  "(NDArrays hold float32, int32 and bool)")
        raise DTypeError(f"unsupported dtype {found!r}: {reason}")
    return found


def from_numpy(np_dtype):
    """The device dtype numpy data of `np_dtype` is stored as."""
    kind = np_dtype.kind
    if kind == "f":
        return float32
    if kind in "iu":
        return int32
    if kind == "b":
        return bool_
    raise DTypeError(
        f"cannot make an NDArray from numpy data of dtype {np_dtype}; "
        "texflow supports float32, int32 and bool data")


def upcast(a, b):
    """The dtype arithmetic on `a` and `b` produces (bool < int32 < float32)."""
    return a if _RANK[a] >= _RANK[b] else b


def scalar_dtype(value):
    """The dtype of a Python scalar: bool, int32 or float32."""
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int32
    if isinstance(value, (float, np.floating)):
        return float32
    raise DTypeError(f"expected a number, received {value!r} of type {type(value).__name__}")


def is_float(dtype):
    return dtype == float32
