"""Functions the compiled game calls at play time.

The generated source calls these under the names in :data:`GENERATED_NAMES`
(``_lsal(...)``, ``_members(...)``); the rest wrap compiled functions.
Depends only on the runtime.
"""

from __future__ import annotations

from ..runtime import (MAX_LIST, MAX_SEARCH, MAX_VALUE, MAX_WORK, STACK_MASK, STACK_SHIFT, RuleError, own_card_vars,
                       own_cells)
from .copies import dedupe, subsets
from .failures import failed
from .grids import cell_of, corners, groups, lines, neighbours, open_cells


# ------------------------------------------------------------ bounds
def too_big(v):
    """A number past the bound, made by the statement being run."""
    raise RuleError(f"{v} is beyond the bound on numbers (-10^15 to 10^15)")


def too_long(v):
    """A list past the bound on lists, about to be kept."""
    raise RuleError(f"a list of {len(v):,} items is beyond the bound on lists ({MAX_LIST:,} items)")


def mul(a, b):
    """``a * b``, within the bound on numbers: repeated products are the
    only way a few steps can make numbers too long to compute with."""
    r = a * b
    if -MAX_VALUE <= r <= MAX_VALUE:
        return r
    raise RuleError(f"{a} * {b} is beyond the bound on numbers (-10^15 to 10^15)")


def mul_late(a, b, small_a, small_b):
    """``a * b`` as the game compiled for one setting computes it, on a
    machine that reads the parameters from the state (.late): a product
    with a factor that setting's compile works out to at most 1000 either
    way (``small_a``, ``small_b``: such a factor) is not checked against the
    bound (Expressions.small), any other is."""
    if (small_a and -1000 <= a <= 1000) or (small_b and -1000 <= b <= 1000):
        return a * b
    return mul(a, b)


# ------------------------------------------------------------ builtins of the language
def seat(st, value: int) -> int:
    """A seat written as a number in the rules, checked against this table."""
    if value >= st.n:
        raise RuleError(f"there is no seat {value} (player {value + 1}) in a game of {st.n} players (seats 0 to {st.n - 1})")
    return value


def strictly_increasing(values) -> bool:
    return all(a < b for a, b in zip(values, values[1:]))


def strictly_decreasing(values) -> bool:
    return all(a > b for a, b in zip(values, values[1:]))


def index(seq, i):
    """``seq[i]``, counting from 0; a negative index is past the start, not
    the end (use top(...) for the last card)."""
    if i < 0:
        raise IndexError(i)
    return seq[i]


def members_of(mask: int) -> list:
    """The members (indices) of a set of enum members, in declaration order."""
    out = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out


def least_sum_at_least(values, target: int) -> int:
    """The smallest sum of a sub-list of ``values`` that is at least
    ``target``; the total when even the whole list falls short."""
    total = sum(values)
    if total < target:
        return total
    positive = [v for v in values if v > 0]
    # The answer is below target + the largest value (drop any one value from
    # the best sub-list and it falls short), so no sum beyond that is kept.
    limit = target + max(positive, default=0)
    if limit <= 1 << 20:  # a bit set of the reachable sums
        keep = (1 << limit) - 1
        reach = 1
        for v in positive:
            reach = (reach | reach << v) & keep
        reach >>= target
        return target + (reach & -reach).bit_length() - 1
    # large values (a bit set would need up to 10**12 bits): the set of reachable sums below target
    best = sum(positive)
    below = {0}
    for v in positive:
        grown = set()
        for s in below:
            if s + v >= target:
                best = min(best, s + v)
            else:
                grown.add(s + v)
        below |= grown
        if len(below) > 1 << 20:
            raise RuleError("least_sum_at_least: too many sums to try")
    return best


def sign(v):
    return (v > 0) - (v < 0)


def intersection(values):
    acc = -1
    for v in values:
        acc &= v
    return acc if acc != -1 else 0


def union(values):
    acc = 0
    for v in values:
        acc |= v
    return acc


def count(values):
    return sum(1 for v in values if v)


def search_too_wide(name):
    raise RuleError(f'listing the choices of action "{name}" tries over {MAX_SEARCH:,} parameter values '
                    f"(a range too wide, or too many parameters)")


def tick(st, xs):
    """The elements a generator goes through, charged to the work budget."""
    m = st.m
    m.work_left -= len(xs)
    if m.work_left < 0:
        raise RuleError(f"the expressions evaluated since the last decision went through over {MAX_WORK:,} "
                        f"values (generators nested in generators over large collections)")
    return xs


def charge(st, cost):
    """A value kept by a pure function is charged what computing it cost
    (the budget is spent the same whether the value was kept or not)."""
    m = st.m
    m.work_left -= cost
    if m.work_left < 0:
        tick(st, ())


def can_now(st, defs, names) -> bool:
    """``can(a, b...)`` in the flow: a search of its own, with a fresh budget
    (:func:`can`'s loop, written again: one call fewer, where a game asks
    at every turn)."""
    st.m.search_left = MAX_SEARCH
    for n in names:
        d = defs[n]
        first = d.first
        if first is not None:
            if first(st, None, 0):
                return True
        elif _finds(st, d):
            return True
    return False


class _Found(Exception):
    """A search given :data:`_FIRST` found its first legal choice."""


class _FirstOnly(list):
    """What a search adds its legal choices to, for ``can``: the first one
    ends the search (the rest need not be listed).  Never holds anything, so
    one serves every search."""

    __slots__ = ()

    def append(self, _):
        raise _Found

    def __iadd__(self, found):
        if found:
            raise _Found
        return self


_FIRST = _FirstOnly()


def can(st, defs, names) -> bool:
    """``can(a, b...)``: does any of the named actions have a legal choice now?
    Each search stops at its first legal choice.  (Within an action's search,
    its work counts against that search's budget, as far as it went.)"""
    for n in names:
        d = defs[n]
        first = d.first
        if first is not None:  # (the search written as a test: see .search_first)
            if first(st, None, 0):
                return True
        elif _finds(st, d):
            return True
    return False


def _finds(st, d) -> bool:
    """Does the search of action ``d`` find a legal choice? It stops at the
    first, raising out of the list it adds to: for an action no can() of
    the rules asks about (a can() compiled after the game, by
    ``Game.evaluate``), whose search is the listing's, or one whose search
    could not be written as a test (see .search_first)."""
    try:
        d.enumerate(st, _FIRST, 0)
    except _Found:
        return True
    return False


def stack_of(st, c):
    """The stack (an encoded value) that holds card ``c``."""
    inst = st.loc[c]
    for i, s in enumerate(st.Z[inst]):
        if c in s:
            return inst << STACK_SHIFT | i
    raise RuleError("that card is not in a stack")


# ------------------------------------------------------------ places and searches
def stack(st, v):
    """The cards of the stack encoded as ``v``."""
    return st.Z[v >> STACK_SHIFT][v & STACK_MASK]


def stacks(st, inst):
    """The stacks (encoded values) of the stacks zone instance ``inst``."""
    base = inst << STACK_SHIFT
    return range(base, base + len(st.Z[inst]))


def mask_and(full, masks) -> int:
    """The bits set in every one of ``masks`` (all of ``full`` for none): see .masks."""
    for m in masks:
        full &= m
    return full


def mask_or(masks) -> int:
    """The bits set in any of ``masks``."""
    out = 0
    for m in masks:
        out |= m
    return out


# The names the generated source calls these by.
GENERATED_NAMES = {
    "_sign": sign, "_inter": intersection, "_union": union, "_count": count, "_dedupe": dedupe,
    "_stack": stack, "_stacks": stacks, "_lsal": least_sum_at_least, "_members": members_of,
    "_index": index, "_incr": strictly_increasing, "_decr": strictly_decreasing,
    "_can": can, "_can_now": can_now, "_wide": search_too_wide, "_tick": tick, "_charge": charge, "_stack_of": stack_of, "_subsets": subsets,
    "_open_cells": open_cells, "_neighbours": neighbours, "_cell_of": cell_of, "_corners": corners,
    "_lines": lines, "_groups": groups, "_mask_and": mask_and, "_mask_or": mask_or, "_seat": seat, "_mul": mul, "_mul_late": mul_late, "_big": too_big, "_long": too_long, "_own_cvars": own_card_vars, "_own_cells": own_cells,
    "_failed": failed,
}
