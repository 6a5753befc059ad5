"""A search's card-pair conditions, tabulated as bit masks.

A require such as

    require all(n.face_down or n.colour == c.colour or abs(n.rank - c.rank) == 1
                for n in neighbours(grid(me), x))

is tested for every (card c, cell x) pair of the search.  The part of the
condition that relates the two cards, ``n.colour == c.colour or
abs(n.rank - c.rank) == 1``, reads only their printed attributes: it is
computed once, when the game is compiled, for every pair of cards, and kept
as one bit mask per card n (bit c set when the pair passes).  The rest is
then done once per cell instead of once per pair: the masks of the
neighbours that are not face down are and-ed together, and each card is one
bit test.  ``any(A(n) and B(n, c) for n in S)`` is the same with "or".
``count(A(n) and B(n, c) for n in S)`` keeps the table the other way round
(per card c, the bits of the cards n the pair passes for): the cards n of S
that pass A are one mask, and each card c is the number of bits it shares
with its own (``count(d.colour == c.colour for d in row(q))``).

The plan is made by :func:`mask_plan` (from :mod:`.actions`), the source
written by :meth:`MaskPlan.source` (from :mod:`.searches`).  Depends on the
checked AST and the expression compiler only.
"""

from __future__ import annotations

import re

from rulelang import ast as A

from .tree import of_rules, slots_read, walk

MAX_CARDS = 160  # above this many cards, the table (cards x cards pairs) is not made
MAX_KEPT = 256  # tables kept per checked game, for its next compiles (see _table)
_REF = re.compile(r"(?<![A-Za-z0-9_])_[A-Za-z]+[0-9]+(?![A-Za-z0-9_])")  # a name made by Namespace.ref
_SAFE_OPS = frozenset({"==", "!=", "<", "<=", ">", ">=", "in", "not in", "+", "-", "*", "&", "|"})
_PURE_BUILTINS = frozenset({"abs", "sign", "min", "max"})


class MaskPlan:
    """``all``/``any``/``count`` over the cards n of ``iter`` of terms that do not
    read the card parameter (``outer``) and terms that relate n and it
    through printed attributes alone (kept in ``table``)."""

    def __init__(self, e, func, nslot, vslot, outer, table):
        self.e = e  # the generator in the require
        self.func = func  # "all", "any" or "count"
        self.nslot = nslot  # the generator's card
        self.vslot = vslot  # the action's card parameter
        self.outer = outer  # the terms that do not read the parameter
        self.table = table  # per card n, the bits of the cards v the pair passes for (count: per v, of n)

    def reads(self, g) -> set:
        """The slots the mask depends on (the parameter's not among them)."""
        out = slots_read(g, self.e.iter)
        for t in self.outer + ([self.e.cond] if self.e.cond is not None else []):
            out |= slots_read(g, t)
        return out - {self.nslot}

    def value(self, exprs, mask: str, v: str) -> str:
        """Source of what the generator gives for card ``v``, from the
        ``mask`` made by :meth:`source`."""
        if self.func == "count":
            return f"({mask} & {exprs.ns.ref(self.table, '_mt')}[{v}]).bit_count()"
        return f"(({mask} >> {v}) & 1 == 1)"

    def source(self, exprs, ctx) -> str:
        """Source of the mask: an int whose bit v says whether card v passes
        (count: whose bit n says that card n of ``iter`` passes the outer terms)."""
        table = exprs.ns.ref(self.table, "_mt")
        var = exprs.ns.fresh("n")
        inner = dict(ctx)
        inner[self.nslot] = var
        it = f"_tick(st, {exprs.seq(self.e.iter, ctx)})"
        terms = [exprs.expr(t, inner) for t in self.outer]
        # the generator's own filter (... for n in S if F(n)): only the n it keeps count
        kept = [f"({exprs.expr(self.e.cond, inner)})"] if self.e.cond is not None else []
        if self.func == "count":
            if not kept + terms and exprs.t(self.e.iter) != "list:card":
                # every card of a place, each there once: the sum of their bits is their or
                bits = exprs.ns.ref(_bits(len(self.table)), "_bit")
                return f"sum(map({bits}.__getitem__, {it}))"
            cond = f" if {' and '.join(kept + terms)}" if kept + terms else ""
            return f"_mask_or([1 << {var} for {var} in {it}{cond}])"
        if self.func == "all":  # the cards every n that none of its outer terms lets pass allows
            cond = " if " + " and ".join(kept + ([f"not ({' or '.join(terms)})"] if terms else [])) \
                if kept or terms else ""
            full = (1 << len(self.table)) - 1
            return f"_mask_and({full}, [{table}[{var}] for {var} in {it}{cond}])"
        cond = f" if {' and '.join(kept + terms)}" if kept + terms else ""
        return f"_mask_or([{table}[{var}] for {var} in {it}{cond}])"


_BITS = {}  # a number of cards -> the bit of each card (1 << card), shared


def _bits(ncards: int) -> list:
    """``[1 << c for c in range(ncards)]``, made once per number of cards."""
    bits = _BITS.get(ncards)
    if bits is None:
        bits = _BITS[ncards] = [1 << c for c in range(ncards)]
    return bits


def mask_plan(exprs, e, vslot, card_count: int, aliases=frozenset()):
    """A :class:`MaskPlan` for generator ``e`` against card parameter
    ``vslot`` (read as itself or as one of the slots ``aliases``: the
    parameter of a helper written in place, passed it), or None when ``e``
    is not of that form (or the table cannot be made)."""
    g = exprs.g
    if not (isinstance(e, A.CallGen) and e.func in ("all", "any", "count")) \
            or card_count > MAX_CARDS or exprs.t(e.iter) not in ("pile", "grid", "stack", "list:card"):
        return None
    nslot = g.res[id(e)]
    joiner = "or" if e.func == "all" else "and"
    terms = list(e.expr.items) if isinstance(e.expr, A.BoolOp) and e.expr.op == joiner else [e.expr]
    vslots = aliases | {vslot}
    outer, pair = [], []
    for t in terms:
        (pair if vslots & slots_read(g, t) else outer).append(t)
    if not pair or vslots & slots_read(g, e.iter) \
            or any(isinstance(x, A.Call) and x.func == "can" for x in walk(e.iter)):
        return None
    if e.cond is not None and (vslots & slots_read(g, e.cond) or not _safe(g, e.cond, nslot)):
        return None  # (a filter that reads the parameter, or might fail for some n: as written)
    if not all(_safe(g, t, nslot) for t in outer) or not all(_static(g, t, vslots | {nslot}) for t in pair):
        return None
    table = _table(exprs, pair, joiner, nslot, vslots, card_count, e.func == "count")
    return None if table is None else MaskPlan(e, e.func, nslot, vslot, outer, table)


def _table(exprs, pair, joiner, nslot, vslots, count, by_v=False):
    """Per card n, the bits of the cards v (any of the slots ``vslots``)
    for which the pair terms (joined by ``joiner``) hold (``by_v``: per
    card v, the bits of the cards n); None if one cannot be computed (a
    division by zero...).  A table is kept with the checked rules under
    its source and the contents of the tables that source reads: the same
    rules compiled again (for other parameters: the fuzzer draws them) find
    it made, where making it tries every pair of cards."""
    ctx = {nslot: "n", **{s: "v" for s in vslots}}
    src = f" {joiner} ".join(f"({exprs.expr(t, ctx)})" for t in pair)
    key = _key(exprs, src, count, by_v)
    kept = of_rules(exprs.g, "pair_tables", dict)
    if key is not None and key in kept:
        return kept[key]
    name = exprs.ns.fresh("_pair")
    f = exprs.ns.define(f"def {name}(n, v):\n    return {src}\n", name)
    try:
        if by_v:
            table = [sum(1 << n for n in range(count) if f(n, v)) for v in range(count)]
        else:
            table = [sum(1 << v for v in range(count) if f(n, v)) for n in range(count)]
    except Exception:  # noqa: BLE001 - left to the search as written, which reports it with its span
        return None
    if key is not None and len(kept) < MAX_KEPT:
        kept[key] = table
    return table


def _key(exprs, src: str, count: int, by_v: bool):
    """What decides a pair table: its source, and the contents of the
    tables it reads there (a card attribute's values, by card); None if
    the source reads anything else by a generated name."""
    reads = []
    for name in sorted(set(_REF.findall(src))):
        obj = exprs.ns.ns.get(name)
        if not isinstance(obj, (list, tuple)) or not all(x is None or type(x) in (int, bool) for x in obj):
            return None
        reads.append((name, tuple(obj)))
    return src, count, by_v, tuple(reads)


def _static(g, e, slots) -> bool:
    """Does ``e`` read nothing but the printed attributes of the cards in
    ``slots``, literals and parameters?"""
    for x in walk(e):
        if isinstance(x, A.Name):
            r = g.res.get(id(x))
            if r is None or not (r[0] in ("param", "member") or (r[0] == "slot" and r[1] in slots)):
                return False
        elif isinstance(x, A.Attr):
            if x.name not in g.card_attrs or x.name in g.card_vars or not isinstance(x.obj, A.Name):
                return False
        elif isinstance(x, A.Call):
            if x.func not in _PURE_BUILTINS or g.res.get(id(x), ("",))[0] != "builtin":
                return False
        elif isinstance(x, A.IntLit) and id(x) in g.seat_literals:
            return False
        elif not isinstance(x, (A.IntLit, A.BoolLit, A.SetLit, A.BinOp, A.BoolOp, A.Not, A.Neg, A.IfExpr)):
            return False
    return True


def _safe(g, e, nslot) -> bool:
    """Can ``e`` be evaluated for every n of the generator without an error
    (as the generator, which stops at the first n that decides, might not)?
    Attributes, faces and card variables of n and of the outer parameters,
    compared with literals and parameters."""
    for x in walk(e):
        if isinstance(x, A.Name):
            r = g.res.get(id(x))
            if r is None or r[0] not in ("param", "member", "slot"):
                return False
        elif isinstance(x, A.Attr):
            if not isinstance(x.obj, A.Name):
                return False
        elif isinstance(x, A.BinOp):
            if x.op not in _SAFE_OPS:
                return False
        elif isinstance(x, A.IntLit) and id(x) in g.seat_literals:
            return False
        elif not isinstance(x, (A.IntLit, A.BoolLit, A.SetLit, A.BoolOp, A.Not, A.Neg)):
            return False
    return True
