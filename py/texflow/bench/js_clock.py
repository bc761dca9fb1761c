"""Python's own time in a call, in the browser: the call's time less its time in JavaScript.

A call from Python into JS on WebGL runs GL's commands, or on WebGPU encodes and
submits passes, before it returns, so the Python clock around a replayed step (the
bench's "issue" time) holds the JavaScript that runs its launch program too. To see
Python's share alone, `JsClock` wraps, for a while, every way the webgl and webgpu
backends reach their JS runtime (the runtime object, the launch function cached for
eager launches, the texture pool's create and delete) in a timer: `seconds` is the
time spent inside those calls, `calls` their number.

What it counts as JavaScript includes Pyodide's crossing into JS and back (argument
conversion), which is Python's doing: an eager step makes a hundred such calls and
a replayed one or two, so the split puts less in eager's Python than it costs, and a
replayed step's Python share of eager's comes out higher, not lower. The timer's own
cost outside the timed interval is measured (`overhead`) and taken out per call.
"""

import statistics
import time

_perf = time.perf_counter


class JsClock:
    """Times the JS calls of backend `backend` (webgl or webgpu) while entered.

    >>> with JsClock(backend) as clock:   # doctest: +SKIP
    ...     step()
    >>> clock.python_ms(total_ms)         # doctest: +SKIP
    """

    def __init__(self, backend):
        self.backend = backend
        self.seconds = 0.0
        self.calls = 0
        self._saved = []
        self.overhead = self._calibrate()

    def reset(self):
        self.seconds = 0.0
        self.calls = 0

    def python_ms(self, total_ms):
        """`total_ms` (a call timed around everything) less the time in JS since `reset`
        and the timer's own cost outside the JS calls."""
        return total_ms - (self.seconds + self.calls * self.overhead) * 1e3

    def timed(self, fn):
        """`fn` with each call's duration added to `seconds`."""
        def call(*args):
            t0 = _perf()
            try:
                return fn(*args)
            finally:
                self.seconds += _perf() - t0
                self.calls += 1
        return call

    def _calibrate(self, n=1000, rounds=5):
        """Seconds per call that a timed call costs beyond its timed interval (the
        median of `rounds` rounds: the browser's clock is coarse and the machine busy)."""
        def noop(*args):
            return None
        wrapped = self.timed(noop)
        costs = []
        for _ in range(rounds):
            self.reset()
            t0 = _perf()
            for _ in range(n):
                noop(1)
            direct = _perf() - t0
            t0 = _perf()
            for _ in range(n):
                wrapped(1)
            total = _perf() - t0
            costs.append(max((total - direct - self.seconds) / n, 0.0))
        self.reset()
        return statistics.median(costs)

    def __enter__(self):
        be = self.backend
        if be.name == "webgl":
            self._swap(be, "js", _Timed(be.js, self))
            self._swap(be, "_launch", be.js.launch)
            self._swap(be, "_many", be.js)
            self._swap(be, "_delete_texture", self.timed(be._delete_texture))
            self._swap(be.pool, "_create", self.timed(be.pool._create))
            self._swap(be.pool, "_delete", self.timed(be.pool._delete))
        elif be.name == "webgpu":
            self._swap(be, "_ex", _Timed(be._ex, self))
            self._swap(be, "_launch", be._ex.launch)
        else:
            raise ValueError(f"JsClock times the browser backends (webgl, webgpu), "
                             f"received {be.name!r}")
        return self

    def __exit__(self, *exc):
        while self._saved:
            obj, name, value = self._saved.pop()
            setattr(obj, name, value)

    def _swap(self, obj, name, value):
        self._saved.append((obj, name, getattr(obj, name)))
        setattr(obj, name, value)


class _Timed:
    """A JS object whose methods are timed by `clock` (other attributes pass through)."""

    def __init__(self, obj, clock):
        self._obj = obj
        self._clock = clock
        self._methods = {}

    def __getattr__(self, name):
        method = self._methods.get(name)
        if method is None:
            attr = getattr(self._obj, name)
            if not callable(attr):
                return attr
            method = self._methods[name] = self._clock.timed(attr)
        return method
