"""The one place generated Python source is compiled, and its namespace.

Safety: no text of the rules file ever reaches the generated source.  The
source is built only from generated identifiers (``v3``, ``h2``, ``_k7``),
Python operators and keywords, and ``int`` literals; every other object
(card attribute tables, helper functions, the closures of statements) is put
in the namespace under a generated name by :meth:`Namespace.ref`.
:meth:`Namespace.define` refuses any source with a character outside a small
allowlist (no quotes, no backslashes, no ``#``), so a rules file cannot
inject code even through a bug in a code generator.
"""

from __future__ import annotations

import re

from . import helpers

_ALLOWED = re.compile(r"[A-Za-z0-9_ \n()\[\]+\-*/%&|<>=!.,:~^]*\Z")
# Compiled code objects by their source (a fold's by ("eval", source)), shared by every
# game of the process.
_CODE = {}
MAX_KEPT_CODE = 20_000


class Namespace:
    """The globals of all the source generated for one game."""

    def __init__(self):
        self.ns = dict(helpers.GENERATED_NAMES)
        self.sources = []  # every definition, in order (Game.generated_source)
        self.names = {}  # id(obj) -> generated name
        self.counter = 0

    def ref(self, obj, prefix="_k") -> str:
        """A generated name for ``obj`` (a table, a closure, a span...) in the namespace."""
        key = id(obj)
        name = self.names.get(key)
        if name is None:
            self.counter += 1
            name = f"{prefix}{self.counter}"
            self.names[key] = name
            self.ns[name] = obj  # kept alive, so its id is not reused
        return name

    def table_of(self, name: str, where: dict) -> str:
        """The name the function ``name`` reads its table of lines by (see
        :func:`marked`): fixed by its own name, as the function's source is
        by where the flow starts, not by the order functions are made in."""
        key = f"_w{name}"
        self.ns[key] = where
        return key

    def fresh(self, prefix) -> str:
        """A new generated identifier."""
        self.counter += 1
        return f"{prefix}{self.counter}"

    def define(self, src: str, name: str, where=None):
        """Compile ``src`` (which defines ``name``) and return that function.
        ``where``, a dict, is filled from the marks in ``src`` (see
        :func:`marked`), which are taken out of it."""
        if where is not None:
            src = marked(src, self.ns, where)
        _allowed(src)
        self.sources.append(src)
        code = _CODE.get(src)
        if code is None:
            # the same source comes back when a game is compiled again with other
            # parameters (the fuzzer draws them): its code object is kept
            if len(_CODE) >= MAX_KEPT_CODE:
                _CODE.clear()
            code = _CODE[src] = compile(src, f"<rulelang:{name}>", "exec")
        exec(code, self.ns)  # noqa: S102 - source built from generated identifiers only (see module doc)
        return self.ns[name]

    def value(self, src: str):
        """The value of the expression ``src`` (generated, reading no state),
        computed in this namespace: an operation on literals folded when a
        game is compiled (see Expressions.fold)."""
        _allowed(src)
        code = _CODE.get(("eval", src))
        if code is None:  # (kept as the functions are: the same folds come back with each compile)
            if len(_CODE) >= MAX_KEPT_CODE:
                _CODE.clear()
            code = _CODE[("eval", src)] = compile(src, "<rulelang:fold>", "eval")
        return eval(code, self.ns)  # noqa: S307 - generated names and ints only


# Marks in a generated function's lines (each a line of its own, never in the source compiled):
# "@pc N" where the flow comes to pc N (see .flowgen), "@span NAME" and "@end" around the lines
# of one statement, whose span is named NAME in the namespace.
MARK = "@"


def marked(src: str, ns: dict, where: dict) -> str:
    """``src`` without its marks; ``where`` is filled with line number ->
    (pc, span) for the lines they mark (failures.failed reads it when a
    line fails).  A line's pc is that of the last ``@pc`` mark before it at its
    indentation or less (a mark inside a branch or a loop holds until the
    block ends); its span is that of the innermost ``@span`` around it.
    Between two marks stand only steps that cannot fail, so a line's pc is
    the one the flow last came to wherever an error can arise.  Writing the
    lines of a statement thus, not each in a ``try`` block of its own, keeps
    the code that runs together: no jump over a handler at each statement."""
    where.clear()
    out, spans, scope = [], [], []  # (the span names open, the (indentation, pc) marks in scope)
    for line in src.split("\n"):
        text = line.lstrip(" ")
        indent = len(line) - len(text)
        if text.startswith(MARK):
            word, _, arg = text.partition(" ")
            if word == "@pc":
                while scope and scope[-1][0] >= indent:
                    scope.pop()
                scope.append((indent, int(arg)))
            elif word == "@span":
                spans.append(ns[arg])
            elif word == "@end":
                spans.pop()
            else:  # pragma: no cover - a bug guard
                raise AssertionError(f"unknown mark in generated source: {word}")
            continue
        out.append(line)
        if text:
            while scope and scope[-1][0] > indent:
                scope.pop()
        pc = scope[-1][1] if scope else None
        span = spans[-1] if spans else None
        if pc is not None or span is not None:
            where[len(out)] = (pc, span)
    assert not spans, "a span mark left open"
    return "\n".join(out)


def _allowed(src: str) -> None:
    if not _ALLOWED.match(src):  # pragma: no cover - a bug guard
        raise AssertionError("generated source has a character outside the allowlist")


def lit(v) -> str:
    """Source of an int or bool value (a huge one in hexadecimal: Python
    writes no more than 4,300 decimal digits, but any number of hex ones)."""
    if isinstance(v, bool):
        return "True" if v else "False"
    v = int(v)
    text = str(abs(v)) if abs(v) < HUGE else hex(abs(v))
    return f"(-{text})" if v < 0 else text


HUGE = 10 ** 100  # (written in decimal below this)
