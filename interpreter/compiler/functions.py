"""User functions -> generated Python: a mixin of
:class:`~interpreter.compiler.expressions.Expressions`.

A function becomes one generated function ``fname(st, args...)``.  Its lets
are Python locals, except a let read once outside a generator, which is
computed where it is read.  A pure function with scalar arguments keeps its
values by its arguments (a stack by its cards); while a game is scored,
every function with scalar arguments keeps them until the results are
known.
"""

from __future__ import annotations

import re

from rulelang import ast as A

from ..runtime import STACK_MASK, STACK_SHIFT
from .purity import Purity, is_scalar
from .reads import nesting, zone_reads
from .source import lit
from .tree import of_node, used_once, walk

# Values kept per pure user function (see .purity): the table starts over when full.
MEMO_SIZE = 50_000
# Builtins that read one item of a collection, or none (see Functions.quick).
_QUICK = frozenset({"size", "empty", "top", "bottom", "sign", "abs", "next", "previous"})


class Functions:
    # ------------------------------------------------------------ user functions
    def function(self, name: str, frozen: bool = False) -> str:
        """The generated name of user function ``name``: ``fname(st, args...)``.
        ``frozen``: the version for a frozen state (see :meth:`fn`)."""
        if frozen and self.pure(name):
            frozen = False  # a pure function keeps its values anyway, or is quicker to compute
        if (name, frozen) in self.fn_names:
            return self.fn_names[(name, frozen)]
        gen = self.ns.fresh("_fn")
        self.fn_names[(name, frozen)] = gen
        f = self.g.functions[name]
        pslots = [s for s, _ in self.g.func_slots[name][0]]
        params = [f"a{i}" for i in range(len(pslots))]
        ptypes = [t for _, t in self.g.func_slots[name][0]]
        ctx = {s: p for s, p in zip(pslots, params)}
        if frozen:
            ctx["frozen"] = True
        lines = [f"def {gen}(st{''.join(', ' + p for p in params)}):"]
        for s, p, t in zip(pslots, params, ptypes):
            if t == "stack":  # a stack's cards, looked up once
                lines.append(f"    {p}_cards = st.Z[{p} >> {STACK_SHIFT}][{p} & {STACK_MASK}]")
                ctx[("cards", s)] = f"{p}_cards"
        body = []
        lazy = used_once(self.g, f)
        for let in f.lets:
            slot = self.g.res[id(let)]
            if slot in lazy:  # computed where it is read, when it is
                ctx[slot] = f"({self.expr(let.expr, ctx)})"
                continue
            local = f"l{int(slot)}"
            body.append(f"{local} = {self.expr(let.expr, ctx)}")
            ctx[slot] = local
        value = self.expr(f.body, ctx)
        if params and self.memoisable(name):
            # a pure function: its values kept by arguments, a stack by its cards (see .purity)
            memo = self.fn_memos[gen] = self.ns.ref({}, "_memo")
            lines += self.kept(memo, self.memo_key(name, params, ptypes), body, value)
        elif frozen and all(is_scalar(t) for t in ptypes):
            # the state is frozen until the table is cleared: values kept by the arguments
            lines += self.kept(self.ns.ref(self.frozen_memo, "_fm"), [lit(int(gen[3:]))] + params, body, value)
        else:
            lines += [f"    {x}" for x in body]
            lines += _charged_first(value)
        self.ns.define("\n".join(lines) + "\n", gen)
        return gen

    @staticmethod
    def kept(memo: str, key: list, body: list, value: str) -> list:
        """The body of a function whose values are kept in table ``memo``
        by ``key`` (sources), each with what computing it cost of the work
        budget, charged again when the kept value is used: the budget is
        spent the same whether a value was kept or not."""
        # a key of one part is that part: in a function's own table, its one argument; in the
        # table the scoring functions share, a function's number alone (an int, no tuple's equal)
        return [f"    k = {key[0]}" if len(key) == 1 else f"    k = ({', '.join(key)},)",
                f"    e = {memo}.get(k)",
                "    if e is None:",
                "        w = st.m.work_left",
                *[f"        {x}" for x in body],
                f"        v = {value}",
                f"        if len({memo}) >= {MEMO_SIZE}:",
                f"            {memo}.clear()",
                f"        {memo}[k] = (v, w - st.m.work_left)",
                "        return v",
                "    m = st.m",
                "    m.work_left -= e[1]",
                "    if m.work_left < 0:",
                "        _charge(st, 0)",
                "    return e[0]"]

    def kept_condition(self, e):
        """A function for the flow's condition ``e`` that keeps its values
        by the cards of the piles it reads (and the player count), when
        that is all it reads (see :func:`.reads.zone_reads`: no variable,
        no ``me``, no card variable) and it nests generators (through the
        functions it calls: ``any(has_won(p) for p in players)``, tested
        after every action, where it costs more than writing out its
        piles); None otherwise.  Kept as a pure function's values are
        (:meth:`kept`): the cost charged again when a kept value is used."""
        g = self.g
        reads = of_node(g, "zone_reads", e, lambda: zone_reads(g, e))
        if reads is None or reads[1] or reads[2] or not reads[0] or of_node(g, "nesting", e, lambda: nesting(g, e)) < 2:
            return None
        zones = {z.index: z for z in g.zones.values()}
        key = ["st.n"] + [f"st.V[{int(i)}]" for i in self.layout.late_indices]  # (the cards in play: see .late)
        for index in sorted(reads[0]):
            zone = zones[index]
            if zone.kind != "pile":
                return None
            base = int(self.layout.zone_base[index])
            key.append(f"tuple(map(tuple, st.Z[{base}:{base} + st.n]))" if zone.per_player else f"tuple(st.Z[{base}])")
        name = self.ns.fresh("_kc")
        memo = self.ns.ref({}, "_memo")
        lines = [f"def {name}(st):"] + self.kept(memo, key, [], self.expr(e, {}))
        return self.ns.define("\n".join(lines) + "\n", name)

    def kept_read(self, node, ctx, local: str, pad: str):
        """Lines setting ``local`` to the value of ``node``, a call of a
        function that keeps its values, with the table read in place (no
        call when the value is kept, the cost charged as the function
        charges it); or None when ``node`` is no such call or an argument is
        not a plain local of the search (a stack: with its cards at hand as
        ``<local>_cards``)."""
        g = self.g
        if not isinstance(node, A.Call) or g.res.get(id(node), ("",))[0] != "func" or not self.memoisable(node.func):
            return None
        ptypes = [t for _, t in g.func_slots[node.func][0]]
        args = [self.expr(a, ctx) for a in node.args]
        if not all(a.isidentifier() for a in args):
            return None
        if any(t == "stack" and not _cards_at_hand(ctx, a) for a, t in zip(args, ptypes)):
            return None
        gen = self.function(node.func)
        memo = self.fn_memos.get(gen)  # (none for a function of no arguments: its value is not kept so)
        if memo is None:
            return None
        key = self.memo_key(node.func, args, ptypes)
        e = f"{local}_e"
        return [f"{pad}{e} = {memo}.get({key[0] if len(key) == 1 else '(' + ', '.join(key) + ',)'})",
                f"{pad}if {e} is None:",
                f"{pad}    {local} = {gen}(st{''.join(', ' + a for a in args)})",
                f"{pad}else:",
                f"{pad}    {local} = {e}[0]",
                f"{pad}    st.m.work_left -= {e}[1]",
                f"{pad}    if st.m.work_left < 0:",
                f"{pad}        _charge(st, 0)"]

    def quick_inline(self, node, ctx) -> str | None:
        """The source of ``node``, a call of a function that is computed, not
        kept (:meth:`quick`), with no lets, as its body written in place
        (its parameters read as the arguments, plain locals of the search,
        a stack's cards as ``<local>_cards``); None otherwise."""
        g = self.g
        if not isinstance(node, A.Call) or g.res.get(id(node), ("",))[0] != "func":
            return None
        f = g.functions[node.func]
        if f.lets or not self.quick(node.func) or self.memoisable(node.func):
            return None
        args = [self.expr(a, ctx) for a in node.args]
        args = [a[1:-1] if a.startswith("(") and a.endswith(")") and a[1:-1].isidentifier() else a for a in args]
        if not all(a.isidentifier() for a in args):
            return None
        inner = {}
        for (s, t), a in zip(g.func_slots[node.func][0], args):
            inner[s] = a
            if t == "stack":
                if not _cards_at_hand(ctx, a):
                    return None
                inner[("cards", s)] = f"{a}_cards"
        return f"({self.expr(f.body, inner)})"

    def memo_key(self, name, params, ptypes) -> list:
        """Sources of what a pure function's value depends on: its arguments,
        a stack by its cards, and the card variables it reads of those cards."""
        bases = [int(self.layout.cvar_base[v]) for v in sorted(self.purity.card_vars[name])]
        key = []
        for p, t in zip(params, ptypes):
            if t == "stack":
                key.append(f"tuple({p}_cards)")
                key += [f"tuple(map(st.C.__getitem__, {p}_cards))" if b == 0 else
                        f"tuple(map(st.C.__getitem__, map(({b}).__add__, {p}_cards)))" for b in bases]
            else:
                key.append(p)
                if t == "card":
                    key += [f"st.C[{p}]" if b == 0 else f"st.C[{b} + {p}]" for b in bases]
        return key

    def pure(self, name: str) -> bool:
        """Is user function ``name`` pure, with scalar arguments and value?"""
        if self.purity is None:
            self.purity = Purity(self.g)
        return (all(is_scalar(t) for _, t in self.g.func_slots[name][0])
                and is_scalar(self.t(self.g.functions[name].body)) and self.purity.pure(name))

    def memoisable(self, name: str) -> bool:
        """Does pure function ``name`` keep its values: is it dearer to compute
        than to look up (see :meth:`quick`)?"""
        return self.pure(name) and not self.quick(name)

    def quick(self, name: str, calling=frozenset()) -> bool:
        """Does user function ``name`` go through no collection: no
        generator or list written out, no call but the builtins that read
        one item (``size``, ``top``...), a min or max of two values, and
        other such functions?  Its value costs less to compute than its key
        in a table of kept values (a stack's cards, their card variables)."""
        known = self.quick_functions.get(name)
        if known is not None:
            return known
        f = self.g.functions[name]
        ok = True
        for x in walk([f.body] + [let.expr for let in f.lets]):
            if isinstance(x, (A.CallGen, A.ListComp, A.ListLit)):
                ok = False
            elif isinstance(x, A.Call):
                kind = self.g.res.get(id(x), ("",))[0]
                if kind == "func":
                    ok = x.func not in calling and self.quick(x.func, calling | {name})
                elif kind == "builtin":
                    ok = x.func in _QUICK or (x.func in ("min", "max") and len(x.args) == 2)
                else:
                    ok = kind in ("zone", "pvar")
            if not ok:
                break
        self.quick_functions[name] = ok  # (a call back up the chain reads False: the safe answer, kept)
        return ok


# a value that goes through a place's cards first, by a table of the cards: a count, any or all
# (.card_tables), a sum of an attribute, or whether a value of an attribute is among them
_TABLE_OF_PLACE = re.compile(r"(sum\(|\(-?\d+ (?:not )?in )map\((_[tp]\d+)\.__getitem__, "
                             r"_tick\(st, (st\.Z\[[a-z0-9_ ()+.]*\])\)\)\)\Z")


def _charged_first(value: str) -> list:
    """The lines that return ``value``.  A value of a table over a place's
    cards (:data:`_TABLE_OF_PLACE`), where nothing is evaluated before they are
    charged to the work budget, has the charge written in the function
    (``_tick``'s lines, without its call); the error of an exhausted budget
    is ``_tick``'s."""
    match = _TABLE_OF_PLACE.match(value)
    if match is None:
        return [f"    return {value}"]
    return [f"    _x = {match.group(3)}", "    _m = st.m", "    _m.work_left -= len(_x)",
            "    if _m.work_left < 0:", "        _tick(st, ())",
            f"    return {value.replace(f'_tick(st, {match.group(3)})', '_x')}"]


def _cards_at_hand(ctx, local: str) -> bool:
    """Does the search hold the cards of the stack ``local`` in ``<local>_cards``?"""
    return f"{local}_cards" in (v for v in ctx.values() if isinstance(v, str))
