"""What an action's search for its legal values reads of the state, when
that is little: the key a choice's legal actions are kept under.

``search_reads(g, action)`` walks the parameters' domains and the
preamble (its lets and requires, and the user functions they call) and
gives a :class:`SearchReads`: whose turn it is, the variables, the places
whose cards are read (the mover's own place of a per-player zone, or all of
its places) and those whose size alone is; or None when the search reads
anything else (card variables, faces and cells, the turns, ``can``, a place
named by a parameter or a variable other than through its size...).  Two
positions that agree on all it names have the same legal actions, in the
same order: :func:`interpreter.compiler.sites.generate_site` keeps a
choice's legal actions under that key.  Like :mod:`.reads`, it is
conservative: whatever it does not know, it gives up on.

Depends on the checked AST only.
"""

from __future__ import annotations

import attrs

from rulelang import ast as A

from .purity import is_scalar

# builtins that read no more than their arguments' values (and, for a pile
# argument, its cards); size and empty read a place's size alone
_PLAIN = frozenset({"size", "empty", "top", "bottom", "sum", "count", "any", "all", "min", "max", "sign", "abs",
                    "intersection", "union", "least_sum_at_least", "next", "previous", "all_cards",
                    "increasing", "decreasing"})
_COMPARE = frozenset({"==", "!=", "<", "<=", ">", ">="})
_PLACE_TYPES = frozenset({"pile", "stack", "stacks", "grid"})


class _GiveUp(Exception):
    pass


@attrs.define
class SearchReads:
    me: bool = False  # whose turn it is
    variables: set = attrs.Factory(set)  # names of (scalar) variables
    player_vars: set = attrs.Factory(set)  # (name, "me" | "all")
    cards: set = attrs.Factory(set)  # (zone index, "me" | "all"): the places whose cards are read
    sizes: set = attrs.Factory(set)  # (zone index, "me" | "all"): the places whose size alone is read
    all_sizes: bool = False  # the size of a place named by a value (a parameter): every place's

    def merge(self, other: "SearchReads") -> None:
        self.me |= other.me
        self.variables |= other.variables
        self.player_vars |= other.player_vars
        self.cards |= other.cards
        self.sizes |= other.sizes
        self.all_sizes |= other.all_sizes


def search_reads(g, action, preamble, has_copies: bool) -> SearchReads | None:
    """The reads of ``action``'s search (see the module doc), or None.
    ``preamble``: its lets and requires (see tree.preamble);
    ``has_copies``: does the deck hold cards of one name?"""
    if has_copies and g.card_vars and any(p.subsets or g.types.get(id(p.domain)) in ("pile", "stack", "list:card")
                                          for p in action.params):
        return None  # identical copies are told apart by their card variables too (copies.copy_keys)
    walker = _Walker(g)
    bound = frozenset(slot for slot, _, _ in g.action_slots[action.name])
    try:
        for p in action.params:
            for e in (p.domain, p.high, p.min_size, p.max_size):
                if e is not None:
                    walker.expr(e, bound)
        for item in preamble:
            if isinstance(item, A.Let):
                walker.expr(item.expr, bound)
                bound = bound | {g.res[id(item)]}
            else:
                walker.expr(item.cond, bound)
    except _GiveUp:
        return None
    return walker.out


def _plain_scalar(t) -> bool:
    """A variable of type ``t`` is read by its value alone (a stack's cards are not)."""
    return is_scalar(t) and t != "stack"


class _Walker:
    def __init__(self, g):
        self.g = g
        self.out = SearchReads()
        self.seen_functions = set()

    def place(self, e) -> tuple | None:
        """``(zone index, "me" | "all")`` for a reference to a zone (``deck``,
        ``hand(me)``, ``hand(q)``), else None."""
        g = self.g
        if not isinstance(e, (A.Name, A.Call)):
            return None
        r = g.res.get(id(e))
        if not isinstance(r, tuple) or r[0] != "zone":
            return None
        z = g.zones[r[1]]
        if isinstance(e, A.Call) and z.per_player and len(e.args) == 1:
            return z.index, self.whose(e.args[0])
        return z.index, "all"

    def whose(self, seat) -> str:
        """"me" for the mover, "all" for any other seat expression."""
        mine = isinstance(seat, A.Name) and self.g.res.get(id(seat), ("",))[0] == "me"
        return "me" if mine else "all"

    def picked(self, e):
        """For one place taken out of others (``xs[i]``, ``top(xs)``), what it is taken out of."""
        if isinstance(e, A.Index):
            return e.obj
        if isinstance(e, A.Call) and e.func in ("top", "bottom") and e.args:
            return e.args[0]
        return None

    def is_place_value(self, e) -> bool:
        t = self.g.types.get(id(e))
        return t in _PLACE_TYPES or (t or "").startswith("list:") and t[5:] in _PLACE_TYPES

    def zone_args(self, e, bound) -> None:
        for a in getattr(e, "args", ()):
            self.expr(a, bound)

    def expr(self, e, bound) -> None:
        g = self.g
        place = self.place(e)
        if place is not None:  # its cards are read
            self.out.cards.add(place)
            self.zone_args(e, bound)
            return
        if self.is_place_value(e) and self.picked(e) is not None and self.place(self.picked(e)) is None:
            raise _GiveUp  # one place out of a list of places ([deck, table][i]): whose cards, unknown
        if isinstance(e, A.Name):
            r = g.res.get(id(e))
            if r is None:
                raise _GiveUp
            kind = r[0]
            if kind == "slot":
                if r[1] not in bound or self.is_place_value(e):
                    raise _GiveUp  # a place named by a value: which place's cards, unknown
            elif kind == "me":
                self.out.me = True
            elif kind == "var":
                if not _plain_scalar(g.types.get(id(g.vars[r[1]]))):
                    raise _GiveUp
                self.out.variables.add(r[1])
            elif kind not in ("param", "member", "enum_all", "players", "player_count"):
                raise _GiveUp
            return
        if isinstance(e, (A.StrLit, A.IntLit, A.BoolLit)):
            return
        if isinstance(e, A.SetLit):
            for x in e.items:
                self.expr(x, bound)
            return
        if isinstance(e, A.Attr):
            if e.name not in g.card_attrs or e.name in g.card_vars:
                raise _GiveUp  # a card variable, a face, ...: not read here
            self.expr(e.obj, bound)
            return
        if isinstance(e, (A.CallGen, A.ListComp)):
            if isinstance(e, A.CallGen) and e.func not in _PLAIN:
                raise _GiveUp
            self.expr(e.iter, bound)
            inner = bound | {g.res[id(e)]}
            self.value(e.expr, inner)
            if e.cond is not None:
                self.expr(e.cond, inner)
            return
        if isinstance(e, A.Call):
            r = g.res.get(id(e), ("",))
            if r[0] == "pvar":
                if not _plain_scalar(g.types.get(id(g.player_vars[r[1]]))) or len(e.args) != 1:
                    raise _GiveUp
                self.out.player_vars.add((r[1], self.whose(e.args[0])))
                self.expr(e.args[0], bound)
                return
            if r[0] == "func":
                self.function(r[1])
                for a in e.args:
                    self.value(a, bound)
                return
            if r[0] != "builtin" or e.func not in _PLAIN:
                raise _GiveUp
            if e.func in ("size", "empty") and len(e.args) == 1:
                arg = e.args[0]
                place = self.place(arg)
                if place is not None:
                    self.out.sizes.add(place)
                    self.zone_args(arg, bound)
                    return
                if self.is_place_value(arg) and self.g.types.get(id(arg)) == "pile":
                    self.out.all_sizes = True  # the size of the place a value names
                    self.value(arg, bound)
                    return
            for a in e.args:
                self.expr(a, bound)
            return
        if isinstance(e, A.BinOp) and e.op in _COMPARE:  # places compared: their values alone
            parts, walk = (e.left, e.right), self.value
        elif isinstance(e, A.ListLit):  # places listed: their values alone
            parts, walk = e.items, self.value
        elif isinstance(e, A.BinOp):
            parts, walk = (e.left, e.right), self.expr
        elif isinstance(e, A.BoolOp):
            parts, walk = e.items, self.expr
        elif isinstance(e, (A.Not, A.Neg)):
            parts, walk = (e.operand,), self.expr
        elif isinstance(e, A.IfExpr):
            parts, walk = (e.cond, e.then, e.else_), self.expr
        elif isinstance(e, A.Index):
            parts, walk = (e.obj, e.index), self.expr
        else:
            raise _GiveUp
        for x in parts:
            walk(x, bound)

    def value(self, e, bound) -> None:
        """``e`` where its value alone matters: a place (a zone, or a parameter
        naming one) compared, listed or passed on reads none of its cards."""
        g = self.g
        if self.is_place_value(e):
            if self.place(e) is not None:
                self.zone_args(e, bound)
                return
            if isinstance(e, A.Name) and g.res.get(id(e), ("",))[0] == "slot" and g.res[id(e)][1] in bound:
                return
        self.expr(e, bound)

    def function(self, name) -> None:
        """Walk a user function's body (its parameters bound)."""
        if name in self.seen_functions:
            return
        self.seen_functions.add(name)
        f = self.g.functions[name]
        pslots, _ = self.g.func_slots[name]  # (a place parameter is given up on where its cards are read)
        bound = frozenset(s for s, _ in pslots)
        for let in f.lets:
            self.expr(let.expr, bound)
            bound = bound | {self.g.res[id(let)]}
        self.expr(f.body, bound)
