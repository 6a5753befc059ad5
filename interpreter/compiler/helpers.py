"""Functions the compiled game calls at play time.

The generated source calls these under the names in :data:`GENERATED_NAMES`
(``_lsal(...)``, ``_members(...)``); the rest wrap compiled functions.
Depends only on the runtime.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

from ..machine import _explain
from ..runtime import STACK_MASK, STACK_SHIFT, RuleError

# What a failed evaluation raises (max of nothing, an index past the end,
# a division by zero, ...).  The VM turns these into RuleErrors for the flow's
# steps; the values computed outside it (parameter defaults at load time, and
# variable defaults and the deck in new_state) are guarded by guarded().
EVAL_ERRORS = (IndexError, ZeroDivisionError, ValueError, KeyError, TypeError)


def guarded(f, what, span):
    """``f``, raising a RuleError (with the span of the rules) where it would raise a Python error."""
    def guarded(st):
        try:
            return f(st)
        except EVAL_ERRORS as err:
            raise RuleError(f"{what} cannot be computed: {_explain(err)}", span) from None
    return guarded


def at(err, span):
    """A rule error at ``span`` for an error raised by one step of a block."""
    if isinstance(err, RuleError):
        return err if err.span is not None else RuleError(err.message, span)
    return RuleError(_explain(err), span)


# ------------------------------------------------------------ builtins of the language
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


def can(st, defs, names) -> bool:
    """``can(a, b...)``: does any of the named actions have a legal choice now?"""
    out = []
    for n in names:
        defs[n].enumerate(st, out, (0,))
        if out:
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


def dedupe(st, cards):
    """The cards of a domain, skipping a copy identical to an earlier one
    (same name, same card variables): choosing either is the same move."""
    m = st.m
    ids, cvars = m.card_name_ids, m.cvar_bases
    seen = set()
    out = []
    for c in cards:
        key = (ids[c],) + tuple(st.C[b + c] for b in cvars) if cvars else ids[c]
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


MAX_SUBSETS = 100_000  # a set choice offering more sets than this is a rule error


def subsets(st, cards, lo, hi):
    """The sets of ``cards`` with ``lo`` to ``hi`` members (``hi`` None: up to
    all), smallest first, each in the order of ``cards``; a set identical to
    an earlier one (copies of the same cards) is offered once."""
    cards = list(cards)
    n = len(cards)
    hi = n if hi is None else min(hi, n)
    lo = max(lo, 0)
    m = st.m
    ids, cvars = m.card_name_ids, m.cvar_bases
    keys = [(ids[c],) + tuple(st.C[b + c] for b in cvars) for c in cards]
    out = []
    seen = set()
    total = 0
    for k in range(lo, hi + 1):
        total += comb(n, k)
        if total > MAX_SUBSETS:
            raise RuleError(f"a choice of {lo} to {hi} cards among {n} offers over {MAX_SUBSETS} sets")
        for idx in combinations(range(n), k):
            key = tuple(sorted(keys[i] for i in idx))
            if key not in seen:
                seen.add(key)
                out.append(tuple(cards[i] for i in idx))
    return out


# The names the generated source calls these by.
GENERATED_NAMES = {
    "_sign": sign, "_inter": intersection, "_union": union, "_count": count, "_dedupe": dedupe,
    "_stack": stack, "_stacks": stacks, "_lsal": least_sum_at_least, "_members": members_of,
    "_index": index, "_incr": strictly_increasing, "_decr": strictly_decreasing,
    "_can": can, "_stack_of": stack_of, "_subsets": subsets, "_at": at, "_Errors": EVAL_ERRORS + (RuleError,),
}
