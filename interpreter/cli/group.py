"""The ``rulerun`` click group: the command group itself (with its default
``run`` command and one-line error reporting), the failures commands raise,
and the options several commands share.
"""

from __future__ import annotations

import os
import sys

import click

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
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names \
                and args[0] != "--version":
            first = args[0]
            if not first.startswith("-") and not os.path.exists(first) and "." not in os.path.basename(first):
                import difflib
                near = difflib.get_close_matches(first, self.commands, n=1, cutoff=0.6)
                if near:  # a mistyped command, not a file
                    raise _usage_error(f"no command or file {first!r}: did you mean 'rulerun {near[0]}'? "
                                       f"(commands: {', '.join(sorted(self.commands))})")
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
        except Exception as e:  # a bug of rulerun itself: one line, not a traceback
            if not standalone_mode or os.environ.get("RULERUN_DEBUG"):
                raise
            from ..runtime import RuleError
            if isinstance(e, RuleError):  # a rule that cannot be carried out, met where no command expected it
                click.echo(f"{PROG}: rule error: {e.span or 'in the rules'}: {e.message}", err=True)
                sys.exit(1)
            click.echo(f"{PROG}: internal error: {type(e).__name__}: {e}. This is a bug in {PROG}, not in "
                       f"your rules; please report it with the command you ran "
                       f"(RULERUN_DEBUG=1 shows the traceback)", err=True)
            sys.exit(70)
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else 0)
        return rv


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("rulelang")
    except PackageNotFoundError:  # run from a checkout that is not installed
        return "unknown (not installed)"


def _print_version(ctx, param, value):
    if value and not ctx.resilient_parsing:
        click.echo(f"{PROG} {_version()}")
        ctx.exit(0)


@click.group(name=PROG, cls=DefaultCommandGroup, context_settings=CONTEXT_SETTINGS)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
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
      rulerun diff A B             play two rules files side by side: what does a change do?
      rulerun compare A B -n N     statistics of two rules files (or settings) on the same games

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


def _parse_bots(ctx, param, values) -> dict:
    """--bot SEAT=KIND (1-based seats) -> {seat (0-based): kind}."""
    bots = {}
    for item in values:
        seat, eq, kind = item.partition("=")
        if not eq or not seat.strip().isdigit() or int(seat) < 1:
            raise click.BadParameter(f"expected SEAT=KIND with a seat from 1, not {item!r}", ctx, param)
        from ..bots import make_bot
        try:
            make_bot(kind.strip(), 0)
        except ValueError as e:
            raise click.BadParameter(str(e), ctx, param) from None
        bots[int(seat) - 1] = kind.strip()
    return bots


def bot_option(f):
    return click.option("--bot", "bots", metavar="SEAT=KIND", multiple=True, callback=_parse_bots,
                        help="The bot that plays a seat (repeatable; the others play at random): random, "
                             "greedy[:SAMPLES] (one step ahead on the rules' heuristic, else the score), "
                             "mcts[:ITERATIONS] or mcts:SECONDSs (information-set Monte Carlo tree search; "
                             "mcts:0.5s thinks half a second a move). Bots never see hidden cards.")(f)


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
