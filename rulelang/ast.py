"""The rulelang abstract syntax tree: frozen attrs nodes, each with a span.

Nodes compare by structure (the span is not part of equality), so two parses
of the same text in different places are equal.  No Lark type reaches here.
"""

from __future__ import annotations

import attrs

from .diagnostics import NO_SPAN, Span


def node(cls):
    return attrs.frozen(cls)


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
@node
class Game:
    title: str
    span: Span = _span()


@node
class Players:
    low: int
    high: int
    span: Span = _span()


@node
class Param:
    kind: str  # "param" | "option"
    name: str
    type: object
    default: object
    low: object
    high: object
    doc: str | None
    span: Span = _span()


@node
class Enum:
    name: str
    members: tuple  # of Name
    span: Span = _span()


@node
class AttrDef:
    name: str
    type: object
    span: Span = _span()


@node
class Attrs:
    attrs: tuple  # of AttrDef
    span: Span = _span()


@node
class CardValue:
    kind: str  # "int" | "name" | "set"
    value: object  # int | str | tuple of str
    span: Span = _span()


@node
class CardRow:
    name: str
    values: tuple  # of CardValue
    copies: int
    span: Span = _span()


@node
class Cards:
    rows: tuple
    span: Span = _span()


@node
class DeckWhere:
    cond: object
    when: object
    span: Span = _span()


@node
class DeckNamed:
    name: str
    when: object
    span: Span = _span()


@node
class Deck:
    items: tuple
    span: Span = _span()


@node
class ZoneOpt:
    words: tuple
    span: Span = _span()


@node
class Zone:
    name: str
    opts: tuple  # of ZoneOpt
    span: Span = _span()


@node
class Var:
    kind: str  # "var" | "player var" | "card var"
    name: str
    type: object
    default: object
    record: bool = False  # "record player var": part of the game's record
    doc: str | None = None
    span: Span = _span()


@node
class TypedParam:
    name: str
    type: object
    span: Span = _span()


@node
class Function:
    name: str
    params: tuple  # of TypedParam
    lets: tuple  # of Let
    body: object
    span: Span = _span()


@node
class ActionParam:
    name: str
    domain: object
    high: object  # for "r in 2..9": domain is the low bound
    subsets: bool = False  # "cs in subsets of Z [sized a..b]"
    min_size: object = None
    max_size: object = None
    span: Span = _span()


@node
class Action:
    name: str
    params: tuple
    template: str | None
    body: tuple
    span: Span = _span()


@node
class Setup:
    body: tuple
    span: Span = _span()


@node
class Play:
    body: tuple
    span: Span = _span()


@node
class Outcome:
    var: str
    score: object
    tiebreaks: tuple  # of (direction, expr)
    nobody: object = None  # "nobody wins if COND" (COND reads no player: the game as a whole)
    span: Span = _span()


@node
class Invariant:
    cond: object
    message: str | None
    always: bool = False  # checked after every step, not only at decision points
    span: Span = _span()


@node
class Trigger:
    """``when C enters Z(p) [if cond]:``, ``after every action:`` or
    ``before every turn:``."""
    event: str  # "enter" | "action" | "turn"
    body: tuple
    card: object = None  # StrLit (a card name) or None
    var: str | None = None  # the name bound to the entering card
    zone: str | None = None
    owner: str | None = None  # the name bound to the zone's player
    cond: object = None
    span: Span = _span()


@node
class Achievement:
    text: str
    cond: object
    span: Span = _span()


@node
class Achievements:
    var: str
    items: tuple  # of Achievement
    span: Span = _span()


@node
class Module:
    file: str
    items: tuple
    span: Span = _span()
