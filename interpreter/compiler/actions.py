"""Actions: planning the search for legal parameter values.

Action enumeration pushes each ``require`` (and ``let``) down to the first
parameter level at which everything it reads is bound, so a condition on
the card alone is tested once per card, not once per (stack, card) pair; a
require on one parameter alone filters that parameter's domain once; calls
that depend only on outer parameters are computed once per outer value
(hoisted), and a user function called once is inlined so that the parts of
its body that depend only on outer parameters can be hoisted too.  The plan
is then written as nested loops by :mod:`.searches`.
"""

from __future__ import annotations

from rulelang import ast as A

from ..machine import ActionDef, Machine
from .expressions import Expressions, is_const
from .masks import mask_plan
from .search_reads import search_reads
from .searches import enumerator
from .tree import children, preamble, slots_read, walk

# Builtins cheaper to compute again than to keep: never hoisted.
CHEAP_BUILTINS = frozenset({"size", "empty", "top", "bottom", "sign", "abs", "next", "previous"})


class ActionCompiler:
    def __init__(self, exprs: Expressions, m: Machine, has_copies: bool):
        self.exprs = exprs
        self.g = exprs.g
        self.m = m
        self.has_copies = has_copies
        self.called = {}  # user function name -> calls in the preamble being planned (-1: inlined)

    def compile_action(self, a: A.Action) -> ActionDef:
        """Plan the search for an action's legal parameter values, then generate the loops."""
        g = self.g
        params = self.params = list(g.action_slots[a.name])
        level_of_slot = {slot: i + 1 for i, (slot, _, _) in enumerate(params)}
        pre = conjuncts(preamble(a))
        k = len(params)
        levels = [[] for _ in range(k + 1)]
        prefilters = [[] for _ in range(k)]
        lets = []
        inlines = {}  # id(call) -> [(function parameter slot, argument)]
        self.called = {}
        self.bound = {}  # an inlined function's parameter -> the action's parameter passed to it
        # inner parameters whose values do not depend on the outer ones: a value computed from one of
        # them alone is kept per value, for the whole search (neighbours of a cell, tried with each card)
        self.memo_slots = {slot: i for i, ((slot, _, _), p) in enumerate(zip(params, a.params))
                           if i > 0 and p.high is None and not p.subsets
                           and self.free_level(p.domain, level_of_slot) == 0}
        for item in pre:
            for x in walk(item.cond if isinstance(item, A.Require) else item.expr):
                if isinstance(x, A.Call) and g.res.get(id(x), ("",))[0] == "func":
                    self.called[x.func] = self.called.get(x.func, 0) + 1
        for item in pre:
            if isinstance(item, A.Let):
                level = self.level(item.expr, level_of_slot)
                slot = g.res[id(item)]
                level_of_slot[slot] = level
                levels[level].append(("let", slot, item.expr))
                lets.append((slot, self.exprs.fn(item.expr)))
                continue
            level = self.level(item.cond, level_of_slot)
            if level > 0 and self.only_slot(item.cond, params[level - 1][0]) \
                    and self.free_level(a.params[level - 1].domain, level_of_slot) == 0 \
                    and a.params[level - 1].high is None:
                prefilters[level - 1].append(item.cond)
                # its parts that read no parameter are computed once, not once per value
                self.hoist_nodes(item.cond, level, level_of_slot, levels, inlines, rows=False)
                continue
            if self.exprs.is_static(item.cond):
                f = self.exprs.fn(item.cond)
                if is_const(f) and not f.const:
                    self.m.never_actions.append((a.name, item.span))
            self.hoist_nodes(item.cond, level, level_of_slot, levels, inlines)
            levels[level].append(("req", None, item.cond))
        # an inner parameter's domain that reads no other parameter is computed once, before the loops
        fixed = {i for i, p in enumerate(a.params) if i > 0 and p.high is None and not prefilters[i]
                 and self.free_level(p.domain, level_of_slot) == 0}
        plan = ([(slot, p.domain, p.high, (p.min_size, p.max_size) if p.subsets else None)
                 for (slot, _, _), p in zip(params, a.params)], levels, prefilters, inlines, fixed)
        enum = enumerator(self.exprs, self.has_copies, plan, a.name)
        return ActionDef(a.name, [(s, t, n) for s, t, n in params], enum, lets, a.template, a.span,
                         search_reads(g, a, preamble(a), self.has_copies))

    def hoist_nodes(self, e, level, level_of_slot, levels, inlines, rows=True):
        """Mark the values inside a require that depend only on outer
        parameters: calls and generators (worked out when first needed, or
        kept per value of one inner parameter), and what cannot fail
        (:meth:`safe`: worked out per outer value, "eager"); inline a user
        function called once in the action, so that the parts of its body
        that depend only on outer parameters are marked too.  What cannot fail
        and reads only the innermost parameter, over a domain fixed before
        the loops, is worked out once per value of it ("row"; not for a
        prefilter's test, ``rows`` False, which reads each value once anyway)."""
        if level == 0:
            return
        g = self.g
        if not isinstance(e, (A.Name, A.IntLit, A.BoolLit)) and self.safe(e):
            lv = self.free_level(e, level_of_slot)
            if lv is not None and lv < level:  # read as a local, worked out once per outer value
                levels[lv].append(("eager", None, e))
                return
            inner = self.params[-1][0]
            if rows and lv == level == len(self.params) and inner in self.memo_slots \
                    and not (isinstance(e, A.Attr) and isinstance(e.obj, A.Name)) \
                    and {self.bound.get(s, s) for s in slots_read(g, e)} == {inner}:
                # of the innermost parameter alone, over a domain fixed before the loops:
                # worked out once per value of it, beside it in the rows the loop goes
                # through (not an attribute of the parameter itself: one table read)
                levels[0].append(("row", inner, e))
                return
        if isinstance(e, A.CallGen) and self.mask(e, level, level_of_slot, levels):
            return
        if isinstance(e, (A.CallGen, A.ListComp)) or (
                isinstance(e, A.Call) and g.res.get(id(e), ("",))[0] in ("func", "builtin")
                and e.func not in ("can", "all_cards")):
            lv = self.free_level(e, level_of_slot)
            cheap = isinstance(e, A.Call) and e.func in CHEAP_BUILTINS \
                and g.res.get(id(e), ("",))[0] == "builtin"
            reads = {self.bound.get(s, s) for s in slots_read(g, e)} if lv is not None and not cheap else ()
            if len(reads) == 1 and next(iter(reads)) in self.memo_slots:
                levels[0].append(("memo", next(iter(reads)), e))
                return
            if lv is not None and lv < level and not cheap:
                levels[lv].append(("hoist", None, e))
                return
            if self.inlinable(e):
                pairs = list(zip([s for s, _ in g.func_slots[e.func][0]], e.args))
                for s, arg in pairs:  # the function's parameters stand where their arguments are bound
                    bound_at = self.free_level(arg, level_of_slot)
                    if bound_at is None:  # bound within the test (a generator's item): never hoisted
                        level_of_slot.pop(s, None)
                    else:
                        level_of_slot[s] = bound_at
                    r = g.res.get(id(arg)) if isinstance(arg, A.Name) else None
                    if r is not None and r[0] == "slot":  # an argument that is a parameter: the same value
                        self.bound[s] = self.bound.get(r[1], r[1])
                inlines[id(e)] = pairs
                self.called[e.func] = -1  # once only
                for _, arg in pairs:  # an argument read more than once in the body: its value worked out once
                    if not isinstance(arg, A.Name):
                        self.hoist_nodes(arg, level, level_of_slot, levels, inlines, rows)
                self.hoist_nodes(g.functions[e.func].body, level, level_of_slot, levels, inlines, rows)
                return
        for child in children(e):
            self.hoist_nodes(child, level, level_of_slot, levels, inlines, rows)

    def safe(self, e) -> bool:
        """Can ``e`` be worked out before it is needed, whether or not it
        is: it cannot fail and costs the budgets nothing?  A name, a
        number, the size of a place or stack named, the top or bottom card
        of a stack named (a stack is never empty: see effects.move), a
        card's attribute (read from a table or the card variables),
        comparisons of those for equality, and order, sums and products by
        a small number of sizes and numbers (a large product is checked
        against the bound).  Not the top of a pile, which can be empty."""
        t, res = self.exprs.t, self.g.res
        if isinstance(e, (A.Name, A.IntLit, A.BoolLit)):
            return True
        if isinstance(e, A.Call) and res.get(id(e), ("",))[0] == "builtin" and len(e.args) == 1 \
                and isinstance(e.args[0], A.Name):
            return e.func in ("size", "empty") and t(e.args[0]) in ("stack", "pile") or \
                e.func in ("top", "bottom") and t(e.args[0]) == "stack"
        if isinstance(e, A.Attr):
            return t(e.obj) == "card" and self.safe(e.obj)
        if isinstance(e, A.BinOp):
            if e.op in ("==", "!="):
                return self.safe(e.left) and self.safe(e.right)
            return e.op in ("<", "<=", ">", ">=", "+", "-") and self.counted(e.left) and self.counted(e.right)
        if isinstance(e, A.Not):
            return self.safe(e.operand)
        if isinstance(e, A.BoolOp):
            return all(self.safe(x) for x in e.items)
        return False

    def counted(self, e) -> bool:
        """Is ``e`` a whole number that :meth:`safe` can work out: a literal, a size, sums of them, products by a small one?"""
        if isinstance(e, A.IntLit):
            return True
        if isinstance(e, A.Call):
            return e.func == "size" and self.safe(e)
        if isinstance(e, A.BinOp):  # (a product of two large numbers is checked against the bound: it can fail)
            return (e.op in ("+", "-") or e.op == "*" and (self.exprs.small(e.left) or self.exprs.small(e.right))) \
                and self.counted(e.left) and self.counted(e.right)
        return False

    def mask(self, e, level, level_of_slot, levels) -> bool:
        """Plan ``all``/``any``/``count`` over cards that relates each to a card
        parameter through printed attributes alone as a mask computed
        apart from that parameter: at an outer level, or once per value of
        one inner parameter (see :mod:`.masks`); False if it is not of that form."""
        read = slots_read(self.g, e)
        for vslot, vtype, _ in reversed(self.params[:level]):
            # (in a helper written in place, the parameter is read as the helper's own)
            aliases = frozenset(s for s in read if s != vslot and self.bound.get(s) == vslot)
            if vtype != "card" or (vslot not in read and not aliases):
                continue
            plan = mask_plan(self.exprs, e, vslot, len(self.m.card_names), aliases)
            if plan is None:
                continue
            reads = plan.reads(self.g)
            if any(s not in level_of_slot for s in reads):
                continue  # a slot bound elsewhere (an inlined function's own let...)
            if len(reads) == 1 and next(iter(reads)) in self.memo_slots:
                levels[0].append(("memo", next(iter(reads)), plan))
                return True
            lv = max([level_of_slot[s] for s in reads], default=0)
            if lv < level:
                levels[lv].append(("hoist", None, plan))
                return True
        return False

    def inlinable(self, e) -> bool:
        """A call to a user function that the action calls once, with no
        lets, whose arguments are cheap to repeat (names, literals, x.attr)."""
        if not isinstance(e, A.Call) or self.g.res.get(id(e), ("",))[0] != "func" \
                or self.called.get(e.func, 0) != 1:
            return False
        if self.g.functions[e.func].lets:
            return False
        return all(isinstance(x, (A.Name, A.IntLit, A.BoolLit, A.StrLit))
                   or (isinstance(x, A.Attr) and isinstance(x.obj, A.Name)) for x in e.args)

    def free_level(self, e, level_of_slot):
        """The loop level at which everything ``e`` reads is bound, or None
        if it reads a slot that is not a parameter or let of the action."""
        lv = 0
        for s in slots_read(self.g, e):
            if s not in level_of_slot:
                return None
            lv = max(lv, level_of_slot[s])
        return lv

    def only_slot(self, e, slot) -> bool:
        """Does ``e`` read no local slot but ``slot``?"""
        return slots_read(self.g, e) == {slot}

    def level(self, e, level_of_slot) -> int:
        """The loop level at which everything ``e`` reads is bound (slots that
        are not parameters or lets of the action count as level 0)."""
        return max([level_of_slot.get(s, 0) for s in slots_read(self.g, e)], default=0)


def conjuncts(pre: list) -> list:
    """The preamble with each ``require A and B`` as ``require A`` then
    ``require B``: each part is then tested as soon as what it reads is known."""
    out = []
    for item in pre:
        if isinstance(item, A.Require) and isinstance(item.cond, A.BoolOp) and item.cond.op == "and":
            out += conjuncts([A.Require(cond=x, span=item.span) for x in item.cond.items])
        else:
            out.append(item)
    return out
