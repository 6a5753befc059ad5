"""Walking an AST: the nodes directly inside a node, and all nodes under it.

Shared by the checker and the compiler; depends on nothing but attrs nodes.
"""

from __future__ import annotations


def children(e):
    """The AST nodes directly inside ``e`` (lists and tuples looked through)."""
    if isinstance(e, (tuple, list)):
        for x in e:
            yield from children(x) if isinstance(x, (tuple, list)) else (x,)
        return
    for f in getattr(e, "__attrs_attrs__", ()):
        if f.name == "span":
            continue
        v = getattr(e, f.name)
        if isinstance(v, (tuple, list)):
            yield from children(v)
        elif hasattr(v, "__attrs_attrs__"):
            yield v


def walk(e):
    """``e`` and every node inside it."""
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(children(x))
