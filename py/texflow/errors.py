"""Exception types raised by texflow.

Each error names the thing that is wrong and the value received, raised where
the mistake is made.
"""


class TexflowError(Exception):
    """Base class of every texflow error."""


class ShapeError(TexflowError, ValueError):
    """Shapes that do not fit an op, or values that do not fit a shape."""


class DTypeError(TexflowError, TypeError):
    """A dtype texflow does not support, or one an op does not accept."""


class DisposedError(TexflowError, ValueError):
    """An NDArray was used after `dispose()`."""


class BackendError(TexflowError, RuntimeError):
    """An unknown backend, or one that cannot run here."""


class ScopeError(TexflowError, RuntimeError):
    """Scope misuse, such as an op outside any scope on a safe-mode math object."""


class KernelNotFoundError(BackendError):
    """An op has no kernel in the active backend's kernel language."""


# --- TensorFlow's run-time errors (tf.errors), raised by the input pipeline --------------

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


def _op_error(name, code, doc, *bases):
    cls = type(name, (OpError, *bases), {"__doc__": doc, "error_code": code})
    cls.__module__ = __name__
    return cls


CancelledError = _op_error("CancelledError", 1, "An operation or step was cancelled.")
UnknownError = _op_error("UnknownError", 2, "An unknown error.")
InvalidArgumentError = _op_error("InvalidArgumentError", 3,
                                 "An argument or a value read from input is invalid.", ValueError)
NotFoundError = _op_error("NotFoundError", 5, "A file (or other entity) was not found.",
                          FileNotFoundError)
FailedPreconditionError = _op_error("FailedPreconditionError", 9,
                                    "The system is not in a state to run the operation.")
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
AlreadyExistsError = _op_error("AlreadyExistsError", 6,
                               "A file (or other entity) to be created already exists.",
                               FileExistsError)
PermissionDeniedError = _op_error("PermissionDeniedError", 7,
                                  "The caller may not run the operation.", PermissionError)


class WorkerLostError(UnavailableError):
    """A worker of a collective group disconnected or stopped answering.

    Raised by the survivors' pending and later collectives until they call
    `group.rejoin()` (or `group.resize()` in an elastic group). `ranks` are
    the lost ranks and `generation` the membership they belonged to.
    """

    def __init__(self, message, ranks=(), generation=None):
        super().__init__(message)
        self.ranks, self.generation = tuple(ranks), generation
