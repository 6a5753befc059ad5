"""Chance steps of the flow (RANDOM opcodes): a uniform pick and a shuffle.

Each one tells the VM how many outcomes it has now (``count``), what to do
when there are none (``skip``) and how to apply outcome ``j`` (``resolve``).
Where no one picks the outcomes (chance is sampled, not explicit),
``sample`` draws them all at once from the state's generator: the same draws,
in the same order, as one event at a time, without a VM step each.
"""

from __future__ import annotations

from ..runtime import M64, RuleError, rng_below


def shuffle_in_place(st, xs: list, k: int) -> None:
    """Fisher-Yates over the first ``k`` items of ``xs``, from the last
    position down: the draws of :func:`rng_below`, one per position, in
    the same order, written out in one loop."""
    s = st.rng
    while k > 1:
        s = (s + 0x9E3779B97F4A7C15) & M64
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        j = (z ^ (z >> 31)) % k
        xs[k - 1], xs[j] = xs[j], xs[k - 1]
        k -= 1
    st.rng = s


class RandomPick:
    """A uniform random pick among a collection, assigned by a setter."""

    __slots__ = ("items", "setter")

    def __init__(self, items, setter):
        self.items = items
        self.setter = setter

    def count(self, st):
        return len(self.items(st))

    def skip(self, st, pc):
        raise RuleError("random pick from an empty collection")

    def resolve(self, st, j, pc):
        self.setter(st, list(self.items(st))[j])
        return pc + 1

    def sample(self, st, k, pc):
        return self.resolve(st, rng_below(st, k), pc)


class Shuffle:
    """Fisher-Yates, one uniform chance event per position."""

    __slots__ = ("zone", "slot")

    def __init__(self, zone, slot):
        self.zone = zone
        self.slot = slot  # remaining positions, set by the EXEC before

    def count(self, st):
        k = st.L[self.slot]
        return k if k > 1 else 0

    def skip(self, st, pc):
        return pc + 1

    def resolve(self, st, j, pc):
        k = st.L[self.slot]
        pile = st.Z[self.zone(st)]
        pile[k - 1], pile[j] = pile[j], pile[k - 1]
        st.L[self.slot] = k - 1
        return pc if k - 1 > 1 else pc + 1

    def sample(self, st, k, pc):
        shuffle_in_place(st, st.Z[self.zone(st)], k)
        st.L[self.slot] = 1
        return pc + 1


class RandomOrder:
    """A shuffled copy of a list, Fisher-Yates, one uniform chance event per
    position; the order is built in a slot (a new tuple at each event, so
    clones never share it) and handed to ``setter`` when complete."""

    __slots__ = ("slot", "left", "setter")

    def __init__(self, slot, left, setter):
        self.slot = slot  # the list so far, set by the EXEC before
        self.left = left  # positions still to draw
        self.setter = setter

    def count(self, st):
        k = st.L[self.left]
        return k if k > 1 else 0

    def skip(self, st, pc):
        self.setter(st, st.L[self.slot])
        return pc + 1

    def resolve(self, st, j, pc):
        k = st.L[self.left]
        xs = list(st.L[self.slot])
        xs[k - 1], xs[j] = xs[j], xs[k - 1]
        st.L[self.slot] = tuple(xs)
        st.L[self.left] = k - 1
        if k - 1 > 1:
            return pc
        return self.skip(st, pc)

    def sample(self, st, k, pc):
        xs = list(st.L[self.slot])
        shuffle_in_place(st, xs, k)
        st.L[self.slot] = tuple(xs)
        st.L[self.left] = 1
        return self.skip(st, pc)
