"""Walking an AST: the nodes directly inside a node, and all nodes under it.

Shared by the checker and the compiler; depends on nothing but attrs nodes.
"""

from __future__ import annotations

_FIELDS = {}  # node class -> the names of its fields, less the span (read once per class)


def _fields(cls) -> tuple:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in getattr(cls, "__attrs_attrs__", ()) if f.name != "span")
    return names


def _flatten(v, out) -> None:
    """Append to ``out`` what lists and tuples ``v`` hold, looked through."""
    for x in v:
        if isinstance(x, (tuple, list)):
            _flatten(x, out)
        else:
            out.append(x)


def children(e) -> list:
    """What is directly inside ``e``, in the order of its fields: each field
    that is a node, and what a field that is a list or tuple holds (looked
    through, nodes or not); the items of ``e`` itself if it is a list or
    tuple."""
    out = []
    if isinstance(e, (tuple, list)):
        _flatten(e, out)
        return out
    for name in _fields(type(e)):
        v = getattr(e, name)
        if isinstance(v, (tuple, list)):
            _flatten(v, out)
        elif hasattr(v, "__attrs_attrs__"):
            out.append(v)
    return out


def walk(e):
    """``e`` and every node inside it."""
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(children(x))
