"""``rulerun``: check, play and simulate rules files from the command line.

    rulerun FILE [--players N] [--seed S] [--set NAME=VALUE ...] [--quiet]
    rulerun play FILE [--players N] [--human SEAT ...] [--seed S] [--set ...]
    rulerun check FILE
    rulerun simulate FILE -n N [--players N] [--seed S] [--set ...] [--json]
    rulerun params FILE

``rulerun FILE`` is short for ``rulerun run FILE``: when the first argument
is not a command name it is taken as the file of the default ``run``
command.  (A rules file literally named like a command can be given as
``./check`` or ``rulerun run check``.)

Exit codes: 0 success; 1 a rules file with errors, a rule error at play
time, a dead state or a game that does not end; 2 bad input (a missing or
unreadable file, a bad option or parameter, a player count the game does not
allow); 130 interrupted.  Errors are one line on stderr, ``rulerun: error:
...``; the diagnostics of a bad rules file are printed as ``check`` does.

Bots only see the legal actions and their own observation: see
:mod:`interpreter.agents`.  ``play`` (people against bots at the terminal)
is wired here; the session itself is :mod:`interpreter.play`.
"""

from __future__ import annotations

import json
import random
import sys
import time

import click

import rulelang
from rulelang.diagnostics import RulesError

from .agents import RandomAgent
from .compiler import ParamError, compile_game
from .game import Game, load
from .play import DeadState, Session
from .runtime import RuleError

PROG = "rulerun"
DEFAULT_COMMAND = "run"
DEFAULT_MAX_ACTIONS = 100_000
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# ---------------------------------------------------------------- errors
class _Failure(Exception):
    """A reported failure: ``rulerun: KIND: message`` on stderr, then exit."""

    def __init__(self, message: str, code: int, kind: str = "error"):
        super().__init__(message)
        self.message = message
        self.code = code
        self.kind = kind


def _usage_error(message: str) -> _Failure:
    return _Failure(message, 2)


class _DeadState(Exception):
    pass


class _TooLong(Exception):
    pass


# ---------------------------------------------------------------- the group
class DefaultCommandGroup(click.Group):
    """A group that runs ``DEFAULT_COMMAND`` when the first argument is not
    one of its commands (so ``rulerun FILE`` means ``rulerun run FILE``), and
    that reports every error on one line instead of a usage block."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = [DEFAULT_COMMAND, *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx, formatter):
        formatter.write_usage(ctx.command_path, "FILE [OPTIONS]")
        formatter.write_usage(ctx.command_path, "COMMAND [ARGS]...", prefix="   or: ")

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            try:
                rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            except KeyboardInterrupt:  # outside click's own guard
                raise click.Abort() from None
        except _Failure as f:
            if not standalone_mode:
                raise
            click.echo(f"{PROG}: {f.kind}: {f.message}", err=True)
            sys.exit(f.code)
        except click.exceptions.NoArgsIsHelpError as e:
            if not standalone_mode:
                raise
            click.echo(e.ctx.get_help())
            sys.exit(0)
        except click.ClickException as e:
            if not standalone_mode:
                raise
            message = e.format_message()
            if isinstance(e, click.UsageError) and e.ctx is not None:
                message += f" (see '{e.ctx.command_path} --help')"
            click.echo(f"{PROG}: error: {message}", err=True)
            sys.exit(2 if isinstance(e, click.UsageError) else e.exit_code)
        except click.Abort:
            if not standalone_mode:
                raise
            click.echo(f"{PROG}: interrupted", err=True)
            sys.exit(130)
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else 0)
        return rv


@click.group(name=PROG, cls=DefaultCommandGroup, context_settings=CONTEXT_SETTINGS)
def cli():
    """Check, play and simulate card games written in rulelang.

    \b
      rulerun FILE [OPTIONS]       play one game with random bots
                                   (short for 'rulerun run FILE')
      rulerun play FILE [OPTIONS]  play a game yourself against bots
      rulerun check FILE           check a rules file for errors
      rulerun simulate FILE -n N   play N games, report statistics
      rulerun params FILE          list the parameters a game declares

    Run 'rulerun COMMAND --help' for the options of a command.

    \b
    Examples:
      rulerun games/emu_ranchers.rules --seed 7
      rulerun games/emu_ranchers.rules --set years=2 --set excuse=true
      rulerun play games/fox_in_the_henhouse.rules --players 3 --human 1
      rulerun check games/emu_ranchers.rules
      rulerun simulate games/emu_ranchers.rules -n 200 --json
    """


# ---------------------------------------------------------------- options
RULES_FILE = click.Path(exists=True, dir_okay=False, readable=True)


def _parse_sets(ctx, param, values) -> dict:
    params = {}
    for item in values:
        name, eq, value = item.partition("=")
        name = name.strip()
        if not eq or not name:
            raise click.BadParameter(f"expected NAME=VALUE, not {item!r}", ctx, param)
        params[name] = value.strip()
    return params


def game_options(f):
    """--players, --seed and --set, shared by run, play and simulate."""
    f = click.option("--set", "params", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
                     help="Set a game parameter or option (repeatable); "
                          "'rulerun params FILE' lists them.")(f)
    f = click.option("--seed", "-s", type=int, default=None,
                     help="Game seed (default: a random one, shown in the output).")(f)
    f = click.option("--players", "-p", type=int, default=None,
                     help="Number of players (default: the fewest the game allows).")(f)
    return f


def max_actions_option(f):
    return click.option("--max-actions", type=click.IntRange(min=1), default=DEFAULT_MAX_ACTIONS,
                        show_default=True,
                        help="Give up (exit 1) on a game that has not ended after this many actions.")(f)


# ---------------------------------------------------------------- helpers
def _print_diagnostics(diags, text) -> None:
    for d in diags:
        click.echo(d.render(text), err=True)


def _load_game(path: str, params: dict) -> Game:
    """Load and compile with ``params``, turning every failure into a
    :class:`_Failure` (bad rules files print their diagnostics first)."""
    try:
        if "path" in params or "explicit_chance" in params:
            # these names would collide with load()'s own arguments
            return load(path).with_params(**params)
        return load(path, **params)
    except RulesError as e:
        click.echo(e.render(), err=True)
        raise _Failure(f"{path} has {_plural(len(e.diagnostics), 'error')}", 1) from None
    except ParamError as e:
        raise _usage_error(str(e)) from None
    except RuleError as e:
        raise _rule_failure(e, path) from None
    except OSError as e:
        raise _usage_error(f"cannot read {path}: {e.strerror or e}") from None


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
    try:
        return game.new_state(seed, players)
    except ValueError as e:  # a player count the game does not allow
        raise _usage_error(str(e)) from None
    except RuleError as e:
        raise _rule_failure(e, path, f" (before the first decision, game seed {seed})") from None


def _seed(seed: int | None) -> int:
    return random.SystemRandom().randrange(1 << 31) if seed is None else seed


def make_agents(game_seed: int, players: int) -> list:
    """One bot per seat, each with its own RNG seeded from the game seed and
    the seat, so a game replays exactly from its seed."""
    return [RandomAgent(f"{game_seed}:{seat}") for seat in range(players)]


def play(state, agents, max_actions: int = DEFAULT_MAX_ACTIONS, on_action=None, chance_rng=None) -> int:
    """Play ``state`` to the end with ``agents`` (one per seat); returns the
    number of actions.  ``on_action(number, seat, text)`` is called before
    each action is applied.  Chance nodes only occur in games loaded with
    ``explicit_chance=True``; ``chance_rng`` (a ``random.Random``) then
    resolves them uniformly, and they are not counted as actions."""
    n = 0
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
            raise _DeadState(n, seat)
        agent = agents[seat]
        obs = state.observation(seat) if getattr(agent, "needs_observation", True) else None
        action = agent.choose(legal, obs)
        n += 1
        if on_action is not None:
            on_action(n, seat, state.action_text(action))
        state.apply(action)
    return n


def _play_reported(state, agents, max_actions, path, seed, on_action=None) -> int:
    """:func:`play`, with its failures turned into :class:`_Failure`."""
    try:
        return play(state, agents, max_actions, on_action)
    except RuleError as e:
        raise _rule_failure(e, path, f" (game seed {seed}, after {_plural(len(state.history), 'action')})") from None
    except _DeadState as e:
        n, seat = e.args
        raise _Failure(f"the game is not over after {_plural(n, 'action')}, but P{seat + 1} has no legal action "
                       f"(game seed {seed})", 1, kind="dead state") from None
    except _TooLong as e:
        raise _Failure(f"the game has not ended after {_plural(e.args[0], 'action')} (game seed {seed}); "
                       "see --max-actions", 1) from None


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


# ---------------------------------------------------------------- commands
@cli.command("check")
@click.argument("file", type=RULES_FILE)
def check_cmd(file):
    """Check a rules file: syntax, names, types; then compile it.

    Prints each problem as FILE:LINE:COL with the source line to stderr.
    Exits 0 and prints 'FILE: ok' if there are no errors (warnings are
    shown but allowed), 1 if there are errors.

    \b
    Example:
      rulerun check games/emu_ranchers.rules
    """
    try:
        checked, diags, text = rulelang.check_file(file)
    except OSError as e:
        raise _usage_error(f"cannot read {file}: {e.strerror or e}") from None
    _print_diagnostics(diags, text)
    errors = [d for d in diags if d.severity == "error"]
    if errors or checked is None:
        raise _Failure(f"{file} has {_plural(max(len(errors), 1), 'error')}", 1)
    try:
        compile_game(checked)
    except RuleError as e:
        click.echo(f"{e.span if e.span is not None else file}: error: {e.message}", err=True)
        raise _Failure(f"{file} does not compile", 1) from None
    except ParamError as e:
        click.echo(f"{file}: error: {e}", err=True)
        raise _Failure(f"{file} does not compile", 1) from None
    click.echo(f"{file}: ok" + (f" ({_plural(len(diags), 'warning')})" if diags else ""))


@cli.command("run")
@click.argument("file", type=RULES_FILE)
@game_options
@click.option("--quiet", "-q", is_flag=True, help="Do not print each action; only the header and the result.")
@max_actions_option
def run_cmd(file, players, seed, params, quiet, max_actions):
    """Play one whole game with random bots and print it.

    Each seat is played by its own random bot, seeded from the game seed and
    the seat, so the same seed replays the same game.  Shuffles and other
    chance events are resolved by the game's own seeded generator: the log
    shows only the players' decisions, one line each.  At the end it prints
    the scores and the winner(s); a tie on everything is a shared win.

    'rulerun FILE ...' is short for 'rulerun run FILE ...'.

    \b
    Examples:
      rulerun games/emu_ranchers.rules --seed 7
      rulerun games/emu_ranchers.rules --seed 7 --set pawns=true --quiet
    """
    game = _load_game(file, params)
    n = _num_players(game, players)
    seed = _seed(seed)
    state = _new_state(game, seed, n, file)
    click.echo(f"{game.title} ({file})")
    click.echo(f"players: {n}  seed: {seed}")
    click.echo(f"params: {_params_text(game.params)}")
    click.echo("")

    def log(number, seat, text):
        click.echo(f"{number:4d}  P{seat + 1}: {text}")

    count = _play_reported(state, make_agents(seed, n), max_actions, file, seed, None if quiet else log)
    if not quiet:
        click.echo("")
    click.echo(f"game over after {_plural(count, 'action')}")
    click.echo(f"scores: {_seats(state.scores())}")
    winners = state.winners()
    if not winners:
        click.echo("no winner")
    elif len(winners) == 1:
        click.echo(f"winner: P{winners[0] + 1}")
    else:
        click.echo("winners: " + ", ".join(f"P{w + 1}" for w in winners) + " (shared win)")


@cli.command("play")
@click.argument("file", type=RULES_FILE)
@game_options
@click.option("--human", "humans", type=click.IntRange(min=1), multiple=True, metavar="SEAT",
              help="A seat (1-based) played by a person at the terminal (repeatable; default: 1).")
def play_cmd(file, players, seed, params, humans):
    """Play a game yourself: people at the terminal against random bots.

    The seats given with --human are played by people, the others by random
    bots (seeded as in 'run').  On your turn you see only what your seat may
    see: your cards, the others' visible cards, how many cards lie face down,
    the variables; then your legal actions, numbered.  Answer with a number
    or the text of an action (any case; its start is enough when only one
    action begins that way).  Commands: help, show, log, quit.

    With several people at one terminal the screen is cleared and a "pass
    to player N" gate shown between different people's turns.

    A random game seed is printed only when the game is over (knowing it
    would let a player replay the shuffles).

    Exit codes: 0 at the end of the game, on quit or at the end of input;
    1 a rule error or a dead state; 2 bad input; 130 on Ctrl-C.

    \b
    Examples:
      rulerun play games/emu_ranchers.rules
      rulerun play games/fox_in_the_henhouse.rules --players 3 --human 2
      rulerun play games/fox_in_the_henhouse.rules --players 4 --human 1 --human 3
    """
    game = _load_game(file, params)
    n = _num_players(game, players)
    seats = sorted(set(humans or (1,)))
    for s in seats:
        if s > n:
            raise _usage_error(f"--human {s}: there is no seat {s} in a {n}-player game "
                               f"(seats are 1 to {n})")
    given = seed is not None
    seed = _seed(seed)
    state = _new_state(game, seed, n, file)
    human = [s - 1 for s in seats]
    bots = [p for p in range(n) if p not in human]
    click.echo(f"{game.title} ({file})")
    click.echo(f"players: {n}  you: {', '.join(f'P{p + 1}' for p in human)}  "
               f"bots: {', '.join(f'P{p + 1}' for p in bots) or 'none'}"
               + (f"  seed: {seed}" if given else ""))
    click.echo(f"params: {_params_text(game.params)}")
    click.echo("Type help at the prompt for how to answer.")
    session = Session(state, human, make_agents(seed, n), title=game.title, seed=seed)
    try:
        return session.run()
    except RuleError as e:
        raise _rule_failure(e, file, f" (game seed {seed}, after {_plural(len(state.history), 'action')})") from None
    except DeadState as e:
        count, seat = e.args
        raise _Failure(f"the game is not over after {_plural(count, 'action')}, but P{seat + 1} has no legal "
                       f"action (game seed {seed})", 1, kind="dead state") from None


@cli.command("simulate")
@click.argument("file", type=RULES_FILE)
@click.option("-n", "--games", "games", type=click.IntRange(min=1), required=True,
              help="Number of games to play.")
@game_options
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: games, players, seed, mean_actions, wins_per_seat, "
                   "mean_scores, games_per_s, params.")
@max_actions_option
def simulate_cmd(file, games, players, seed, params, as_json, max_actions):
    """Play many games with random bots and report statistics.

    Game i (from 0) uses game seed SEED+i, and its bots are seeded from that
    game seed and their seat, so a run is reproducible from SEED.  Reports
    the mean number of actions per game, the wins per seat (a win shared by
    k players counts 1/k for each), the mean score per seat and the speed.

    \b
    Examples:
      rulerun simulate games/emu_ranchers.rules -n 500 --seed 1
      rulerun simulate games/emu_ranchers.rules -n 100 --set years=1 --json
    """
    game = _load_game(file, params)
    n = _num_players(game, players)
    seed = _seed(seed)
    wins = [0.0] * n
    score_sums = [0.0] * n
    total_actions = 0
    start = time.perf_counter()
    for i in range(games):
        game_seed = seed + i
        state = _new_state(game, game_seed, n, file)
        total_actions += _play_reported(state, make_agents(game_seed, n), max_actions, file, game_seed)
        winners = state.winners()
        for w in winners:
            wins[w] += 1 / len(winners)
        for p, r in enumerate(state.returns()):
            score_sums[p] += r
    elapsed = time.perf_counter() - start
    per_s = games / elapsed if elapsed > 0 else float("inf")
    mean_actions = total_actions / games
    mean_scores = [s / games for s in score_sums]

    if as_json:
        click.echo(json.dumps({
            "games": games,
            "players": n,
            "seed": seed,
            "mean_actions": mean_actions,
            "wins_per_seat": [round(w, 9) for w in wins],
            "mean_scores": mean_scores,
            "games_per_s": round(per_s, 3) if per_s != float("inf") else None,
            "params": game.params,
        }, indent=2))
        return
    click.echo(f"{game.title} ({file}): {games} games, {n} players, seeds {seed}..{seed + games - 1}")
    click.echo(f"params: {_params_text(game.params)}")
    click.echo(f"mean actions per game: {mean_actions:.1f}")
    click.echo("")
    click.echo(f"{'seat':<6}{'wins':>10}{'win %':>9}{'mean score':>14}")
    for p in range(n):
        click.echo(f"{'P' + str(p + 1):<6}{wins[p]:>10.2f}{100 * wins[p] / games:>8.1f}%{mean_scores[p]:>14.2f}")
    click.echo("")
    click.echo(f"{games} games in {elapsed:.2f} s ({per_s:.1f} games/s)")


@cli.command("params")
@click.argument("file", type=RULES_FILE)
def params_cmd(file):
    """List the parameters and options a rules file declares.

    Shows each one's name, kind (param or option), type, default value and
    description.  Change them with --set NAME=VALUE when running or
    simulating.

    \b
    Example:
      rulerun params games/emu_ranchers.rules
    """
    game = _load_game(file, {})
    info = game.param_info()
    if not info:
        click.echo(f"{game.title} ({file}) declares no parameters")
        return
    rows = [("name", "kind", "type", "default", "description")]
    rows += [(name, kind, str(typ), _value_text(value), doc or "") for name, kind, typ, value, doc in info]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    click.echo(f"{game.title} ({file}): set with --set NAME=VALUE")
    click.echo("")
    for r in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4])


def main(argv=None):
    """The ``rulerun`` console script."""
    cli.main(args=argv, prog_name=PROG)


if __name__ == "__main__":
    main()
