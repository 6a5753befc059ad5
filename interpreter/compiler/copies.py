"""Copies of one card in a pile, told apart once, and the sets a set choice offers.

Two cards of one name whose card variables agree are the same move:
:func:`dedupe` keeps the first of each (what a card choice ranges over) and
:func:`subsets` offers each set of a pile once (what a set choice ranges
over), grouping the copies the same way.  The generated source calls them as
``_dedupe`` and ``_subsets`` (:data:`.helpers.GENERATED_NAMES`).  Depends only
on the runtime.
"""

from __future__ import annotations

from itertools import combinations, product
from math import comb, prod
from operator import itemgetter

from ..runtime import RuleError


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
        pick, shape, pairs = plan
        cvars = m.cvar_bases
        if cvars and not _same_card_vars(st.C, cvars, cards, pairs):
            out, shape = _told_apart(st, cards)
        else:
            out = list(pick(cards)) if pick is not None else [cards[0]]  # (one name: no getter)
    if cache is not None:
        cache[id(cards)] = (cards, out, shape)
    else:
        m.last_told_apart = (cards, out, shape)  # (for subsets, outside a search)
    return out


# the copy plans a machine keeps (dedupe), by the names of a pile's cards in order: piles of
# copies recur (a hand of hens); past this many, they are dropped and kept again as they come
MAX_COPY_PLANS = 8192


def _copy_plan(names: tuple) -> tuple:
    """For cards of these names (some alike), in order: a getter of the
    first card of each name (a tuple; None when all are of one name), each
    card's group (groups numbered in the order of their first card), and
    the (first, later) pairs of positions of one name, whose card
    variables must agree for the later card to be a copy of the first."""
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
    return (itemgetter(*firsts) if len(firsts) > 1 else None), tuple(shape), tuple(pairs)


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
    n = len(cards)
    hi = n if hi is None else min(hi, n)
    lo = max(lo, 0)
    key = (n if shape is None else shape, lo, hi, uid is not None)
    make = _MAKERS.get(key)
    if make is None:
        if len(_MAKERS) >= MAX_MAKERS or len(_MET) >= MAX_MAKERS:  # (begun again: the shapes of now are kept)
            _MAKERS.clear()
            _MET.clear()
        make, keep = _maker(n, shape, lo, hi, uid is not None, key in _MET)
        if keep:
            _MAKERS[key] = make
        else:
            _MET.add(key)
    return make(cards, uid)


# For a hand of a given shape (its groups of copies; its size, when it has none) and sizes of
# set, the function that makes the sets of such a hand: hands of one shape recur all game long.
# A maker written as source (a compile) is made for a shape met before (_MET), not for one that
# may not come back: the fuzzer, drawing hand sizes, meets many shapes once.
_MAKERS = {}
_MET = set()
MAX_MAKERS = 4096  # past this many, they are dropped and kept again as they come
MAX_WRITTEN = 64  # a choice of at most this many sets makes them in one written expression ...
MAX_WRITTEN_CARDS = 256  # ... of at most this many cards in all (a compile grows with its source)
MAX_KEPT_GETTERS = 1024  # a maker of more sets than this, by getters, is not kept


def _maker(n: int, shape, lo: int, hi: int, tagged: bool, met: bool = True):
    """(``make(cards, uid)``, is it worth keeping?): ``make`` gives the sets
    of ``cards`` (``n`` cards grouped by ``shape``, None for no copies) with
    ``lo`` to ``hi`` members, each as ``(uid, set)`` if ``tagged``.  A few
    sets are made by one list display (:func:`_written`), once the shape was
    ``met`` before (till then by getters, not kept); more, by a getter per
    set (at C speed), or for a small hand without copies by
    ``combinations``."""
    if shape is None and lo <= hi and n <= 12 and sum(comb(n, k) for k in range(lo, hi + 1)) > MAX_WRITTEN:
        if tagged:
            return (lambda cards, uid: [(uid, x) for k in range(lo, hi + 1) for x in combinations(cards, k)]), True
        return (lambda cards, uid: [x for k in range(lo, hi + 1) for x in combinations(cards, k)]), True
    positions = _subset_positions(tuple(range(n)) if shape is None else shape, lo, hi)
    small = len(positions) <= MAX_WRITTEN and sum(map(len, positions)) <= MAX_WRITTEN_CARDS
    if small and met:
        return _written(positions, tagged), True
    getters = list(map(_getter, positions))
    keep = not small and len(getters) <= MAX_KEPT_GETTERS  # (few sets met a first time: written if met again)
    if tagged:
        return (lambda cards, uid: [(uid, get(cards)) for get in getters]), keep
    return (lambda cards, uid: [get(cards) for get in getters]), keep


def _written(positions: list, tagged: bool):
    """``make(cards, uid)`` returning, in one list display, the tuple of
    the cards at each of ``positions`` (with ``uid`` before it if
    ``tagged``): no call per set.  Its source is made of numbers only, and
    compiled where all generated source is (its code kept by its source)."""
    from .source import Namespace  # (which needs the helpers, which need this module)

    sets = ["(" + "".join(f"c[{int(i)}], " for i in p) + ")" for p in positions]
    if tagged:
        sets = [f"(u, {x})" for x in sets]
    return Namespace().define(f"def _sets(c, u):\n    return [{', '.join(sets)}]\n", "_sets")


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
