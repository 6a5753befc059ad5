"""What the fuzzer's invariant check costs per step, beside the step itself.

    python3 bench/checks.py [GAME ...] [--games-per-run N] [--repeat R]

Uniformly random games of each rules file in games/ (seeds 0, 1, ...), at
its usual player count; before each action the generated check that the
fuzzer runs (``Machine.holds_for``: the declared invariants, those that
read only places evaluated again where what they read changed) is timed,
then listing the legal actions and applying one.  Prints the median over R
runs of microseconds per step for each, and their ratio.  A benchmark,
never a test: the timer's own cost (about 0.1 us) is in both columns.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter import load  # noqa: E402
from interpreter.kept import Kept  # noqa: E402

PLAYERS = {"emu_ranchers": 2, "fox_in_the_henhouse": 4, "desplumados": 4, "hens": 4}


def one_run(game, players: int, games: int) -> tuple:
    holds = game.new_state(0, players).m.holds_for(players)
    clock = time.perf_counter
    checking = playing = 0.0
    steps = 0
    for seed in range(games):
        state, rng, kept = game.new_state(seed, players), random.Random(seed), Kept()
        while not state.is_terminal:
            t0 = clock()
            holds(state, kept)
            t1 = clock()
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            t2 = clock()
            checking += t1 - t0
            playing += t2 - t1
            steps += 1
    return checking / steps * 1e6, playing / steps * 1e6


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games", nargs="*", default=sorted(PLAYERS), help="game file stems in games/")
    ap.add_argument("--games-per-run", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    print(f"{'game':22} {'players':>7} {'check us':>9} {'step us':>8} {'check/step':>10}")
    for name in args.games:
        path = ROOT / "games" / f"{name}.rules"
        if not path.exists():
            print(f"{name}: no such game in {ROOT / 'games'}", file=sys.stderr)
            return 2
        game = load(path, check_invariants=True)
        players = PLAYERS.get(name, game.min_players)
        runs = [one_run(game, players, args.games_per_run) for _ in range(args.repeat)]
        check, step = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        ratio = statistics.median(r[0] / r[1] for r in runs)
        print(f"{name:22} {players:>7} {check:>9.2f} {step:>8.2f} {ratio:>10.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
