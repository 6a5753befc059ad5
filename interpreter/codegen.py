"""Expression trees and action enumerators -> Python functions.

The closure compiler in :mod:`interpreter.compiler` makes one closure per
AST node; a require over (stack, card) pairs then costs a dozen Python calls
per pair.  This module instead writes each expression tree as one Python
expression, and each action's search for legal parameter values as nested
loops, then compiles that source once at load time.

Safety: no text of the rules file ever reaches the generated source.  The
source is built only from generated identifiers (``v3``, ``h2``, ``_k7``),
Python operators and keywords, and ``int`` literals; every other object (card
attribute tables, helper functions, fallback closures) is passed in through
the namespace under a generated name.  :func:`_compile_source` refuses any
source with a character outside a small allowlist (no quotes, no
backslashes, no ``#``), so a rules file cannot inject code even through a
bug here.

Anything this module does not handle falls back to the closure compiler and
is called as ``_kN(st)`` (the loop variables it reads are kept in the
state's slots for that purpose).
"""

from __future__ import annotations

import re

from rulelang import ast as A
from rulelang.checker import elem_type

from .runtime import STACK_MASK, STACK_SHIFT

_ALLOWED = re.compile(r"[A-Za-z0-9_ \n()\[\]+\-*/%&|<>=!.,:~^]*\Z")


class _NoEmit(Exception):
    """This node cannot be written as source in this context."""


class _Alias:
    """A parameter of an inlined function: it reads its argument's source."""

    __slots__ = ("arg",)

    def __init__(self, arg):
        self.arg = arg


def _compile_source(src: str, ns: dict, name: str):
    if not _ALLOWED.match(src):  # pragma: no cover - a bug guard
        raise AssertionError("generated source has a character outside the allowlist")
    ns.setdefault("__sources__", []).append(src)
    code = compile(src, f"<rulelang:{name}>", "exec")
    exec(code, ns)  # noqa: S102 - source built from generated identifiers only (see module doc)
    return ns[name]


def _sign(v):
    return (v > 0) - (v < 0)


def _inter(values):
    acc = -1
    for v in values:
        acc &= v
    return acc if acc != -1 else 0


def _union(values):
    acc = 0
    for v in values:
        acc |= v
    return acc


def _count(values):
    return sum(1 for v in values if v)


def _dedupe(st, cards):
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


def _at(err, span):
    """A rule error at ``span`` for an error raised by one step of a block."""
    from .machine import _explain
    from .runtime import RuleError

    if isinstance(err, RuleError):
        return err if err.span is not None else RuleError(err.message, span)
    return RuleError(_explain(err), span)


def _stack(st, v):
    return st.Z[v >> STACK_SHIFT][v & STACK_MASK]


def _stacks(st, inst):
    base = inst << STACK_SHIFT
    return range(base, base + len(st.Z[inst]))


class CodeGen:
    def __init__(self, comp):
        self.c = comp
        self.g = comp.g
        from .compiler import index, least_sum_at_least, members_of, strictly_decreasing, strictly_increasing

        self.ns = {"_sign": _sign, "_inter": _inter, "_union": _union, "_count": _count, "_dedupe": _dedupe,
                   "_stack": _stack, "_stacks": _stacks, "_lsal": least_sum_at_least,
                   "_members": members_of, "_index": index, "_incr": strictly_increasing,
                   "_decr": strictly_decreasing}
        self.names = {}  # id(obj) -> generated name
        self.counter = 0
        self.fn_names = {}  # user function name -> generated name

    # ------------------------------------------------------------ helpers
    def ref(self, obj, prefix="_k") -> str:
        key = id(obj)
        name = self.names.get(key)
        if name is None:
            self.counter += 1
            name = f"{prefix}{self.counter}"
            self.names[key] = name
            self.ns[name] = obj
        return name

    def fresh(self, prefix) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def t(self, e):
        return self.g.types.get(id(e), "error")

    # ------------------------------------------------------------ entry points
    def lambda_of(self, e):
        """A function state -> value for an expression (slots read from the state)."""
        try:
            src = self.expr(e, {})
        except _NoEmit:  # pragma: no cover - every slot is in the state here
            return None
        name = self.fresh("_e")
        return _compile_source(f"def {name}(st):\n    return {src}\n", self.ns, name)

    # ------------------------------------------------------------ expressions
    # ctx: slot -> (source, in_slots); "nodes": id(node) -> source of a hoisted value
    def expr(self, e, ctx) -> str:
        nodes = ctx.get("nodes")
        if nodes:
            src = nodes.get(id(e))
            if src is not None:
                return src
        method = getattr(self, "e_" + type(e).__name__, None)
        if method is None:
            return self.fallback(e, ctx)
        return method(e, ctx)

    def fallback(self, e, ctx) -> str:
        from .compiler import _walk

        for x in _walk(e):
            if isinstance(x, A.Name):
                r = self.g.res.get(id(x))
                if r and r[0] == "slot" and r[1] in ctx and not ctx[r[1]][1]:
                    raise _NoEmit
        f = self.c.closure(e)
        return f"{self.ref(f)}(st)"

    def slot(self, k, ctx) -> str:
        entry = ctx.get(k)
        if entry is None:
            return f"st.L[{int(k)}]"
        if isinstance(entry[0], _Alias):  # an inlined function's parameter: its argument
            return f"({self.expr(entry[0].arg, ctx)})"
        return entry[0]

    @staticmethod
    def lit(v) -> str:
        if isinstance(v, bool):
            return "True" if v else "False"
        return f"({int(v)})" if v < 0 else str(int(v))

    def e_IntLit(self, e, ctx):
        return self.lit(e.value)

    def e_BoolLit(self, e, ctx):
        return self.lit(e.value)

    def e_StrLit(self, e, ctx):
        return str(int(self.g.card_names[e.value]))

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
            return self.lit(self.c.param_values[r[1]])
        if kind == "member":
            return str(int(self.g.members[r[1]][1]))
        if kind == "enum_all":
            return str(int((1 << len(self.g.enums[r[1]])) - 1))
        if kind == "var":
            return f"st.V[{int(self.c.var_index[r[1]])}]"
        if kind == "zone":
            return str(int(self.g.zones[r[1]].index * self.c.m.stride))
        return self.fallback(e, ctx)  # pragma: no cover

    def e_SetLit(self, e, ctx):
        mask = 0
        for it in e.items:
            mask |= 1 << self.g.members[it.id][1]
        return str(int(mask))

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
            else:
                if isinstance(e.left, A.StrLit) and self.c._has_copies(e.left.value):
                    return self.fallback(e, ctx)
                src = f"({self.expr(e.left, ctx)} in {self.seq(e.right, ctx)})"
            return f"(not {src})" if op == "not in" else src
        if op in ("==", "!=") and any(isinstance(x, A.StrLit) and self.c._has_copies(x.value)
                                     for x in (e.left, e.right)):
            ids = self.ref(self.c.m.card_name_ids, "_t")
            return f"({ids}[{self.expr(e.left, ctx)}] {op} {ids}[{self.expr(e.right, ctx)}])"
        return f"({self.expr(e.left, ctx)} {self._OPS[op]} {self.expr(e.right, ctx)})"

    def e_Attr(self, e, ctx):
        obj = self.expr(e.obj, ctx)
        if e.name in self.g.card_attrs:
            table = self.c.m.card_attrs[e.name][0]
            return f"{self.ref(table, '_t')}[{obj}]"
        base = int(self.c.cvar_base[e.name])
        return f"st.C[{obj}]" if base == 0 else f"st.C[{base} + {obj}]"

    def e_Index(self, e, ctx):
        i = e.index
        if isinstance(i, A.IntLit) and i.value >= 0:
            return f"{self.seq(e.obj, ctx)}[{self.expr(i, ctx)}]"
        return f"_index({self.seq(e.obj, ctx)}, {self.expr(i, ctx)})"  # a negative index is an error

    def seq(self, e, ctx) -> str:
        """Source of an iterable of the elements of a collection expression."""
        t = self.t(e)
        src = self.expr(e, ctx)
        if t == "pile":
            return f"st.Z[{src}]"
        if t == "stack":
            if isinstance(e, A.Name):
                r = self.g.res.get(id(e))
                if r and r[0] == "slot":
                    entry = ctx.get(r[1])
                    if entry is not None and isinstance(entry[0], _Alias) and isinstance(entry[0].arg, A.Name):
                        return self.seq(entry[0].arg, ctx)  # an inlined parameter: its argument's cards
                    alias = ctx.get(("cards", r[1]))
                    if alias is not None:
                        return alias  # the stack's card list, bound once where the stack is
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", src):
                return f"st.Z[{src} >> {STACK_SHIFT}][{src} & {STACK_MASK}]"
            return f"_stack(st, {src})"
        if t == "stacks":
            return f"_stacks(st, {src})"
        if t == "players":
            return "range(st.n)"
        if t.startswith("set:"):
            return f"_members({src})"
        return src

    def comp_parts(self, e, ctx):
        var = self.fresh("c")
        inner = dict(ctx)
        inner[self.g.res[id(e)]] = (var, False)
        it = self.seq(e.iter, ctx)
        ex = self.expr(e.expr, inner)
        cond = f" if {self.expr(e.cond, inner)}" if e.cond is not None else ""
        return var, it, ex, cond

    def e_ListLit(self, e, ctx):
        return "[" + ", ".join(self.expr(x, ctx) for x in e.items) + "]"

    def e_ListComp(self, e, ctx):
        var, it, ex, cond = self.comp_parts(e, ctx)
        return f"[{ex} for {var} in {it}{cond}]"

    _AGG = {"sum": "sum", "any": "any", "all": "all", "min": "min", "max": "max",
            "intersection": "_inter", "union": "_union", "count": "_count"}

    def e_CallGen(self, e, ctx):
        if e.cond is None and e.func in ("sum", "min", "max", "intersection", "union", "any", "all") \
                and isinstance(e.expr, A.Attr) and isinstance(e.expr.obj, A.Name) \
                and self.g.res.get(id(e.expr.obj)) == ("slot", self.g.res[id(e)]) \
                and e.expr.name in self.g.card_attrs:
            # f(x.attr for x in cards): map the attribute's table over the cards
            table = self.ref(self.c.m.card_attrs[e.expr.name][0], "_t")
            return f"{self._AGG[e.func]}(map({table}.__getitem__, {self.seq(e.iter, ctx)}))"
        var, it, ex, cond = self.comp_parts(e, ctx)
        if e.func == "count" and self.t(e.expr) != "bool":
            return f"sum(1 for {var} in {it}{cond})"
        return f"{self._AGG[e.func]}({ex} for {var} in {it}{cond})"

    def e_Call(self, e, ctx):
        r = self.g.res[id(e)]
        kind = r[0]
        if kind == "zone":
            base = int(self.g.zones[r[1]].index * self.c.m.stride)
            a = self.expr(e.args[0], ctx)
            return a if base == 0 else f"({base} + {a})"
        if kind == "pvar":
            base = int(self.c.pvar_base[r[1]])
            return f"st.V[{base} + {self.expr(e.args[0], ctx)}]"
        if kind == "func":
            if id(e) in ctx.get("inline", ()):
                try:  # written in place: its hoisted parts are computed at outer loops
                    return f"({self.expr(self.g.functions[r[1]].body, ctx)})"
                except _NoEmit:
                    pass
            fname = self.function(r[1])
            args = ", ".join(self.expr(a, ctx) for a in e.args)
            return f"{fname}(st, {args})" if args else f"{fname}(st)"
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
            return f"_sign({self.expr(args[0], ctx)})"
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
        if f == "count" and elem_type(self.t(args[0])) != "bool":
            return f"len({self.seq(args[0], ctx)})"
        if f in self._AGG:
            return f"{self._AGG[f]}({self.seq(args[0], ctx)})"
        return self.fallback(e, ctx)  # can, stack_of

    # ------------------------------------------------------------ user functions
    def function(self, name: str) -> str:
        if name in self.fn_names:
            return self.fn_names[name]
        gen = self.fresh("_fn")
        self.fn_names[name] = gen
        f = self.g.functions[name]
        pslots = [s for s, _ in self.g.func_slots[name][0]]
        params = [f"a{i}" for i in range(len(pslots))]
        ptypes = [t for _, t in self.g.func_slots[name][0]]
        for in_slots in (False, True):
            ctx = {s: (p, in_slots) for s, p in zip(pslots, params)}
            lines = [f"def {gen}(st{''.join(', ' + p for p in params)}):"]
            if in_slots:
                lines += [f"    st.L[{int(s)}] = {p}" for s, p in zip(pslots, params)]
            for s, p, t in zip(pslots, params, ptypes):
                if t == "stack":  # a stack's cards, looked up once
                    lines.append(f"    {p}_cards = st.Z[{p} >> {STACK_SHIFT}][{p} & {STACK_MASK}]")
                    ctx[("cards", s)] = f"{p}_cards"
            try:
                for let in f.lets:
                    slot = self.g.res[id(let)]
                    local = f"l{int(slot)}"
                    lines.append(f"    {local} = {self.expr(let.expr, ctx)}")
                    if in_slots:
                        lines.append(f"    st.L[{int(slot)}] = {local}")
                    ctx[slot] = (local, in_slots)
                lines.append(f"    return {self.expr(f.body, ctx)}")
            except _NoEmit:
                continue
            _compile_source("\n".join(lines) + "\n", self.ns, gen)
            return gen
        raise AssertionError(f"cannot generate function {name}")  # pragma: no cover

    # ------------------------------------------------------------ statement blocks
    def assign_target(self, t, ctx) -> str | None:
        """Source of an assignable place, or None."""
        if isinstance(t, A.Name):
            r = self.g.res[id(t)]
            if r[0] == "slot":
                return f"st.L[{int(r[1])}]"
            if r[0] == "var":
                return f"st.V[{int(self.c.var_index[r[1]])}]"
            return None
        if isinstance(t, A.Call) and t.func in self.c.pvar_base:
            return f"st.V[{int(self.c.pvar_base[t.func])} + {self.expr(t.args[0], ctx)}]"
        if isinstance(t, A.Attr) and t.name in self.c.cvar_base:
            return f"st.C[{int(self.c.cvar_base[t.name])} + {self.expr(t.obj, ctx)}]"
        return None

    def simple_stmt(self, s) -> str | None:
        try:
            if isinstance(s, A.Let):
                return f"st.L[{int(self.g.res[id(s)])}] = {self.expr(s.expr, {})}"
            target = self.assign_target(s.target, {})
            if target is None:
                return None
            if isinstance(s, A.Set):
                return f"{target} = {self.expr(s.expr, {})}"
            op = "+=" if s.op == "+=" else "-="
            return f"{target} {op} {self.expr(s.expr, {})}"
        except _NoEmit:  # pragma: no cover
            return None

    def block_fn(self, steps):
        """One function for straight-line steps [(closure, span, simple
        statement or None)]; a failing step still reports its own span."""
        from .runtime import RuleError

        name = self.fresh("_b")
        lines = [f"def {name}(st):"]
        for f, span, s in steps:
            src = self.simple_stmt(s) if s is not None else None
            if src is None:
                src = f"{self.ref(f)}(st)"
            lines.append("    try:")
            lines.append(f"        {src}")
            lines.append("    except _Errors as err:")
            lines.append(f"        raise _at(err, {self.ref(span, '_s')}) from None")
        self.ns.setdefault("_Errors", (IndexError, ZeroDivisionError, ValueError, KeyError, TypeError, RuleError))
        self.ns.setdefault("_at", _at)
        return _compile_source("\n".join(lines) + "\n", self.ns, name)

    # ------------------------------------------------------------ enumerators
    def domain(self, param, ctx) -> str:
        slot, dom, _ = param
        src = self.seq(dom, ctx)
        if self.c.has_copies and self.t(dom) in ("pile", "stack", "list:card"):
            return f"_dedupe(st, {src})"
        return src

    def enumerator(self, plan):
        """Nested loops for one action; loop variables live in Python locals,
        and are also written to the state's slots only when some part of the
        search falls back to a closure (which reads them there)."""
        try:
            return self._enumerator(plan, write_slots=False)
        except _NoEmit:
            return self._enumerator(plan, write_slots=True)

    def _enumerator(self, plan, write_slots):
        """Nested loops for one action.  ``plan``: params [(slot, domain
        node, high node or None)], levels [[(kind, slot, node)]] for
        0..k, prefilters [[node]] per parameter."""
        params, levels, prefilters, inlines = plan
        name = self.fresh("_enum")
        lines = [f"def {name}(st, out, prefix):"]
        ctx = {"nodes": {}, "inline": set(inlines)}
        hoisted = {}  # (level, source) -> local: the same value hoisted twice is computed once
        for pairs in inlines.values():
            for slot, arg in pairs:
                ctx[slot] = (_Alias(arg), False)

        def emit_level(items, indent, exit_stmt):
            pad = " " * indent
            for kind, slot, node in items:
                if kind == "req":
                    lines.append(f"{pad}if not {self.expr(node, ctx)}:")
                    lines.append(f"{pad}    {exit_stmt}")
                elif kind == "let":
                    local = f"x{int(slot)}"
                    lines.append(f"{pad}{local} = {self.expr(node, ctx)}")
                    if write_slots:
                        lines.append(f"{pad}st.L[{int(slot)}] = {local}")
                    ctx[slot] = (local, write_slots)
                else:  # hoist: computed at most once per value of this level, when first needed
                    src = self.expr(node, ctx)
                    local = hoisted.get((indent, src))
                    if local is None:
                        local = self.fresh("h")
                        hoisted[(indent, src)] = local
                        lines.append(f"{pad}{local} = None")
                        ctx["nodes"][id(node)] = f"({local} if {local} is not None else ({local} := {src}))"
                    else:
                        ctx["nodes"][id(node)] = ctx["nodes"].get(id(node)) or \
                            f"({local} if {local} is not None else ({local} := {src}))"

        emit_level(levels[0], 4, "return")
        # prefiltered domains (they depend on no other parameter)
        filtered = {}
        for i, nodes in enumerate(prefilters):
            if not nodes:
                continue
            slot, dom, _ = params[i]
            d = f"d{i}"
            var = f"v{i}"
            inner = dict(ctx)
            inner[slot] = (var, write_slots)
            lines.append(f"    {d} = []")
            lines.append(f"    for {var} in {self.domain(params[i], ctx)}:")
            if write_slots:
                lines.append(f"        st.L[{int(slot)}] = {var}")
            saved = ctx.get(slot)
            ctx[slot] = (var, write_slots)
            conds = " and ".join(self.expr(n, ctx) for n in nodes)
            if saved is None:
                del ctx[slot]
            lines.append(f"        if {conds}:")
            lines.append(f"            {d}.append({var})")
            lines.append(f"    if not {d}:")
            lines.append("        return")
            filtered[i] = d
        indent = 4
        values = []
        for i, (slot, dom, high) in enumerate(params):
            pad = " " * indent
            var = f"v{i}"
            if i in filtered:
                it = filtered[i]
            elif high is not None:
                it = f"range({self.expr(dom, ctx)}, {self.expr(high, ctx)} + 1)"
            else:
                it = self.domain(params[i], ctx)
            lines.append(f"{pad}for {var} in {it}:")
            if write_slots:
                lines.append(f"{pad}    st.L[{int(slot)}] = {var}")
            ctx[slot] = (var, write_slots)
            if self.t(dom) == "stacks" and high is None:
                lines.append(f"{pad}    {var}_cards = st.Z[{var} >> {STACK_SHIFT}][{var} & {STACK_MASK}]")
                ctx[("cards", slot)] = f"{var}_cards"
            values.append(var)
            indent += 4
            emit_level(levels[i + 1], indent, "continue")
        pad = " " * indent
        tup = "(" + ", ".join(values) + ("," if len(values) == 1 else "") + ")" if values else "()"
        lines.append(f"{pad}out.append(prefix + {tup})" if values else f"{pad}out.append(prefix)")
        return _compile_source("\n".join(lines) + "\n", self.ns, name)
