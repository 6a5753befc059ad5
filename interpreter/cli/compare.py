"""``rulerun compare``: what does a house rule do to the game?  Two rules
files (or one with two settings) played on the same seeds by the same bots,
side by side, with the differences that can be told from noise marked."""

from __future__ import annotations

import json

import click

from .common import _load_game, _num_players, _params_text, _plural, _progress, _seed, bots_need_knowledge
from .group import RULES_FILE, _Failure, _parse_sets, _usage_error, cli, max_actions_option
from .simulate import _play_one


def _outcome(game, seed, n, path, max_actions):
    """(winners, scores, length, actions used) of one game, played as simulate plays it,
    or None if it did not end."""
    outcome = _play_one(game, seed, n, path, max_actions)
    if outcome[0] == "error":
        raise _Failure(outcome[1], outcome[2], kind=outcome[3])
    return None if outcome[0] == "capped" else outcome[1:5] + (outcome[7],)


@cli.command("compare")
@click.argument("file_a", type=RULES_FILE)
@click.argument("file_b", type=RULES_FILE, required=False)
@click.option("-n", "--games", "games", type=click.IntRange(min=2), required=True, help="Games on each side.")
@click.option("--players", "-p", type=int, default=None, help="Number of players (default: the fewest both allow).")
@click.option("--seed", "-s", type=int, default=None, help="First game seed (default: a random one, shown).")
@click.option("--set", "params", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
              help="Set a parameter or option on both sides (repeatable).")
@click.option("--set-a", "params_a", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
              help="Set it on side A only (repeatable).")
@click.option("--set-b", "params_b", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
              help="Set it on side B only (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: both sides and every difference.")
@max_actions_option
def compare_cmd(file_a, file_b, games, players, seed, params, params_a, params_b, as_json, max_actions):
    """Compare two rules files, or one file under two settings, on the same games.

    Game i of each side has game seed SEED+i and the same random bots, so
    both sides meet the same luck (common random numbers) and a small effect
    shows with fewer games. For each seat's win share and mean score, the
    game's length and each action's use, prints A, B and the difference B - A
    with its 95% interval; a difference whose interval leaves out zero is
    marked '*', and the report says when none can be told from noise.

    \b
    Examples:
      rulerun compare examples/last_card.rules examples/last_card_high.rules -n 500
      rulerun compare games/emu_ranchers.rules -n 300 --set-b years=2
    """
    from ..stats import Paired

    if file_b is None and not params_a and not params_b:
        raise _usage_error("give a second rules file, or two settings with --set-a/--set-b")
    file_b = file_b or file_a
    knowledge = bots_need_knowledge()  # (random bots: no)
    game_a = _load_game(file_a, {**params, **params_a}, coverage=True, knowledge=knowledge)  # coverage counts the turns
    game_b = _load_game(file_b, {**params, **params_b}, coverage=True, knowledge=knowledge)
    lo, hi = max(game_a.min_players, game_b.min_players), min(game_a.max_players, game_b.max_players)
    if lo > hi:
        raise _usage_error(f"no player count suits both games ({game_a.title}: {game_a.min_players} to "
                           f"{game_a.max_players}, {game_b.title}: {game_b.min_players} to {game_b.max_players})")
    n = _num_players(game_a, lo if players is None else players)
    _num_players(game_b, n)
    seed = _seed(seed)
    wins = [Paired() for _ in range(n)]
    scores = [Paired() for _ in range(n)]
    length = Paired()
    turns = Paired()
    actions = {}
    capped = [0, 0]
    update, stop = _progress("comparing", as_json)
    try:
        for i in range(games):
            a = _outcome(game_a, seed + i, n, file_a, max_actions)
            b = _outcome(game_b, seed + i, n, file_b, max_actions)
            capped[0] += a is None
            capped[1] += b is None
            if a is None or b is None:  # only games that end on both sides are compared
                continue
            for p in range(n):
                wins[p].add((p in a[0]) / max(len(a[0]), 1), (p in b[0]) / max(len(b[0]), 1))
                scores[p].add(a[1][p], b[1][p])
            length.add(a[2], b[2])
            turns.add(a[4], b[4])
            for name in set(a[3]) | set(b[3]):
                actions.setdefault(name, Paired()).add(a[3].get(name, 0), b[3].get(name, 0))
            if update is not None and i % 20 == 19:
                update(i + 1, 0)
    finally:
        stop()
    if length.n < 2:
        raise _Failure(f"fewer than two of the {games} games ended on both sides; see --max-actions", 1)
    rows = [(f"P{p + 1} win share", wins[p].summary(), 100.0, "%") for p in range(n)]
    rows += [(f"P{p + 1} mean score", scores[p].summary(), 1.0, "") for p in range(n)]
    rows.append(("actions per game", length.summary(), 1.0, ""))
    if turns.a or turns.b:
        rows.append(("turns per game", turns.summary(), 1.0, ""))
    rows += [(f"{name} per game", actions[name].summary(), 1.0, "") for name in sorted(actions)]
    if as_json:
        click.echo(json.dumps({"a": {"rules": file_a, "params": game_a.params_for(n)},
                               "b": {"rules": file_b, "params": game_b.params_for(n)},
                               "players": n, "seed": seed, "games": games, "compared": length.n,
                               "capped": {"a": capped[0], "b": capped[1]},
                               "rows": {label: row for label, row, _, _ in rows}}, indent=2))
        return
    click.echo(f"A: {file_a}  params: {_params_text(game_a.params_for(n))}")
    click.echo(f"B: {file_b}  params: {_params_text(game_b.params_for(n))}")
    click.echo(f"{n} players, seeds {seed}..{seed + games - 1}: {length.n} games ended on both sides"
               + (f" ({capped[0]} capped in A, {capped[1]} in B)" if any(capped) else ""))
    click.echo("")
    click.echo(f"{'':28}{'A':>10}{'B':>10}{'B - A':>10}  {'95% CI':<22}")
    for label, row, scale, unit in rows:
        lo_ci, hi_ci = row["ci"]
        mark = "*" if row["significant"] else " "
        click.echo(f"{label[:27]:28}{scale * row['a']:>9.2f}{unit or ' '}{scale * row['b']:>9.2f}{unit or ' '}"
                   f"{scale * row['difference']:>+9.2f}{unit or ' '} [{scale * lo_ci:+.2f}, {scale * hi_ci:+.2f}] {mark}")
    significant = [label for label, row, _, _ in rows if row["significant"]]
    click.echo("")
    if significant:
        click.echo(f"* the 95% interval leaves out zero: {_plural(len(significant), 'difference')} "
                   f"beyond noise in {length.n} games")
    else:
        click.echo(f"no difference can be told from noise in {length.n} games (try more with -n)")
