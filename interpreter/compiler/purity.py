"""Which user functions are pure: their value depends on their arguments alone.

A function is pure when its body (its lets, and the functions it calls)
reads nothing of the state but the cards of its stack parameters and the
card variables of its cards: no zone, variable, face, seat count or player
to move, and no helper that looks at the table (groups, neighbours,
``can``...).  Card attributes, parameters and literals are constants.  The
only cards a pure function sees are its stack and card parameters' (and the
cards it names, which it may then not read card variables of).  A stack parameter may only be looked
through (iterated, indexed, measured, passed to a pure function's stack
parameter), never used as a value: two stacks with the same cards then give
the same result, wherever they lie.

The expression compiler keeps the values of a pure function with scalar
arguments and result in a table keyed by its arguments (a stack by its
cards), for the whole game and every clone of it: a game may ask whether
the same stack is in order, or which way it runs, many times a turn.  The
analysis is conservative: whatever it does not know is impure.

Depends on the checked AST only.
"""

from __future__ import annotations

from rulelang import ast as A

from .tree import children

# Builtins that only look through their first argument (a collection).
_THROUGH = frozenset({"size", "empty", "top", "bottom", "count", "sum", "any", "all",
                      "intersection", "union"})
# Builtins that compute with their arguments' values.
_VALUES = frozenset({"sign", "abs", "min", "max", "increasing", "decreasing", "least_sum_at_least"})
# Kinds of value a table can be keyed by or hold (ints, all of them).
SCALAR = frozenset({"int", "bool", "card", "player", "stack"})


def is_scalar(t: str) -> bool:
    return t in SCALAR or t.startswith("set:")


class Purity:
    """``pure(name)``: is user function ``name`` pure?  (Memoised.)
    ``card_vars[name]``: the card variables it reads (of its own cards)."""

    def __init__(self, g):
        self.g = g
        self.known = {}
        self.card_vars = {}
        self.named = {}  # function -> does it name a card?
        self._reads = None  # [card variables read, names a card] of the function being looked at

    def pure(self, name: str) -> bool:
        if name not in self.known:
            self.known[name] = False  # a call cycle (refused by the checker anyway) is impure
            outer, self._reads = self._reads, [set(), False]
            try:
                ok = self._pure(name)
                cvars, named = self._reads
            finally:
                self._reads = outer
            self.known[name] = ok and not (cvars and named)
            self.card_vars[name] = frozenset(cvars)
            self.named[name] = named
        if self._reads is not None:  # what a callee reads, its caller reads
            self._reads[0] |= self.card_vars.get(name, frozenset())
            self._reads[1] = self._reads[1] or self.named.get(name, False)
        return self.known[name]

    def plain_value(self, t) -> bool:
        """Is a declared type a number, a truth value, a seat, an enum member
        or a set of them (a value that holds nothing else)?"""
        if isinstance(t, A.TypeSet):
            return True
        return isinstance(t, A.TypeName) and (t.name in ("int", "bool", "player") or t.name in self.g.enums)

    def _pure(self, name: str) -> bool:
        f = self.g.functions[name]
        pslots, _ = self.g.func_slots[name]
        if any(t in ("pile", "grid", "stacks") for _, t in pslots):
            return False  # a place: its cards are read from the state
        stacks = frozenset(s for s, t in pslots if t == "stack")
        slots = set(s for s, _ in pslots)
        ok = True
        for let in f.lets:
            ok = ok and self.expr(let.expr, stacks, frozenset(slots))
            slots.add(self.g.res[id(let)])
        return ok and self.expr(f.body, stacks, frozenset(slots))

    def seq(self, e, stacks, slots) -> bool:
        """A collection looked through: a stack parameter's cards, or a pure value."""
        if isinstance(e, A.Name):
            r = self.g.res.get(id(e))
            if r is not None and r[0] == "slot" and r[1] in stacks:
                return True
        return self.expr(e, stacks, slots)

    def expr(self, e, stacks, slots) -> bool:
        g = self.g
        if isinstance(e, A.Name):
            r = g.res.get(id(e))
            if r is None:
                return False
            if r[0] == "slot":
                return r[1] in slots and r[1] not in stacks
            return r[0] in ("param", "member", "enum_all")
        if isinstance(e, A.IntLit):
            return id(e) not in g.seat_literals
        if isinstance(e, A.StrLit):
            self._reads[1] = True
            return True
        if isinstance(e, (A.BoolLit, A.SetLit)):
            return True
        if isinstance(e, A.Attr):
            if e.name in g.card_vars:
                if not self.plain_value(g.card_vars[e.name].type):
                    return False  # a card, a place or a list: what it holds is not in the key
                self._reads[0].add(e.name)
            elif e.name not in g.card_attrs:
                return False  # a card's face
            return self.expr(e.obj, stacks, slots)
        if isinstance(e, A.Index):
            return self.seq(e.obj, stacks, slots) and self.expr(e.index, stacks, slots)
        if isinstance(e, (A.CallGen, A.ListComp)):
            if isinstance(e, A.CallGen) and e.func not in _THROUGH | {"min", "max"}:
                return False  # groups(...) reads the grid
            inner = slots | {g.res[id(e)]}
            return (self.seq(e.iter, stacks, slots) and self.expr(e.expr, stacks, inner)
                    and (e.cond is None or self.expr(e.cond, stacks, inner)))
        if isinstance(e, A.Call):
            r = g.res.get(id(e), ("",))
            if r[0] == "func":
                if not self.pure(r[1]):
                    return False
                ptypes = [t for _, t in g.func_slots[r[1]][0]]
                return all(self.seq(a, stacks, slots) if t == "stack" else self.expr(a, stacks, slots)
                           for a, t in zip(e.args, ptypes))
            if r[0] != "builtin":
                return False  # a zone or a player variable
            if e.func in _THROUGH or (e.func in ("min", "max") and len(e.args) == 1):
                return len(e.args) == 1 and self.seq(e.args[0], stacks, slots)
            if e.func in _VALUES:
                return all(self.expr(a, stacks, slots) for a in e.args)
            return False
        if isinstance(e, (A.BinOp, A.BoolOp, A.Not, A.Neg, A.IfExpr, A.ListLit)):
            return all(self.expr(c, stacks, slots) for c in children(e))
        return False
