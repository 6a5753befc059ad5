"""The declarations of a rules file (game, players, parameters, cards, zones,
variables, functions, actions, setup, play, outcome, invariants, triggers,
achievements, examples) as AST nodes; :mod:`rulelang.ast` re-exports them with the
expressions and statements."""

from __future__ import annotations

from .ast import Span, _span, node

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
    internal: bool = False  # "internal var": bookkeeping, not shown to players (still in observations)
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
class Heuristic:
    """``heuristic(p): EXPR``: how good the game stands for player ``p``, for
    the greedy bot (higher is better); the score when a file has none."""
    var: str
    value: object
    span: Span = _span()


@node
class Expect:
    """One line of an example's expectations: ``kind`` is "true" (``value``
    holds), "legal" / "illegal" (``action(*args)`` is, or is not, a legal
    choice for player ``value``), "scores" (``value`` is the list of
    scores) or "winners" (``value``, a player or a list of players, wins;
    None: nobody wins)."""
    kind: str
    value: object
    action: str | None = None
    args: tuple = ()
    span: Span = _span()


@node
class Do:
    """``do ACTION(ARGS) by P`` in an example: P takes that action, its
    effects run; ``check`` is the expectation that it is legal."""
    check: object  # an Expect of kind "legal"
    span: Span = _span()


@node
class Setting:
    """``with NAME = VALUE`` in an example: a parameter's value there."""
    name: str
    value: object
    span: Span = _span()


@node
class Example:
    """``example "TEXT":``: ``body``, statements run from the start of a
    game before its setup (for ``players`` seats, with the parameters
    ``params``: :class:`Setting` nodes), and among them the
    expectations (:class:`Expect`, also listed in ``expects``), each
    checked where it stands."""
    text: str
    players: int | None
    params: tuple
    body: tuple
    expects: tuple
    after_setup: bool = False  # ``example "TEXT" after setup:``: the game's setup runs first
    span: Span = _span()


@node
class Extends:
    """``extends "FILE"``: this file is a variant of FILE (a path relative to this file)."""
    path: str
    span: Span = _span()


@node
class ParamDefault:
    """``override param NAME = VALUE ["doc"]``: a new default for the base's
    parameter or option; its type, range and (unless given) text stay."""
    kind: str
    name: str
    default: object
    doc: str | None
    span: Span = _span()


@node
class Override:
    """``override DECLARATION``: in a variant, the declaration replaces the base's of the same name."""
    item: object
    span: Span = _span()


@node
class Module:
    file: str
    items: tuple
    span: Span = _span()
