"""tf.einsum: Einstein summation over texflow's ops (no kernel of its own).

Each operand first loses its repeated labels (a diagonal, taken with a gather) and the
labels no later operand or the output needs (summed). Operands are then contracted left
to right: labels both share and still need are batch axes, shared labels no longer
needed are contracted by a batched matmul, the rest stay free; without contracted
labels the pair is a broadcast product. A transpose puts the result in the output's
order. Ellipsis dimensions broadcast as in numpy and TensorFlow.
"""

import string

import numpy as np

from ..engine.ndarray import NDArray, from_numpy, to_numpy
from ..engine.registry import export
from ..errors import InvalidArgumentError
from . import elementwise as ew
from .matmul import matmul
from .movement import broadcast_to, gather, reshape, transpose
from .reduce import sum as reduce_sum

_ELLIPSIS_LABELS = "\u2460\u2461\u2462\u2463\u2464\u2465\u2466\u2467"  # never in equations


def _parse(equation, operands):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: got {len(operands)} inputs for equation \"{equation}\", "
                         f"expecting {len(terms)}")
    for t in terms + [rhs]:
        bad = set(t.replace("...", "")) - set(string.ascii_letters)
        if bad:
            raise ValueError(f"einsum: invalid character(s) {sorted(bad)} in equation "
                             f"\"{equation}\"")
    n_ellipsis = 0
    expanded = []
    for term, x in zip(terms, operands):
        if "..." in term:
            k = len(x.shape) - (len(term) - 3)
            if k < 0:
                raise InvalidArgumentError(f"einsum: operand of shape {list(x.shape)} has "
                                           f"fewer dimensions than subscripts {term!r}")
            n_ellipsis = max(n_ellipsis, k)
            term = term.replace("...", _ELLIPSIS_LABELS[len(_ELLIPSIS_LABELS) - k:])
        if len(term) != len(x.shape):
            raise InvalidArgumentError(f"einsum: subscripts {term!r} do not match an operand "
                                       f"of rank {len(x.shape)} (shape {list(x.shape)})")
        expanded.append(term)
    dots = _ELLIPSIS_LABELS[len(_ELLIPSIS_LABELS) - n_ellipsis:]
    if n_ellipsis and "..." not in rhs:
        raise InvalidArgumentError(f"einsum: output contains {n_ellipsis} broadcasting "
                                   "dimension(s) but no ellipsis (...) was found in the "
                                   f"output subscripts of \"{equation}\"")
    if arrow:
        out = rhs.replace("...", dots)
    else:  # the labels seen once, in alphabetical order
        counts = {}
        for t in expanded:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = "".join(sorted(c for c, n in counts.items() if n == 1))
    for c in out:
        if out.count(c) > 1:
            raise ValueError(f"einsum: output subscripts contain a label appearing more "
                             f"than once: {equation}")
        if not any(c in t for t in expanded) and c not in dots:
            raise ValueError(f"einsum: output subscripts contain the label {c} not present "
                             "in the input subscripts.")
    return expanded, out, set(dots)


def _diagonal(x, labels):
    """`x` with each repeated label taken once (the diagonal), and its labels."""
    while True:
        repeated = next((c for c in labels if labels.count(c) > 1), None)
        if repeated is None:
            return x, labels
        axes = [i for i, c in enumerate(labels) if c == repeated]
        rest = [i for i in range(len(labels)) if i not in axes]
        n = x.shape[axes[0]]
        if any(x.shape[a] != n for a in axes):
            raise InvalidArgumentError(f"einsum: label {repeated!r} has sizes "
                                       f"{[x.shape[a] for a in axes]}")
        moved = reshape(transpose(x, axes + rest), (n ** len(axes),) +
                        tuple(x.shape[i] for i in rest))
        step = sum(n ** k for k in range(len(axes)))
        x = gather(moved, from_numpy(np.arange(n, dtype=np.int32) * step))
        labels = repeated + "".join(labels[i] for i in rest)


def _sizes(items, broadcastable):
    sizes = {}
    for x, labels in items:
        for c, d in zip(labels, x.shape):
            old = sizes.get(c, d)
            if old != d and not (c in broadcastable and 1 in (old, d)):
                raise InvalidArgumentError(f"einsum: expected dimension {old} for label "
                                           f"{c!r} but an operand of shape {list(x.shape)} "
                                           f"has {d}")
            sizes[c] = max(old, d)
    return sizes


def _prod(sizes, labels):
    n = 1
    for c in labels:
        n *= sizes[c]
    return n


def _contract(a, la, b, lb, keep, sizes):
    """a (labels la) and b (labels lb) combined; keeps the labels in `keep`."""
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    free_a = [c for c in la if c not in lb]
    free_b = [c for c in lb if c not in la]

    def arrange(x, labels, order):
        x = transpose(x, [labels.index(c) for c in order])
        return broadcast_to(x, tuple(sizes[c] for c in order))  # ellipsis broadcasting
    if not summed:  # a broadcast product: no matmul needed
        a = reshape(arrange(a, la, batch + free_a), tuple(sizes[c] for c in batch + free_a)
                    + (1,) * len(free_b))
        b = arrange(b, lb, batch + free_b)
        b = reshape(b, tuple(sizes[c] for c in batch) + (1,) * len(free_a) +
                    tuple(sizes[c] for c in free_b))
        return ew.mul(a, b), "".join(batch + free_a + free_b)
    nb, m, k, n = (_prod(sizes, batch), _prod(sizes, free_a), _prod(sizes, summed),
                   _prod(sizes, free_b))
    a = reshape(arrange(a, la, batch + free_a + summed), (nb, m, k))
    b = reshape(arrange(b, lb, batch + summed + free_b), (nb, k, n))
    out = reshape(matmul(a, b), tuple(sizes[c] for c in batch + free_a + free_b))
    return out, "".join(batch + free_a + free_b)


def _sum_out(x, labels, needed):
    """`x` summed over its labels not in `needed`, and the labels left."""
    drop = [k for k, c in enumerate(labels) if c not in needed]
    if not drop:
        return x, labels
    return reduce_sum(x, axis=drop), "".join(c for k, c in enumerate(labels) if k not in drop)


@export("tf", "math", "linalg")
def einsum(equation, *inputs, name=None):
    """Einstein summation (TensorFlow's einsum): 'ij,jk->ik' (matmul), 'bij,bjk->bik',
    'ij->ji', 'ij->' , 'i,j->ij', 'ii->i' (diagonals), '...ij,...jk->...ik', implicit
    outputs ('ij,jk'), and any number of operands.

    >>> tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([3, 4])).shape
    (2, 4)
    """
    operands = [x if isinstance(x, NDArray) else from_numpy(to_numpy(x)) for x in inputs]
    if not operands:
        raise ValueError("einsum: needs at least one input")
    terms, out, dots = _parse(equation, operands)
    items = [_diagonal(x, t) for x, t in zip(operands, terms)]
    sizes = _sizes(items, dots)
    result = None
    for i, (x, labels) in enumerate(items):
        later = set(out).union(*[set(t) for _, t in items[i + 1:]])
        x, labels = _sum_out(x, labels, later | set(result[1] if result else ""))
        if result is None:
            result = (x, labels)
            continue
        result = _sum_out(*result, later | set(labels))
        result = _contract(result[0], result[1], x, labels, later, sizes)
    x, labels = _sum_out(*result, set(out))
    x = broadcast_to(x, tuple(sizes[c] for c in labels)) if labels else x
    return transpose(x, [labels.index(c) for c in out]) if labels != out else x
