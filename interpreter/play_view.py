"""What one player is shown of a game: the table (:func:`render_view`)
and the texts of actions with the cards that player cannot know written
"a hidden card" (:func:`visible_action_text`).

Everything here is built from ``state.observation(player)`` and static
declarations of the rules file (the zones' kinds and visibility, the
actions' parameter types, the card table), never from where a hidden card
lies.  :mod:`interpreter.play` is the session around it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Sequence

from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from .play_grid import enum_style, grid_widths, value_text as _value, zone_renderable
from .runtime import IllegalAction, no_knowledge

HIDDEN_CARD = "a hidden card"
SECRET = "chose in secret"


# ---------------------------------------------------------------- static declarations
@dataclass(frozen=True)
class ZoneInfo:
    name: str
    kind: str  # "pile", "stacks" or "grid"
    per_player: bool
    visibility: str  # "public", "owner", "hidden" or "" (unknown)


def zone_layout(state, obs: dict) -> list[ZoneInfo]:
    """The zones as declared (kind, per player, visibility): static facts of
    the rules file, not hidden information (see ``State.zone_layout``)."""
    del obs  # the layout is the same for every observation of a game
    return [ZoneInfo(z["name"], z["kind"], z["per_player"], z["visibility"]) for z in state.zone_layout()]


def action_cards(state, action) -> list[int]:
    """The card ids among ``action``'s parameters (its text names each of
    them); an action this cannot analyse raises :class:`LookupError`."""
    try:
        return state.action_cards(action)
    except IllegalAction as e:
        raise LookupError(str(e)) from e


def _text_with_hidden(state, action, hidden: set) -> str:
    """The action's text with the cards in ``hidden`` written as "a hidden card"."""
    return state.action_text(action, hide=hidden)


def knowledge(state, cards: Sequence[int]) -> dict:
    """For each card id, the bit mask of the seats that know it where it lies.
    In a game with face-down moves, as ``state.observation``: by the per-card
    knowledge alone (``state.knows`` also counts a seen zone, which names a
    card laid face down in a public grid)."""
    m = getattr(state, "m", None)
    if not getattr(m, "knowledge", True):
        no_knowledge("what each seat knows")
    if getattr(m, "face_down", False):
        return {c: state.K[c] & ((1 << state.num_players) - 1) for c in cards}
    return {c: sum(1 << p for p in range(state.num_players) if state.knows(p, c)) for c in cards}


def visible_action_text(state, action, viewer: int) -> str:
    """``action``'s text as ``viewer`` may read it now."""
    try:
        cards = action_cards(state, action)
    except LookupError:
        return "a move"
    known = knowledge(state, cards)
    return _text_with_hidden(state, action, {c for c in cards if not known[c] >> viewer & 1})


def _zone_label(zone: ZoneInfo) -> str:
    return {"hidden": f"{zone.name} (face down)", "owner": f"{zone.name} (owner only)"}.get(
        zone.visibility, zone.name)


def own_card_lines(state, obs: dict, zones, player: int) -> list[str]:
    """The attributes of the cards in ``player``'s own hidden piles (their
    hand: "Market: rank 6, kind Number, suits Leaves, Knots"), each card
    once, from the card table: what the player holds, and could read on
    the cards.  Empty when the cards have no attributes."""
    m = state.m
    if not m.card_attrs:
        return []
    names = []
    for z in zones:
        if z.per_player and z.visibility == "owner" and z.kind == "pile":
            names += [c for c in obs["zones"][z.name][player] if isinstance(c, str)]
    return [m.card_description(m.card_names.index(name)) for name in dict.fromkeys(names)]


def _titled(title: str, lines) -> Text:
    """A bold title, then the lines indented under it."""
    t = Text()
    t.append(title, style="bold")
    for line in lines:
        t.append("\n  " + line)
    return t


def render_view(state, player: int, console_width: int = 100, *, color: bool = False,
                title: str | None = None, recent: Sequence[str] = (), actions: bool = True) -> str:
    """What ``player`` sees: the table from ``state.observation(player)``
    (their cards, the others' visible cards, face-down counts, the
    variables), then, if it is their turn and ``actions``, the legal actions
    numbered from 1 as they may read them.  ``recent`` lines are shown as
    "since your last turn".  Plain text unless ``color`` (ANSI styles)."""
    obs = state.observation(player)
    zones = zone_layout(state, obs)
    nseats = state.num_players
    frame = box.ROUNDED if color else box.ASCII
    style = enum_style(state)

    def zone_cell(z: ZoneInfo, content, shared: bool):
        return zone_renderable(z.kind, content, shared, color=color, style=style)

    parts = []

    to_move = obs.get("to_move")
    head = Text()
    head.append(title or "Game", style="bold")
    head.append(f" - you are P{player + 1}")
    if obs.get("terminal"):
        head.append(" - game over")
    elif isinstance(to_move, int):
        head.append(" - your turn" if to_move == player else f" - P{to_move + 1} to move")
    parts.append(head)

    # the players: per-player zones and variables, one row per seat
    mine = [z for z in zones if z.per_player]
    internal = getattr(state.m, "internal_vars", ())  # bookkeeping the rules file keeps out of sight
    pvars = {k: v for k, v in obs["player_vars"].items() if k not in internal}
    shown_vars = {k: v for k, v in obs["vars"].items() if k not in internal}
    types = state.var_types()
    scores = obs.get("scores")
    if mine or pvars or scores:
        t = Table(title="Players", title_justify="left", box=frame, show_lines=True, expand=False)
        t.add_column("seat", no_wrap=True)
        cells = [[zone_cell(z, obs["zones"][z.name][p], False) for z in mine] for p in range(nseats)]
        for z in mine:
            t.add_column(_zone_label(z))
        for name in pvars:
            t.add_column(name, justify="right")
        if scores is not None:
            t.add_column("final score", justify="right")
        for p in range(nseats):
            seat = Text(f"P{p + 1}")
            if p == player:
                seat.append(" (you)", style="bold")
            if to_move == p:
                seat.append(" *", style="bold")
            row = [seat]
            row += cells[p]
            row += [Text(_value(vs[p], types.get(name))) for name, vs in pvars.items()]
            if scores is not None:
                row.append(Text(_value(scores[p])))
            t.add_row(*row)
        grids = [False] + [z.kind == "grid" for z in mine] + [False] * (len(t.columns) - len(mine) - 1)
        if any(grids):  # the grids are squeezed last
            for column, w in zip(t.columns, grid_widths([[c.header, *c.cells] for c in t.columns],
                                                        grids, console_width)):
                column.width = w
        parts.append(t)

    shared = [z for z in zones if not z.per_player]
    if shared:
        t = Table(title="Table", title_justify="left", box=frame, show_header=False, expand=False)
        t.add_column("zone", no_wrap=True)
        t.add_column("cards")
        for z in shared:
            t.add_row(Text(_zone_label(z)), zone_cell(z, obs["zones"][z.name], True))
        parts.append(t)

    held = own_card_lines(state, obs, zones, player)
    if held:
        parts.append(_titled("Your cards:", held))

    if shown_vars:
        # wrapped by hand between the items, so that no "name = value" is split
        v = Text()
        v.append("vars:", style="bold")
        column = len("vars:")
        for i, (k, x) in enumerate(shown_vars.items()):
            item = f"{k} = {_value(x, types.get(k))}" + ("," if i < len(shown_vars) - 1 else "")
            if column + 1 + len(item) > console_width and column > len("vars:"):
                v.append("\n     ")
                column = len("vars:")
            v.append(" " + item)
            column += 1 + len(item)
        parts.append(v)

    if recent:
        parts.append(_titled("Since your last turn:", recent))

    if actions and to_move == player and not obs.get("terminal"):
        legal = state.legal_actions()
        a = Text()
        a.append("Your actions:", style="bold")
        width = len(str(len(legal)))
        for i, action in enumerate(legal, 1):
            a.append("\n")
            a.append(f"  {i:>{width}}", style="bold")
            a.append("  " + visible_action_text(state, action, player))
        parts.append(a)

    buf = io.StringIO()
    console = Console(file=buf, width=console_width, force_terminal=color, no_color=not color,
                      color_system="auto" if color else None, highlight=False, emoji=False,
                      markup=False, legacy_windows=False, soft_wrap=False)
    console.print(Group(*parts))
    text = buf.getvalue()
    if not color:  # rich pads titles and cells to the width: drop the trailing blanks
        text = "\n".join(line.rstrip() for line in text.split("\n"))
    return text


__all__ = ["render_view", "own_card_lines", "visible_action_text", "zone_layout", "ZoneInfo", "action_cards", "knowledge",
           "HIDDEN_CARD", "SECRET"]
