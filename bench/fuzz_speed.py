"""The fuzzer's speed against plain random playouts, side by side in one process.

For each game in games/ and each player count, this alternates two runs and
reports the median actions per second of each, and the median (and range)
of the ratios of each fuzz run to the mean of the simulate runs just before
and after it (a noisy machine moves the pair alike):

  simulate   random games as ``rulerun simulate`` plays them (no checks;
             who knows which card not kept, as for random bots)
  fuzz       ``interpreter.fuzz.fuzz`` with its default checks on (position
             hashing, invariants, determinism replays, Hypothesis's search,
             who decides, what never ran), on the same game: its options and
             parameters at their defaults, as simulate plays it (``--draw``:
             drawn as the fuzzer does by default, which plays other, often
             larger games, on a machine that reads the drawn parameters
             from the state: see interpreter/fuzz_late.py)

With ``--draw`` a third column, ``same``, is simulate's actions per second
on the settings the fuzzer drew (its report's ``settings``), each weighted
by the actions the fuzzer played with it, and ``ratio`` is the fuzzer's
against that: what its checks and its compiles cost on the same games
(simulate's are games compiled for each setting).
Each setting is compiled, and one game of it played, before it is timed.
``default`` keeps the ratio to simulate at the parameters' defaults.

Both count from the first game, not the loading.  A benchmark, never a
test: the machine's noise decides the last digit.

    python3 bench/fuzz_speed.py                   # every game, 100 fuzz examples
    python3 bench/fuzz_speed.py --games fox_in_the_henhouse --examples 50 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter import load  # noqa: E402
from interpreter.cli import make_agents, play  # noqa: E402
from interpreter.fuzz import fuzz  # noqa: E402

GAMES = ("emu_ranchers", "fox_in_the_henhouse", "desplumados", "hens")
MAX_ACTIONS = 5000


def simulate_speed(game, players: int, games: int, seed: int, count: bool = False) -> float:
    """Actions per second of ``games`` random games (``count``: the actions played)."""
    actions = 0
    start = time.perf_counter()
    for i in range(games):
        state = game.new_state(seed + i, players)
        try:
            actions += play(state, make_agents(seed + i, players), MAX_ACTIONS)
        except Exception:  # noqa: BLE001 - a capped or failed game still counts its actions
            actions += len(state.history)
    return actions if count else actions / (time.perf_counter() - start)


def fuzz_speed(path: Path, players: int, examples: int, seed: int, draw: bool = False) -> tuple:
    report = fuzz(path, players=players, examples=examples, seed=seed, max_actions=MAX_ACTIONS, vary_small=draw)
    return report.actions_per_s, [f.kind for f in report.findings], report.settings


def simulate_same(game, players: int, settings: list, seed: int, least: int = 1000) -> float:
    """simulate's actions/s on the fuzzer's ``settings``, each weighted by
    the actions the fuzzer played with it: the time simulate would take to
    play as many actions of each, over the actions."""
    total, seconds = 0, 0.0
    for one in settings:
        g = game.with_params(**one["params"]) if one["params"] else game
        simulate_speed(g, players, 1, seed - 1)  # compiled, and its code written, before it is timed
        played, start, i = 0, time.perf_counter(), 0
        while played < least or i < 3:  # at least three games and a thousand actions a setting
            played += simulate_speed(g, players, 1, seed + i, count=True)
            i += 1
        rate = played / (time.perf_counter() - start)
        total += one["actions"]
        seconds += one["actions"] / rate
    return total / seconds if seconds else 0.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="*", default=list(GAMES), help="game names in games/ (default: all four)")
    ap.add_argument("--examples", type=int, default=100, help="fuzz examples per run")
    ap.add_argument("--sim-games", type=int, default=100, help="random games per simulate run")
    ap.add_argument("--repeat", type=int, default=3, help="alternating repeats (the median is shown)")
    ap.add_argument("--players", type=int, nargs="*",
                    help="player counts (default: every count of each game; counts a game does not allow are skipped)")
    ap.add_argument("--draw", action="store_true", help="let the fuzzer draw options and parameters, as by default")
    args = ap.parse_args(argv)
    same = f" {'same/s':>9} {'default':>7}" if args.draw else ""
    print(f"{'game':22} {'players':>7} {'simulate/s':>11}{same} {'fuzz/s':>9} {'ratio':>6} {'range':>9}  findings")
    for name in args.games:
        path = ROOT / "games" / f"{name}.rules"
        game = load(path, knowledge=False)
        counts = [n for n in args.players or range(game.min_players, game.max_players + 1)
                  if game.min_players <= n <= game.max_players]  # counts the game does not allow: skipped
        for n in counts:
            sims, fuzzes, ratios, kinds, sames, defaults = [], [], [], set(), [], []
            before = simulate_speed(game, n, args.sim_games, 0)
            for r in range(args.repeat):
                speed, found, settings = fuzz_speed(path, n, args.examples, r, args.draw)
                after = simulate_speed(game, n, args.sim_games, 1000 * (r + 1))
                # each fuzz run between two simulate runs: its ratio to their mean, so
                # that a machine slowing down or speeding up moves both sides alike
                ratio = speed / ((before + after) / 2)
                if args.draw:
                    # against simulate on the settings drawn, timed right after the fuzz run
                    defaults.append(ratio)
                    sames.append(simulate_same(game, n, settings, 5000 * (r + 1)))
                    ratio = speed / sames[-1]
                ratios.append(ratio)
                sims.append(after)
                fuzzes.append(speed)
                kinds.update(found)
                before = after
            s, f = statistics.median(sims), statistics.median(fuzzes)
            spread = f"{min(ratios):.2f}-{max(ratios):.2f}"
            same = f" {statistics.median(sames):>9.0f} {statistics.median(defaults):>7.2f}" if args.draw else ""
            print(f"{name:22} {n:>7} {s:>11.0f}{same} {f:>9.0f} {statistics.median(ratios):>6.2f} {spread:>9}  "
                  f"{', '.join(sorted(kinds)) or '-'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
