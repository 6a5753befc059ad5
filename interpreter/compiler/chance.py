"""Chance steps of the flow (RANDOM opcodes): a uniform pick and a shuffle.

Each one tells the VM how many outcomes it has now (``count``), what to do
when there are none (``skip``) and how to apply outcome ``j`` (``resolve``).
Where no one picks the outcomes (chance is sampled, not explicit),
``sample`` draws them all at once from the state's generator: the same draws,
in the same order, as one event at a time, without a VM step each.
"""

from __future__ import annotations

import struct

from ..runtime import M64, RuleError, rng_below


# SplitMix64's constants (as runtime.rng_below steps it)
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_LANE = 128  # bits a draw takes in one wide int: a 64-bit value times a 64-bit constant fits
_LANES = {}  # number of draws -> (ones, golden ramp, mask, unpack): the wide constants for that many
MAX_LANE_SETS = 256


def _lanes(n: int) -> tuple:
    entry = _LANES.get(n)
    if entry is None:
        if len(_LANES) >= MAX_LANE_SETS:
            _LANES.clear()
        ones = sum(1 << (_LANE * i) for i in range(n))
        ramp = sum((i + 1) << (_LANE * i) for i in range(n))
        entry = _LANES[n] = (ones, _GOLDEN * ramp, M64 * ones, struct.Struct("<" + "Q8x" * n).unpack)
    return entry


def shuffle_in_place(st, xs: list, k: int) -> None:
    """Fisher-Yates over the first ``k`` items of ``xs``, from the last
    position down: the draws of :func:`rng_below`, one per position, in
    the same order.  The generator's states for the ``k - 1`` draws are
    evenly spaced, so all of them are mixed at once, each in a lane of
    128 bits of one wide int (a lane's product stays in its lane; what a
    shift brings in from the next lane is masked off), and read back as
    64-bit values: the same numbers as a draw at a time, at C speed."""
    n = k - 1
    if n < 1:
        return
    s = st.rng
    ones, ramp, mask, unpack = _lanes(n)
    z = (s * ones + ramp) & mask  # lane i: the generator's state at draw i + 1
    z = ((z ^ (z >> 30)) & mask) * _MIX1 & mask
    z = ((z ^ (z >> 27)) & mask) * _MIX2 & mask
    z = (z ^ (z >> 31)) & mask
    for v in unpack(z.to_bytes(16 * n, "little")):
        j = v % k
        k -= 1
        xs[k], xs[j] = xs[j], xs[k]
    st.rng = (s + n * _GOLDEN) & M64


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
