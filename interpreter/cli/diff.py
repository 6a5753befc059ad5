"""``rulerun diff A.rules B.rules``: what does a change do?  The engine is
:mod:`interpreter.diff`, imported inside the command to keep ``rulerun
--help`` fast."""

from __future__ import annotations

import json

import click

from ..runtime import RuleError
from .common import _load_game, _plural, _progress, _rule_failure
from .group import RULES_FILE, _Failure, _parse_sets, _usage_error, cli


@cli.command("diff")
@click.argument("file_a", type=RULES_FILE)
@click.argument("file_b", type=RULES_FILE)
@click.option("--players", "-p", default="all", show_default=True,
              help="A player count, or 'all' for every count both games allow.")
@click.option("--examples", type=click.IntRange(min=1), default=200, show_default=True,
              help="Games played in lock step before saying no difference was found.")
@click.option("--max-actions", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Stop comparing a game after this many actions.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the search.")
@click.option("--set", "params", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
              help="Set a game parameter or option in both files (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: the whole report.")
def diff_cmd(file_a, file_b, players, examples, max_actions, seed, params, as_json):
    """Play two rules files side by side and show the first place they differ.

    Both games get the same seeds and the same choices; after every action
    their legal actions, zones, variables and results are compared. The
    first difference is shortened to the fewest actions that show it. If
    none is found, says so and lists the lines of FILE_B that are not in
    FILE_A and never ran: a change there has not mattered yet. Exits 0
    when no difference was found, 1 when one was.

    \b
    Examples:
      rulerun diff examples/last_card.rules examples/last_card_high.rules
      rulerun diff examples/last_card.rules examples/last_card_stuck.rules --examples 500
    """
    from ..diff import diff

    _load_game(file_a, params)  # bad files and parameters are reported first
    _load_game(file_b, params)
    if players != "all":
        try:
            players = int(players)
        except ValueError:
            raise _usage_error(f"--players takes a number or 'all', not {players!r}") from None
    update, stop = _progress("comparing", as_json)
    try:
        report = diff(file_a, file_b, players=players, examples=examples, max_actions=max_actions, seed=seed,
                      params=params, progress=update)
    except ValueError as e:
        raise _usage_error(str(e)) from None
    except RuleError as e:
        raise _rule_failure(e, file_b) from None
    finally:
        stop()
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        _print_report(report)
    if not report.same:
        raise _Failure("", 1, quiet=True)


def _print_report(r) -> None:
    counts = ", ".join(map(str, r.players))
    click.echo(f"{r.a} and {r.b}: {_plural(r.games, 'game')} ({counts} players), "
               f"{_plural(r.actions, 'action')} compared in {r.seconds:.1f} s")
    d = r.difference
    if d is not None:
        click.echo(f"\nthey differ ({d.kind}): {d.message}")
        click.echo(f"  players {d.players}, seed {d.seed}, after {_plural(len(d.actions), 'action')}:")
        for i, text in enumerate(d.actions, 1):
            click.echo(f"    {i:3}  {text}")
        for what, in_a, in_b in d.details:
            if in_a:
                click.echo(f"  A  {what}: {in_a}")
            if in_b:
                click.echo(f"  B  {what}: {in_b}")
        return
    click.echo(f"\nno difference found in {_plural(r.games, 'game')}")
    if not r.changed_lines:
        click.echo(f"{r.b} has no line that {r.a} does not have")
    elif r.never_ran:
        click.echo(f"of {r.b}'s {_plural(len(r.changed_lines), 'changed line')}, these never ran:")
        for line, text in r.never_ran:
            click.echo(f"  {r.b}:{line}: {text}")
    else:
        click.echo(f"every changed line of {r.b} that can be followed ran, without changing the game")
