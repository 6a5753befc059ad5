"""``rulerun run``: one game between bots, printed (and logged with --log)."""

from __future__ import annotations

import click

from ..runtime import RuleError
from .common import (_record_lines, _load_game, _new_state, _num_players, _params_text, _play_reported, _plural,
                     _rule_failure, _seats, _seed, make_agents)
from .group import RULES_FILE, _usage_error, bot_option, cli, game_options, max_actions_option


@cli.command("run")
@click.argument("file", type=RULES_FILE)
@game_options
@click.option("--quiet", "-q", is_flag=True, help="Do not print each action; only the header and the result.")
@click.option("--log", "log_file", type=click.Path(dir_okay=False, writable=True), default=None, metavar="FILE",
              help="Write the game to FILE as JSON Lines (rules, seed, every action, the result): "
                   "'rulerun replay FILE' plays it again and checks every step.")
@bot_option
@max_actions_option
def run_cmd(file, players, seed, params, quiet, log_file, bots, max_actions):
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
      rulerun examples/last_card.rules --seed 3 --log last_card.jsonl
      rulerun games/fox_in_the_henhouse.rules --players 3 --bot 1=mcts:20 --bot 2=greedy
    """
    game = _load_game(file, params)
    n = _num_players(game, players)
    seed = _seed(seed)
    state = _new_state(game, seed, n, file)
    click.echo(f"{game.title} ({file})")
    click.echo(f"players: {n}  seed: {seed}")
    click.echo(f"params: {_params_text(game.params_for(n))}")
    click.echo("")

    def log(number, seat, text):
        click.echo(f"{number:4d}  P{seat + 1}: {text}")

    if any(seat >= n for seat in bots):
        raise _usage_error(f"--bot: this game has {n} seats")
    writer = _log_writer(log_file, file, game, n, seed, bots)
    try:
        count = _play_reported(state, make_agents(seed, n, bots), max_actions, file, seed, None if quiet else log,
                               record=writer.action if writer is not None else None)
        if not quiet:
            click.echo("")
        click.echo(f"game over after {_plural(count, 'action')}")
        try:
            scores, winners = state.scores(), state.winners()
        except RuleError as e:
            if writer is not None:
                writer.end(error=e.message)
            raise _rule_failure(e, file, f" (at the end of the game, game seed {seed})") from None
        if writer is not None:
            writer.end(scores, winners)
    finally:
        if writer is not None:
            writer.close()
    click.echo(f"scores: {_seats(scores)}")
    if not winners:
        click.echo("no winner")
    elif len(winners) == 1:
        click.echo(f"winner: P{winners[0] + 1}")
    else:
        click.echo("winners: " + ", ".join(f"P{w + 1}" for w in winners) + " (shared win)")
    lines = _record_lines(state, file)
    if lines:
        click.echo("")
        click.echo("record:")
        for line in lines:
            click.echo(f"  {line}")


def _log_writer(log_file, rules_path, game, players, seed, bots=None):
    """A :class:`~interpreter.gamelog.LogWriter` for ``--log``, or None."""
    if log_file is None:
        return None
    from pathlib import Path

    from ..gamelog import LogWriter
    try:
        text = game.checked.source or Path(rules_path).read_text(encoding="utf-8")
        return LogWriter(log_file, rules_path, text, {k: v for k, v in game.overrides.items()}, seed, players,
                         [(bots or {}).get(p, "random") for p in range(players)])
    except OSError as e:
        raise _usage_error(f"--log {log_file}: cannot write it: {e.strerror or e}") from None
