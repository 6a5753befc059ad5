"""What an expression reads of the state, when that is only zones.

``zone_reads(g, e)`` gives ``(zone indices, reads card variables, reads
cells or faces: 0 no, 1 of the places' cards, 2 of any card)`` for an
expression that reads nothing of the state but the cards of some zones and,
perhaps, card variables, the cells of grid cards and the face-down flags
(through the user functions it calls as well); for anything else (a
variable, ``me``, ``can``, the turns...) it gives None.  The fuzzer uses it to check a declared invariant again only
when what it reads has changed (see ``Machine.invariants_hold``).  Like
:mod:`.purity`, it is conservative: whatever it does not know, it gives up on.

Depends on the checked AST only.
"""

from __future__ import annotations

from rulelang import ast as A

from .purity import is_scalar
from .tree import children

# Builtins that read the table beyond the zones' cards, their cells and their
# faces (the actions, the winners, the turns); all_cards() reads the cards in
# play, which a game never changes.
_OPAQUE = frozenset({"stack_of", "open_cells", "corners", "lines", "can", "is_winner", "turns_taken"})
_CELLS = frozenset({"neighbours", "cell_of"})  # read the cards' cells (st.P) as well


class _GiveUp(Exception):
    pass


def _names_places(t) -> bool:
    """Does a value of type ``t`` name cards or places (whose faces, cells
    or cards may then be read wherever they are)?"""
    if t is None:
        return True
    while t.startswith("list:"):
        t = t[5:]
    return t in ("card", "pile", "stack", "stacks", "grid")


def zone_reads(g, e, variables=False):
    """``(frozenset of zone indices, reads card variables, reads cells or
    faces: 0, 1 or 2)`` or None (see the module doc).  With ``variables``,
    reading variables is allowed (see :func:`variables_read`)."""
    walker = _Reads(g, variables=variables)
    try:
        walker.expr(e, frozenset())
    except _GiveUp:
        return None
    return frozenset(walker.zones), walker.card_vars, walker.cell_reads()


def variables_read(g, e):
    """The variables ``e`` reads, as ``("var", name)`` and ``("pvar",
    name)`` pairs, when it reads nothing else of the state but what
    :func:`zone_reads` allows; else None.  (A hand limit that grows with a
    round counter need be checked again only when a hand or the counter
    changes.)"""
    walker = _Reads(g, variables=True)
    try:
        walker.expr(e, frozenset())
    except _GiveUp:
        return None
    return frozenset(walker.variables)


def seat_split(g, e, variables=False):
    """For ``all(BODY for p in players)`` (no filter) whose BODY reads only
    places: ``(BODY, p's slot, zone indices read for every seat, zone
    indices read only as p's own, reads card variables, reads cells or
    faces)``, else None.  Such an invariant holds when BODY holds for each
    seat, and BODY at one seat reads only that seat's own places of the
    second kind: a move in one player's places checks that player again."""
    if not (isinstance(e, A.CallGen) and e.func == "all" and e.cond is None):
        return None
    it = g.res.get(id(e.iter))
    if it is None or it[0] != "players":
        return None
    slot = g.res[id(e)]
    walker = _Reads(g, seat_slots=frozenset({slot}), variables=variables)
    try:
        walker.expr(e.expr, frozenset({slot}))
    except _GiveUp:
        return None
    return e.expr, slot, frozenset(walker.zones), frozenset(walker.seat_zones), walker.card_vars, walker.cell_reads()


def stack_split(g, e, seat_slot=None):
    """For ``all(BODY for b in ZONE)`` (no filter) over a zone of stacks,
    ``ZONE`` being ``z(p)`` with p the seat in ``seat_slot`` or a shared
    ``z``, whose BODY reads nothing of the state but the cards of ``b``
    (and perhaps card variables): ``(BODY, b's slot, own)``, else None.  Such an
    invariant holds when BODY holds for each stack, and a stack whose cards
    did not change need not be checked again.  ``own``: the card variables
    BODY reads are those of b's own cards (it names no card, nor calls
    all_cards()), so a stack none of whose cards had one change need not
    be checked again either."""
    if not (isinstance(e, A.CallGen) and e.func == "all" and e.cond is None):
        return None
    if _own_zone(g, e.iter, "stacks", seat_slot) is None:
        return None
    slot = g.res[id(e)]
    walker = _Reads(g)
    try:
        walker.expr(e.expr, frozenset({slot} if seat_slot is None else {slot, seat_slot}))
    except _GiveUp:
        return None
    if walker.zones or walker.seat_zones or walker.cell_reads():
        return None
    return e.expr, slot, not walker.loose


def card_split(g, e, seat_slot=None):
    """For ``all(BODY for h in GRID)`` (no filter) over a grid zone,
    ``GRID`` being ``z(p)`` with p the seat in ``seat_slot`` or a shared
    ``z``, whose BODY reads nothing of the state but h's own attributes,
    card variables and face, and those of the cards next to it, gone
    through by a generator over ``neighbours(GRID, cell_of(h))``: ``(BODY,
    h's slot)``, else None.  Such an invariant holds when BODY holds for
    each card, and BODY at a card depends only on its neighbourhood (the
    cards next to it, their attributes and faces, and their order in the
    grid, which decides where a generator that meets an error stops): after
    a step, only the cards that came, left, moved, turned over or changed
    places in that order, and the cards next to where they are or were,
    need be checked again (see :class:`interpreter.kept.KeptPlan`).  Any
    other use of ``neighbours`` or ``cell_of`` (a list of the neighbours
    could be indexed, a cell compared) is refused, as is a user function."""
    if not (isinstance(e, A.CallGen) and e.func == "all" and e.cond is None):
        return None
    grid = _own_zone(g, e.iter, "grid", seat_slot)
    if grid is None:
        return None
    slot = g.res[id(e)]
    walker = _Near(g, grid, slot, seat_slot)
    try:
        walker.expr(e.expr, frozenset({slot} if seat_slot is None else {slot, seat_slot}))
    except _GiveUp:
        return None
    if walker.zones or walker.seat_zones or walker.loose:
        return None
    return e.expr, slot


def _own_zone(g, it, kind, seat_slot):
    """The zone ``it`` names, if it is of ``kind`` and either ``z(p)``
    with p the seat in ``seat_slot`` or a shared ``z``; else None."""
    r = g.res.get(id(it))
    if r is None or r[0] != "zone" or g.zones[r[1]].kind != kind:
        return None
    if isinstance(it, A.Call):
        if not (g.zones[r[1]].per_player and seat_slot is not None and len(it.args) == 1
                and _is_slot(g, it.args[0], seat_slot)):
            return None
    elif g.zones[r[1]].per_player:
        return None
    return r[1]


def _is_slot(g, e, slot) -> bool:
    return isinstance(e, A.Name) and g.res.get(id(e)) == ("slot", slot)


def nesting(g, e) -> int:
    """How deep generators nest in ``e``, through the user functions it
    calls: 0 for none, 1 for a generator over a zone, 2 for a generator in
    a generator...  (An invariant that nests less is cheaper to evaluate
    than to compare what it reads.)"""
    seen = set()

    def depth(x) -> int:
        inner = 0
        if isinstance(x, A.Call) and g.res.get(id(x), ("",))[0] == "func" and x.func not in seen:
            seen.add(x.func)
            f = g.functions[x.func]
            inner = max([depth(f.body)] + [depth(let.expr) for let in f.lets])
        here = max([inner] + [depth(c) for c in children(x)])
        return here + 1 if isinstance(x, (A.CallGen, A.ListComp)) else here
    return depth(e)


class _Reads:
    def __init__(self, g, seat_slots=frozenset(), variables=False):
        self.g = g
        self.variables = set() if variables else None  # the variables read, when that is allowed
        self.seat_slots = seat_slots  # slots holding the seat: "zone(p)" with p in one reads only p's place
        self.seat_zones = set()
        self.zones = set()
        self.card_vars = False
        self.cells = False  # a grid's cells (neighbours, cell_of) or a card's face-down flag
        self.loose = False  # a card named in the rules, or all_cards(): not only the places' cards
        self.seen_functions = set()

    def expr(self, e, bound) -> None:
        g = self.g
        if isinstance(e, A.Name):
            r = g.res.get(id(e))
            if r is None:
                raise _GiveUp
            if r[0] == "slot":
                if r[1] not in bound:
                    raise _GiveUp
            elif r[0] == "zone":
                self.zones.add(g.zones[r[1]].index)
            elif r[0] == "var" and self.variables is not None:
                if not is_scalar(g.types.get(id(g.vars[r[1]]))):
                    raise _GiveUp  # a list, changed in place
                self.variables.add(r)
            elif r[0] not in ("param", "member", "enum_all", "players", "player_count"):
                raise _GiveUp  # a variable, me
            return
        if isinstance(e, A.StrLit):  # a card, by name
            self.loose = True
            return
        if isinstance(e, (A.IntLit, A.BoolLit, A.SetLit)):
            return
        if isinstance(e, A.Attr):
            if e.name in g.card_vars:
                if _names_places(g.types.get(id(g.card_vars[e.name]))):
                    raise _GiveUp  # a card or a place kept in a card variable: read wherever it lies
                self.card_vars = True
            elif e.name == "face_down":
                self.cells = True
            elif e.name not in g.card_attrs:
                raise _GiveUp
            self.expr(e.obj, bound)
            return
        if isinstance(e, (A.CallGen, A.ListComp)):
            if isinstance(e, A.CallGen) and e.func == "groups":
                raise _GiveUp  # reads a grid's cells
            self.expr(e.iter, bound)
            inner = bound | {g.res[id(e)]}
            self.expr(e.expr, inner)
            if e.cond is not None:
                self.expr(e.cond, inner)
            return
        if isinstance(e, A.Call):
            r = g.res.get(id(e), ("",))
            if r[0] == "zone":
                if e.args and self.is_seat(e.args[0]):
                    self.seat_zones.add(g.zones[r[1]].index)
                else:
                    self.zones.add(g.zones[r[1]].index)
            elif r[0] == "pvar" and self.variables is not None:
                if not is_scalar(g.types.get(id(g.player_vars[r[1]]))):
                    raise _GiveUp
                self.variables.add(r)
            elif r[0] == "func":
                self.function(r[1], frozenset(i for i, a in enumerate(e.args) if self.is_seat(a)))
            elif r[0] != "builtin" or e.func in _OPAQUE:
                raise _GiveUp  # a player variable, or a helper that reads more
            elif e.func in _CELLS:
                self.cells = True
            elif e.func == "all_cards":
                self.loose = True
            for a in e.args:
                self.expr(a, bound)
            return
        if isinstance(e, (A.Index, A.BinOp, A.BoolOp, A.Not, A.Neg, A.IfExpr, A.ListLit)):
            for c in children(e):
                self.expr(c, bound)
            return
        raise _GiveUp

    def cell_reads(self) -> int:
        """0: no cell nor face is read; 1: those of the read places' cards
        only; 2: perhaps those of any card."""
        return 0 if not self.cells else 2 if self.loose else 1

    def is_seat(self, e) -> bool:
        """Is ``e`` the seat an invariant is split by (see seat_split)?"""
        if not self.seat_slots or not isinstance(e, A.Name):
            return False
        r = self.g.res.get(id(e))
        return r is not None and r[0] == "slot" and r[1] in self.seat_slots

    def function(self, name, seat_args=frozenset()) -> None:
        """Walk a user function's body; its parameters at ``seat_args`` hold the seat."""
        if (name, seat_args) in self.seen_functions:
            return
        self.seen_functions.add((name, seat_args))
        f = self.g.functions[name]
        pslots, _ = self.g.func_slots[name]
        bound = frozenset(s for s, _ in pslots)
        outer, self.seat_slots = self.seat_slots, frozenset(pslots[i][0] for i in seat_args)
        try:
            for let in f.lets:
                self.expr(let.expr, bound)
                bound = bound | {self.g.res[id(let)]}
            self.expr(f.body, bound)
        finally:
            self.seat_slots = outer


class _Near(_Reads):
    """The reads of a body at one card ``h`` of a grid (see :func:`card_split`):
    a generator over ``neighbours(GRID, cell_of(h))`` reads the cards next to
    h, not the grid; any other reading of a cell gives up, as does a user
    function (which could read one)."""

    def __init__(self, g, grid, card_slot, seat_slot):
        super().__init__(g)
        self.grid, self.card_slot, self.seat_slot = grid, card_slot, seat_slot

    def expr(self, e, bound) -> None:
        if isinstance(e, A.CallGen) and self.near(e.iter):
            inner = bound | {self.g.res[id(e)]}
            self.expr(e.expr, inner)
            if e.cond is not None:
                self.expr(e.cond, inner)
            return
        if isinstance(e, A.Call) and (e.func in _CELLS or self.g.res.get(id(e), ("",))[0] == "func"):
            raise _GiveUp
        super().expr(e, bound)

    def near(self, it) -> bool:
        """Is ``it`` ``neighbours(GRID, cell_of(h))``?"""
        g = self.g
        if not (isinstance(it, A.Call) and it.func == "neighbours" and len(it.args) == 2
                and g.res.get(id(it), ("",))[0] == "builtin"):
            return False
        grid, cell = it.args
        return (_own_zone(g, grid, "grid", self.seat_slot) == self.grid and isinstance(cell, A.Call)
                and cell.func == "cell_of" and g.res.get(id(cell), ("",))[0] == "builtin"
                and len(cell.args) == 1 and _is_slot(g, cell.args[0], self.card_slot))
