"""``rulerun simulate``: play many games with random bots and report statistics."""

from __future__ import annotations

import json
import time

import click

from ..runtime import DeadState, RuleError
from .common import (_dead_state_failure, _game_record, _load_game, _new_state, _num_players, _params_text,
                     _plural, _rule_failure, _seed, make_agents, play)
from .group import RULES_FILE, _Failure, _TooLong, cli, game_options, max_actions_option


@cli.command("simulate")
@click.argument("file", type=RULES_FILE)
@click.option("-n", "--games", "games", type=click.IntRange(min=1), required=True,
              help="Number of games to play.")
@game_options
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: games, players, seed, mean_actions, wins_per_seat, "
                   "mean_scores, capped, achievements, games_per_s, params.")
@max_actions_option
def simulate_cmd(file, games, players, seed, params, as_json, max_actions):
    """Play many games with random bots and report statistics.

    Game i (from 0) uses game seed SEED+i, and its bots are seeded from that
    game seed and their seat, so a run is reproducible from SEED.  Reports
    the mean number of actions per game, the wins per seat (a win shared by
    k players counts 1/k for each), the mean score per seat, how often each
    of the game's achievements was reached, and the speed.  A game still
    going after --max-actions actions is counted apart ("capped"): rules
    that need not end show up there, not as an error.

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
    capped = 0
    reached = {}  # achievement -> (games in which someone reached it, [the same for each seat])
    start = time.perf_counter()
    for i in range(games):
        game_seed = seed + i
        state = _new_state(game, game_seed, n, file)
        try:
            total_actions += play(state, make_agents(game_seed, n), max_actions)
            winners, returns = state.winners(), state.returns()
            achieved = _game_record(state, file)["achievements"]
        except _TooLong:
            capped += 1
            total_actions += max_actions
            continue
        except RuleError as e:
            when = "at the end" if state.is_terminal else f"after {_plural(len(state.history), 'action')}"
            raise _rule_failure(e, file, f" (game seed {game_seed}, {when})") from None
        except DeadState as e:
            raise _dead_state_failure(e, game_seed) from None
        for w in winners:
            wins[w] += 1 / len(winners)
        for p, r in enumerate(returns):
            score_sums[p] += r
        for text, seats in achieved.items():
            anyone, counts = reached.get(text, (0, [0] * n))
            for p in seats:
                counts[p] += 1
            reached[text] = (anyone + bool(seats), counts)
    elapsed = time.perf_counter() - start
    per_s = games / elapsed if elapsed > 0 else float("inf")
    mean_actions = total_actions / games
    ended = games - capped
    if ended == 0:
        raise _Failure(f"none of the {games} games ended within {_plural(max_actions, 'action')}; "
                       "see --max-actions", 1)
    mean_scores = [s / ended for s in score_sums]

    if as_json:
        click.echo(json.dumps({
            "games": games,
            "players": n,
            "seed": seed,
            "mean_actions": mean_actions,
            "wins_per_seat": [round(w, 9) for w in wins],
            "mean_scores": mean_scores,
            "capped": capped,
            "achievements": {text: {"games": anyone, "per_seat": counts}
                             for text, (anyone, counts) in reached.items()},
            "games_per_s": round(per_s, 3) if per_s != float("inf") else None,
            "params": game.params_for(n),
        }, indent=2))
        return
    click.echo(f"{game.title} ({file}): {games} games, {n} players, seeds {seed}..{seed + games - 1}")
    click.echo(f"params: {_params_text(game.params_for(n))}")
    click.echo(f"mean actions per game: {mean_actions:.1f}")
    click.echo("")
    click.echo(f"{'seat':<6}{'wins':>10}{'win %':>9}{'mean score':>14}")
    for p in range(n):
        click.echo(f"{'P' + str(p + 1):<6}{wins[p]:>10.2f}{100 * wins[p] / ended:>8.1f}%{mean_scores[p]:>14.2f}")
    if capped:
        click.echo(f"\n{_plural(capped, 'game')} ({100 * capped / games:.1f}%) still going after "
                   f"{_plural(max_actions, 'action')}: left out of the wins and scores above")
    if reached:
        click.echo("")
        click.echo(f"{'achievement':<58}{'games':>8}{'share':>8}")
        for text, (anyone, _counts) in reached.items():
            click.echo(f"{text[:57]:<58}{anyone:>8}{100 * anyone / ended:>7.1f}%")
    click.echo("")
    click.echo(f"{games} games in {elapsed:.2f} s ({per_s:.1f} games/s)")
