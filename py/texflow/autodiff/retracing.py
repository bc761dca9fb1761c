"""TensorFlow's frequent-tracing warning for `tf.function` (autodiff/function.py): logged
when 5 of a function's last calls (a history of about 10) traced, at most twice per
Python function (by its code, so a tf.function made anew in a loop counts too)."""

import logging
import threading
import weakref

FREQUENT_TRACING_THRESHOLD = 5
FREQUENT_TRACING_CALL_HISTORY = 10
FREQUENT_TRACING_MAX_WARNINGS = 2
_log = logging.getLogger("texflow")


class _TracingDetector:
    """How many of one Python function's recent calls traced (TensorFlow's rule)."""

    def __init__(self):
        self.calls_per_trace = []  # per trace in the history: it and the calls after it
        self.calls = 0
        self.warnings = 0

    def called(self, function, traced, quiet=False):
        """Notes a call of a tf.function of `function`; warns as TensorFlow does when its
        recent calls traced too often."""
        with _detectors_lock:
            self._called(function, traced, quiet)

    def _called(self, function, traced, quiet):
        self.calls += 1
        if not traced:
            if not self.calls_per_trace:  # the first calls replayed a concrete function
                self.calls_per_trace = [0]
            self.calls_per_trace[-1] += 1
            return
        self.calls_per_trace.append(1)
        while self.calls_per_trace and \
                self.calls - self.calls_per_trace[0] > FREQUENT_TRACING_CALL_HISTORY:
            self.calls -= self.calls_per_trace.pop(0)
        if quiet or self.warnings >= FREQUENT_TRACING_MAX_WARNINGS or \
                len(self.calls_per_trace) < FREQUENT_TRACING_THRESHOLD:
            return
        self.warnings += 1
        _log.warning(
            "%d out of the last %d calls to %s triggered tf.function retracing. Tracing "
            "is expensive and the excessive number of tracings could be due to (1) "
            "creating @tf.function repeatedly in a loop, (2) passing tensors with "
            "different shapes, (3) passing Python objects instead of tensors. For (1), "
            "please define your @tf.function outside of the loop. For (2), texflow traces "
            "once per shape whatever the input_signature or reduce_retracing (its kernels "
            "are planned per shape): give the function few distinct shapes, e.g. by "
            "batching or padding. For (3), pass values that change as tensors.",
            len(self.calls_per_trace), self.calls, function)


_detectors = weakref.WeakKeyDictionary()  # the Python function's code -> _TracingDetector
_detectors_lock = threading.Lock()


def _detector_for(function):
    """The _TracingDetector of Python function `function`, shared by every tf.function of
    the same code, as TensorFlow's."""
    key = function
    while hasattr(key, "__wrapped__"):
        key = key.__wrapped__
    key = getattr(getattr(key, "__func__", key), "__code__", key)
    with _detectors_lock:
        try:
            return _detectors.setdefault(key, _TracingDetector())
        except TypeError:  # not weakly referable: this function's own
            return _TracingDetector()
