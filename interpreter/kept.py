"""Which declared invariants to evaluate again after a step of the fuzzer.

An invariant that reads nothing but places (and perhaps card variables, and
the cells and faces of cards) holds still while what it reads stays the
same (see :mod:`interpreter.compiler.reads`); an invariant over every seat
is kept seat by seat.  :class:`KeptPlan` tells, after a step, which of them
may have changed, at a cost that grows with the places watched, not with
the invariants: each watched place is compared once, at C speed, with its
copy from the step before, and only the places that differ (and the cards
whose cell or face changed) name the invariants to evaluate again.

A :class:`KeptPlan` is made once per machine and player count; what it
compares against is a :class:`Kept`, one per game.
"""

from __future__ import annotations

from itertools import compress
from operator import itemgetter, ne

from .checks import EVAL_ERRORS
from .runtime import STACK_SHIFT, RuleError


class Kept:
    """What a game's kept invariants were last checked against."""

    __slots__ = ("places", "V", "C", "P", "F", "loc", "started")

    def __init__(self):
        self.places = None  # copies of the watched places (None: nothing checked yet)
        self.V = None  # the watched variables' values
        self.C = self.P = self.F = self.loc = None
        self.started = False  # has the game had its first check?


class KeptPlan:
    """The kept invariants of a machine at one player count: for each, a
    function of the state, and the places, card variables and cells it
    depends on."""

    def __init__(self, m, n: int):
        stride = m.stride
        stacks = set(m.stack_instances)
        entries = []  # (function, places, card vars, cells: 0 none, 1 its places' cards, 2 any card's)
        self.by_stack = {}  # entry -> a function of (state, stack index) for the stacks of its one place
        variables = []  # for each entry, the indices in V of the variables it reads
        for (f, _, _), reads, seats, stacked, var in zip(m.invariants, m.invariant_reads, m.invariant_seats,
                                                         m.invariant_stacks, m.invariant_vars):
            if reads is not None:
                variables += [var] * (n if seats is not None else 1)
            if seats is not None:
                body, slot, shared, own, card_vars, cells = seats
                for q in range(n):
                    places = shared + tuple(z * stride + q for z in own)
                    if stacked is not None:
                        self.by_stack[len(entries)] = _at_stack(stacked[0], stacked[1], places[0], slot, q)
                    entries.append((_at_seat(body, slot, q), places, card_vars, cells))
            elif reads is not None:
                places = reads[0]
                if stacked is not None:
                    places = places[:1]  # a shared zone's one instance (see live_instances)
                    self.by_stack[len(entries)] = _at_stack(stacked[0], stacked[1], places[0])
                entries.append((f, places, reads[1], reads[2]))
        self.functions = [e[0] for e in entries]
        self.var_watched = sorted({v for var in variables for v in var})
        self.var_readers = [[i for i, var in enumerate(variables) if v in var] for v in self.var_watched]
        watched = sorted({j for e in entries for j in e[1]})
        self.watched = watched
        self.get_places, self.get_values = _getter(watched), _getter(self.var_watched)  # read at C speed
        self.deep = [j in stacks for j in watched]  # a row of stacks is copied deeply
        at = {j: k for k, j in enumerate(watched)}
        self.readers = [[] for _ in watched]  # for each watched place, the entries that read it
        self.stack_readers = [[] for _ in watched]  # ... those of them checked stack by stack
        for i, (_, places, _, _) in enumerate(entries):
            for j in places:
                (self.stack_readers if i in self.by_stack else self.readers)[at[j]].append(i)
        # the entries that read card variables; the cells and faces of any card; of their places' cards
        self.card_var_readers = [i for i, e in enumerate(entries) if e[2]]
        self.any_cell_readers = [i for i, e in enumerate(entries) if e[3] == 2]
        self.place_cell_readers = {}  # watched place -> entries that read its cards' cells and faces
        for i, (_, places, _, cells) in enumerate(entries):
            if cells == 1:
                for j in places:
                    self.place_cell_readers.setdefault(j, []).append(i)
        self.cells = bool(self.any_cell_readers or self.place_cell_readers)
        self.ncards = len(m.card_names)

    def holds(self, st, kept: Kept) -> bool:
        """Do the kept invariants hold?  Evaluates those whose reads changed
        since the last call with ``kept`` (all of them the first time); an
        invariant that does not hold, or cannot be evaluated, has ``kept``
        start again, so that every one is evaluated at the next call."""
        now = [*self.get_places(st.Z)]
        values = [*self.get_values(st.V)] if self.var_watched else None
        if now == kept.places and values == kept.V and not (
                (self.card_var_readers and st.C != kept.C) or (self.any_cell_readers and st.loc != kept.loc)
                or (self.cells and (st.P != kept.P or st.F != kept.F))):
            return True  # nothing they read changed (the most common step), compared at C speed
        functions = self.functions
        old = kept.places
        if old is None:  # the game's first check: everything
            for f in functions:
                if not f(st):
                    return False
            kept.places = [list(map(list.copy, x)) if d else x.copy() for x, d in zip(now, self.deep)]
            kept.V, kept.C, kept.loc, kept.P, kept.F = values, st.C.copy(), st.loc.copy(), st.P.copy(), st.F.copy()
            return True
        changed = list(compress(range(len(now)), map(ne, now, old)))
        todo = []  # the entries to evaluate whole (perhaps twice: no matter)
        partial = []  # (entry, watched place) of those to check stack by stack
        for k in changed:
            todo += self.readers[k]
            if self.stack_readers[k]:
                partial += [(i, k) for i in self.stack_readers[k]]
        if values is not None and values != kept.V:
            for k in compress(range(len(values)), map(ne, values, kept.V)):
                todo += self.var_readers[k]
            kept.V = values
        card_vars = self.card_var_readers and st.C != kept.C
        if card_vars:
            todo += self.card_var_readers
            kept.C = st.C.copy()
        if self.any_cell_readers and st.loc != kept.loc:  # cell_of a card that left its grid...
            todo += self.any_cell_readers
            kept.loc = st.loc.copy()
        if self.cells:
            for now_, before, name in ((st.P, kept.P, "P"), (st.F, kept.F, "F")):
                if now_ != before:  # a card's cell, or face, changed
                    todo += self.any_cell_readers
                    if self.place_cell_readers:
                        loc, readers = st.loc, self.place_cell_readers
                        for c in compress(range(self.ncards), map(ne, now_, before)):
                            todo += readers.get(loc[c], ())
                    setattr(kept, name, now_.copy())
        if len(todo) > 1:
            todo = set(todo)  # one entry may be named twice (its place changed, and its cards' cells)
        try:
            for i in todo:
                if not functions[i](st):
                    kept.places = None
                    return False
            for i, k in partial:
                if card_vars and i in self.card_var_readers:
                    continue  # checked whole: its card variables changed
                at, before = self.by_stack[i], old[k]
                for x, cards in enumerate(now[k]):
                    if (x >= len(before) or cards != before[x]) and not at(st, x):
                        kept.places = None
                        return False
        except (*EVAL_ERRORS, RuleError):
            kept.places = None
            return False
        # what they read now, for the next step (only what changed is copied)
        deep = self.deep
        for k in changed:
            old[k] = list(map(list.copy, now[k])) if deep[k] else now[k].copy()
        return True


def _getter(indices):
    """A function of a list giving its elements at ``indices``, as a tuple."""
    if len(indices) == 1:
        i = indices[0]
        return lambda xs: (xs[i],)
    return itemgetter(*indices) if indices else (lambda xs: ())


def _at_stack(body, slot, place, seat_slot=None, seat=None):
    """``body`` evaluated with the stack of ``place`` at an index (given)
    in ``slot`` (and ``seat`` in ``seat_slot``)."""
    base = place << STACK_SHIFT

    def at_stack(st, x):
        if seat_slot is not None:
            st.L[seat_slot] = seat
        st.L[slot] = base | x
        return body(st)
    return at_stack


def _at_seat(body, slot, seat):
    """``body`` evaluated with ``seat`` in ``slot``."""
    def at_seat(st):
        st.L[slot] = seat
        return body(st)
    return at_seat
