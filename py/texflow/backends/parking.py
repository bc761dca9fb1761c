"""Launch programs' arenas kept between replays: `Parking`.

A replayed step's launch program (autodiff/replay.py) takes its arena (the
buffers or textures of values only kernels see) from the backend's pool. Handing
them back after every replay and taking them again at the next costs dozens of
pool operations per step, and new ids each time make JavaScript rebind its
registers (and, on WebGPU, rebuild bind groups). So after a replay the arena is
*parked*: it stays with its program, counted as pooled memory (not in use), and
the next replay takes it back as it was. A parked arena never makes anyone else
allocate: when the pool has nothing free for a request (a miss), it first takes
back every parked arena (`reclaim`), and only then creates. A program whose
arena was taken back acquires a new one at its next replay.
"""


class Parking:
    """The parked arenas of one pool.

    Args:
        release: returns one handle to the pool's free lists.
        nbytes: the bytes of one handle.
    """

    def __init__(self, release, nbytes):
        self._release = release
        self._nbytes = nbytes
        self.held = {}    # owner -> (handles, their bytes)
        self._known = {}  # owner -> (handles, their bytes) last parked (bytes summed once)
        self.count = 0
        self.nbytes = 0

    def park(self, owner, handles):
        """Keeps `handles` (a list, still counted in use by the pool) for `owner`."""
        entry = self._known.get(owner)
        if entry is None or entry[0] is not handles:
            entry = self._known[owner] = (handles, sum(map(self._nbytes, handles)))
        self.held[owner] = entry
        self.count += len(handles)
        self.nbytes += entry[1]

    def unpark(self, owner):
        """`owner`'s parked handles (the list it parked), or None when taken back."""
        entry = self.held.pop(owner, None)
        if entry is None:
            return None
        self.count -= len(entry[0])
        self.nbytes -= entry[1]
        return entry[0]

    def drop(self, owner):
        """Gives `owner`'s parked handles back to the pool and forgets it."""
        handles = self.unpark(owner)
        self._known.pop(owner, None)
        for h in handles or ():
            self._release(h)

    def reclaim(self):
        """Gives every parked arena back to the pool; True when there was one."""
        if not self.held:
            return False
        for owner in list(self.held):
            self.drop(owner)
        return True
