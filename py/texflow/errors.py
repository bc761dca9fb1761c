"""Exception types raised by texflow (`tf.errors`).

Each error names the thing that is wrong and the value received, raised where
the mistake is made. Where TensorFlow raises one of its run-time errors
(`tf.errors.InvalidArgumentError`, ...), texflow raises the class of the same
name; all of them derive from TexflowError. texflow's own ShapeError is an
InvalidArgumentError (what TensorFlow raises for shapes that do not fit an
op) and a ValueError.
"""


class TexflowError(Exception):
    """Base class of every texflow error."""


# --- TensorFlow's run-time errors (tf.errors) ----------------------------------------------

class OpError(TexflowError):
    """Base of TensorFlow's run-time errors (`tf.errors.OpError`).

    Built like TensorFlow's, `OpError(node_def, op, message)`, or with just the
    message: `OutOfRangeError("End of sequence")`.
    """

    error_code = 2  # UNKNOWN

    def __init__(self, *args):
        if len(args) >= 3:
            node_def, op, message = args[:3]
        else:
            node_def, op, message = None, None, args[0] if args else ""
        super().__init__(message)
        self.node_def, self.op, self.message = node_def, op, message

    def __str__(self):
        return str(self.message)


_CODES = {}


def _op_error(name, code, doc, *bases):
    cls = type(name, (OpError, *bases), {"__doc__": doc, "error_code": code})
    cls.__module__ = __name__
    _CODES[code] = cls
    return cls


CancelledError = _op_error("CancelledError", 1, "An operation or step was cancelled.")
UnknownError = _op_error("UnknownError", 2, "An unknown error.")
InvalidArgumentError = _op_error("InvalidArgumentError", 3,
                                 "An argument or a value read from input is invalid.", ValueError)
DeadlineExceededError = _op_error("DeadlineExceededError", 4,
                                  "A deadline expired before the operation could complete.")
NotFoundError = _op_error("NotFoundError", 5, "A file (or other entity) was not found.",
                          FileNotFoundError)
AlreadyExistsError = _op_error("AlreadyExistsError", 6,
                               "A file (or other entity) to be created already exists.",
                               FileExistsError)
PermissionDeniedError = _op_error("PermissionDeniedError", 7,
                                  "The caller may not run the operation.", PermissionError)
ResourceExhaustedError = _op_error("ResourceExhaustedError", 8,
                                   "Some resource (memory, GPU storage) has been exhausted.")
FailedPreconditionError = _op_error("FailedPreconditionError", 9,
                                    "The system is not in a state to run the operation "
                                    "(an uninitialized variable, a queue not started).")
AbortedError = _op_error("AbortedError", 10, "An operation was aborted.")
OutOfRangeError = _op_error("OutOfRangeError", 11,
                            "Iteration past the end: an epoch limit was reached or a queue "
                            "was closed with too few elements.")
UnimplementedError = _op_error("UnimplementedError", 12, "An operation is not implemented.",
                               NotImplementedError)
InternalError = _op_error("InternalError", 13, "An internal invariant was broken.")
UnavailableError = _op_error("UnavailableError", 14, "A source is not available now.")
DataLossError = _op_error("DataLossError", 15,
                          "Unrecoverable data loss or corruption (truncated or corrupted "
                          "records).")
UnauthenticatedError = _op_error("UnauthenticatedError", 16,
                                 "The request has no valid credentials.")

(OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS,
 PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE,
 UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED) = range(17)


def exception_type_from_error_code(error_code):
    """The OpError subclass of TensorFlow's `error_code` (`tf.errors` codes)."""
    return _CODES.get(error_code, UnknownError)


class OperatorNotAllowedInGraphError(TypeError, TexflowError):
    """A Python operator that needs a value was used on a symbolic tensor."""


# --- texflow's own ---------------------------------------------------------------------------

class ShapeError(InvalidArgumentError):
    """Shapes that do not fit an op, or values that do not fit a shape.

    An InvalidArgumentError (as TensorFlow reports these) and a ValueError.
    """


class DTypeError(TexflowError, TypeError):
    """A dtype texflow does not support, or one an op does not accept."""


class OpDTypeError(DTypeError, InvalidArgumentError):
    """An op given a dtype its kernel lacks (bool to matmul, int to softmax): a
    DTypeError, and the InvalidArgumentError TensorFlow's kernels raise for it."""


class DisposedError(TexflowError, ValueError):
    """An NDArray was used after `dispose()`."""


class BackendError(TexflowError, RuntimeError):
    """An unknown backend, or one that cannot run here."""


class ScopeError(TexflowError, RuntimeError):
    """Scope misuse, such as an op outside any scope on a safe-mode math object."""


class KernelNotFoundError(BackendError):
    """An op has no kernel in the active backend's kernel language."""


def snake_case(name):
    """deeplearn.js's camelCase name in texflow's snake_case: `elementWiseMul` ->
    `element_wise_mul`, `as1D` -> `as_1d`."""
    out = []
    for i, c in enumerate(name):
        prev = name[i - 1] if i else ""
        if (c.isupper() and prev.islower()) or (c.isdigit() and prev.isalpha()):
            out.append("_")
        out.append(c.lower())
    return "".join(out)


_RENAMED = {"dataSync": "get_values", "getValuesAsync": "data", "zerosLike": "zeros_like"}


def missing_attribute(owner, name, has):
    """The AttributeError for `owner.name`; for a camelCase name whose snake_case form
    `has(snake)` it names that one (deeplearn.js code ported to texflow)."""
    snake = _RENAMED.get(name) or snake_case(name)
    if snake != name and has(snake):
        return AttributeError(f"{owner} has no attribute {name!r}: texflow spells deeplearn.js's "
                              f"names in snake_case, use {snake!r}")
    return AttributeError(f"{owner} has no attribute {name!r}")


class WorkerLostError(UnavailableError):
    """A worker of a collective group disconnected or stopped answering.

    Raised by the survivors' pending and later collectives until they call
    `group.rejoin()` (or `group.resize()` in an elastic group). `ranks` are
    the lost ranks and `generation` the membership they belonged to.
    """

    def __init__(self, message, ranks=(), generation=None):
        super().__init__(message)
        self.ranks, self.generation = tuple(ranks), generation
