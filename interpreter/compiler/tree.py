"""Walking the checked AST: children, all nodes, nested blocks, slots read.

Used by every stage of the compiler; depends on nothing but the AST.
"""

from __future__ import annotations

from rulelang import ast as A
from rulelang.visit import children, walk

__all__ = ["children", "walk", "all_blocks", "preamble", "slots_read", "used_once", "of_rules", "of_node"]


def of_rules(g, key: str, compute):
    """``compute()``, a fact of the checked rules ``g`` alone (it reads no
    parameter), worked out once per :class:`CheckedGame` and kept in
    ``g.derived``: a walk of the whole tree costs as much as the rest of a
    compile, and the fuzzer compiles a game again for each parameter set
    it draws."""
    derived = g.derived
    if key not in derived:
        derived[key] = compute()
    return derived[key]


def of_node(g, key: str, e, compute):
    """``compute()``, a fact of node ``e`` of the checked rules ``g`` alone
    (see :func:`of_rules`), worked out once per node and kept with ``g``
    under ``key``.  Kept by the node's id with the node itself, so that
    a node made later cannot take a freed one's id."""
    kept = g.derived.get(key)
    if kept is None:
        kept = g.derived[key] = {}
    hit = kept.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    value = compute()
    kept[id(e)] = (e, value)
    return value


def all_blocks(body):
    """A block and every block nested in it."""
    yield body
    for st in body:
        if isinstance(st, A.If):
            for _, b in st.branches:
                yield from all_blocks(b)
            if st.else_body is not None:
                yield from all_blocks(st.else_body)
        elif isinstance(st, (A.While, A.Repeat, A.For, A.Turn, A.Simultaneous)):
            yield from all_blocks(st.body)


def preamble(a: A.Action) -> list:
    """The lets and requires that open an action's body (its search)."""
    pre = []
    for x in a.body:
        if isinstance(x, (A.Let, A.Require)):
            pre.append(x)
        else:
            break
    return pre


def slots_read(g, e) -> frozenset:
    """The local slots ``e`` reads, less the loop variables it binds itself
    (a fact of the rules alone: worked out once per node, see :func:`of_node`)."""
    return of_node(g, "slots_read", e, lambda: _slots_read(g, e))


def _slots_read(g, e) -> frozenset:
    bound = set()
    read = set()
    for x in walk(e):
        if isinstance(x, (A.CallGen, A.ListComp)):
            bound.add(g.res[id(x)])
        elif isinstance(x, A.Name):
            r = g.res.get(id(x))
            if r and r[0] == "slot":
                read.add(r[1])
    return frozenset(read - bound)


def used_once(g, f) -> set:
    """The slots of user function ``f``'s lets that its later lets and its
    body read exactly once, and not inside a generator: such a let can be
    computed where it is read, and then only when that branch is taken (a
    goal table's lets, of which one is used per call).  Expressions have
    no effects, so this changes no value."""
    slots = {g.res[id(let)] for let in f.lets}
    uses = dict.fromkeys(slots, 0)

    def visit(x, looped):
        if isinstance(x, A.Name):
            r = g.res.get(id(x))
            if r is not None and r[0] == "slot" and r[1] in uses:
                uses[r[1]] += 2 if looped else 1
            return
        looped = looped or isinstance(x, (A.CallGen, A.ListComp))
        for c in children(x):
            visit(c, looped)
    for let in f.lets:
        visit(let.expr, False)
    visit(f.body, False)
    return {s for s, n in uses.items() if n == 1}
