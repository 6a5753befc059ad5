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
from typing import Callable, Sequence

import click

from .agents import ask
from .play_grid import value_text as _value
from .play_input import COMMANDS, HELP, Choice, _prefix_example, _range, parse_choice  # noqa: F401 - re-exported
from .play_view import (HIDDEN_CARD, SECRET, ZoneInfo, _text_with_hidden, action_cards,  # noqa: F401 - re-exported
                        knowledge, render_view, visible_action_text, zone_layout)
from .record import record_lines
from .runtime import DeadState, RuleError

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

    def human_turn(self, seat: int, legal: tuple):
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


__all__ = ["ZoneInfo", "render_view", "parse_choice", "Choice", "Session", "MoveText", "visible_action_text",
           "zone_layout", "action_cards", "DeadState", "HIDDEN_CARD"]
