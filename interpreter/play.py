"""``rulerun play``: people at the terminal play a game against random bots.

The seats given with ``--human`` are played by people; the rest by
:class:`~interpreter.agents.RandomAgent` bots, which get only the legal
actions and their own observation.

Nothing a player may not see is ever shown:

- the view of the table (:func:`render_view`) is built from
  ``state.observation(player)`` alone, plus the texts of the legal actions;
- an action's text names the cards in its parameters, and some of those are
  hidden from the other players (a card put back face down, say).  So moves are announced by :func:`move_text`, which writes
  "a hidden card" for every card parameter a viewer does not know, neither
  before nor after the move; a choice made in secret (``state.is_secret``,
  in a simultaneous round) is announced to the others as "P2 chose in secret";
- with several people at one terminal, the screen is cleared and a "pass to
  player N" gate shown between different people's turns.

The only things read besides observations are static declarations (the
zones' kinds and visibility, the actions' parameter types, a named card's
enum attribute for its colour), never where a card lies; see
:func:`zone_layout`, :func:`action_cards` and :mod:`interpreter.play_grid`
(how piles, stacks and grids are drawn).
"""

from __future__ import annotations

import io
import os
import sys
from dataclasses import dataclass
from typing import Callable, Sequence

import click
from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from .agents import ask
from .play_grid import enum_style, grid_widths, value_text as _value, zone_renderable
from .play_input import COMMANDS, HELP, Choice, _prefix_example, _range, parse_choice  # noqa: F401 - re-exported
from .record import record_lines
from .runtime import DeadState, IllegalAction, RuleError

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
    if getattr(getattr(state, "m", None), "face_down", False):
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


class MoveText:
    """Announcing one move to viewers.  Create it before applying the
    action, call :meth:`applied` after; a card parameter is named to a
    viewer who knew it before the move or knows it after (a card played
    face up is named, one put back face down is not)."""

    def __init__(self, state, action):
        self.state = state
        self.action = action
        try:
            self.cards = action_cards(state, action)
        except LookupError:
            self.cards = None
        self.full = state.action_text(action)
        self.known = knowledge(state, self.cards) if self.cards else {}

    def applied(self) -> None:
        if self.cards:
            after = knowledge(self.state, self.cards)
            self.known = {c: self.known[c] | after[c] for c in self.cards}

    def for_viewers(self, viewers: Sequence[int]) -> str:
        """The text as every one of ``viewers`` may read it."""
        if self.cards is None:
            return "a move"
        need = sum(1 << v for v in viewers)
        hidden = {c for c in self.cards if self.known[c] & need != need}
        return self.full if not hidden else _text_with_hidden(self.state, self.action, hidden)


# ---------------------------------------------------------------- the view
def _zone_label(zone: ZoneInfo) -> str:
    return {"hidden": f"{zone.name} (face down)", "owner": f"{zone.name} (owner only)"}.get(
        zone.visibility, zone.name)


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
    pvars = obs["player_vars"]
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

    if obs["vars"]:
        # wrapped by hand between the items, so that no "name = value" is split
        v = Text()
        v.append("vars:", style="bold")
        column = len("vars:")
        for i, (k, x) in enumerate(obs["vars"].items()):
            item = f"{k} = {_value(x, types.get(k))}" + ("," if i < len(obs["vars"]) - 1 else "")
            if column + 1 + len(item) > console_width and column > len("vars:"):
                v.append("\n     ")
                column = len("vars:")
            v.append(" " + item)
            column += 1 + len(item)
        parts.append(v)

    if recent:
        r = Text()
        r.append("Since your last turn:", style="bold")
        for line in recent:
            r.append("\n  " + line)
        parts.append(r)

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


# ---------------------------------------------------------------- the session
def _stdout_is_colour_terminal() -> bool:
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False
    return tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM", "") not in ("dumb", "unknown")


def _terminal_width() -> int:
    try:
        return max(40, min(os.get_terminal_size(sys.stdout.fileno()).columns, 140))
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        return 100


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


class _EndOfInput(Exception):
    pass


class Session:
    """One game with people at the terminal.  ``humans`` are 0-based seats;
    ``agents`` one bot per seat (the humans' are not used).  ``read(prompt)``
    returns a line or raises :class:`EOFError`; ``write(text)`` prints."""

    def __init__(self, state, humans: Sequence[int], agents: Sequence, *, title: str = "Game",
                 seed: int | None = None, read: Callable[[str], str] | None = None,
                 write: Callable[[str], None] | None = None, color: bool | None = None,
                 width: int | None = None, on_action: Callable[[int, str], None] | None = None):
        self.state = state
        self.humans = sorted(set(humans))
        self.agents = agents
        self.title = title
        self.seed = seed
        self.color = _stdout_is_colour_terminal() if color is None else color
        self.width = _terminal_width() if width is None else width
        self._read = read or self._read_stdin
        self._write = write or (lambda text: click.echo(text, nl=False))
        self.hotseat = len(self.humans) > 1
        self.logs = {h: [] for h in self.humans}  # seat -> [(number, mover, text)]
        self.moves = 0
        self.at_screen = None  # the human who last saw the screen
        self.on_action = on_action  # (seat, the action's full text), after each action: a saved game

    # ---- output and input
    def say(self, text: str = "") -> None:
        self._write(text + "\n")

    def _read_stdin(self, prompt: str) -> str:
        line = input(prompt)
        if not _stdin_is_terminal():  # a transcript shows what was answered
            self._write(line + "\n")
        return line

    def ask(self, prompt: str) -> str:
        try:
            return self._read(prompt)
        except EOFError:
            raise _EndOfInput from None

    def clear(self) -> None:
        if self.color:
            self._write("\033[H\033[2J\033[3J")
        else:
            self.say("\n" + "-" * min(self.width, 60))

    # ---- the game
    def run(self) -> int:
        """Play to the end, a ``quit`` or the end of input; returns 0.
        Raises :class:`DeadState`, ``RuleError``, ``KeyboardInterrupt``."""
        st = self.state
        try:
            while not st.is_terminal:
                seat = st.current_player
                legal = st.legal_actions()
                if not legal:
                    raise DeadState(self.moves, seat)
                if seat in self.humans:
                    action = self.human_turn(seat, legal)
                    if action is None:
                        self.say(f"Game ended by P{seat + 1} after {self._moves_text()}.")
                        return 0
                else:
                    action = ask(self.agents[seat], st, seat, legal)
                self.play(seat, action)
        except _EndOfInput:
            self.say("")
            self.say(f"End of input: game abandoned after {self._moves_text()}.")
            return 0
        self.finish()
        return 0

    def _moves_text(self) -> str:
        return f"{self.moves} action{'' if self.moves == 1 else 's'}"

    def play(self, seat: int, action) -> None:
        """Apply ``action`` and announce it; one made in secret (in a
        simultaneous round, ``state.is_secret``) is shown to the others as
        "P2 chose in secret" (logged with the text None)."""
        st = self.state
        is_secret = getattr(st, "is_secret", None)
        secret = bool(is_secret(action)) if is_secret is not None else False
        move = MoveText(st, action)
        text = st.action_text(action) if self.on_action is not None else None
        st.apply(action)
        move.applied()
        self.moves += 1
        if self.on_action is not None:
            self.on_action(seat, text)
        for h in self.humans:
            self.logs[h].append((self.moves, seat, None if secret and h != seat else move.for_viewers([h])))
        if seat in self.humans:
            self.say(f"P{seat + 1} (you): {move.for_viewers([seat])}")
        elif secret:
            self.say(f"P{seat + 1} {SECRET}")
        else:
            self.say(f"P{seat + 1}: {move.for_viewers(self.humans)}")

    def catch_up(self, texts) -> None:
        """Play again, silently, the actions (their texts) of a game resumed:
        each person's log of moves is as it was.  Raises ``IllegalAction``
        at the first that does not fit."""
        write, hook, self._write, self.on_action = self._write, self.on_action, (lambda text: None), None
        try:
            for text in texts:
                st = self.state
                found = next((a for a in st.legal_actions() if st.action_text(a) == text), None)
                if found is None:
                    from .runtime import IllegalAction
                    raise IllegalAction(f"no legal action reads {text!r}")
                self.play(st.current_player, found)
        finally:
            self._write, self.on_action = write, hook

    def view(self, seat: int) -> str:
        recent = ()
        if self.hotseat:
            log = self.logs[seat]
            last = max((i for i, (_, mover, _) in enumerate(log) if mover == seat), default=-1)
            recent = [self._log_line(entry, seat) for entry in log[last + 1:]]
        return render_view(self.state, seat, self.width, color=self.color, title=self.title,
                           recent=recent)

    def _log_line(self, entry, seat: int) -> str:
        number, mover, text = entry
        who = f"P{mover + 1}" + (" (you)" if mover == seat else "")
        return f"{number:4d}  {who} {SECRET}" if text is None else f"{number:4d}  {who}: {text}"

    def gate(self, seat: int) -> bool:
        """Clear the screen and wait for ``seat``'s player; False on quit."""
        self.clear()
        while True:
            answer = self.ask(f"Pass to player {seat + 1} (P{seat + 1}), then press Enter. ")
            word = answer.strip().lower()
            if COMMANDS.get(word) == "quit":
                return False
            if not word:
                return True
            self.say("Just press Enter (or type quit).")

    def human_turn(self, seat: int, legal: list):
        """Ask ``seat``'s player for an action; None if they quit."""
        st = self.state
        if self.hotseat and self.at_screen != seat:
            if not self.gate(seat):
                return None
            if self.color:
                self.clear()
        self.at_screen = seat
        texts = [visible_action_text(st, a, seat) for a in legal]
        self.say("")
        self._write(self.view(seat))
        prompt = f"P{seat + 1}, choose {_range(len(legal))} (or help): "
        while True:
            choice = parse_choice(self.ask(prompt), texts)
            if choice.index is not None:
                return legal[choice.index]
            if choice.error:
                self.say(choice.error)
            elif choice.command == "help":
                self.say(HELP.format(range=_range(len(legal)), example=_prefix_example(texts)))
            elif choice.command == "show":
                self._write(self.view(seat))
            elif choice.command == "log":
                log = self.logs[seat]
                if not log:
                    self.say("No moves yet.")
                for entry in log:
                    self.say(self._log_line(entry, seat))
            elif choice.command == "quit":
                return None
            elif choice.command == "card":
                self.say(self.card_text(choice.arg))

    def card_text(self, name: str) -> str:
        """The attributes of the card a person names (its name, or the start of one)."""
        m = self.state.m
        names = list(dict.fromkeys(m.card_names))
        low = name.lower()
        found = [n for n in names if n.lower() == low] or [n for n in names if n.lower().startswith(low)]
        if not found:
            return f"No card is named {name!r}."
        if len(found) > 1:
            return f"{name!r} could be: " + ", ".join(found[:12]) + (", ..." if len(found) > 12 else "")
        return m.card_description(m.card_names.index(found[0]))

    def finish(self) -> None:
        st = self.state
        if len(self.humans) == 1:
            self.say("")
            self._write(render_view(st, self.humans[0], self.width, color=self.color, title=self.title))
        self.say("")
        self.say(f"Game over after {self._moves_text()}.")
        scores = st.scores()
        self.say("Scores: " + ", ".join(f"P{p + 1} {_value(s)}" for p, s in enumerate(scores)))
        winners = st.winners()
        named = [f"P{w + 1}" + (" (you)" if w in self.humans else "") for w in winners]
        if not winners:
            self.say("No winner.")
        elif len(winners) == 1:
            self.say(f"Winner: {named[0]}")
        else:
            self.say("Winners: " + ", ".join(named) + " (shared win)")
        try:
            lines = record_lines(st)
        except RuleError as e:
            lines = [f"(the record cannot be computed: {e.message})"]
        if lines:
            self.say("Record:")
            for line in lines:
                self.say(f"  {line}")
        if self.seed is not None:
            self.say(f"Game seed: {self.seed}")


__all__ = ["render_view", "parse_choice", "Choice", "Session", "MoveText", "visible_action_text",
           "zone_layout", "action_cards", "DeadState", "HIDDEN_CARD"]
