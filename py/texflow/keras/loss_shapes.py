"""Keras 3's shape checks before its cross-entropies, with its ValueErrors: the errors a
model compiled with the wrong cross-entropy for its labels meets (one-hot labels with a
sparse loss, class indices with a categorical one)."""


def _received(target, output):
    return f"target.shape={tuple(target.shape)}, output.shape={tuple(output.shape)}"


def check_same_shape(target, output):
    """Keras 3's checks (and ValueErrors) before a binary or categorical cross-entropy."""
    if len(target.shape) < 1 or len(output.shape) < 1:
        raise ValueError("Arguments `target` and `output` must be at least rank 1. "
                         f"Received: {_received(target, output)}")
    if len(target.shape) != len(output.shape):
        raise ValueError("Arguments `target` and `output` must have the same rank (ndim). "
                         f"Received: {_received(target, output)}")
    if any(a is not None and b is not None and a != b
           for a, b in zip(target.shape, output.shape)):
        raise ValueError("Arguments `target` and `output` must have the same shape. "
                         f"Received: {_received(target, output)}")


def check_sparse_shapes(target, output):
    """Keras 3's checks before a sparse categorical cross-entropy (one-hot labels given
    to it are the usual mistake: they have the predictions' rank)."""
    if len(output.shape) < 1:
        raise ValueError(f"Argument `output` must be at least rank 1. Received: "
                         f"output.shape={tuple(output.shape)}")
    if len(target.shape) != len(output.shape) - 1:
        raise ValueError("Argument `output` must have rank (ndim) `target.ndim - 1`. "
                         f"Received: {_received(target, output)}")
    if any(a is not None and b is not None and a != b
           for a, b in zip(target.shape, output.shape[:-1])):
        raise ValueError("Arguments `target` and `output` must have the same shape up until "
                         f"the last dimension: {_received(target, output)}")
