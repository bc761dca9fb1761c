"""Who is in the group: ranks, generations, losses, rejoins and elastic resizes.

Pure bookkeeping (no I/O), driven by the server. The group changes only by
forming a new *generation*; every collective belongs to one. A generation
forms when everyone who should be in it is ready:

- a fixed group (the default) has `num_workers` ranks, each held by one
  connection; it forms when every rank is held and every holder is ready (a
  new connection is ready at once; a member of the previous generation becomes
  ready by calling `resize`/`rejoin`). A lost rank is free for the next joiner,
  who gets it back (a worker reconnecting with its client id always does).
- an elastic group forms its first generation from `num_workers` joiners, then
  a new one whenever every live member is ready: the survivors, in their old
  order, then the joiners waiting, ranked 0..size-1 again.
"""

import itertools


class JoinRefused(Exception):
    """A join the coordinator turns down; the message says why."""


class Slot:
    """One worker's connection and what it said about itself."""

    _ids = itertools.count()

    def __init__(self, client_id, conn, info):
        self.client_id, self.conn, self.info = client_id, conn, dict(info)
        self.rank = None            # in the current generation (None while waiting)
        self.alive = True
        self.serial = next(self._ids)  # arrival order

    def __repr__(self):
        return f"<Slot rank={self.rank} client={self.client_id} alive={self.alive}>"


class Formed:
    """A new generation: `members` rank -> Slot; `new` ranks that were not in the last one;
    `lost` ranks of the last generation that are gone; `renumbered` old rank -> new rank."""

    def __init__(self, generation, members, new, lost, renumbered):
        self.generation, self.members = generation, members
        self.new, self.lost, self.renumbered = new, lost, renumbered

    @property
    def size(self):
        return len(self.members)


class Membership:
    """The group's state machine; see the module docstring.

    Args:
        num_workers: the size of a fixed group, or of an elastic group's first generation.
        elastic: whether later generations may shrink or grow.
        max_workers: the most workers an elastic group admits.
    """

    def __init__(self, num_workers, elastic=False, max_workers=None):
        if num_workers < 1:
            raise ValueError(f"num_workers must be at least 1; received {num_workers}")
        self.num_workers, self.elastic = num_workers, elastic
        self.max_workers = max(num_workers, max_workers or
                               (4 * num_workers if elastic else num_workers))
        self.generation = 0
        self.members = {}   # rank -> Slot of the current generation
        self.lost = set()   # ranks of the current generation that are gone
        self.waiting = {}   # fixed: reserved rank -> Slot; elastic: serial -> Slot
        self.ready = set()  # ranks of the current generation that asked for the next one

    # -- joining and leaving -------------------------------------------------------------

    def join(self, client_id, conn, info=(), task_id=None):
        """Adds a connection; returns (its Slot, the Slot it replaces or None).

        The caller then calls `leave(old)` for the replaced one (the same worker on a
        new connection: a reload, or a reconnect before the old one timed out).
        """
        slot = Slot(client_id, conn, info)
        if self.elastic:
            old = self._find(client_id)
            if len(self.live()) + len(self.waiting) - (old is not None) >= self.max_workers:
                raise JoinRefused(f"the group is full ({self.max_workers} workers)")
            self.waiting[slot.serial] = slot
            return slot, old
        rank, old = self._fixed_rank(client_id, task_id)
        slot.rank = rank
        self.waiting[rank] = slot
        return slot, old

    def _fixed_rank(self, client_id, task_id):
        held = {r: s for r, s in self.members.items() if r not in self.lost}
        held.update(self.waiting)
        if task_id is not None:
            if not 0 <= task_id < self.num_workers:
                raise JoinRefused(f"task_id {task_id} is out of range for a group of "
                                  f"{self.num_workers} workers")
            holder = held.get(task_id)
            if holder is not None and holder.client_id != client_id:
                raise JoinRefused(f"rank {task_id} is held by a live worker "
                                  f"(client {holder.client_id})")
            return task_id, holder
        for rank, holder in held.items():
            if holder.client_id == client_id:
                return rank, holder
        for rank in range(self.num_workers):
            if rank not in held:
                return rank, None
        raise JoinRefused(f"the group is full: all {self.num_workers} ranks are held by live "
                          "workers")

    def _find(self, client_id):
        for slot in list(self.members.values()) + list(self.waiting.values()):
            if slot.client_id == client_id and slot.alive:
                return slot
        return None

    def leave(self, slot):
        """A connection is gone; returns the member rank lost, or None."""
        slot.alive = False
        for key, waiting in list(self.waiting.items()):
            if waiting is slot:
                del self.waiting[key]
        if self.members.get(slot.rank) is slot and slot.rank not in self.lost:
            self.lost.add(slot.rank)
            self.ready.discard(slot.rank)
            return slot.rank
        return None

    def live(self):
        """Members of the current generation that are still connected, by rank."""
        return {r: s for r, s in self.members.items() if r not in self.lost}

    def request(self, slot):
        """A member asks for the next generation (resize / rejoin)."""
        if self.members.get(slot.rank) is slot and slot.rank not in self.lost:
            self.ready.add(slot.rank)

    # -- forming generations -------------------------------------------------------------

    def try_form(self):
        """Forms the next generation when everyone needed is ready; returns Formed or None."""
        live = self.live()
        if self.elastic:
            if self.generation == 0:
                if len(self.waiting) < self.num_workers:
                    return None
            elif set(live) - self.ready or not (live or self.waiting):
                return None
            order = [s for _, s in sorted(live.items())]
            order += sorted(self.waiting.values(), key=lambda s: s.serial)
            order = order[:self.max_workers]
            members = dict(enumerate(order))
        else:
            if len(live) + len(self.waiting) < self.num_workers or set(live) - self.ready:
                return None
            members = dict(live)
            members.update(self.waiting)
        previous = self.members
        renumbered = {s.rank: r for r, s in members.items()
                      if s.rank is not None and previous.get(s.rank) is s}
        new = sorted(r for r, s in members.items() if previous.get(s.rank) is not s)
        lost = sorted(r for r in previous if r not in renumbered)
        for rank, slot in members.items():
            slot.rank = rank
        self.generation += 1
        self.members = members
        self.waiting = {}
        self.lost = set()
        self.ready = set()
        return Formed(self.generation, members, new, lost, renumbered)
