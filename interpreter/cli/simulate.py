"""``rulerun simulate``: play many games with random bots and report statistics."""

from __future__ import annotations

import json
import time

import click

from .common import _load_game, _new_state, _num_players, _params_text, _play_reported, _seed, make_agents
from .group import RULES_FILE, cli, game_options, max_actions_option


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
