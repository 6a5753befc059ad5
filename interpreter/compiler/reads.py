"""What an expression reads of the state, when that is only zones.

``zone_reads(g, e)`` gives ``(zone indices, reads card variables, reads
cells or faces)`` for an expression that reads nothing of the state but the
cards of some zones and, perhaps, card variables, the cells of grid cards
and the face-down flags (through the user functions it calls as well); for
anything else (a variable, ``me``, ``can``, the turns...) it gives None.  The fuzzer uses it to check a declared invariant again only
when what it reads has changed (see ``Machine.invariants_hold``).  Like
:mod:`.purity`, it is conservative: whatever it does not know, it gives up on.

Depends on the checked AST only.
"""

from __future__ import annotations

from rulelang import ast as A

from .tree import children

# Builtins that read the table beyond the zones' cards, their cells and their
# faces (the actions, the winners, the turns); all_cards() reads the cards in
# play, which a game never changes.
_OPAQUE = frozenset({"stack_of", "open_cells", "corners", "lines", "can", "is_winner", "turns_taken"})
_CELLS = frozenset({"neighbours", "cell_of"})  # read the cards' cells (st.P) as well


class _GiveUp(Exception):
    pass


def zone_reads(g, e):
    """``(frozenset of zone indices, reads card variables, reads cells or
    faces)`` or None (see the module doc)."""
    walker = _Reads(g)
    try:
        walker.expr(e, frozenset())
    except _GiveUp:
        return None
    return frozenset(walker.zones), walker.card_vars, walker.cells


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
    def __init__(self, g):
        self.g = g
        self.zones = set()
        self.card_vars = False
        self.cells = False  # a grid's cells (neighbours, cell_of) or a card's face-down flag
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
            elif r[0] not in ("param", "member", "enum_all", "players", "player_count"):
                raise _GiveUp  # a variable, me
            return
        if isinstance(e, (A.IntLit, A.BoolLit, A.StrLit, A.SetLit)):
            return
        if isinstance(e, A.Attr):
            if e.name in g.card_vars:
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
                self.zones.add(g.zones[r[1]].index)
            elif r[0] == "func":
                self.function(r[1])
            elif r[0] != "builtin" or e.func in _OPAQUE:
                raise _GiveUp  # a player variable, or a helper that reads more
            elif e.func in _CELLS:
                self.cells = True
            for a in e.args:
                self.expr(a, bound)
            return
        if isinstance(e, (A.Index, A.BinOp, A.BoolOp, A.Not, A.Neg, A.IfExpr, A.ListLit)):
            for c in children(e):
                self.expr(c, bound)
            return
        raise _GiveUp

    def function(self, name) -> None:
        if name in self.seen_functions:
            return
        self.seen_functions.add(name)
        f = self.g.functions[name]
        pslots, _ = self.g.func_slots[name]
        bound = frozenset(s for s, _ in pslots)
        for let in f.lets:
            self.expr(let.expr, bound)
            bound = bound | {self.g.res[id(let)]}
        self.expr(f.body, bound)
