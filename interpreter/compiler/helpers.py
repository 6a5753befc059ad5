"""Functions the compiled game calls at play time.

The generated source calls these under the names in :data:`GENERATED_NAMES`
(``_lsal(...)``, ``_members(...)``); the rest wrap compiled functions.
Depends only on the runtime.
"""

from __future__ import annotations

from itertools import combinations, product
from math import comb, prod
from operator import itemgetter

from ..runtime import (MAX_LIST, MAX_SEARCH, MAX_VALUE, MAX_WORK, STACK_MASK, STACK_SHIFT, RuleError, own_card_vars,
                       own_cells)
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


def copy_keys(st, cards) -> list:
    """For each card, what makes it the same move as another: its name, and
    its card variables."""
    m = st.m
    ids, cvars = m.card_name_ids, m.cvar_bases
    if not cvars:
        return [ids[c] for c in cards]
    C = st.C
    if len(cvars) == 1:
        b0 = cvars[0]
        return [(ids[c], C[b0 + c]) for c in cards]
    if len(cvars) == 2:
        b0, b1 = cvars
        return [(ids[c], C[b0 + c], C[b1 + c]) for c in cards]
    return [(ids[c], *[C[b + c] for b in cvars]) for c in cards]


def dedupe(st, cards):
    """The cards of a domain, skipping a copy identical to an earlier one
    (same name, same card variables): choosing either is the same move.
    Kept while a choice is searched (``domain_cache``: nothing moves
    meanwhile), with the *shape* of the cards (the group of each, groups
    numbered in the order of their first card; None when no two cards are
    copies), so the actions of one choice over one pile look at it once,
    and a set choice over it groups its copies the same way."""
    m = st.m
    cache = m.domain_cache
    if cache is not None:
        hit = cache.get(id(cards))
        if hit is not None and hit[0] is cards:
            return hit[1]
    name_of = m.card_name_ids.__getitem__
    if len(set(map(name_of, cards))) == len(cards):  # no two cards of one name
        out, shape = list(cards), None
    else:
        names = tuple(map(name_of, cards))
        plan = m.copy_plans.get(names)
        if plan is None:
            if len(m.copy_plans) >= MAX_COPY_PLANS:  # (begun again: the piles of now are kept)
                m.copy_plans.clear()
            plan = m.copy_plans[names] = _copy_plan(names)
        firsts, shape, pairs = plan
        cvars = m.cvar_bases
        if cvars and not _same_card_vars(st.C, cvars, cards, pairs):
            out, shape = _told_apart(st, cards)
        else:
            out = [cards[i] for i in firsts]
    if cache is not None:
        cache[id(cards)] = (cards, out, shape)
    else:
        m.last_told_apart = (cards, out, shape)  # (for subsets, outside a search)
    return out


# the copy plans a machine keeps (helpers.dedupe), by the names of a pile's cards in order: piles of
# copies recur (a hand of hens); past this many, they are dropped and kept again as they come
MAX_COPY_PLANS = 8192


def _copy_plan(names: tuple) -> tuple:
    """For cards of these names (some alike), in order: the positions of
    the first of each name, each card's group (groups numbered in the
    order of their first card), and the (first, later) pairs of positions
    of one name, whose card variables must agree for the later card to be
    a copy of the first."""
    group = {}
    firsts, shape, pairs = [], [], []
    for i, name in enumerate(names):
        g = group.get(name)
        if g is None:
            group[name] = g = len(firsts)
            firsts.append(i)
        else:
            pairs.append((firsts[g], i))
        shape.append(g)
    return tuple(firsts), tuple(shape), tuple(pairs)


def _same_card_vars(C, cvars, cards, pairs) -> bool:
    """Do the two cards of each pair of positions hold the same card variables?"""
    for i, j in pairs:
        a, b = cards[i], cards[j]
        for base in cvars:
            if C[base + a] != C[base + b]:
                return False
    return True


def _told_apart(st, cards) -> tuple:
    """(the cards without identical copies, their shape or None), copies
    told apart by their names and card variables (:func:`copy_keys`)."""
    group = {}  # a copy key -> its group, numbered in the order of the groups' first cards
    out, shape = [], []
    for c, key in zip(cards, copy_keys(st, cards)):
        g = group.get(key)
        if g is None:
            group[key] = g = len(out)
            out.append(c)
        shape.append(g)
    return out, (tuple(shape) if len(out) < len(shape) else None)


MAX_SUBSETS = 100_000  # a set choice offering more sets than this is a rule error


def subsets(st, cards, lo, hi, uid=None):
    """The sets of ``cards`` with ``lo`` to ``hi`` members (``hi`` None: up to
    all), smallest first.  Identical copies make one choice, so a set is
    offered once: the cards are grouped as :func:`dedupe` groups them (by
    name and card variables, groups in the order of their first card) and
    each set takes the first cards of each group, most of the earlier groups
    first.  Given an action's ``uid``,
    each set comes as the action ``(uid, set)`` (for an action whose one
    parameter is the set: its listing, made in one pass)."""
    m = st.m
    entry = m.domain_cache.get(id(cards)) if m.domain_cache is not None else None
    if entry is None or entry[0] is not cards:
        dedupe(st, cards)
        entry = m.domain_cache[id(cards)] if m.domain_cache is not None else m.last_told_apart
    shape = entry[2]
    cards = list(cards)
    n = len(cards)
    hi = n if hi is None else min(hi, n)
    lo = max(lo, 0)
    if shape is None:
        if lo <= hi and n <= 12:  # no copies, few cards: plain combinations, at C speed
            if uid is not None:
                return [(uid, x) for k in range(lo, hi + 1) for x in combinations(cards, k)]
            return [x for k in range(lo, hi + 1) for x in combinations(cards, k)]
        shape = tuple(range(n))
    getters = _POSITIONS.get((shape, lo, hi))
    if getters is None:
        getters = list(map(_getter, _subset_positions(shape, lo, hi)))
        if len(getters) <= 1024 and len(_POSITIONS) < 4096:
            _POSITIONS[(shape, lo, hi)] = getters
    if uid is not None:
        return [(uid, get(cards)) for get in getters]
    return [get(cards) for get in getters]


# For a hand of a given shape (its groups of copies), a getter of each set's cards by their
# positions: hands of the same shape recur all game long.  Only small lists are kept.
_POSITIONS = {}


def _getter(positions: tuple):
    """A function of a hand giving the tuple of its cards at ``positions``
    (``itemgetter``, at C speed, for two or more)."""
    if len(positions) > 1:
        return itemgetter(*positions)
    if positions:
        i = positions[0]
        return lambda cards: (cards[i],)
    return lambda cards: ()


def _subset_positions(shape, lo, hi) -> list:
    """:func:`subsets` for the positions 0..n-1 of cards grouped by ``shape``."""
    n = len(shape)
    groups = [[] for _ in range(len(set(shape)))]
    for i, label in enumerate(shape):
        groups[label].append(i)
    if len(groups) == n:  # no copies: plain combinations, in the order of the cards
        total = sum(comb(n, k) for k in range(lo, hi + 1))
        if total > MAX_SUBSETS:
            raise RuleError(f"a choice of {lo} to {hi} cards among {n} offers over {MAX_SUBSETS} sets")
        return [x for k in range(lo, hi + 1) for x in combinations(range(n), k)]
    sizes = [len(gr) for gr in groups]
    if prod(x + 1 for x in sizes) <= 4096:  # few groups: every count of each, filtered
        by_size = [[] for _ in range(hi + 1)]
        for counts in product(*[range(x, -1, -1) for x in sizes]):
            k = sum(counts)
            if lo <= k <= hi:
                by_size[k].append(tuple(c for gr, t in zip(groups, counts) for c in gr[:t]))
        out = [x for same in by_size for x in same]
        if len(out) > MAX_SUBSETS:
            raise RuleError(f"a choice of {lo} to {hi} cards among {n} offers over {MAX_SUBSETS} sets")
        return out
    out = []
    g = len(groups)

    def pick(i, left, chosen):
        if i == g:
            if not left:
                out.append(tuple(chosen))
                if len(out) > MAX_SUBSETS:
                    raise RuleError(f"a choice of {lo} to {hi} cards among {n} offers over {MAX_SUBSETS} sets")
            return
        group = groups[i]
        for take in range(min(left, len(group)), -1, -1):
            pick(i + 1, left - take, chosen + group[:take])

    for k in range(lo, hi + 1):
        pick(0, k, [])
    return out


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
