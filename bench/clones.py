"""What a search pays per node: ``state.clone()`` plus one ``apply``, and the
memory a state takes, for each game; beside the hand-written baseline where
it has a clone of its own (Hens, in ``../shared/baseline/``).

    python3 bench/clones.py [GAME ...] [--positions N] [--repeat R]

Positions are taken from uniformly random playouts (every state of each
game, seeds 0, 1, ...); each is cloned and the clone plays the action the
playout chose.  The time is the median over R passes, per clone + apply;
the interpreter's passes and the baseline's alternate, and the ratio is the
median of the R ratios of one pass each (a noisy machine moves both alike).
Our side plays the action by its index in the node's listing
(``State.apply_at``), as a search expanding the node does and as the
baseline plays it, unchecked; ``--by-action`` hands the action to
``State.apply``, which looks it up among the legal ones first.
The column ``(clone)`` is the clone alone, timed the same way: what is left
of clone + apply is the ``apply``.
Memory is measured with tracemalloc over 1,000 clones of a mid-game state.
The states are a search's: a bot's samples go on without keeping who has
seen which card (``State.resample(..., knowledge=False)``), so the game is
loaded with ``knowledge=False``; ``--knowledge`` keeps it.
Each game is measured in a process of its own: in one process, what the
games before it left behind (memory laid out otherwise) moved the baseline's
time by a quarter, and the ratio with it (``--same-process`` measures them
all in this one).
Like bench/playouts.py, this script reads ``../shared`` and says so when it
is missing; it is a benchmark, never a test.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter import load  # noqa: E402

SHARED = ROOT.parent / "shared"
GAMES = {"emu_ranchers": 2, "fox_in_the_henhouse": 4, "desplumados": 4, "hens": 4}


def positions(new, legal, apply, clone, terminal, count):
    """(state, action) pairs from random playouts, ``count`` of them."""
    out = []
    seed = 0
    while len(out) < count:
        s = new(seed)
        rnd = random.Random(seed)
        while not terminal(s) and len(out) < count:
            acts = legal(s)
            a = acts[rnd.randrange(len(acts))]
            out.append((clone(s), a))
            apply(s, a)
        seed += 1
    return out


def time_pass(pairs, clone, apply) -> float:
    """Seconds per clone + apply, over one pass of ``pairs``."""
    t = time.perf_counter()
    for s, a in pairs:
        apply(clone(s), a)
    return (time.perf_counter() - t) / len(pairs)


def time_clones(pairs, clone) -> float:
    """Seconds per clone alone, over one pass of ``pairs``."""
    t = time.perf_counter()
    for s, _ in pairs:
        clone(s)
    return (time.perf_counter() - t) / len(pairs)


def memory_per_state(state, clone) -> float:
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    keep = [clone(state) for _ in range(1000)]
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del keep
    return (after - before) / 1000


def interpreter_side(stem, players, n, knowledge=False, by_action=False):
    """(pairs, clone, apply, bytes per state) of the interpreter: the
    action played by its index in the listing (``State.apply_at``), as a
    search expanding a node plays each of its actions, or (``by_action``)
    handed to ``State.apply``, which looks it up first."""
    game = load(ROOT / "games" / f"{stem}.rules", knowledge=knowledge)
    # the methods themselves, called as functions: no wrapper of ours between the
    # timing loop and the library (the baseline's apply is timed the same way)
    from interpreter.runtime import State

    apply, apply_at, clone = State.apply, State.apply_at, State.clone
    pairs = positions(lambda seed: game.new_state(seed, players), lambda s: s.legal_actions(), apply,
                      clone, lambda s: s.is_terminal, n)
    # as in a search: the node's actions are known before it is expanded
    pairs = [(s, a if by_action else s.legal_actions().index(a)) for s, a in pairs]
    return pairs, clone, apply if by_action else apply_at, memory_per_state(pairs[len(pairs) // 2][0], clone)


def baseline_side(mod, players, n):
    clone = mod.State.clone  # (as the interpreter's: the method, called as a function)
    pairs = positions(lambda seed: mod.new_game(seed, players), mod.legal_actions, mod.apply,
                      clone, mod.is_terminal, n)
    return pairs, clone, mod.apply, memory_per_state(pairs[len(pairs) // 2][0], clone)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games", nargs="*", default=list(GAMES))
    ap.add_argument("--positions", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--knowledge", action="store_true",
                    help="keep who has seen which card (default: not, as a search bot's samples)")
    ap.add_argument("--by-action", action="store_true",
                    help="hand the action to State.apply, which looks it up (default: State.apply_at(index))")
    ap.add_argument("--same-process", action="store_true",
                    help="measure every game in this process (default: each in a process of its own)")
    ap.add_argument("--no-header", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    unknown = [g for g in args.games if g not in GAMES]
    if unknown:
        ap.error(f"unknown game {unknown[0]!r}: one of {', '.join(GAMES)}")
    if (SHARED / "baseline").is_dir():
        sys.path.insert(0, str(SHARED))
    else:
        print(f"note: {SHARED / 'baseline'} is missing; the interpreter alone", file=sys.stderr)
    if not args.no_header:
        print(f"{'game':22} {'players':>7} {'clone+apply':>12} {'(clone)':>9} {'bytes/state':>12} "
              f"{'baseline':>10} {'(clone)':>9} {'bytes':>8} {'ratio':>6}", flush=True)
    if len(args.games) > 1 and not args.same_process:
        for stem in args.games:
            cmd = [sys.executable, __file__, stem, "--positions", str(args.positions), "--repeat", str(args.repeat),
                   "--no-header"] + (["--knowledge"] if args.knowledge else []) + \
                (["--by-action"] if args.by_action else [])
            done = subprocess.run(cmd, check=False)
            if done.returncode:
                return done.returncode
        return 0
    for stem in args.games:
        players = GAMES[stem]
        ours = interpreter_side(stem, players, args.positions, args.knowledge, args.by_action)
        theirs = None
        if (SHARED / "baseline").is_dir():
            baseline = importlib.import_module(f"baseline.{stem}")
            if hasattr(baseline, "State") and hasattr(baseline.State, "clone"):
                theirs = baseline_side(baseline, players, args.positions)
        times, base_times, ratios, clones, base_clones = [], [], [], [], []
        for _ in range(args.repeat):  # the two alternate, pass by pass
            times.append(time_pass(*ours[:3]))
            clones.append(time_clones(*ours[:2]))
            if theirs is not None:
                base_times.append(time_pass(*theirs[:3]))
                base_clones.append(time_clones(*theirs[:2]))
                ratios.append(times[-1] / base_times[-1])
        line = (f"{stem:22} {players:>7} {statistics.median(times) * 1e6:>9.1f} us "
                f"{statistics.median(clones) * 1e6:>6.1f} us {ours[3]:>12.0f}")
        if theirs is not None:
            line += (f" {statistics.median(base_times) * 1e6:>7.1f} us {statistics.median(base_clones) * 1e6:>6.1f} us"
                     f" {theirs[3]:>8.0f} {statistics.median(ratios):>6.2f}")
        elif (SHARED / "baseline").is_dir():
            line += f" {'(no clone)':>10}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
