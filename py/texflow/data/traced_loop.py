"""`for x in dataset:` (or `iter(dataset)`) inside a tf.function.

TensorFlow's autograph turns such a loop into a graph loop; texflow has no autograph,
so the loop runs while the function traces and is unrolled: each element taken is
host code that a replay runs again, so every call iterates the dataset afresh from its
start, as TensorFlow's graph makes a new iterator per call (a dataset that reshuffles
gives each call a new order). The trace fixes the number of elements and their
shapes: a replay whose dataset gives more or fewer elements, or elements of other
shapes, raises InvalidArgumentError naming the difference instead of computing with
what the trace saw. A trace holds a step per element, so this suits short datasets;
for long ones iterate outside and call the function per batch (Keras fit's way).
"""

from ..engine import trace
from ..errors import InvalidArgumentError


class TracedLoop:
    """The iterator `iter(dataset)` gives while a tf.function traces."""

    def __init__(self, dataset):
        from .dataset import DatasetIterator
        self._dataset = dataset
        self._iterator = None
        self._shapes = []  # per element taken at trace time: its arrays' shapes

        def start():  # at trace time, and first at every replay
            self._iterator = DatasetIterator(dataset, tensors=True)
        trace.host_call(start)

    def __iter__(self):
        return self

    def __next__(self):
        position = len(self._shapes)
        try:
            element = trace.host_call(self._take, position)
        except StopIteration:
            trace.host_call(self._ended, position)
            raise
        self._shapes.append(element_shapes(element))
        return element

    def _take(self, position):
        try:
            element = self._iterator._next(keep=False)
        except StopIteration:
            if position == len(self._shapes):  # tracing: the loop ends here
                raise
            raise InvalidArgumentError(
                f"a tf.function's loop over a dataset took {len(self._shapes)} elements "
                f"when traced, but the dataset ended after {position} at this call: the "
                "loop is unrolled when traced (texflow has no autograph), so the number "
                "of elements must stay the same") from None
        if position < len(self._shapes) and element_shapes(element) != self._shapes[position]:
            raise InvalidArgumentError(
                f"a tf.function's loop over a dataset got an element of shapes "
                f"{element_shapes(element)} at position {position}, but it was traced with "
                f"{self._shapes[position]}: a texflow trace has static shapes (batch with "
                "drop_remainder=True)")
        return element

    def _ended(self, position):
        try:
            self._iterator._next(keep=False)
        except StopIteration:
            return
        raise InvalidArgumentError(
            f"a tf.function's loop over a dataset took {position} elements when traced, "
            "but the dataset has more at this call: the loop is unrolled when traced "
            "(texflow has no autograph), so the number of elements must stay the same")


def element_shapes(element):
    arrays = []
    trace.flatten_arrays(element, arrays)
    return [list(x.shape) for x in arrays]
