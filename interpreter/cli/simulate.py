"""``rulerun simulate``: play many games with random bots and report statistics."""

from __future__ import annotations

import json
import time

import click

from ..runtime import DeadState, RuleError
from .common import (_dead_state_failure, _game_record, _load_game, _new_state, _num_players, _params_text,
                     _plural, _progress, _rule_failure, _seed, bots_need_knowledge, make_agents, play)
from .group import RULES_FILE, _Failure, _TooLong, _usage_error, bot_option, cli, game_options, max_actions_option


@cli.command("simulate")
@click.argument("file", type=RULES_FILE)
@click.option("-n", "--games", "games", type=click.IntRange(min=1), required=True,
              help="Number of games to play.")
@game_options
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: games, players, seed, mean_actions, wins_per_seat, "
                   "mean_scores, capped, achievements, games_per_s, params, interrupted, seats "
                   "(wins, shares and scores with their 95% intervals), shared_wins, no_winner, "
                   "length, turns, actions_used, triggers, records, never_ran.")
@click.option("--plot", "plot_file", type=click.Path(dir_okay=False), default=None, metavar="FILE.png",
              help="Also draw the figures into FILE (.png, .svg or .pdf): win shares, scores, game "
                   "lengths, actions (needs matplotlib: pip install 'rulelang[plot]').")
@click.option("--workers", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Play in this many processes; the results for a seed are the same whatever the number.")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Play on a Dask cluster (its scheduler's address, or local:N for N local worker "
                   "processes); needs dask.distributed: pip install 'rulelang[dask]'.")
@bot_option
@max_actions_option
def simulate_cmd(file, games, players, seed, params, as_json, plot_file, workers, cluster, bots, max_actions):
    """Play many games with random bots and report statistics.

    Game i (from 0) uses game seed SEED+i, and its bots are seeded from that
    game seed and their seat, so a run is reproducible from SEED.  Reports
    the game length, the wins per seat (a win shared by k players counts 1/k
    for each) and the mean score per seat, each with its 95% confidence
    interval, the shared wins, how often each action was played, each
    trigger fired and each of the game's achievements reached, the record's
    counters, the rules that never ran (a dead rule, or one these settings
    never reach), and the speed.  A game still going
    after --max-actions actions is counted apart ("capped"): rules that need
    not end show up there, not as an error.  On a terminal a progress line
    shows the games played; Ctrl-C stops and reports the games finished so
    far (exit 130).

    \b
    Examples:
      rulerun simulate games/emu_ranchers.rules -n 500 --seed 1
      rulerun simulate games/emu_ranchers.rules -n 100 --set years=1 --json
      rulerun simulate games/emu_ranchers.rules -n 1000 --workers 2
      rulerun simulate games/emu_ranchers.rules -n 1000 --cluster local:2
      rulerun simulate games/emu_ranchers.rules -n 50 --bot 1=greedy
      rulerun simulate games/emu_ranchers.rules -n 300 --plot figures.png
    """
    from ..stats import Tally
    from ..usage import Records, coverage_counts, usage_lines, usage_summary

    if plot_file is not None:
        from ..plot import PlotUnavailable, _pyplot
        try:
            _pyplot()  # before the games: a missing library is said at once
        except PlotUnavailable as e:
            raise _usage_error(str(e)) from None
    game = _load_game(file, params, coverage=True, knowledge=bots_need_knowledge(bots))
    n = _num_players(game, players)
    if any(seat >= n for seat in bots):
        raise _usage_error(f"--bot: this game has {n} seats")
    if cluster is not None and workers > 1:
        raise _usage_error("--workers and --cluster: choose one (a cluster has workers of its own)")
    seed = _seed(seed)
    tally = Tally(n)
    reached = {}  # achievement -> (games in which someone reached it, [the same for each seat])
    records = Records()
    samples = ([], []) if plot_file is not None else None  # each game's scores and length, to draw
    total_actions = 0
    interrupted = False
    update, stop = _progress("simulating", as_json)
    start = time.perf_counter()

    def merge(outcome):
        nonlocal total_actions
        if outcome[0] == "error":
            raise _Failure(outcome[1], outcome[2], kind=outcome[3])
        if outcome[0] == "capped":
            tally.add_capped()
            total_actions += max_actions
            return
        _, winners, returns, length, used, achieved, counters, turns = outcome
        total_actions += length
        tally.add(winners, returns, length, used, turns)
        records.add(counters)
        if samples is not None:
            samples[0].append(returns)
            samples[1].append(length)
        for text, seats in achieved.items():
            anyone, counts = reached.get(text, (0, [0] * n))
            for p in seats:
                counts[p] += 1
            reached[text] = (anyone + bool(seats), counts)

    try:
        if workers <= 1 and cluster is None:
            for i in range(games):
                merge(_play_one(game, seed + i, n, file, max_actions, bots))
                if update is not None and i % 20 == 19:
                    update(i + 1, total_actions)
        else:
            for outcomes, passes in _batches(file, params, n, seed, games, max_actions, workers, cluster, update,
                                             bots):
                probes = game.machine_for(n).coverage_counts  # the workers' passes, added to this game's
                for i, c in enumerate(passes):
                    probes[i] += c
                for outcome in outcomes:
                    merge(outcome)
    except KeyboardInterrupt:  # the games finished so far are reported, then exit 130
        interrupted = True
    finally:
        stop()
    elapsed = time.perf_counter() - start
    played = tally.games + tally.capped
    if played == 0:
        raise _Failure("interrupted before the first game ended", 130)
    per_s = played / elapsed if elapsed > 0 else float("inf")
    mean_actions = total_actions / played
    ended = tally.games
    if ended == 0:
        raise _Failure(f"none of the {played} games ended within {_plural(max_actions, 'action')}; "
                       "see --max-actions", 1)
    summary = tally.summary()
    seats = summary["seats"]
    usage = usage_summary(game, coverage_counts(game), summary["actions_used"],
                          records, ended)

    if as_json:
        click.echo(json.dumps({
            "games": played,
            "players": n,
            "seed": seed,
            "mean_actions": mean_actions,
            "wins_per_seat": [s["wins"] for s in seats],
            "mean_scores": [s["mean_score"] for s in seats],
            "capped": tally.capped,
            "achievements": {text: {"games": anyone, "per_seat": counts}
                             for text, (anyone, counts) in reached.items()},
            "games_per_s": round(per_s, 3) if per_s != float("inf") else None,
            "params": game.params_for(n),
            "interrupted": interrupted,
            "seats": seats,
            "shared_wins": summary["shared_wins"], "no_winner": summary["no_winner"],
            "length": summary["length"], "turns": summary["turns"],
            "actions_used": summary["actions_used"],
            **usage,
        }, indent=2))
    else:
        _print_summary(game, file, n, seed, played, mean_actions, summary, reached, tally, max_actions,
                       elapsed, per_s, interrupted, usage_lines(usage, ended))
    if plot_file is not None:
        from ..plot import plot_simulation
        try:
            plot_simulation(plot_file, game.title, summary, *samples)
        except (OSError, ValueError) as e:
            raise _usage_error(f"--plot {plot_file}: {e}") from None
        if not as_json:
            click.echo(f"figures drawn in {plot_file}")
    if interrupted:
        raise _Failure(f"interrupted after {_plural(played, 'game')}", 130, quiet=True)


def _play_one(game, game_seed, n, file, max_actions, bots=None) -> tuple:
    """One game: ("ok", winners, returns, length, actions used, achievements, record counters, turns),
    ("capped",),
    or ("error", message, exit code, kind): plain data, to come back from a worker."""
    from ..usage import turn_count
    try:
        turns_before = turn_count(game.machine_for(n))  # (the first turn starts within new_state)
        state = _new_state(game, game_seed, n, file)
        try:
            length = play(state, make_agents(game_seed, n, bots), max_actions)
            winners, returns = state.winners(), state.returns()
            record = _game_record(state, file)
            achieved = record["achievements"]
        except _TooLong:
            return ("capped",)
        except RuleError as e:
            when = "at the end" if state.is_terminal else f"after {_plural(len(state.history), 'action')}"
            raise _rule_failure(e, file, f" (game seed {game_seed}, {when})") from None
        except DeadState as e:
            raise _dead_state_failure(e, game_seed) from None
    except _Failure as f:
        return ("error", f.message, f.code, f.kind)
    names = state.m.site_actions
    used = {}
    for a in state.history:
        if isinstance(a, tuple):
            name = names[a[0]].action.name
            used[name] = used.get(name, 0) + 1
    return ("ok", winners, returns, length, used, achieved, record["counters"], turn_count(state.m) - turns_before)


_WORKER_GAMES = {}  # in a worker process: (file, params) -> the game, loaded once


def _batch(job) -> tuple:
    """A worker's share: the outcomes of games first_seed .. first_seed + count - 1, and the
    rules' passes in them (their coverage counts).  ``where``: the rules file's
    absolute path; ``file``: as the user named it, for messages."""
    where, file, params, n, first_seed, count, max_actions, bots = job
    knowledge = bots_need_knowledge(bots)
    key = (where, tuple(sorted(params.items())), knowledge)
    game = _WORKER_GAMES.get(key)
    if game is None:
        game = _WORKER_GAMES[key] = _load_game(where, params, coverage=True, knowledge=knowledge)
    counts = game.machine_for(n).coverage_counts
    before = list(counts)
    outcomes = [_play_one(game, first_seed + i, n, file, max_actions, bots) for i in range(count)]
    # by position: the same rules compile to the same probes in every process (a span's
    # file name is the worker's: an absolute path)
    return outcomes, [c - b for c, b in zip(counts, before)]


def _batches(file, params, n, seed, games, max_actions, workers, cluster, update, bots=None):
    """The games in batches on the back end the options name (see
    :mod:`interpreter.batches`), each batch's outcomes (and coverage counts)
    yielded in seed order: the figures are the same wherever they ran."""
    import os

    from ..batches import backend

    size = max(5, min(200, games // (max(workers, 2) * 8) or 1))
    where = os.path.abspath(file)  # a worker may not share this folder as its own
    jobs = [(where, file, params, n, seed + k, min(size, games - k), max_actions, bots)
            for k in range(0, games, size)]
    done = 0
    try:
        with backend(workers, cluster) as run:
            for outcomes, passes in run.map(_batch, jobs):
                done += len(outcomes)
                if update is not None:
                    update(done, 0)
                yield outcomes, passes
    except ValueError as e:  # a cluster that cannot be used
        raise _usage_error(str(e)) from None


def _ci(lo, hi, fmt="{:.1f}") -> str:
    return "[" + fmt.format(lo) + ", " + fmt.format(hi) + "]"


def _print_summary(game, file, n, seed, played, mean_actions, summary, reached, tally, max_actions, elapsed,
                   per_s, interrupted, usage=()):
    ended = tally.games
    if interrupted:
        click.echo(f"interrupted: the {_plural(played, 'game')} finished so far")
    click.echo(f"{game.title} ({file}): {played} games, {n} players, seeds {seed}..{seed + played - 1}")
    click.echo(f"params: {_params_text(game.params_for(n))}")
    length = summary["length"]
    click.echo(f"mean actions per game: {mean_actions:.1f}  (finished games: {length['mean']:.1f}, "
               f"95% CI {_ci(*length['ci'])}, min {length['min']}, max {length['max']})")
    turns = summary["turns"]
    if turns["max"]:
        click.echo(f"mean turns per finished game: {turns['mean']:.1f}  (95% CI {_ci(*turns['ci'])}, "
                   f"min {turns['min']}, max {turns['max']})")
    click.echo("")
    click.echo(f"{'seat':<6}{'wins':>10}{'win %':>9}  {'95% CI':<16}{'mean score':>12}  {'95% CI':<20}")
    for s in summary["seats"]:
        lo, hi = s["win_share_ci"]
        click.echo(f"{'P' + str(s['seat']):<6}{s['wins']:>10.2f}{100 * s['win_share']:>8.1f}%  "
                   f"{_ci(100 * lo, 100 * hi):<16}{s['mean_score']:>12.2f}  {_ci(*s['score_ci'], '{:.2f}'):<20}")
    if summary["shared_wins"] or summary["no_winner"]:
        click.echo(f"shared wins: {summary['shared_wins']} ({100 * summary['shared_wins'] / ended:.1f}%), "
                   f"no winner: {summary['no_winner']}")
    if tally.capped:
        click.echo(f"\n{_plural(tally.capped, 'game')} ({100 * tally.capped / played:.1f}%) still going after "
                   f"{_plural(max_actions, 'action')}: left out of the wins and scores above")
    if reached:
        click.echo("")
        click.echo(f"{'achievement':<58}{'games':>8}{'share':>8}")
        for text, (anyone, _counts) in reached.items():
            click.echo(f"{text[:57]:<58}{anyone:>8}{100 * anyone / ended:>7.1f}%")
    used = summary["actions_used"]
    if used:
        click.echo("")
        click.echo("actions played, per finished game: " + ", ".join(
            f"{name} {k / ended:.1f}" for name, k in used.items()))
    for line in usage:
        click.echo(line)
    click.echo("")
    click.echo(f"{played} games in {elapsed:.2f} s ({per_s:.1f} games/s)")
