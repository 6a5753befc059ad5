"""Shared work of the ``rulerun`` commands: loading a game and turning its
failures into :class:`~interpreter.cli.group._Failure`, setting up a state,
playing a game with bots, the progress line, and small text helpers.
"""

from __future__ import annotations

import random
import sys

import click

from typing import TYPE_CHECKING

from ..agents import ask, needs_knowledge
from ..runtime import DeadState, RuleError
from .group import DEFAULT_MAX_ACTIONS, _Failure, _TooLong, _usage_error

if TYPE_CHECKING:
    from ..game import Game

# The parser, the compiler and rich are imported where a command needs them,
# not here: ``rulerun --help`` and a mistyped option answer at once.


def _print_diagnostics(diags, text) -> None:
    """The diagnostics on stderr as ``check`` shows them: the first
    :data:`~rulelang.diagnostics.MAX_SHOWN_DIAGNOSTICS`, then "... and N more
    errors"; a long source line cut around its caret."""
    if diags:
        from rulelang.diagnostics import render_diagnostics
        click.echo(render_diagnostics(diags, text), err=True)


def _load_game(path: str, params: dict, coverage: bool = False, knowledge: bool = True) -> Game:
    """Load and compile with ``params``, turning every failure into a
    :class:`_Failure` (bad rules files print their diagnostics first).
    ``coverage``: count each rule's passes (:mod:`interpreter.usage`);
    ``knowledge=False``: for bots that read nothing of it (see
    :func:`bots_need_knowledge`)."""
    from rulelang.diagnostics import RulesError

    from ..compiler import ParamError
    from ..game import load
    try:
        return load(path, params, coverage=coverage, knowledge=knowledge)  # (a dict: any parameter's name)
    except RulesError as e:
        click.echo(e.render(), err=True)
        raise _Failure(f"{path} has {_plural(len(e.diagnostics), 'error')}", 1) from None
    except ParamError as e:
        raise _usage_error(str(e)) from None
    except RuleError as e:
        raise _rule_failure(e, path) from None
    except OSError as e:
        raise _usage_error(f"cannot read {path}: {e.strerror or e}") from None


def _dead_state_failure(e, seed: int) -> _Failure:
    count, seat = e.args
    return _Failure(f"the game is not over after {_plural(count, 'action')}, but P{seat + 1} has no legal "
                    f"action (game seed {seed})", 1, kind="dead state")


def _rule_failure(e: RuleError, path: str, where: str = "") -> _Failure:
    span = e.span if e.span is not None else path
    return _Failure(f"{span}: {e.message}{where}", 1, kind="rule error")


def _num_players(game: Game, players: int | None) -> int:
    n = game.min_players if players is None else players
    lo, hi = game.min_players, game.max_players
    if not lo <= n <= hi:
        allowed = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise _usage_error(f"{game.title} is for {allowed} players, not {n}")
    return n


def _new_state(game: Game, seed: int, players: int, path: str):
    from ..compiler import ParamError
    try:
        return game.new_state(seed, players)
    except ParamError as e:  # a value out of its range for this player count
        raise _usage_error(str(e)) from None
    except ValueError as e:  # a player count the game does not allow
        raise _usage_error(str(e)) from None
    except RuleError as e:
        raise _rule_failure(e, path, f" (before the first decision, game seed {seed})") from None


def _seed(seed: int | None) -> int:
    return random.SystemRandom().randrange(1 << 31) if seed is None else seed


def make_agents(game_seed: int, players: int, bots=None) -> list:
    """One bot per seat, each with its own RNG seeded from the game seed and
    the seat, so a game replays exactly from its seed.  ``bots``: {seat
    (0-based): kind} for the seats not played at random (see
    :func:`interpreter.bots.make_bot`)."""
    from ..agents import RandomAgent
    if not bots:
        return [RandomAgent(f"{game_seed}:{seat}") for seat in range(players)]
    from ..bots import make_bot
    return [make_bot(bots.get(seat, "random"), f"{game_seed}:{seat}") for seat in range(players)]


def bots_need_knowledge(bots=None) -> bool:
    """Does one of these bots (``bots`` as :func:`make_agents` takes them)
    read an observation or sample what its seat knows?  If not, the games
    are loaded without keeping who knows which card: the same games, faster."""
    from ..bots import make_bot
    return any(needs_knowledge(make_bot(kind, 0)) for kind in (bots or {}).values())


def play(state, agents, max_actions: int = DEFAULT_MAX_ACTIONS, on_action=None, chance_rng=None,
         record=None) -> int:
    """Play ``state`` to the end with ``agents`` (one per seat); returns the
    number of actions.  ``on_action(number, seat, text)`` is called before
    each action is applied.  Chance nodes only occur in games loaded with
    ``explicit_chance=True``; ``chance_rng`` (a ``random.Random``) then
    resolves them uniformly, and they are not counted as actions.
    ``record(seat, text)`` gets every action's own text (a game log)."""
    n = 0
    # a bot that picks by index (one that reads nothing of the game: RandomAgent) is asked for it
    by_index = [None if needs_knowledge(a) else getattr(a, "choose_index", None) for a in agents]
    while not state.is_terminal:
        if state.is_chance_node:
            if chance_rng is None:
                raise ValueError("a chance node, and no chance_rng to resolve it")
            outcomes = state.chance_outcomes()
            state.apply(outcomes[chance_rng.randrange(len(outcomes))][0])
            continue
        if n >= max_actions:
            raise _TooLong(n)
        seat = state.current_player
        legal = state.legal_actions()
        if not legal:
            raise DeadState(n, seat)
        pick = by_index[seat]
        if pick is not None:
            i = pick(legal)
            action = legal[i]
        else:
            i, action = None, ask(agents[seat], state, seat, legal)
        n += 1
        if on_action is not None:  # a secret choice is not told until it takes effect
            on_action(n, seat, "chooses in secret" if state.is_secret(action) else state.action_text(action))
        if record is not None:  # a game log: the action itself, secret or not
            record(seat, state.action_text(action))
        if i is None:
            state.apply(action)
        else:
            state.apply_at(i)
    return n


def _play_reported(state, agents, max_actions, path, seed, on_action=None, record=None) -> int:
    """:func:`play`, with its failures turned into :class:`_Failure`."""
    try:
        return play(state, agents, max_actions, on_action, record=record)
    except RuleError as e:
        raise _rule_failure(e, path, f" (game seed {seed}, after {_plural(len(state.history), 'action')})") from None
    except DeadState as e:
        raise _dead_state_failure(e, seed) from None
    except _TooLong as e:
        raise _Failure(f"the game has not ended after {_plural(e.args[0], 'action')} (game seed {seed}); "
                       "see --max-actions", 1) from None


def _record_lines(state, path) -> list:
    """The game's record as text (see :mod:`interpreter.record`)."""
    from ..record import record_lines
    try:
        return record_lines(state)
    except RuleError as e:
        raise _rule_failure(e, path) from None


def _game_record(state, path) -> dict:
    from ..record import game_record
    try:
        return game_record(state)
    except RuleError as e:
        raise _rule_failure(e, path) from None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _value_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _params_text(params: dict) -> str:
    return " ".join(f"{k}={_value_text(v)}" for k, v in params.items()) or "(none)"


def _seats(values, fmt="{}") -> str:
    return ", ".join(f"P{i + 1} " + fmt.format(v) for i, v in enumerate(values))


def _progress(what, silent, unit="games"):
    """A live line on stderr while a long job runs (only on a terminal)."""
    if silent or not sys.stderr.isatty():
        return None, lambda: None
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    live = Live(Text(f"{what}..."), console=Console(stderr=True), transient=True, refresh_per_second=4)
    live.start()

    def update(count, actions):
        extra = f", {actions} actions" if actions else ""
        live.update(Text(f"{what}: {count} {unit}{extra}"))
    return update, live.stop
