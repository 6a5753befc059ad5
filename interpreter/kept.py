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
from operator import ne

from .checks import EVAL_ERRORS
from .runtime import RuleError


class Kept:
    """What a game's kept invariants were last checked against."""

    __slots__ = ("places", "C", "P", "F", "loc", "started")

    def __init__(self):
        self.places = None  # copies of the watched places (None: nothing checked yet)
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
        for (f, _, _), reads, seats in zip(m.invariants, m.invariant_reads, m.invariant_seats):
            if seats is not None:
                body, slot, shared, own, card_vars, cells = seats
                for q in range(n):
                    entries.append((_at_seat(body, slot, q), shared + tuple(z * stride + q for z in own),
                                    card_vars, cells))
            elif reads is not None:
                entries.append((f, reads[0], reads[1], reads[2]))
        self.functions = [e[0] for e in entries]
        watched = sorted({j for e in entries for j in e[1]})
        self.watched = watched
        self.deep = [j in stacks for j in watched]  # a row of stacks is copied deeply
        at = {j: k for k, j in enumerate(watched)}
        self.readers = [[] for _ in watched]  # for each watched place, the entries that read it
        for i, (_, places, _, _) in enumerate(entries):
            for j in places:
                self.readers[at[j]].append(i)
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
        Z = st.Z
        now = list(map(Z.__getitem__, self.watched))
        functions = self.functions
        if kept.places is None:
            todo = range(len(functions))
            changed = ()
            card_vars = cells = where = True
        else:
            todo = set()
            changed = list(compress(range(len(now)), map(ne, now, kept.places)))
            for k in changed:
                todo.update(self.readers[k])
            card_vars = self.card_var_readers and st.C != kept.C
            if card_vars:
                todo.update(self.card_var_readers)
            where = self.any_cell_readers and st.loc != kept.loc  # cell_of a card that left its grid...
            if where:
                todo.update(self.any_cell_readers)
            cells = self.cells and (st.P != kept.P or st.F != kept.F)
            if cells:
                todo.update(self.any_cell_readers)
                if self.place_cell_readers:
                    loc, readers = st.loc, self.place_cell_readers
                    moved = compress(range(self.ncards), map(ne, st.P, kept.P))
                    flipped = compress(range(self.ncards), map(ne, st.F, kept.F))
                    for c in (*moved, *flipped):
                        todo.update(readers.get(loc[c], ()))
            todo = sorted(todo)
        try:
            for i in todo:
                if not functions[i](st):
                    kept.places = None
                    return False
        except (*EVAL_ERRORS, RuleError):
            kept.places = None
            return False
        # what they read now, for the next step (only what changed is copied)
        deep = self.deep
        if kept.places is None:
            kept.places = [list(map(list.copy, x)) if d else x.copy() for x, d in zip(now, deep)]
        else:
            for k in changed:
                kept.places[k] = list(map(list.copy, now[k])) if deep[k] else now[k].copy()
        if card_vars and self.card_var_readers:
            kept.C = st.C.copy()
        if cells and self.cells:
            kept.P, kept.F = st.P.copy(), st.F.copy()
        if where and self.any_cell_readers:
            kept.loc = st.loc.copy()
        return True


def _at_seat(body, slot, seat):
    """``body`` evaluated with ``seat`` in ``slot``."""
    def at_seat(st):
        st.L[slot] = seat
        return body(st)
    return at_seat
