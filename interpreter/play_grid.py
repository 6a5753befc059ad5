"""How ``rulerun play`` draws the cards of one zone: piles, rows of stacks
and grids (:mod:`interpreter.play` lays out the whole view).

Everything here works from an observation's entries alone, plus static
facts of the rules (a card's enum attribute, for its colour).

A grid instance is drawn as a small table: one row per ``y`` (growing
downwards), one column per ``x`` (growing to the right), the coordinates in
the header and the first column, over the bounding box of the occupied
cells.  A cell shows the card's name (wrapped, then cut with "…"), "·" when
empty, "▒ face down" ("[face down]" in plain text) for a face-down card the
viewer does not know, and "(face down)" under the name of one they know.
"""

from __future__ import annotations

import io
import textwrap
import zlib
from typing import Callable, Sequence

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

# Colours for card names, picked by a stable hash of the name's first word.
PALETTE = ("red", "green", "yellow", "blue", "magenta", "cyan", "bright_red", "bright_green",
           "bright_blue", "bright_magenta", "bright_cyan", "dark_orange")
# Colours for the values of a card's enum attribute, in declaration order.
ENUM_PALETTE = ("red", "green", "blue", "yellow", "magenta", "cyan", "bright_red", "bright_green",
                "bright_blue", "bright_magenta", "bright_cyan", "dark_orange")
CELL_WIDTH = 12  # the widest a grid cell's text is (a longer name is wrapped onto 2 lines)
CELL_LINES = 2  # the most lines a card's name takes in a grid cell
EMPTY_CELL = "·"

Style = Callable[[str], str]


def card_style(name: str) -> str:
    word = name.split()[0] if name.split() else name
    return PALETTE[zlib.crc32(word.encode("utf-8")) % len(PALETTE)]


def enum_style(state) -> Style:
    """Colour by the value of the first enum-typed card attribute declared
    (a static fact of the card named); by the name's hash without one."""
    attrs = getattr(getattr(state, "m", None), "card_attrs", None) or {}
    values = next((vals for vals, typ in attrs.values() if str(typ).startswith("enum:")), None)
    if values is None:
        return card_style
    cache: dict = {}

    def style(name: str) -> str:
        if name not in cache:
            try:
                v = values[state.m.card_ids(name)[0]]
                cache[name] = ENUM_PALETTE[int(v) % len(ENUM_PALETTE)]
            except (ValueError, IndexError, TypeError):
                cache[name] = card_style(name)
        return cache[name]

    return style


def value_text(v, typ=None) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if typ == "player" and isinstance(v, int):
        return f"P{v + 1}"  # seats are 0-based in observations, P1.. on the screen
    return str(v)


def _name_and_extra(entry) -> tuple[str, str]:
    """An observed card's name, and its changed card variables as text
    (``{"card": name, var: value}`` is a card whose card variables changed)."""
    if isinstance(entry, dict):
        extra = [f"{k} {value_text(v)}" for k, v in entry.items() if k != "card"]
        return str(entry.get("card", "?")), ", ".join(extra)
    return str(entry), ""


def card_text(entry, style: Style = card_style) -> Text:
    """One observed card: None (face down), a name, or a dict ``{"card":
    name, var: value, ...}`` for a card whose card variables changed (a
    Pawn's declared rank): "Harvest (value 5)"."""
    if entry is None:
        return Text("?", style="dim")
    name, extra = _name_and_extra(entry)
    text = Text(name, style=style(name))
    if extra:
        text.append(f" ({extra})", style="dim")
    return text


def join(parts: Sequence[Text], sep: str = ", ") -> Text:
    out = Text()
    for i, p in enumerate(parts):
        if i:
            out.append(sep)
        out.append_text(p)
    return out


def pile_text(cards: list, shared: bool = False, style: Style = card_style) -> Text:
    """One pile as the viewer sees it: names, "?" for a face-down card (by
    position when some are known), or just a count when all are face down."""
    if not cards:
        return Text("-", style="dim")
    hidden = sum(c is None for c in cards)
    if hidden == len(cards):
        return Text(f"{hidden} face down", style="dim")
    if hidden:
        return join([Text(f"{i}:") + card_text(c, style) for i, c in enumerate(cards, 1)], "  ")
    text = join([card_text(c, style) for c in cards])
    if shared and len(cards) > 1:
        text.append(" (top)", style="dim")
    return text


def stacks_text(stacks: list, style: Style = card_style) -> Text:
    if not stacks:
        return Text("-", style="dim")
    lines = [Text(f"{i}: ") + join([card_text(c, style) for c in s]) for i, s in enumerate(stacks, 1)]
    return join(lines, "\n")


def _wrap(text: str, width: int, lines: int) -> list[str]:
    return textwrap.wrap(text, width, max_lines=lines, placeholder="…", break_long_words=True) or [""]


def cell_text(entry, *, color: bool, style: Style = card_style, width: int = CELL_WIDTH) -> Text:
    """One grid cell's text: ``entry`` is an observed ``{"cell", "card",
    "face_down"}`` or None for an empty cell."""
    if entry is None:
        return Text(EMPTY_CELL, style="dim")
    card = entry.get("card")
    if card is None:
        return Text("▒ face down" if color else "[face down]", style="dim")
    name, extra = _name_and_extra(card)
    text = Text()
    text.append("\n".join(_wrap(name, width, CELL_LINES)), style=style(name))
    if extra:
        text.append("\n" + "\n".join(_wrap(f"({extra})", width, 2)), style="dim")
    if entry.get("face_down"):
        text.append("\n(face down)", style="dim italic")
    return text


def grid_table(content: list, *, color: bool, style: Style = card_style, width: int = CELL_WIDTH):
    """A grid instance as a table of its cells' texts (see the module's
    docstring); "-" when no card is in it."""
    if not content:
        return Text("-", style="dim")
    cells = {tuple(e["cell"]): e for e in content}
    xs = range(min(x for x, _ in cells), max(x for x, _ in cells) + 1)
    ys = range(min(y for _, y in cells), max(y for _, y in cells) + 1)
    rows = [[cell_text(cells.get((x, y)), color=color, style=style, width=width) for x in xs] for y in ys]
    tall = any("\n" in c.plain for row in rows for c in row)  # lines between the rows only if needed
    t = Table(box=box.SQUARE if color else box.ASCII, show_lines=tall, expand=False, padding=(0, 1),
              header_style="dim", border_style="dim")
    t.add_column("y\\x", justify="right", no_wrap=True, style="dim")
    for x in xs:
        t.add_column(str(x), justify="center", max_width=width + 2, overflow="fold")
    for y, row in zip(ys, rows):
        t.add_row(Text(str(y)), *row)
    return t


def zone_renderable(kind: str, content, shared: bool, *, color: bool = False,
                    style: Style = card_style):
    """One zone instance as the viewer sees it, by the zone's kind."""
    if kind == "grid":
        return grid_table(content, color=color, style=style)
    if kind == "stacks":
        return stacks_text(content, style)
    return pile_text(content, shared, style)



def _measure(renderable) -> Measurement:
    console = Console(file=io.StringIO(), width=400, color_system=None, legacy_windows=False)
    return Measurement.get(console, console.options, renderable)


def grid_widths(columns: Sequence[Sequence], grids: Sequence[bool], width: int) -> list:
    """Fixed widths for the grid columns of a table ``width`` wide (None for
    the others), the columns given as their header and cells: a grid column
    gets its natural width, or its share of what the other columns leave at
    their narrowest.  Rich squeezes all columns alike; this keeps the grids
    whole and wraps the other columns first."""
    mins = [max(_measure(c).minimum for c in col) for col in columns]
    natural = [max(_measure(c).maximum for c in col) if g else 0 for col, g in zip(columns, grids)]
    room = width - (3 * len(columns) + 1) - sum(m for m, g in zip(mins, grids) if not g)
    want = sum(natural)
    return [max(m, min(n, room * n // want)) if g else None for m, n, g in zip(mins, natural, grids)]
