"""Small things written out in generated code instead of called.

A call costs Python a frame: for a helper whose body is one expression,
writing the body in place of the call is quicker, where the arguments it
reads more than once are cheap to read again (:func:`cheap`).  The
written form gives the same value and fails with the same error as the
helper (see :mod:`.helpers`), and evaluates nothing the call would not.
"""

from __future__ import annotations

import re

from ..runtime import STACK_SHIFT
from .source import lit

_CALL = re.compile(r"[\w\])]\(")  # a name, a subscript or parentheses called
MAX_CHEAP = 48  # the longest source read more than once


def cheap(src: str) -> bool:
    """Can ``src`` be evaluated again for about what a call costs, to the
    same value, changing nothing: numbers, names, attributes, subscripts and
    operators (no call, no assignment, no generator, no conditional)."""
    return len(src) <= MAX_CHEAP and not _CALL.search(src) and ":=" not in src and " for " not in src \
        and " if " not in src and "lambda" not in src


def inline_source(f) -> str | None:
    """The source of an expression's function (from ``Expressions.fn``) to
    write inline in generated code: its own, or a folded whole number or
    truth value written out; None for a constant of another kind."""
    kind = getattr(f, "flow", None)
    if kind is not None and kind[0] == "expr":
        return kind[1]
    if hasattr(f, "const") and type(f.const) in (int, bool):  # (see expressions.is_const)
        return lit(f.const)
    return None


def index_source(seq: str, i: str) -> str:
    """``seq[i]``, counting from 0, a negative ``i`` an error (helpers.index:
    its IndexError, raised by it).  ``seq`` is evaluated first, as the
    helper's arguments are: where both fail, the same one fails first."""
    if cheap(i):
        return f"{seq}[({i} if {i} >= 0 else _index((), {i}))]"
    return f"_index({seq}, {i})"


def sign_source(x: str) -> str:
    """-1, 0 or 1 (helpers.sign)."""
    if cheap(x):
        return f"(({x} > 0) - ({x} < 0))"
    return f"_sign({x})"


def stacks_source(inst: str) -> str:
    """The stacks of a row of stacks, as encoded values (helpers.stacks)."""
    if cheap(inst):
        return f"range({inst} << {STACK_SHIFT}, ({inst} << {STACK_SHIFT}) + len(st.Z[{inst}]))"
    return f"_stacks(st, {inst})"
