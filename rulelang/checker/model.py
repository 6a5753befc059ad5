"""The checked game and the types the checker works with.

Nothing here checks anything: these are the result of checking
(:class:`CheckedGame`, :class:`ZoneInfo`), the names every check shares (the
builtin functions, the reserved names) and the helpers on type strings
(:func:`elem_type`, :func:`tname`).

Types are small strings: ``int bool player card stack pile stacks players
range set:E enum:E list:T none``; ``error`` silences follow-on diagnostics.
"""

from __future__ import annotations

import attrs

from .. import ast as A
from ..diagnostics import Span

ERR = "error"
# A slot numbered from here is a scratch slot: the name bound by a "for" in an expression, a
# function's parameter or local, the card of a card variable's default or of a deck's "where".
# Its value lives only while the expression that binds it is evaluated, so a state does not
# keep it (a state's own slots, below, are what a clone copies); see CheckedGame.nscratch.
SCRATCH_BASE = 1 << 20
COLLECTION_ELEM = {"pile": "card", "grid": "card", "stack": "card", "stacks": "stack", "players": "player",
                   "range": "int"}
BUILTIN_TYPES = ("int", "bool", "player", "card", "stack")

# builtin functions and their arity (min, max); checked specially below
BUILTINS = {
    "size": (1, 1), "empty": (1, 1), "top": (1, 1), "bottom": (1, 1),
    "sum": (1, 1), "count": (1, 1), "any": (1, 1), "all": (1, 1),
    "min": (1, 2), "max": (1, 2), "sign": (1, 1), "abs": (1, 1),
    "intersection": (1, 1), "union": (1, 1), "least_sum_at_least": (2, 2),
    "next": (1, 2), "previous": (1, 2), "all_cards": (0, 0), "can": (1, 99),
    "stack_of": (1, 1), "increasing": (1, 1), "decreasing": (1, 1), "is_winner": (1, 1),
    "turns_taken": (1, 1),
    # grids
    "open_cells": (1, 1), "neighbours": (2, 2), "cell_of": (1, 1), "corners": (1, 1), "lines": (1, 1),
    "groups": (1, 1),
}
GEN_FUNCS = ("sum", "count", "any", "all", "min", "max", "intersection", "union")
RESERVED = {"me", "players", "player_count", "card"} | set(BUILTINS)


def elem_type(t: str) -> str | None:
    if t in COLLECTION_ELEM:
        return COLLECTION_ELEM[t]
    if t.startswith("list:"):
        return t[5:]
    if t.startswith("set:") and t != "set:?":  # a set of enum members iterates over them
        return "enum:" + t[4:]
    return None


@attrs.define
class ZoneInfo:
    name: str
    index: int
    kind: str
    per_player: bool
    visibility: str
    span: Span
    capacity: object = None  # int, the name of an int parameter, or None
    box: tuple | None = None  # a grid's (width, height, either way)


@attrs.define
class CheckedGame:
    module: A.Module
    file: str
    title: str = ""
    players: tuple = (2, 2)
    params: dict = attrs.Factory(dict)  # name -> A.Param
    enums: dict = attrs.Factory(dict)  # name -> list of member names
    members: dict = attrs.Factory(dict)  # member -> (enum, index)
    card_attrs: dict = attrs.Factory(dict)  # name -> (index, type)
    cards: list = attrs.Factory(list)  # (name, values tuple, copies, span)
    deck: tuple = ()
    zones: dict = attrs.Factory(dict)  # name -> ZoneInfo
    vars: dict = attrs.Factory(dict)  # name -> A.Var (kind var)
    player_vars: dict = attrs.Factory(dict)
    card_vars: dict = attrs.Factory(dict)
    functions: dict = attrs.Factory(dict)  # name -> A.Function
    func_types: dict = attrs.Factory(dict)  # name -> return type
    func_slots: dict = attrs.Factory(dict)  # name -> (param slots, let slots)
    actions: dict = attrs.Factory(dict)  # name -> A.Action
    action_slots: dict = attrs.Factory(dict)  # name -> (param slots, {let name: slot})
    setup: tuple = ()
    play: tuple = ()
    outcome: A.Outcome | None = None
    outcome_slot: int = 0
    heuristic: A.Heuristic | None = None  # what the greedy bot maximises (None: the score)
    heuristic_slot: int = 0
    types: dict = attrs.Factory(dict)
    res: dict = attrs.Factory(dict)
    nslots: int = 0  # a state's own slots: 0 .. nslots - 1
    nslots_play: int = 0  # ... of which those the game uses: the examples' come after them
    nscratch: int = 0  # scratch slots: SCRATCH_BASE .. SCRATCH_BASE + nscratch - 1
    card_names: dict = attrs.Factory(dict)  # name -> first card id
    # the node ids of expressions whose value is a card name literal
    warnings: list = attrs.Factory(list)
    checker: object = None  # the Checker, kept to check extra expressions later
    source: object = None  # the rules text it was read from (a RulesText: its bases' too), if from a file
    invariants: list = attrs.Factory(list)  # A.Invariant
    examples: list = attrs.Factory(list)  # A.Example
    triggers: list = attrs.Factory(list)  # A.Trigger, in declaration order
    trigger_slots: dict = attrs.Factory(dict)  # id(trigger) -> (card slot, owner slot or None)
    achievements: A.Achievements | None = None
    achievement_slot: int = 0
    # ids of number literals standing for a seat that not every table has
    seat_literals: set = attrs.Factory(set)
    # facts a later stage works out of these rules alone, whatever the parameters, kept for
    # each time they are compiled again (the fuzzer compiles a game for many parameter sets)
    derived: dict = attrs.field(factory=dict, eq=False, repr=False)


def tname(t: str) -> str:
    """A type as the diagnostics name it ("a number", "a set of Suit")."""
    if t.startswith("set:"):
        return f"a set of {t[4:]}" if t != "set:?" else "a set"
    if t.startswith("enum:"):
        return f"a {t[5:]}"
    if t.startswith("list:"):
        return f"a list of {t[5:]}"
    return {"int": "a number", "bool": "true/false", "player": "a player", "card": "a card",
            "stack": "a stack", "pile": "a pile", "stacks": "a row of stacks", "players": "the players",
            "grid": "a grid", "cell": "a cell of a grid",
            "range": "a range"}.get(t, t)
