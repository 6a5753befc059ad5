"""Checked AST -> :class:`~interpreter.machine.Machine`.

Expressions become closures ``f(state) -> value`` once, at load time, with
parameters folded in as constants.  Statements become a flat code list of
``(opcode, a, b, span)`` with jumps; loops keep their counters in local
slots, so a state is only flat lists.  Each ``choose`` is a decision point;
the effects of each action it offers are laid out right after it.

Action enumeration pushes each ``require`` (and ``let``) down to the first
parameter level at which everything it reads is bound, so a condition on
the card alone is tested once per card, not once per (stack, card) pair.
"""

from __future__ import annotations

from rulelang import ast as A
from rulelang.checker import CheckedGame, elem_type
from rulelang.diagnostics import Diagnostic, NO_SPAN

from .machine import ActionDef, Machine, SiteAction, ZoneDef, _explain
from .runtime import DECIDE, END, EXEC, JF, JMP, RANDOM, STACK_MASK, STACK_SHIFT, RuleError, take_card


# Builtins cheaper to compute again than to keep: never hoisted.
CHEAP_BUILTINS = frozenset({"size", "empty", "top", "bottom", "sign", "abs", "next", "previous"})


class ParamError(Exception):
    """A bad ``--set NAME=VALUE`` or keyword parameter."""


def _const(v):
    f = lambda st: v  # noqa: E731
    f.const = v
    return f


def _is_const(f):
    return hasattr(f, "const")


# What a failed evaluation raises (max of nothing, an index past the end,
# a division by zero, ...).  The VM turns these into RuleErrors for the flow's
# steps; the values computed outside it (parameter defaults at load time, and
# variable defaults and the deck in new_state) are guarded by _guarded.
_EVAL_ERRORS = (IndexError, ZeroDivisionError, ValueError, KeyError, TypeError)


_why = _explain  # what went wrong, in the rules' terms


def _guarded(f, what, span):
    """``f``, raising a RuleError (with the span of the rules) where it would raise a Python error."""
    def guarded(st):
        try:
            return f(st)
        except _EVAL_ERRORS as err:
            raise RuleError(f"{what} cannot be computed: {_why(err)}", span) from None
    return guarded


class _Random:
    """A uniform random pick among a collection, assigned by a setter."""

    __slots__ = ("items", "setter")

    def __init__(self, items, setter):
        self.items = items
        self.setter = setter

    def count(self, st):
        return len(self.items(st))

    def skip(self, st, pc):
        raise RuleError("random pick from an empty collection")

    def resolve(self, st, j, pc):
        self.setter(st, list(self.items(st))[j])
        return pc + 1


class _Shuffle:
    """Fisher-Yates, one uniform chance event per position."""

    __slots__ = ("zone", "slot")

    def __init__(self, zone, slot):
        self.zone = zone
        self.slot = slot  # remaining positions, set by the EXEC before

    def count(self, st):
        k = st.L[self.slot]
        return k if k > 1 else 0

    def skip(self, st, pc):
        return pc + 1

    def resolve(self, st, j, pc):
        k = st.L[self.slot]
        pile = st.Z[self.zone(st)]
        pile[k - 1], pile[j] = pile[j], pile[k - 1]
        st.L[self.slot] = k - 1
        return pc if k - 1 > 1 else pc + 1


class Compiler:
    def __init__(self, g: CheckedGame, params: dict, explicit_chance=False, coverage=False,
                 check_invariants=False):
        self.g = g
        self.m = Machine()
        self.m.explicit_chance = explicit_chance
        self.coverage = coverage
        self.check_invariants = check_invariants and bool(g.invariants or any(
            z.capacity is not None for z in g.zones.values()))
        self.flow_slots = set()
        self.simple = {}  # pc -> Let/Set/AugSet statement, for block fusion
        self.param_values = params
        self.code = self.m.code
        self.fn_cache = {}
        self.action_defs = {}
        from .codegen import CodeGen
        self.cg = CodeGen(self)

    # ------------------------------------------------------------ top
    def compile(self) -> Machine:
        g, m = self.g, self.m
        m.title = g.title or g.file
        m.players = g.players
        m.stride = g.players[1]
        m.nslots = g.nslots + 1
        m.params = dict(self.param_values)
        # cards
        m.card_names = [c[0] for c in g.cards]
        names = {}
        m.card_name_ids = [names.setdefault(c[0], len(names)) for c in g.cards]
        self.has_copies = len(names) < len(g.cards)
        for aname, (i, t) in g.card_attrs.items():
            m.card_attrs[aname] = (tuple(c[1][i] for c in g.cards), t)
        m.enum_members = {k: list(v) for k, v in g.enums.items()}
        # zones
        for z in g.zones.values():
            m.zones.append(ZoneDef(z.name, z.index, z.kind, z.per_player, z.visibility))
        stride = m.stride
        m.stack_instances = tuple(z.index * stride + p for z in m.zones if z.kind == "stacks"
                                  for p in range(stride))
        m.pile_instances = tuple(z.index * stride + p for z in m.zones if z.kind == "pile"
                                 for p in range(stride))
        shared_piles = [z for z in m.zones if z.kind == "pile" and not z.per_player]
        piles = shared_piles or [z for z in m.zones if z.kind == "pile"]
        if not piles:
            raise RuleError("the rules declare no pile zone for the cards to start in",
                            NO_SPAN)
        m.start_zone = piles[0].index * stride
        # variables
        self.var_index = {}
        V_defaults = []
        for name, v in g.vars.items():
            self.var_index[name] = len(V_defaults)
            m.var_names.append((name, g.types[id(v)], len(V_defaults)))
            V_defaults.append(_guarded(self.expr(v.default), f'the initial value of "{name}"', v.default.span))
        self.pvar_base = {}
        pv_defaults = []
        for name, v in g.player_vars.items():
            base = len(V_defaults) + len(pv_defaults) * stride
            self.pvar_base[name] = base
            m.pvar_names.append((name, g.types[id(v)], base))
            pv_defaults.append(_guarded(self.expr(v.default), f'the initial value of "{name}"', v.default.span))
        ncards = len(g.cards)
        self.cvar_base = {}
        cv_defaults = []
        for k, (name, v) in enumerate(g.card_vars.items()):
            self.cvar_base[name] = k * ncards
            m.cvar_names.append((name, g.types[id(v)], k * ncards))
            m.cvar_bases.append(k * ncards)
            cv_defaults.append((g.res[id(v)], _guarded(self.expr(v.default), f'the initial value of "{name}"',
                                                       v.default.span)))

        def var_defaults(st, V_defaults=V_defaults, pv_defaults=pv_defaults):
            V = [f(st) for f in V_defaults]
            for f in pv_defaults:
                V.extend([f(st)] * stride)
            return V

        def cvar_defaults(st, cv_defaults=cv_defaults):
            C = []
            for slot, f in cv_defaults:
                for c in range(ncards):
                    st.L[slot] = c
                    C.append(f(st))
            return C

        m.var_defaults = var_defaults
        m.cvar_defaults = cvar_defaults
        m.deck = self.compile_deck()
        # actions
        for name, a in g.actions.items():
            self.action_defs[name] = self.compile_action(a)
        # flow: setup then play, then the end
        self.block(g.setup)
        self.block(g.play)
        self.emit(END, None, None, NO_SPAN)
        self.fuse_blocks()
        # outcome
        o = g.outcome
        m.outcome_slot = g.outcome_slot
        m.outcome_span = o.span
        m.score_fn = self.expr(o.score)
        m.tiebreaks = [(1 if hilo == "highest" else -1, self.expr(e)) for hilo, e in o.tiebreaks]
        m.generated_sources = self.cg.ns.get("__sources__", [])
        m.flow_slots = tuple(sorted(self.flow_slots))
        # invariants: declared ones, then the zones' capacities
        for inv in g.invariants:
            m.invariants.append((self.expr(inv.cond), inv.message or "invariant broken", inv.span))
        for z in g.zones.values():
            if z.capacity is not None:
                cap = z.capacity if isinstance(z.capacity, int) else self.param_values[z.capacity]
                m.capacities.append((z.index, z.name, z.per_player, z.kind, cap, z.span))
        return m

    def compile_deck(self):
        g = self.g
        items = []
        for item in g.deck:
            when = _guarded(self.expr(item.when), "a deck condition", item.when.span) if item.when is not None else None
            if isinstance(item, A.DeckWhere):
                items.append(("where", g.res[id(item)], _guarded(self.expr(item.cond), "a deck condition", item.cond.span),
                              when))
            else:
                ids = tuple(i for i, c in enumerate(g.cards) if c[0] == item.name)
                items.append(("named", ids, None, when))
        ncards = len(g.cards)

        def deck(st):
            if not items:
                return list(range(ncards))
            chosen = set()
            for kind, x, cond, when in items:
                if when is not None and not when(st):
                    continue
                if kind == "named":
                    chosen.update(x)
                else:
                    for c in range(ncards):
                        st.L[x] = c
                        if cond(st):
                            chosen.add(c)
            return sorted(chosen)

        return deck

    # ------------------------------------------------------------ helpers
    def emit(self, op, a, b, span):
        self.code.append((op, a, b, span))
        return len(self.code) - 1

    def patch(self, at, b):
        op, a, _, span = self.code[at]
        self.code[at] = (op, a, b, span)

    def t(self, e):
        return self.g.types.get(id(e), "error")

    # ------------------------------------------------------------ expressions
    def expr(self, e):
        """A function state -> value: generated source where possible
        (:mod:`interpreter.codegen`), else a tree of closures."""
        if isinstance(e, (A.IntLit, A.BoolLit, A.StrLit, A.SetLit)) or (
                isinstance(e, A.Name) and self.g.res.get(id(e), ("",))[0] in ("param", "member", "zone")):
            return self._expr(e)  # constants stay foldable
        if self.is_static(e):
            try:
                return _const(self._expr(e)(None))
            except Exception:  # noqa: BLE001 - e.g. 1 / 0: leave it to play time, with its span
                pass
        f = self.cg.lambda_of(e)
        return f if f is not None else self._expr(e)

    def is_static(self, e) -> bool:
        """Does ``e`` depend only on literals and parameters (no state)?"""
        for x in _walk(e):
            if isinstance(x, A.Name):
                r = self.g.res.get(id(x))
                if r is None or r[0] not in ("param", "member", "zone", "enum_all"):
                    return False
            elif isinstance(x, (A.Call, A.CallGen, A.ListComp, A.Attr, A.Index)):
                if not (isinstance(x, A.Call) and x.func in ("sign", "abs", "min", "max")
                        and self.g.res.get(id(x), ("",))[0] == "builtin"):
                    return False
        return True

    def closure(self, e):
        """The closure form of one node (its children may be generated)."""
        return self._expr(e)

    def seq(self, e):
        """A closure giving an iterable of the elements of a collection expression."""
        t = self.t(e)
        f = self.expr(e)
        if t == "pile":
            if _is_const(f):
                zi = f.const
                return lambda st: st.Z[zi]
            return lambda st: st.Z[f(st)]
        if t == "stack":
            slot = self.slot_of(e)
            if slot is not None:
                def stack_slot(st):
                    v = st.L[slot]
                    return st.Z[v >> STACK_SHIFT][v & STACK_MASK]
                return stack_slot

            def stack(st):
                v = f(st)
                return st.Z[v >> STACK_SHIFT][v & STACK_MASK]
            return stack
        if t == "stacks":
            if _is_const(f):
                zi = f.const
                base = zi << STACK_SHIFT
                return lambda st: range(base, base + len(st.Z[zi]))

            def stacks(st):
                zi = f(st)
                return range(zi << STACK_SHIFT, (zi << STACK_SHIFT) + len(st.Z[zi]))
            return stacks
        if t == "players":
            return lambda st: range(st.n)
        if t.startswith("set:"):
            return lambda st: members_of(f(st))
        return f  # lists and ranges are their own values

    def _expr(self, e):
        g = self.g
        if isinstance(e, A.IntLit):
            return _const(e.value)
        if isinstance(e, A.BoolLit):
            return _const(e.value)
        if isinstance(e, A.StrLit):
            return _const(g.card_names[e.value])
        if isinstance(e, A.Name):
            return self.name(e)
        if isinstance(e, A.SetLit):
            mask = 0
            for it in e.items:
                mask |= 1 << g.members[it.id][1]
            return _const(mask)
        if isinstance(e, A.BoolOp):
            fs = [self.expr(x) for x in e.items]
            if e.op == "and":
                if len(fs) == 2:
                    a, b = fs
                    return lambda st: a(st) and b(st)
                return lambda st: all(f(st) for f in fs)
            if len(fs) == 2:
                a, b = fs
                return lambda st: a(st) or b(st)
            return lambda st: any(f(st) for f in fs)
        if isinstance(e, A.Not):
            f = self.expr(e.operand)
            return lambda st: not f(st)
        if isinstance(e, A.Neg):
            f = self.expr(e.operand)
            return lambda st: -f(st)
        if isinstance(e, A.IfExpr):
            c, a, b = self.expr(e.cond), self.expr(e.then), self.expr(e.else_)
            return lambda st: a(st) if c(st) else b(st)
        if isinstance(e, A.BinOp):
            return self.binop(e)
        if isinstance(e, A.Attr):
            o = self.expr(e.obj)
            slot = self.slot_of(e.obj)
            if e.name in g.card_attrs:
                table = self.m.card_attrs[e.name][0]
                if slot is not None:
                    return lambda st: table[st.L[slot]]
                return lambda st: table[o(st)]
            base = self.cvar_base[e.name]
            if slot is not None:
                return lambda st: st.C[base + st.L[slot]]
            if base == 0:
                return lambda st: st.C[o(st)]
            return lambda st: st.C[base + o(st)]
        if isinstance(e, A.Index):
            s = self.seq(e.obj)
            i = self.expr(e.index)
            if _is_const(i):
                k = i.const
                if self.t(e.obj) == "stack" and self.slot_of(e.obj) is not None:
                    bslot = self.slot_of(e.obj)

                    def index_stack(st):
                        v = st.L[bslot]
                        return st.Z[v >> STACK_SHIFT][v & STACK_MASK][k]
                    return index_stack
                return lambda st: s(st)[k] if k >= 0 else index((), k)
            return lambda st: index(s(st), i(st))
        if isinstance(e, A.ListLit):
            fs = [self.expr(x) for x in e.items]
            return lambda st: [f(st) for f in fs]
        if isinstance(e, A.ListComp):
            return self.comprehension("list", e)
        if isinstance(e, A.CallGen):
            return self.comprehension(e.func, e)
        if isinstance(e, A.Call):
            return self.call(e)
        raise AssertionError(f"cannot compile {e!r}")  # pragma: no cover

    def slot_of(self, e):
        """The slot a plain local name reads, else None (hoisted nodes excluded)."""
        if isinstance(e, A.Name):
            r = self.g.res.get(id(e))
            if r and r[0] == "slot":
                return r[1]
        return None

    def name(self, e):
        r = self.g.res[id(e)]
        kind = r[0]
        if kind == "slot":
            k = r[1]
            return lambda st: st.L[k]
        if kind == "me":
            return lambda st: st.me
        if kind == "players":
            return lambda st: range(st.n)
        if kind == "player_count":
            return lambda st: st.n
        if kind == "param":
            return _const(self.param_values[r[1]])
        if kind == "member":
            return _const(self.g.members[r[1]][1])
        if kind == "enum_all":
            return _const((1 << len(self.g.enums[r[1]])) - 1)
        if kind == "var":
            i = self.var_index[r[1]]
            return lambda st: st.V[i]
        if kind == "zone":
            z = self.g.zones[r[1]]
            return _const(z.index * self.m.stride)
        raise AssertionError(r)  # pragma: no cover

    def binop(self, e):
        op = e.op
        lt, rt = self.t(e.left), self.t(e.right)
        a = self.expr(e.left)
        if op in ("in", "not in"):
            neg = op == "not in"
            if rt.startswith("set:"):
                b = self.expr(e.right)
                if _is_const(b):
                    mask = b.const
                    f = lambda st: (mask >> a(st)) & 1 == 1  # noqa: E731
                else:
                    f = lambda st: (b(st) >> a(st)) & 1 == 1  # noqa: E731
            else:
                s = self.seq(e.right)
                if isinstance(e.left, A.StrLit) and self._has_copies(e.left.value):
                    nid = self.m.card_name_ids[self.g.card_names[e.left.value]]
                    ids = self.m.card_name_ids
                    f = lambda st: any(ids[c] == nid for c in s(st))  # noqa: E731
                else:
                    f = lambda st: a(st) in s(st)  # noqa: E731
            if neg:
                return lambda st: not f(st)
            return f
        b = self.expr(e.right)
        if _is_const(a) and _is_const(b) and op in _PYOPS:
            try:
                return _const(_PYOPS[op](a.const, b.const))
            except ZeroDivisionError:
                pass
        if op == "+":
            if _is_const(b):
                k = b.const
                return lambda st: a(st) + k
            return lambda st: a(st) + b(st)
        if op == "-":
            if _is_const(b):
                k = b.const
                return lambda st: a(st) - k
            return lambda st: a(st) - b(st)
        if op == "*":
            if _is_const(a):
                k = a.const
                return lambda st: k * b(st)
            return lambda st: a(st) * b(st)
        if op == "/":
            return lambda st: a(st) // b(st)
        if op == "%":
            return lambda st: a(st) % b(st)
        if op == "&":
            return lambda st: a(st) & b(st)
        if op == "!=" and isinstance(e.left, A.BinOp) and e.left.op == "&" and _is_const(b):
            x, y, k = self.expr(e.left.left), self.expr(e.left.right), b.const
            return lambda st: x(st) & y(st) != k
        if op == "|":
            return lambda st: a(st) | b(st)
        if op == "==":
            if _is_const(b):
                k = b.const
                return lambda st: a(st) == k
            return lambda st: a(st) == b(st)
        if op == "!=":
            if _is_const(b):
                k = b.const
                return lambda st: a(st) != k
            return lambda st: a(st) != b(st)
        if op == "<":
            if _is_const(b):
                k = b.const
                return lambda st: a(st) < k
            return lambda st: a(st) < b(st)
        if op == "<=":
            if _is_const(b):
                k = b.const
                return lambda st: a(st) <= k
            return lambda st: a(st) <= b(st)
        if op == ">":
            if _is_const(b):
                k = b.const
                return lambda st: a(st) > k
            return lambda st: a(st) > b(st)
        if op == ">=":
            if _is_const(b):
                k = b.const
                return lambda st: a(st) >= k
            return lambda st: a(st) >= b(st)
        raise AssertionError(op)  # pragma: no cover

    def _has_copies(self, name):
        return sum(1 for c in self.g.cards if c[0] == name) > 1

    def elem_fn(self, e, slot):
        """``e`` as a plain function of the loop value when it is an
        attribute of the loop variable (or a simple test on one)."""
        if isinstance(e, A.Attr) and self.slot_of(e.obj) == slot and e.name in self.g.card_attrs:
            return self.m.card_attrs[e.name][0].__getitem__
        if isinstance(e, A.BinOp) and e.op in ("in", "==", "!="):
            get = self.elem_fn(e.left, slot)
            b = self.expr(e.right)
            if get is None or not _is_const(b):
                return None
            k = b.const
            if e.op == "in" and self.t(e.right).startswith("set:"):
                return lambda v: (k >> get(v)) & 1 == 1
            if e.op == "==":
                return lambda v: get(v) == k
            if e.op == "!=":
                return lambda v: get(v) != k
        return None

    def comprehension(self, func, e):
        if func == "count" and self.t(e.expr) != "bool":
            func = "size"  # count(x for x in c if f) counts the items, whatever they are
        slot = self.g.res[id(e)]
        it = self.seq(e.iter)
        ex = self.expr(e.expr)
        cond = self.expr(e.cond) if e.cond is not None else None
        fx = self.elem_fn(e.expr, slot)
        fc = self.elem_fn(e.cond, slot) if e.cond is not None else None
        if fx is not None and e.cond is None:
            if func == "list":
                return lambda st: [fx(v) for v in it(st)]
            return self.aggregate(func, lambda st: map(fx, it(st)))
        if fc is not None and func in ("any", "all", "count") and fx is None:
            pass
        elif fc is not None and (fx is not None):
            if func == "list":
                return lambda st: [fx(v) for v in it(st) if fc(v)]
            return self.aggregate(func, lambda st: [fx(v) for v in it(st) if fc(v)])
        if fc is None and e.cond is None and func in ("any", "all", "count"):
            fe = self.elem_fn(e.expr, slot)
            if fe is not None:
                return self.aggregate(func, lambda st: map(fe, it(st)))

        def values(st):
            L = st.L
            out = []
            for v in it(st):
                L[slot] = v
                if cond is None or cond(st):
                    out.append(ex(st))
            return out

        if func == "list":
            return values
        return self.aggregate(func, values)

    def aggregate(self, func, values):
        if func == "size":
            return lambda st: sum(1 for _ in values(st))
        if func == "sum":
            return lambda st: sum(values(st))
        if func == "count":
            return lambda st: sum(1 for v in values(st) if v)
        if func == "any":
            return lambda st: any(values(st))
        if func == "all":
            return lambda st: all(values(st))
        if func == "min":
            return lambda st: min(values(st))
        if func == "max":
            return lambda st: max(values(st))
        if func == "intersection":
            def inter(st):
                acc = -1
                for v in values(st):
                    acc &= v
                return acc if acc != -1 else 0
            return inter
        if func == "union":
            def union(st):
                acc = 0
                for v in values(st):
                    acc |= v
                return acc
            return union
        raise AssertionError(func)  # pragma: no cover

    def call(self, e):
        r = self.g.res[id(e)]
        kind = r[0]
        if kind == "zone":
            z = self.g.zones[r[1]]
            base = z.index * self.m.stride
            a = self.expr(e.args[0])
            if base == 0:
                return a
            return lambda st: base + a(st)
        if kind == "pvar":
            base = self.pvar_base[r[1]]
            a = self.expr(e.args[0])
            return lambda st: st.V[base + a(st)]
        if kind == "func":
            return self.call_function(r[1], e.args)
        return self.builtin(e)

    def call_function(self, name, args):
        f = self.g.functions[name]
        body = self.function_body(name)
        pslots = [s for s, _ in self.g.func_slots[name][0]]
        argf = [self.expr(a) for a in args]
        lets = [(self.g.res[id(let)], self.expr(let.expr)) for let in f.lets]
        if len(argf) == 1 and not lets:
            (s0,), (a0,) = pslots, argf

            def call1(st):
                st.L[s0] = a0(st)
                return body(st)
            return call1
        if len(argf) == 2 and not lets:
            (s0, s1), (a0, a1) = pslots, argf

            def call2(st):
                v0 = a0(st)
                v1 = a1(st)
                L = st.L
                L[s0] = v0
                L[s1] = v1
                return body(st)
            return call2

        def calln(st):
            vals = [a(st) for a in argf]
            L = st.L
            for s, v in zip(pslots, vals):
                L[s] = v
            for s, lf in lets:
                L[s] = lf(st)
            return body(st)
        return calln

    def function_body(self, name):
        if name not in self.fn_cache:
            self.fn_cache[name] = self.expr(self.g.functions[name].body)
        return self.fn_cache[name]

    def builtin(self, e):
        f = e.func
        if f == "can":
            names = [a.id for a in e.args]
            defs = self.action_defs

            def can(st):
                out = []
                for n in names:
                    defs[n].enumerate(st, out, (0,))
                    if out:
                        return True
                return False
            return can
        if f == "all_cards":
            return lambda st: list(st.inplay)
        if f in ("size", "empty"):
            s = self.seq(e.args[0])
            if f == "size":
                return lambda st: len(s(st))
            return lambda st: not s(st)
        if f == "top":
            s = self.seq(e.args[0])
            return lambda st: s(st)[-1]
        if f == "bottom":
            s = self.seq(e.args[0])
            return lambda st: s(st)[0]
        if f == "sign":
            a = self.expr(e.args[0])
            return lambda st: (lambda v: (v > 0) - (v < 0))(a(st))
        if f == "abs":
            a = self.expr(e.args[0])
            return lambda st: abs(a(st))
        if f in ("min", "max") and len(e.args) == 2:
            a, b = self.expr(e.args[0]), self.expr(e.args[1])
            fn = min if f == "min" else max
            return lambda st: fn(a(st), b(st))
        if f in ("next", "previous"):
            a = self.expr(e.args[0])
            k = self.expr(e.args[1]) if len(e.args) == 2 else _const(1)
            sign = 1 if f == "next" else -1
            return lambda st: (a(st) + sign * k(st)) % st.n
        if f == "least_sum_at_least":
            a, b = self.expr(e.args[0]), self.expr(e.args[1])
            return lambda st: least_sum_at_least(a(st), b(st))
        if f in ("increasing", "decreasing"):
            a = self.expr(e.args[0])
            test = strictly_increasing if f == "increasing" else strictly_decreasing
            return lambda st: test(a(st))
        if f == "stack_of":
            a = self.expr(e.args[0])

            def stack_of(st):
                c = a(st)
                inst = st.loc[c]
                for i, s in enumerate(st.Z[inst]):
                    if c in s:
                        return inst << STACK_SHIFT | i
                raise RuleError("that card is not in a stack")
            return stack_of
        # aggregates over a list or a collection
        s = self.seq(e.args[0])
        return self.aggregate(f, lambda st: s(st))

    # ------------------------------------------------------------ places
    def setter(self, target):
        """A closure (state, value) -> None for an assignable expression."""
        g = self.g
        if isinstance(target, A.Name):
            r = g.res[id(target)]
            if r[0] == "slot":
                k = r[1]

                def set_slot(st, v):
                    st.L[k] = v
                return set_slot
            i = self.var_index[r[1]]

            def set_var(st, v):
                st.V[i] = v
            return set_var
        if isinstance(target, A.Call):
            base = self.pvar_base[target.func]
            a = self.expr(target.args[0])

            def set_pvar(st, v):
                st.V[base + a(st)] = v
            return set_pvar
        if isinstance(target, A.Attr):
            base = self.cvar_base[target.name]
            o = self.expr(target.obj)

            def set_cvar(st, v):
                st.C[base + o(st)] = v
            return set_cvar
        raise AssertionError(target)  # pragma: no cover

    # ------------------------------------------------------------ statements
    def block(self, body):
        for st in body:
            self.stmt(st)
            if self.check_invariants and isinstance(st, (A.Move, A.Deal, A.Set, A.AugSet, A.Swap)):
                m = self.m
                self.emit(EXEC, m.assert_invariants, None, st.span)

    def stmt(self, s):
        g = self.g
        span = s.span
        if isinstance(s, A.Let):
            k = g.res[id(s)]
            self.flow_slots.add(k)
            f = self.expr(s.expr)

            def let(st):
                st.L[k] = f(st)
            self.simple[self.emit(EXEC, let, None, span)] = s
        elif isinstance(s, A.Set):
            setter = self.setter(s.target)
            f = self.expr(s.expr)
            self.simple[self.emit(EXEC, lambda st: setter(st, f(st)), None, span)] = s
        elif isinstance(s, A.AugSet):
            setter = self.setter(s.target)
            get = self.expr(s.target)
            f = self.expr(s.expr)
            sign = 1 if s.op == "+=" else -1
            self.simple[self.emit(EXEC, lambda st: setter(st, get(st) + sign * f(st)), None, span)] = s
        elif isinstance(s, A.SetRandom):
            self.emit(RANDOM, _Random(self.seq(s.choices), self.setter(s.target)), None, span)
        elif isinstance(s, A.Require):
            raise AssertionError("require outside an action preamble")  # checker forbids
        elif isinstance(s, A.Move):
            self.emit(EXEC, self.move(s), None, span)
        elif isinstance(s, A.Shuffle):
            zone = self.expr(s.zone)
            slot = self.g.nslots  # scratch slot beyond the checker's
            self.flow_slots.add(slot)
            def start_shuffle(st):
                inst = zone(st)
                pile = st.Z[inst]
                seen = st.vis[inst]
                K = st.K
                for c in pile:  # a shuffled card is known only to who sees the pile
                    K[c] = seen
                st.L[slot] = len(pile)
            self.emit(EXEC, start_shuffle, None, span)
            self.emit(RANDOM, _Shuffle(zone, slot), None, span)
        elif isinstance(s, A.Swap):
            self.emit(EXEC, self.swap(s), None, span)
        elif isinstance(s, A.Reveal):
            self.emit(EXEC, self.reveal(s), None, span)
        elif isinstance(s, A.Deal):
            self.emit(EXEC, self.deal(s), None, span)
        elif isinstance(s, A.Choose):
            self.choose(s)
        elif isinstance(s, A.EndGame):
            self.emit(END, None, None, span)
        elif isinstance(s, A.Pass):
            pass
        elif isinstance(s, A.If):
            ends = []
            for k, (cond, body) in enumerate(s.branches):
                jf = self.emit(JF, self.expr(cond), None, cond.span)
                self.probe("branch", f"{'if' if k == 0 else 'elif'} branch taken", cond.span)
                self.block(body)
                ends.append(self.emit(JMP, None, None, span))
                self.patch(jf, len(self.code))
            if s.else_body is not None:
                self.probe("branch", "else branch taken", s.else_body[0].span)
                self.block(s.else_body)
            else:
                self.probe("branch", "if condition false (no branch taken)", s.branches[0][0].span)
            for j in ends:
                self.code[j] = (JMP, len(self.code), None, span)
        elif isinstance(s, A.While):
            top = len(self.code)
            jf = self.emit(JF, self.expr(s.cond), None, s.cond.span)
            self.probe("loop", "while loop body entered", s.cond.span)
            self.block(s.body)
            self.emit(JMP, top, None, span)
            self.patch(jf, len(self.code))
        elif isinstance(s, A.Repeat):
            var = g.res[id(s)]
            cnt = g.res[(id(s), "counter")]
            self.flow_slots.update((var, cnt))
            count = self.expr(s.count)

            def init(st):
                st.L[cnt] = count(st)
                st.L[var] = 0
            self.emit(EXEC, init, None, span)
            top = len(self.code)
            jf = self.emit(JF, lambda st: st.L[var] < st.L[cnt], None, span)
            self.block(s.body)

            def inc(st):
                st.L[var] += 1
            self.emit(EXEC, inc, None, span)
            self.emit(JMP, top, None, span)
            self.patch(jf, len(self.code))
        elif isinstance(s, A.For):
            var = g.res[id(s)]
            items = g.res[(id(s), "items")]
            cnt = g.res[(id(s), "counter")]
            self.flow_slots.update((var, items, cnt))
            seq = self.seq(s.iter)
            start = self.expr(s.start) if s.start is not None else None

            def init(st):
                xs = tuple(seq(st))
                if start is not None:
                    k = start(st) % len(xs) if xs else 0
                    xs = xs[k:] + xs[:k]
                st.L[items] = xs
                st.L[cnt] = 0
            self.emit(EXEC, init, None, span)
            top = len(self.code)

            def more(st):
                i = st.L[cnt]
                xs = st.L[items]
                if i < len(xs):
                    st.L[var] = xs[i]
                    return True
                return False
            jf = self.emit(JF, more, None, span)
            self.block(s.body)

            def inc(st):
                st.L[cnt] += 1
            self.emit(EXEC, inc, None, span)
            self.emit(JMP, top, None, span)
            self.patch(jf, len(self.code))
        elif isinstance(s, A.Turn):
            saved = g.res[(id(s), "saved")]
            self.flow_slots.add(saved)
            who = self.expr(s.player)

            def enter(st):
                st.L[saved] = st.me
                st.me = who(st)
            self.emit(EXEC, enter, None, span)
            self.block(s.body)

            def leave(st):
                st.me = st.L[saved]
            self.emit(EXEC, leave, None, span)
        else:  # pragma: no cover
            raise AssertionError(s)

    def fuse_blocks(self):
        """Merge each run of straight-line EXEC steps (no jump lands inside
        it) into one generated function: fewer trips round the VM loop, and
        simple assignments written inline."""
        code = self.code
        targets = {0}
        for op, a, b, _ in code:
            if op == JMP:
                targets.add(a)
            elif op == JF:
                targets.add(b)
        for sa in self.m.site_actions:
            targets.add(sa.body_pc)
        new, where = [], {}
        pc = 0
        while pc < len(code):
            op = code[pc][0]
            if op != EXEC:
                where[pc] = len(new)
                new.append(code[pc])
                pc += 1
                continue
            end = pc + 1
            while end < len(code) and code[end][0] == EXEC and end not in targets:
                end += 1
            where[pc] = len(new)
            if end - pc == 1:
                new.append(code[pc])
            else:
                f = self.cg.block_fn([(code[i][1], code[i][3], self.simple.get(i)) for i in range(pc, end)])
                new.append((EXEC, f, None, code[pc][3]))
            pc = end
        where[len(code)] = len(new)
        for i, (op, a, b, span) in enumerate(new):
            if op == JMP:
                new[i] = (op, where[a], b, span)
            elif op == JF:
                new[i] = (op, a, where[b], span)
        for sa in self.m.site_actions:
            sa.body_pc = where[sa.body_pc]
        code[:] = new

    def probe(self, kind, what, span):
        """With coverage on, count each time the flow passes here."""
        if not self.coverage:
            return
        counts = self.m.coverage_counts
        i = len(counts)
        counts.append(0)
        self.m.coverage_points.append((kind, what, span))

        def hit(st):
            counts[i] += 1
        self.emit(EXEC, hit, None, span)

    def choose(self, s):
        site = len(self.m.sites)
        self.m.sites.append([])
        self.probe("choose", "choice reached: " + ", ".join(n.id for n in s.actions), s.span)
        self.emit(DECIDE, site, None, s.span)
        jumps = []
        for n in s.actions:
            ad = self.action_defs[n.id]
            uid = len(self.m.site_actions)
            sa = SiteAction(uid, ad, len(self.code), s.span)
            self.m.site_actions.append(sa)
            self.m.sites[site].append(sa)
            a = self.g.actions[n.id]
            body = a.body[len(self._preamble(a)):]
            if any(isinstance(x, A.Choose) for b in _all_blocks(body) for x in b):
                # a choice inside the action: its parameters live across it
                self.flow_slots.update(slot for slot, _, _ in ad.params)
            self.block(body)
            jumps.append(self.emit(JMP, None, None, s.span))
        for j in jumps:
            self.code[j] = (JMP, len(self.code), None, s.span)

    @staticmethod
    def _preamble(a):
        pre = []
        for x in a.body:
            if isinstance(x, (A.Let, A.Require)):
                pre.append(x)
            else:
                break
        return pre

    # ------------------------------------------------------------ moves
    def move(self, s):
        wt = self.t(s.what)
        what = self.expr(s.what)
        dt = self.t(s.dest)
        dest = self.expr(s.dest)
        where = s.where
        stride = self.m.stride
        stack_zone = {z.index * stride + p for z in self.m.zones if z.kind == "stacks" for p in range(stride)}

        def take(st, c):
            take_card(st, c, stack_zone)

        def put_all(st, cards):
            d = dest(st)
            if where == "new_stack":
                st.Z[d].append(list(cards))
                K, seen = st.K, st.vis[d]
                for c in cards:
                    st.loc[c] = d
                    K[c] |= seen
                return
            if dt == "stack":
                inst = d >> STACK_SHIFT
                pile = st.Z[inst][d & STACK_MASK]
            else:
                inst = d
                pile = st.Z[d]
            if where == "top":
                pile.extend(cards)
            else:
                pile[0:0] = cards
            K, seen = st.K, st.vis[inst]
            for c in cards:
                st.loc[c] = inst
                K[c] |= seen

        if wt == "card":
            def move_card(st):
                c = what(st)
                take(st, c)
                put_all(st, (c,))
            # fast path: one card to the top of a pile
            if where == "top" and dt == "pile":
                def move_card_fast(st):
                    c = what(st)
                    take(st, c)
                    d = dest(st)
                    st.Z[d].append(c)
                    st.loc[c] = d
                    st.K[c] |= st.vis[d]
                return move_card_fast
            return move_card

        if wt == "stack":
            def move_stack(st):
                v = what(st)
                inst = v >> STACK_SHIFT
                cards = st.Z[inst].pop(v & STACK_MASK)
                put_all(st, cards)
            return move_stack
        if wt == "stacks":
            def move_stacks(st):
                inst = what(st)
                cards = [c for stck in st.Z[inst] for c in stck]
                st.Z[inst] = []
                put_all(st, cards)
            return move_stacks
        if wt == "pile":
            def move_pile(st):
                inst = what(st)
                cards = st.Z[inst]
                st.Z[inst] = []
                put_all(st, cards)
            return move_pile

        def move_list(st):  # list of cards, wherever each one lies
            cards = list(what(st))
            for c in cards:
                take(st, c)
            put_all(st, cards)
        return move_list

    def swap(self, s):
        a, b = self.expr(s.a), self.expr(s.b)
        stacks = set(self.m.stack_instances)

        def where(st, c):
            inst = st.loc[c]
            if inst in stacks:
                for stck in st.Z[inst]:
                    if c in stck:
                        return inst, stck, stck.index(c)
            pile = st.Z[inst]
            return inst, pile, pile.index(c)

        def swap(st):
            x, y = a(st), b(st)
            if x == y:
                return
            ix, px, kx = where(st, x)
            iy, py, ky = where(st, y)
            px[kx], py[ky] = y, x
            st.loc[x], st.loc[y] = iy, ix
            st.K[x] |= st.vis[iy]
            st.K[y] |= st.vis[ix]
        return swap

    def reveal(self, s):
        what, to = self.expr(s.what), self.expr(s.to)
        wt, tt = self.t(s.what), self.t(s.to)
        cards = {"card": lambda st: (what(st),), "pile": lambda st: st.Z[what(st)],
                 "stack": lambda st: st.Z[what(st) >> STACK_SHIFT][what(st) & STACK_MASK],
                 "list:card": what}[wt]

        def reveal(st):
            mask = (1 << to(st)) if tt == "player" else sum(1 << p for p in to(st))
            K = st.K
            for c in cards(st):
                K[c] |= mask
        return reveal

    def deal(self, s):
        count, src, dst = self.expr(s.count), self.expr(s.source), self.expr(s.dest)
        dt = self.t(s.dest)

        def deal(st):
            k = count(st)
            pile = st.Z[src(st)]
            if k > len(pile):
                raise RuleError(f"cannot deal {k} cards from a pile of {len(pile)}")
            d = dst(st)
            if dt == "stack":
                inst = d >> STACK_SHIFT
                target = st.Z[inst][d & STACK_MASK]
            else:
                inst = d
                target = st.Z[d]
            K, seen = st.K, st.vis[inst]
            for _ in range(k):
                c = pile.pop()
                target.append(c)
                st.loc[c] = inst
                K[c] |= seen
        return deal

    # ------------------------------------------------------------ actions
    def compile_action(self, a: A.Action) -> ActionDef:
        """Plan the search for an action's legal parameter values: each
        require and let goes to the first loop level where all it reads is
        bound; a require on one parameter alone filters that parameter's
        domain once; calls that depend only on outer parameters are
        computed once per outer value.  Then generate the loops."""
        g = self.g
        params = list(g.action_slots[a.name])
        level_of_slot = {slot: i + 1 for i, (slot, _, _) in enumerate(params)}
        pre = self._preamble(a)
        k = len(params)
        levels = [[] for _ in range(k + 1)]
        prefilters = [[] for _ in range(k)]
        lets = []
        inlines = {}  # id(call) -> [(function parameter slot, argument)]
        self._called = {}
        for item in pre:
            for x in _walk(item.cond if isinstance(item, A.Require) else item.expr):
                if isinstance(x, A.Call) and self.g.res.get(id(x), ("",))[0] == "func":
                    self._called[x.func] = self._called.get(x.func, 0) + 1
        for item in pre:
            if isinstance(item, A.Let):
                level = self.level(item.expr, level_of_slot)
                slot = g.res[id(item)]
                level_of_slot[slot] = level
                levels[level].append(("let", slot, item.expr))
                lets.append((slot, self.expr(item.expr)))
                continue
            level = self.level(item.cond, level_of_slot)
            if level > 0 and self.only_slot(item.cond, params[level - 1][0]) \
                    and self.free_level(a.params[level - 1].domain, level_of_slot) == 0 \
                    and a.params[level - 1].high is None:
                prefilters[level - 1].append(item.cond)
                continue
            if self.is_static(item.cond):
                f = self.expr(item.cond)
                if _is_const(f) and not f.const:
                    self.m.never_actions.append((a.name, item.span))
            self.hoist_nodes(item.cond, level, level_of_slot, levels, inlines)
            levels[level].append(("req", None, item.cond))
        plan = ([(slot, p.domain, p.high) for (slot, _, _), p in zip(params, a.params)], levels, prefilters,
                inlines)
        enum = self.cg.enumerator(plan)
        return ActionDef(a.name, [(s, t, n) for s, t, n in params], enum, lets, a.template, a.span)

    def hoist_nodes(self, e, level, level_of_slot, levels, inlines):
        """Mark calls inside a require that depend only on outer parameters;
        inline a user function called once in the action, so that the parts
        of its body that depend only on outer parameters are marked too."""
        if level == 0:
            return
        if isinstance(e, (A.CallGen, A.ListComp)) or (
                isinstance(e, A.Call) and self.g.res.get(id(e), ("",))[0] in ("func", "builtin")
                and e.func not in ("can", "all_cards")):
            lv = self.free_level(e, level_of_slot)
            cheap = isinstance(e, A.Call) and e.func in CHEAP_BUILTINS \
                and self.g.res.get(id(e), ("",))[0] == "builtin"
            if lv is not None and lv < level and not cheap:
                levels[lv].append(("hoist", None, e))
                return
            if self.inlinable(e):
                pairs = list(zip([s for s, _ in self.g.func_slots[e.func][0]], e.args))
                for s, arg in pairs:  # the function's parameters stand where their arguments are bound
                    level_of_slot[s] = self.level(arg, level_of_slot)
                inlines[id(e)] = pairs
                self._called[e.func] = -1  # once only
                self.hoist_nodes(self.g.functions[e.func].body, level, level_of_slot, levels, inlines)
                return
        for child in _children(e):
            self.hoist_nodes(child, level, level_of_slot, levels, inlines)

    def inlinable(self, e) -> bool:
        """A call to a user function that the action calls once, with no
        lets, whose arguments are cheap to repeat (names, literals, x.attr)."""
        if self.g.res.get(id(e), ("",))[0] != "func" or self._called.get(e.func, 0) != 1:
            return False
        if self.g.functions[e.func].lets:
            return False
        return all(isinstance(x, (A.Name, A.IntLit, A.BoolLit, A.StrLit))
                   or (isinstance(x, A.Attr) and isinstance(x.obj, A.Name)) for x in e.args)

    def slots_read(self, e) -> set:
        """The local slots ``e`` reads, less the loop variables it binds itself."""
        bound = set()
        read = set()
        for x in _walk(e):
            if isinstance(x, (A.CallGen, A.ListComp)):
                bound.add(self.g.res[id(x)])
            elif isinstance(x, A.Name):
                r = self.g.res.get(id(x))
                if r and r[0] == "slot":
                    read.add(r[1])
        return read - bound

    def free_level(self, e, level_of_slot):
        """The loop level at which everything ``e`` reads is bound, or None
        if it reads a slot that is not a parameter or let of the action."""
        lv = 0
        for s in self.slots_read(e):
            if s not in level_of_slot:
                return None
            lv = max(lv, level_of_slot[s])
        return lv

    def only_slot(self, e, slot) -> bool:
        """Does ``e`` read no local slot but ``slot``?"""
        return self.slots_read(e) == {slot}

    def new_slot(self):
        self.m.nslots += 1
        return self.m.nslots - 1

    def level(self, e, level_of_slot) -> int:
        """The loop level at which everything ``e`` reads is bound (slots that
        are not parameters or lets of the action count as level 0)."""
        return max([level_of_slot.get(s, 0) for s in self.slots_read(e)], default=0)


def _all_blocks(body):
    """A block and every block nested in it."""
    yield body
    for st in body:
        if isinstance(st, A.If):
            for _, b in st.branches:
                yield from _all_blocks(b)
            if st.else_body is not None:
                yield from _all_blocks(st.else_body)
        elif isinstance(st, (A.While, A.Repeat, A.For, A.Turn)):
            yield from _all_blocks(st.body)


def _children(e):
    if isinstance(e, (tuple, list)):
        for x in e:
            yield from _children(x) if isinstance(x, (tuple, list)) else (x,)
        return
    for f in getattr(e, "__attrs_attrs__", ()):
        if f.name == "span":
            continue
        v = getattr(e, f.name)
        if isinstance(v, (tuple, list)):
            yield from _children(v)
        elif hasattr(v, "__attrs_attrs__"):
            yield v


def _walk(e):
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(_children(x))


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


_PYOPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a // b, "%": lambda a, b: a % b, "&": lambda a, b: a & b, "|": lambda a, b: a | b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def resolve_params(g: CheckedGame, overrides: dict, num_players: int | None = None) -> dict:
    """Parameter values, in declaration order: an override (checked against
    type and range) or else the default, which may read earlier parameters
    and ``player_count`` (the smallest allowed count when none is given)."""
    import types

    for name in overrides:
        if name not in g.params:
            from rulelang.diagnostics import did_you_mean
            known = ", ".join(sorted(g.params)) or "none"
            raise ParamError(f'unknown parameter "{name}"{did_you_mean(name, g.params)} (parameters: {known})')
    n = g.players[0] if num_players is None else num_players
    fake = types.SimpleNamespace(n=n)  # parameters may read the player count, nothing else
    values = {}
    comp = Compiler(g, values)

    def value(e, what):  # a failed computation (1 / 0) is a RuleError at the expression
        f = comp._expr(e)
        return f.const if _is_const(f) else _guarded(f, what, e.span)(fake)

    for name, p in g.params.items():
        t = g.types[id(p)]
        if name in overrides:
            v = _coerce(name, t, overrides[name])
        else:
            v = value(p.default, f'the default of parameter "{name}"')
        if t == "int" and p.low is not None:
            lo = value(p.low, f'the range of parameter "{name}"')
            hi = value(p.high, f'the range of parameter "{name}"')
            if not lo <= v <= hi:
                raise ParamError(f'parameter "{name}" must be in {lo}..{hi}, not {v}')
        values[name] = v
    return values


def params_depend_on_players(g: CheckedGame) -> bool:
    """Does any parameter default read ``player_count``?"""
    for p in g.params.values():
        for x in _walk(p.default):
            if isinstance(x, A.Name) and g.res.get(id(x)) == ("player_count",):
                return True
    return False


def _coerce(name, t, raw):
    if t == "bool":
        if isinstance(raw, bool):
            return raw
        s = str(raw).strip().lower()
        if s in ("true", "yes", "on", "1"):
            return True
        if s in ("false", "no", "off", "0"):
            return False
        raise ParamError(f'parameter "{name}" is true or false, not {raw!r}')
    if isinstance(raw, bool):
        raise ParamError(f'parameter "{name}" is a number, not {raw!r}')
    if isinstance(raw, int):
        return raw
    try:
        return int(str(raw).strip())
    except ValueError:
        raise ParamError(f'parameter "{name}" is a number, not {raw!r}') from None


def compile_game(g: CheckedGame, overrides=None, explicit_chance=False, num_players=None,
                 coverage=False, check_invariants=False) -> Machine:
    params = resolve_params(g, overrides or {}, num_players)
    return Compiler(g, params, explicit_chance, coverage, check_invariants).compile()


__all__ = ["compile_game", "resolve_params", "ParamError", "least_sum_at_least", "Diagnostic"]
