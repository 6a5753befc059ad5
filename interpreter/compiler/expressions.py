"""Expressions -> generated Python source, and functions ``f(state) -> value``.

Every expression of the rules is written as one Python expression and
compiled once, at load time (see :mod:`.source` for the safety rule: only
generated names and ints reach the source).  Parameters are folded in as
constants; an expression that reads no state is evaluated once and kept as
a constant (:meth:`Expressions.fn` gives it a ``.const`` attribute).

``ctx`` maps a local slot to its source when the slot is held in a Python
local of the generated function (a loop variable of an action search, a
parameter of a generated user function), or to an :class:`Alias`;
``("cards", slot)`` to a local holding a stack's cards; ``"nodes"`` to the
sources of values hoisted out of inner loops and ``"inline"`` to the calls
written in place (see :mod:`.searches`).  A slot missing from ``ctx`` is
read from the state: ``st.L[k]``, or ``st.S[...]`` for a scratch slot
(:mod:`.slots`).

Depends on :mod:`.source`, :mod:`.slots`, :mod:`.helpers` and :mod:`.tree` only; the
statement and search compilers build on it.
"""

from __future__ import annotations

import re

from rulelang import ast as A
from rulelang.checker import CheckedGame, elem_type

from ..runtime import MAX_VALUE, STACK_MASK, STACK_SHIFT
from .source import Namespace, lit
from .card_tables import attr_test, filter_table, predicate_table
from .slots import slot_source
from .folds import fold_arithmetic
from .functions import Functions
from .inline import index_source, inline_source, sign_source, stacks_source
from .layout import LATE_PREFIX
from .tree import of_node, of_rules, walk

# operations whose value is worked out when the game is compiled, if they read no state
_FOLDED = (A.BinOp, A.Neg, A.Not, A.BoolOp, A.IfExpr, A.Call)
NOT_CONST = object()  # what Expressions.constant gives for an expression that reads the state


class Alias:
    """A parameter of an inlined function: it reads its argument's source."""

    __slots__ = ("arg",)

    def __init__(self, arg):
        self.arg = arg


def _const(v):
    f = lambda st: v  # noqa: E731
    f.const = v
    return f


def is_const(f) -> bool:
    """Is ``f`` (from :meth:`Expressions.fn`) a folded constant, ``f.const``?"""
    return hasattr(f, "const")


MAX_KEPT_NODES = 100_000  # answers of is_static kept per checked game (a few per node of the rules)

# Builtins computed by a helper of .helpers that reads the state.
_STATE_HELPERS = {"stack_of": "_stack_of", "open_cells": "_open_cells", "neighbours": "_neighbours",
                  "cell_of": "_cell_of", "corners": "_corners", "lines": "_lines"}


class Expressions(Functions):
    """The expression compiler of one game.

    ``layout`` (a :class:`~.layout.Layout`) places variables and card
    tables; ``params`` are the parameter values folded in; ``action_defs``
    maps action names to their :class:`~interpreter.machine.ActionDef`
    (filled in later) for ``can(...)``.  The layout may be None when only
    parameter expressions are compiled."""

    def __init__(self, g: CheckedGame, params: dict, layout, action_defs=None, ns: Namespace | None = None):
        self.g = g
        self.params = params
        self.layout = layout
        self.action_defs = {} if action_defs is None else action_defs
        self.ns = ns if ns is not None else Namespace()
        self.fn_names = {}  # user function name -> generated name
        self.fn_memos = {}  # generated name of a function that keeps its values -> its table's name
        self.purity = None  # a Purity, made when first asked
        # the values of user functions called on a frozen state (see fn), until cleared
        self.frozen_memo = {}
        self.folded = {}  # id(expression) -> its value, worked out once, or NOT_CONST (see fold)
        self.quick_functions = {}  # user function -> is it cheaper to compute than to keep? (Functions.quick)

    def t(self, e) -> str:
        return self.g.types.get(id(e), "error")

    # ------------------------------------------------------------ functions of the state
    def fn(self, e, frozen=False):
        """A function state -> value for ``e``; a constant one (with ``.const``)
        when ``e`` reads no state and can be computed now.  ``frozen``: ``e``
        is evaluated only where the state cannot change until
        ``frozen_memo`` is cleared (the results of a game): the user
        functions it calls keep their values by their arguments until then."""
        if isinstance(e, (A.BoolLit, A.StrLit, A.SetLit)) or (
                isinstance(e, A.IntLit) and id(e) not in self.g.seat_literals) or (
                isinstance(e, A.Name) and self.g.res.get(id(e), ("",))[0] in ("param", "member", "zone")):
            return _const(self.literal(e))  # no source needed
        f = self.function_of(self.expr(e, {"frozen": True} if frozen else {}))
        if self.is_static(e):
            try:
                return _const(f(None))
            except Exception:  # noqa: BLE001 - e.g. 1 / 0: leave it to play time, with its span
                pass
        return f

    def seq_fn(self, e):
        """A function state -> an iterable of the elements of a collection expression."""
        return self.function_of(self.seq(e, {}))

    def constant(self, e):
        """The value of ``e`` if it reads no state and can be computed now, else NOT_CONST."""
        f = self.fn(e)
        return f.const if is_const(f) else NOT_CONST

    def function_of(self, src: str):
        name = self.ns.fresh("_e")
        f = self.ns.define(f"def {name}(st):\n    return {src}\n", name)
        f.flow = ("expr", src)  # written inline where the flow tests it (.flowgen)
        return f

    def literal(self, e):
        """The value of a literal, or of a parameter, enum member or zone name."""
        if isinstance(e, (A.IntLit, A.BoolLit)):
            return e.value
        if isinstance(e, A.StrLit):
            return self.g.card_names[e.value]
        if isinstance(e, A.SetLit):
            return self.set_mask(e)
        r = self.g.res[id(e)]
        if r[0] == "param":
            return self.params[r[1]]
        if r[0] == "member":
            return self.g.members[r[1]][1]
        return self.layout.zone_base[self.g.zones[r[1]].index]  # a zone

    def is_static(self, e) -> bool:
        """Does ``e`` depend only on literals and parameters (no state)?
        A fact of the rules alone, kept with them (see :func:`.tree.of_rules`)
        with the node itself, so that its id names no other node."""
        kept = of_rules(self.g, "static", dict)
        hit = kept.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        static = self._static(e)
        if len(kept) < MAX_KEPT_NODES:
            kept[id(e)] = (e, static)
        return static

    def late_static(self, e) -> bool:
        """Does ``e`` depend only on literals and parameters, some of them read
        from the state (see .late)?  What the game compiled for one setting folds."""
        if self.layout is None or not self.layout.late_indices:
            return False
        return of_node(self.g, "late_static", e, lambda: self._static(e, late=True))

    def _static(self, e, late=False) -> bool:
        for x in walk(e):
            if isinstance(x, A.IntLit) and id(x) in self.g.seat_literals:
                return False
            if isinstance(x, A.Name):
                r = self.g.res.get(id(x))
                if r is None or r[0] not in ("param", "member", "zone", "enum_all") and not (
                        late and r[0] == "var" and r[1].startswith(LATE_PREFIX)):
                    return False
            elif isinstance(x, (A.Call, A.CallGen, A.ListComp, A.Attr, A.Index)):
                if not (isinstance(x, A.Call) and x.func in ("sign", "abs", "min", "max")
                        and self.g.res.get(id(x), ("",))[0] == "builtin"):
                    return False
        return True

    # ------------------------------------------------------------ source
    def expr(self, e, ctx) -> str:
        """Source of ``e`` (one Python expression over ``st`` and the locals in ``ctx``)."""
        nodes = ctx.get("nodes")
        if nodes:
            src = nodes.get(id(e))
            if src is not None:
                return src
        if type(e) in _FOLDED:
            v = self.fold(e)
            if v is not NOT_CONST:
                return lit(v)
        return getattr(self, "e_" + type(e).__name__)(e, ctx)

    def fold(self, e):
        """The value of an operation on literals and parameters alone (a
        number or a truth value within the bound on numbers), worked out
        now, once; NOT_CONST for any other, or one that fails (1 / 0 fails
        at play time, at its line)."""
        v = self.folded.get(id(e), None)
        if v is None:
            v = NOT_CONST
            if self.is_static(e):
                try:
                    v = self.ns.value(getattr(self, "e_" + type(e).__name__)(e, {}))
                except Exception:  # noqa: BLE001 - left to play time
                    v = NOT_CONST
                if not (type(v) is bool or (type(v) is int and -MAX_VALUE <= v <= MAX_VALUE)):
                    v = NOT_CONST
            elif type(e) is A.BinOp and e.op in ("+", "-", "*"):
                v = fold_arithmetic(self, e)
                v = NOT_CONST if v is None else v
            self.folded[id(e)] = v
        return v

    def slot(self, k, ctx) -> str:
        entry = ctx.get(k)
        if entry is None:
            return slot_source(k)
        if isinstance(entry, Alias):  # an inlined function's parameter: its argument
            return f"({self.expr(entry.arg, ctx)})"
        return entry

    def set_mask(self, e) -> int:
        mask = 0
        for it in e.items:
            mask |= 1 << self.g.members[it.id][1]
        return mask

    def e_IntLit(self, e, ctx):
        if id(e) in self.g.seat_literals:  # a seat that smaller tables do not have
            return f"_seat(st, {lit(e.value)})"
        return lit(e.value)

    def e_BoolLit(self, e, ctx):
        return lit(e.value)

    def e_StrLit(self, e, ctx):
        return str(int(self.g.card_names[e.value]))

    def e_SetLit(self, e, ctx):
        return str(int(self.set_mask(e)))

    def e_Name(self, e, ctx):
        r = self.g.res[id(e)]
        kind = r[0]
        if kind == "slot":
            return self.slot(r[1], ctx)
        if kind == "me":
            return "st.me"
        if kind == "players":
            return "range(st.n)"
        if kind == "player_count":
            return "st.n"
        if kind == "param":
            return lit(self.params[r[1]])
        if kind == "member":
            return str(int(self.g.members[r[1]][1]))
        if kind == "enum_all":
            return str(int((1 << len(self.g.enums[r[1]])) - 1))
        if kind == "var":
            return f"st.V[{int(self.layout.var_index[r[1]])}]"
        if kind == "zone":
            return str(int(self.layout.zone_base[self.g.zones[r[1]].index]))
        raise AssertionError(r)  # pragma: no cover

    def e_BoolOp(self, e, ctx):
        op = " and " if e.op == "and" else " or "
        return "(" + op.join(self.expr(x, ctx) for x in e.items) + ")"

    def e_Not(self, e, ctx):
        return f"(not {self.expr(e.operand, ctx)})"

    def e_Neg(self, e, ctx):
        return f"(-{self.expr(e.operand, ctx)})"

    def e_IfExpr(self, e, ctx):
        return f"({self.expr(e.then, ctx)} if {self.expr(e.cond, ctx)} else {self.expr(e.else_, ctx)})"

    _OPS = {"+": "+", "-": "-", "*": "*", "/": "//", "%": "%", "&": "&", "|": "|",
            "==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

    def e_BinOp(self, e, ctx):
        op = e.op
        if op in ("in", "not in"):
            rt = self.t(e.right)
            if rt.startswith("set:"):
                src = f"(({self.expr(e.right, ctx)} >> {self.expr(e.left, ctx)}) & 1 == 1)"
            elif isinstance(e.left, A.StrLit) and self.layout.copies(e.left.value):
                # a name with copies: is any card of that name there?
                ids = self.ns.ref(self.layout.card_name_ids, "_t")
                nid = int(self.layout.card_name_ids[self.g.card_names[e.left.value]])
                var = self.ns.fresh("c")
                src = f"any({ids}[{var}] == {nid} for {var} in {self.seq(e.right, ctx)})"
            else:
                src = f"({self.expr(e.left, ctx)} in {self.seq(e.right, ctx)})"
            return f"(not {src})" if op == "not in" else src
        if op in ("==", "!=") and any(isinstance(x, A.StrLit) and self.layout.copies(x.value)
                                     for x in (e.left, e.right)):
            ids = self.ns.ref(self.layout.card_name_ids, "_t")
            return f"({ids}[{self.expr(e.left, ctx)}] {op} {ids}[{self.expr(e.right, ctx)}])"
        if self.t(e.left).startswith("list:"):  # a list may be held as a tuple (a random order, a set choice)
            if op == "+":
                return f"[*{self.expr(e.left, ctx)}, *{self.expr(e.right, ctx)}]"
            if op in ("==", "!="):
                return f"(list({self.expr(e.left, ctx)}) {op} list({self.expr(e.right, ctx)}))"
        if op == "*" and not (self.small(e.left) or self.small(e.right)):
            late = [type(x) in _FOLDED and self.late_static(x) for x in (e.left, e.right)]
            if any(late):  # a factor the game compiled for a setting folds: small or not, as its value is
                return f"_mul_late({self.expr(e.left, ctx)}, {self.expr(e.right, ctx)}, {late[0]}, {late[1]})"
            return f"_mul({self.expr(e.left, ctx)}, {self.expr(e.right, ctx)})"  # checked against the bound
        return f"({self.expr(e.left, ctx)} {self._OPS[op]} {self.expr(e.right, ctx)})"

    SMALL = 1000

    def small(self, e, depth=0) -> bool:
        """Is ``e`` a number no larger than 1000 either way, whatever the
        state?  A product with such a factor cannot make numbers grow out of
        hand (what the checked product guards against: a stored number is
        checked anyway), so it is written as a plain product."""
        if depth > 8:
            return False
        if type(e) in _FOLDED:  # worked out now: small or not
            v = self.fold(e)
            if v is not NOT_CONST:
                return abs(v) <= self.SMALL
        if isinstance(e, A.IntLit):
            return abs(e.value) <= self.SMALL
        if isinstance(e, A.BoolLit):
            return True
        if isinstance(e, A.Neg):
            return self.small(e.operand, depth + 1)
        if isinstance(e, A.IfExpr):
            return self.small(e.then, depth + 1) and self.small(e.else_, depth + 1)
        if isinstance(e, A.Attr) and e.name in self.g.card_attrs and self.t(e) == "int":
            return all(abs(v) <= self.SMALL for v in self.layout.card_attrs[e.name][0] if v is not None)
        if isinstance(e, A.Call):
            r = self.g.res.get(id(e))
            if r is not None and r[0] == "func":
                fn = self.g.functions[r[1]]
                return not fn.lets and self.small(fn.body, depth + 1)
            return r is not None and r[0] == "builtin" and e.func == "sign"
        return False

    def e_Attr(self, e, ctx):
        obj = self.expr(e.obj, ctx)
        if e.name == "face_down" and e.name not in self.g.card_attrs and e.name not in self.g.card_vars:
            return f"st.F[{obj}]"
        if e.name in self.g.card_attrs:
            table = self.layout.card_attrs[e.name][0]
            return f"{self.ns.ref(table, '_t')}[{obj}]"
        base = int(self.layout.cvar_base[e.name])
        return f"st.C[{obj}]" if base == 0 else f"st.C[{base} + {obj}]"

    def e_Index(self, e, ctx):
        i = e.index
        if isinstance(i, A.IntLit) and i.value >= 0:
            return f"{self.seq(e.obj, ctx)}[{self.expr(i, ctx)}]"
        return index_source(self.seq(e.obj, ctx), self.expr(i, ctx))  # a negative index is an error

    def seq(self, e, ctx) -> str:
        """Source of an iterable of the elements of a collection expression."""
        t = self.t(e)
        src = self.expr(e, ctx)
        if t in ("pile", "grid"):
            return f"st.Z[{src}]"
        if t == "stack":
            if isinstance(e, A.Name):
                r = self.g.res.get(id(e))
                if r and r[0] == "slot":
                    entry = ctx.get(r[1])
                    if isinstance(entry, Alias) and isinstance(entry.arg, A.Name):
                        return self.seq(entry.arg, ctx)  # an inlined parameter: its argument's cards
                    alias = ctx.get(("cards", r[1]))
                    if alias is not None:
                        return alias  # the stack's card list, bound once where the stack is
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", src):
                return f"st.Z[{src} >> {STACK_SHIFT}][{src} & {STACK_MASK}]"
            return f"_stack(st, {src})"
        if t == "stacks":
            return stacks_source(src)
        if t == "players":
            return "range(st.n)"
        if t.startswith("set:"):
            return f"_members({src})"
        return src

    def comp_parts(self, e, ctx):
        var = self.ns.fresh("c")
        inner = dict(ctx)
        inner[self.g.res[id(e)]] = var
        it = f"_tick(st, {self.seq(e.iter, ctx)})"
        ex = self.expr(e.expr, inner)
        cond = ""
        if e.cond is not None:
            test = self.expr(e.cond, inner)
            table = filter_table(self, e, test, var)  # a filter of what is printed on the card: read from a table
            cond = f" if {table}[{var}]" if table is not None else f" if {test}"
        return var, it, ex, cond

    def e_ListLit(self, e, ctx):
        return "[" + ", ".join(self.expr(x, ctx) for x in e.items) + "]"

    def e_ListComp(self, e, ctx):
        var, it, ex, cond = self.comp_parts(e, ctx)
        return f"[{ex} for {var} in {it}{cond}]"

    _AGG = {"sum": "sum", "any": "any", "all": "all", "min": "min", "max": "max",
            "intersection": "_inter", "union": "_union", "count": "_count"}

    def e_CallGen(self, e, ctx):
        if e.func == "groups":  # (card, key) pairs of the cards that pass, joined by neighbours
            var, it, ex, cond = self.comp_parts(e, ctx)
            return f"_groups(st, [({var}, {ex}) for {var} in {it}{cond}])"
        if e.cond is None and e.func in ("sum", "min", "max", "intersection", "union", "any", "all") \
                and isinstance(e.expr, A.Attr) and isinstance(e.expr.obj, A.Name) \
                and self.g.res.get(id(e.expr.obj)) == ("slot", self.g.res[id(e)]) \
                and e.expr.name in self.g.card_attrs:
            # f(x.attr for x in cards): map the attribute's table over the cards
            table = self.ns.ref(self.layout.card_attrs[e.expr.name][0], "_t")
            return f"{self._AGG[e.func]}(map({table}.__getitem__, _tick(st, {self.seq(e.iter, ctx)})))"
        fast = attr_test(self, e, ctx)
        if fast is None:
            fast = predicate_table(self, e, ctx)
        if fast is not None:
            return fast
        var, it, ex, cond = self.comp_parts(e, ctx)
        # a list is quicker to build than a generator is to resume (the sizes are
        # charged to the work budget already); any and all stop at their answer
        if e.func == "count":
            test = f" if {ex}" if self.t(e.expr) == "bool" else ""
            return f"len([1 for {var} in {it}{cond}{test}])"
        if e.func in ("any", "all"):
            return f"{self._AGG[e.func]}({ex} for {var} in {it}{cond})"
        return f"{self._AGG[e.func]}([{ex} for {var} in {it}{cond}])"

    def e_Call(self, e, ctx):
        r = self.g.res[id(e)]
        kind = r[0]
        if kind == "zone":
            base = int(self.layout.zone_base[self.g.zones[r[1]].index])
            a = self.expr(e.args[0], ctx)
            return a if base == 0 else f"({base} + {a})"
        if kind == "pvar":
            base = int(self.layout.pvar_base[r[1]])
            return f"st.V[{base} + {self.expr(e.args[0], ctx)}]"
        if kind == "func":
            if id(e) in ctx.get("inline", ()):  # written in place: its hoisted parts are computed at outer loops
                return f"({self.expr(self.g.functions[r[1]].body, ctx)})"
            fname = self.function(r[1], bool(ctx.get("frozen")))
            args = ", ".join(self.expr(a, ctx) for a in e.args)
            return f"{fname}(st, {args})" if args else f"{fname}(st)"
        return self.builtin(e, ctx)

    def builtin(self, e, ctx):
        f = e.func
        args = e.args
        if f in ("size", "empty"):
            s = self.seq(args[0], ctx)
            return f"len({s})" if f == "size" else f"(not {s})"
        if f == "top":
            return f"{self.seq(args[0], ctx)}[-1]"
        if f == "bottom":
            return f"{self.seq(args[0], ctx)}[0]"
        if f == "sign":
            return sign_source(self.expr(args[0], ctx))
        if f == "abs":
            return f"abs({self.expr(args[0], ctx)})"
        if f in ("min", "max") and len(args) == 2:
            return f"{f}({self.expr(args[0], ctx)}, {self.expr(args[1], ctx)})"
        if f in ("next", "previous"):
            k = self.expr(args[1], ctx) if len(args) == 2 else "1"
            sign = "+" if f == "next" else "-"
            return f"(({self.expr(args[0], ctx)} {sign} {k}) % st.n)"
        if f == "least_sum_at_least":
            return f"_lsal({self.expr(args[0], ctx)}, {self.expr(args[1], ctx)})"
        if f in ("increasing", "decreasing"):
            return f"{'_incr' if f == 'increasing' else '_decr'}({self.expr(args[0], ctx)})"
        if f == "all_cards":
            return "list(st.inplay)"
        if f == "can":  # the actions' searches, found by name when called (they are compiled later)
            names = tuple(a.id for a in args)
            f = "_can" if ctx.get("search") else "_can_now"  # within a search, it shares the search's budget
            return f"{f}(st, {self.ns.ref(self.action_defs, '_a')}, {self.ns.ref(names)})"
        if f in _STATE_HELPERS:  # helpers that read the state: _name(st, args...)
            return f"{_STATE_HELPERS[f]}(st, " + ", ".join(self.expr(x, ctx) for x in args) + ")"
        if f == "turns_taken":  # the seat's count, kept by every "turn" block (see Layout.turns_base)
            if self.layout.turns_base is None:  # an expression compiled later (Game.evaluate) in a game that counts none
                from ..runtime import RuleError
                raise RuleError("turns_taken() is counted only in a game whose rules file reads it", e.span)
            return f"st.V[{int(self.layout.turns_base)} + {self.expr(args[0], ctx)}]"
        if f == "is_winner":  # among the winners (meant for a finished game: achievements)
            return f"({self.expr(args[0], ctx)} in st.m.winners(st))"
        if f == "count" and elem_type(self.t(args[0])) != "bool":
            return f"len({self.seq(args[0], ctx)})"
        return f"{self._AGG[f]}({self.seq(args[0], ctx)})"
