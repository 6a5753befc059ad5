"""The rulelang abstract syntax tree: frozen attrs nodes, each with a span.

Nodes compare by structure (the span is not part of equality), so two parses
of the same text in different places are equal.  No Lark type reaches here.
"""

from __future__ import annotations

import operator

import attrs

from .diagnostics import NO_SPAN, Span


def node(cls):
    """A frozen attrs class whose equality, hash and repr are the shared
    ones below rather than generated per class: attrs writes and compiles
    those methods for each of the seventy-odd node classes at import, a
    fifth of what ``rulerun check`` spends before it reads a file.  They
    behave as attrs's own: equal when of the same class with equal fields
    (the span aside), a hash of the same, ``Name(field=value, ...)``."""
    cls = attrs.frozen(cls, eq=False, repr=False)
    fields = attrs.fields(cls)
    compared = tuple(f.name for f in fields if f.eq)
    shown = tuple(f.name for f in fields if f.repr)
    cls._compared = staticmethod(operator.attrgetter(*compared) if len(compared) > 1 else
                                 _one(compared[0]) if compared else _none)  # the fields compared, as a tuple
    cls._shown = shown
    cls._seed = hash(cls.__qualname__)
    cls.__eq__, cls.__ne__, cls.__hash__, cls.__repr__ = _eq, _ne, _hash, _repr
    return cls


def _none(x):
    return ()


def _one(name):
    get = operator.attrgetter(name)
    return lambda x: (get(x),)


def _eq(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    get = self._compared
    return get(self) == get(other)


def _ne(self, other):
    result = _eq(self, other)
    return result if result is NotImplemented else not result


def _hash(self):
    return hash((self._seed, self._compared(self)))


def _repr(self):
    return f"{self.__class__.__qualname__}(" + ", ".join(
        f"{name}={getattr(self, name)!r}" for name in self._shown) + ")"


def _span():
    return attrs.field(default=NO_SPAN, kw_only=True, eq=False, repr=False)


# ------------------------------------------------------------------ types
@node
class TypeName:
    name: str
    span: Span = _span()


@node
class TypeSet:
    elem: str
    span: Span = _span()


@node
class TypeList:
    elem: str
    span: Span = _span()


# ------------------------------------------------------------ expressions
@node
class IntLit:
    value: int
    span: Span = _span()


@node
class StrLit:
    value: str
    span: Span = _span()


@node
class BoolLit:
    value: bool
    span: Span = _span()


@node
class Name:
    id: str
    span: Span = _span()


@node
class SetLit:
    items: tuple
    span: Span = _span()


@node
class ListComp:
    expr: object
    var: str
    iter: object
    cond: object
    span: Span = _span()


@node
class Call:
    func: str
    args: tuple
    span: Span = _span()


@node
class CallGen:
    """``sum(x.rank for x in pile if cond)``."""

    func: str
    expr: object
    var: str
    iter: object
    cond: object
    span: Span = _span()


@node
class Attr:
    obj: object
    name: str
    span: Span = _span()


@node
class Index:
    obj: object
    index: object
    span: Span = _span()


@node
class BinOp:
    """Arithmetic (+ - * / %), comparison (== != < <= > >= in, not in), & and |."""

    op: str
    left: object
    right: object
    span: Span = _span()


@node
class BoolOp:
    op: str  # "and" | "or"
    items: tuple
    span: Span = _span()


@node
class Not:
    operand: object
    span: Span = _span()


@node
class Neg:
    operand: object
    span: Span = _span()


@node
class IfExpr:
    cond: object
    then: object
    else_: object
    span: Span = _span()


# ------------------------------------------------------------- statements
@node
class Let:
    name: str
    expr: object
    span: Span = _span()


@node
class Set:
    target: object
    expr: object
    span: Span = _span()


@node
class AugSet:
    target: object
    op: str
    expr: object
    span: Span = _span()


@node
class SetRandom:
    target: object
    choices: object
    order: bool = False  # "random order of LIST": a shuffled copy, not one pick
    span: Span = _span()


@node
class LetRandom:
    name: str
    choices: object
    order: bool = False
    span: Span = _span()


@node
class Require:
    cond: object
    span: Span = _span()


@node
class Move:
    what: object
    where: str  # "top" | "bottom" | "new_stack" | "at" (a cell of a grid)
    dest: object
    at: object = None  # the cell, for "move c to grid at x"
    face_down: bool = False  # "move c face down to ...": its place is seen, not the card
    span: Span = _span()


@node
class Shuffle:
    zone: object
    span: Span = _span()


@node
class Swap:
    """Exchange the places of two cards."""

    a: object
    b: object
    span: Span = _span()


@node
class Reveal:
    """Show a card (or the cards of a collection) to a player or players."""

    what: object
    to: object
    span: Span = _span()


@node
class ListLit:
    items: tuple
    span: Span = _span()


@node
class Deal:
    count: object
    source: object
    dest: object
    span: Span = _span()


@node
class Choose:
    actions: tuple  # of Name
    span: Span = _span()


@node
class EndGame:
    winners: object = None  # "end game with winners E": a player or a list of players
    span: Span = _span()


@node
class Pass:
    span: Span = _span()


@node
class If:
    branches: tuple  # of (cond, body)
    else_body: tuple | None
    span: Span = _span()


@node
class While:
    cond: object
    body: tuple
    span: Span = _span()


@node
class Repeat:
    count: object
    var: str | None
    body: tuple
    span: Span = _span()


@node
class For:
    var: str
    iter: object
    start: object
    body: tuple
    span: Span = _span()


@node
class Simultaneous:
    """``simultaneously for p in PLAYERS [if COND]: choose ...``: each player
    chooses in secret; the choices take effect together, in seat order."""
    var: str
    iter: object
    start: object
    cond: object
    body: tuple
    span: Span = _span()


@node
class Turn:
    player: object
    body: tuple
    span: Span = _span()


# ----------------------------------------------------------- declarations
# (in rulelang/ast_decls.py, re-exported here)
from .ast_decls import (  # noqa: E402,F401 - re-exported
    Game, Players, Param, Enum, AttrDef, Attrs, CardValue, CardRow, Cards, DeckWhere, DeckNamed,
    Deck, ZoneOpt, Zone, Var, TypedParam, Function, ActionParam, Action, Setup, Play, Outcome,
    Invariant, Trigger, Achievement, Achievements, Heuristic, Expect, Do, Setting, Example,
    Extends, ParamDefault,
    Override, Module)
