"""``rulerun``: check, play and simulate rules files from the command line.

    rulerun FILE [--players N] [--seed S] [--set NAME=VALUE ...] [--quiet]
    rulerun play FILE [--players N] [--human SEAT ...] [--seed S] [--set ...]
    rulerun check FILE
    rulerun simulate FILE -n N [--players N] [--seed S] [--set ...] [--json]
    rulerun params FILE
    rulerun fuzz FILE [--players N|all] [--examples N] [--max-actions K] [--vary PARAM ...]
                      [--seed S] [--json] [--out DIR]
    rulerun replay REPLAY_FILE
    rulerun explore FILE [--players N] [--max-states N] [--set ...]

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
from .static import check_machine

PROG = "rulerun"
DEFAULT_COMMAND = "run"
DEFAULT_MAX_ACTIONS = 100_000
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# ---------------------------------------------------------------- errors
class _Failure(Exception):
    """A reported failure: ``rulerun: KIND: message`` on stderr, then exit."""

    def __init__(self, message: str, code: int, kind: str = "error", quiet: bool = False):
        super().__init__(message)
        self.message = message
        self.code = code
        self.kind = kind
        self.quiet = quiet  # the output already says it all: just exit


def _usage_error(message: str) -> _Failure:
    return _Failure(message, 2)


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
            if not f.quiet:
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
      rulerun fuzz FILE            search for dead states, endless games, rule errors
      rulerun replay REPLAY_FILE   re-run a finding saved by 'fuzz --out'
      rulerun explore FILE         walk every position of a small game

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
            raise DeadState(n, seat)
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
    except DeadState as e:
        raise _dead_state_failure(e, seed) from None
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
    warnings = list(diags)
    try:
        machine = compile_game(checked)
    except (RuleError, ParamError):  # pragma: no cover - reported just above
        machine = None
    if machine is not None:
        static = check_machine(machine)
        _print_diagnostics(static, text)
        warnings += static
    click.echo(f"{file}: ok" + (f" ({_plural(len(warnings), 'warning')})" if warnings else ""))


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
        raise _dead_state_failure(e, seed) from None


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


# ---------------------------------------------------------------- fuzzing
@cli.command("fuzz")
@click.argument("file", type=RULES_FILE)
@click.option("--players", "-p", default="all", show_default=True,
              help="A player count, or 'all' for every count the game allows.")
@click.option("--examples", type=click.IntRange(min=1), default=100, show_default=True,
              help="Games per search (each kind of finding gets its own search).")
@click.option("--max-actions", type=click.IntRange(min=1), default=5000, show_default=True,
              help="A game longer than this is reported as endless.")
@click.option("--vary", multiple=True, metavar="PARAM",
              help="Draw this parameter within its declared range (repeatable).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the search.")
@click.option("--set", "params", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
              help="Fix a game parameter or option (repeatable).")
@click.option("--no-cycles", is_flag=True, help="Do not look for repeated positions (faster).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: the whole report.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Write a replay file for each finding into this folder.")
def fuzz_cmd(file, players, examples, max_actions, vary, seed, params, no_cycles, as_json, out):
    """Search for dead states, endless games, broken invariants and rule errors.

    Plays many games with choices drawn by Hypothesis, checks every step,
    shrinks each finding to a short list of actions, and reports what in
    the rules never ran.  Exits 0 with no finding, 1 with findings.

    \b
    Examples:
      rulerun fuzz games/fox_in_the_henhouse.rules --examples 300
      rulerun fuzz games/emu_ranchers.rules --vary excuse --vary pawns --out findings/
      rulerun replay findings/emu_ranchers-dead_state-2p-17.json
    """
    from .fuzz import fuzz, save_replay

    game = _load_game(file, params)  # reports bad files and parameters first
    if players != "all":
        try:
            players = int(players)
        except ValueError:
            raise _usage_error(f"--players takes a number or 'all', not {players!r}") from None
        _num_players(game, players)
    progress, stop = _progress("fuzzing", as_json)
    try:
        report = fuzz(file, players=players, examples=examples, max_actions=max_actions, vary=vary,
                      seed=seed, params=params, progress=progress, check_cycles=not no_cycles)
    except ValueError as e:
        raise _usage_error(str(e)) from None
    except RuleError as e:
        raise _rule_failure(e, file) from None
    finally:
        stop()
    replays = [str(save_replay(f, file, out)) for f in report.findings] if out else []
    if as_json:
        d = report.to_dict()
        d["replays"] = replays
        click.echo(json.dumps(d))
    else:
        click.echo(f"{game.title} ({file}): {report.games} games, {report.actions} actions in "
                   f"{report.seconds:.1f} s ({report.actions_per_s:.0f} actions/s)")
        if not report.findings:
            click.echo("no finding")
        for i, f in enumerate(report.findings):
            click.echo("")
            click.echo(f"finding {i + 1}: {f.kind}: {f.message}")
            if f.where:
                click.echo(f"  at {f.where}")
            click.echo(f"  players {f.players}, seed {f.seed}" + (f", {_params_text(f.params)}" if f.params else ""))
            for k, text in enumerate(f.actions, 1):
                mark = "  <- the position repeats from here" if f.loop_from is not None and k == f.loop_from + 1 else ""
                click.echo(f"  {k:4}  {text}{mark}")
            if replays:
                click.echo(f"  replay: rulerun replay {replays[i]}")
        if report.unused:
            click.echo("")
            click.echo("never happened in these games (dead rules, or rules that need other parameters):")
            for u in report.unused:
                click.echo(f"  {u}")
    if report.findings:
        raise _Failure(f"{_plural(len(report.findings), 'finding')}", 1, quiet=True)


@cli.command("replay")
@click.argument("replay_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--rules", type=RULES_FILE, default=None,
              help="The rules file (default: the one the replay names).")
@click.option("--quiet", "-q", is_flag=True, help="Do not print each action.")
def replay_cmd(replay_file, rules, quiet):
    """Re-run a finding saved by 'rulerun fuzz --out' and show the state at it.

    Exits 1 if the finding happens again, 0 if it does not (fixed rules).

    \b
    Example:
      rulerun replay findings/emu_ranchers-dead_state-2p-17.json
    """
    from pathlib import Path

    from .fuzz import ReplayError, load_replay

    try:
        rules_file, f = load_replay(replay_file)
    except ReplayError as e:
        raise _usage_error(str(e)) from None
    if rules is None:
        candidates = [Path(rules_file), Path(replay_file).parent / rules_file]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise _usage_error(f"cannot find the rules file {rules_file!r}; give it with --rules FILE")
        rules = str(found)
    game = _load_game(rules, {k: str(v) for k, v in f.params.items()})
    state = _new_state(game, f.seed, _num_players(game, f.players), rules)
    click.echo(f"{game.title} ({rules}): replaying {f.kind}, players {f.players}, seed {f.seed}")
    seen = {state.key(): 0}
    again = None
    for k, text in enumerate(f.actions, 1):
        who = "chance" if state.current_player < 0 else f"P{state.current_player + 1}"
        if not quiet:
            click.echo(f"  {k:4}  {who}: {text}")
        legal = {state.action_text(a): a for a in state.legal_actions()}
        if text not in legal:
            raise _Failure(f"the replay does not fit these rules: action {k}, {text!r}, is not legal here", 1)
        try:
            state.apply(legal[text])
        except RuleError as e:
            again = ("rule_error", f"{e.span}: {e.message}" if e.span else e.message)
            break
        key = state.key()
        if key in seen and again is None:
            again = ("cycle", f"the position after action {seen[key]} came back after action {k}")
        seen.setdefault(key, k)
    click.echo("")
    click.echo("the state at the finding (every card, hidden or not):")
    for line in state.debug_text().splitlines():
        click.echo(f"  {line}")
    if again is None:
        broken = state.m.broken_invariants(state)
        if broken:
            message, span = broken[0]
            again = ("invariant", f"{span}: {message}" if span else message)
        elif not state.is_terminal:
            try:
                if not state.legal_actions():
                    again = ("dead_state", f"player {state.current_player + 1} is to move but has no legal action")
            except RuleError as e:
                again = ("rule_error", f"{e.span}: {e.message}" if e.span else e.message)
        if again is None and f.kind == "endless" and not state.is_terminal:
            again = ("endless", f"after {len(f.actions)} actions the game has not ended")
    click.echo("")
    if again is None:
        click.echo(f"not reproduced: the recorded {f.kind} does not happen with these rules")
        return
    click.echo(f"reproduced: {again[0]}: {again[1]}")
    raise _Failure("the finding happens again", 1, quiet=True)


@cli.command("explore")
@click.argument("file", type=RULES_FILE)
@click.option("--players", "-p", type=int, default=None, help="Number of players (default: the fewest).")
@click.option("--max-states", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Stop after this many distinct positions.")
@click.option("--set", "params", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
              help="Set a game parameter (e.g. one that makes the deck smaller).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def explore_cmd(file, players, max_states, params, as_json):
    """Walk every reachable position of a small game, chance included.

    Within the bound this proves there is no dead state, or shows the
    shortest way into one.  Exits 1 if a dead state or a rule error is
    found, else 0.

    \b
    Example:
      rulerun explore games/fox_in_the_henhouse.rules --players 2 --set seasons=1 --set days=1
    """
    from .explore import explore

    game = _load_game(file, params)
    n = _num_players(game, players)
    progress, stop = _progress("exploring", as_json, unit="positions")
    try:
        r = explore(file, n, max_states, params, progress=progress and (lambda k: progress(k, 0)))
    finally:
        stop()
    if as_json:
        click.echo(json.dumps(r.to_dict()))
    else:
        click.echo(f"{game.title} ({file}), {n} players: {r.states} positions ({r.terminal} final), "
                   f"{r.edges} moves, depth {r.depth}, in {r.seconds:.1f} s ({r.states_per_s:.0f} positions/s)")
        for path in r.dead_states:
            click.echo("dead state after: " + (" / ".join(path) or "the start"))
        for message, where, path in r.rule_errors:
            click.echo(f"rule error{' at ' + where if where else ''}: {message}")
            click.echo("  after: " + (" / ".join(path) or "the start"))
        if not r.dead_states and not r.rule_errors:
            if r.complete:
                click.echo(f"proved: none of the {r.states} reachable positions is a dead state")
            else:
                click.echo(f"no dead state among the first {r.states} positions (the bound was reached; "
                           "raise --max-states or make the game smaller with --set)")
    if r.dead_states or r.rule_errors:
        raise _Failure("dead states or rule errors found", 1, quiet=True)


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


def main(argv=None):
    """The ``rulerun`` console script."""
    cli.main(args=argv, prog_name=PROG)


if __name__ == "__main__":
    main()
