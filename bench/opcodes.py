"""Bytecode instructions per random playout: the interpreter against the baseline.

    python3 bench/opcodes.py [GAME ...] [--players P] [-n N] [--top K]

A count that the machine's noise cannot move: with ``sys.settrace`` and
``f_trace_opcodes``, every Python bytecode instruction executed while
listing the legal actions and applying one is counted, over N uniformly
random games (seeds 0..N-1, the same picks as bench/playouts.py), for the
interpreter and for the hand-written baseline in ``../shared/baseline/``,
after WARM_UP games that are not counted (the interpreter generates some
of its code on first use).
Their ratio (baseline / interpreter) tracks the playout speed ratio of
bench/playouts.py closely, but it leaves out what runs in C (list copies,
set and dict building, ``random``), so it is a guide for one change at a
time, not the target itself: time is measured by bench/playouts.py.
``--top K`` lists the K functions of the interpreter that execute the
most instructions, with their calls.  The games are loaded as
bench/playouts.py loads them, without keeping who has seen which card
(``--knowledge`` keeps it).  Our side plays the pick by its index
(``State.apply_at``), as bench/playouts.py does; ``--by-action`` through
``State.apply(action)``.

Like the other bench scripts that compare with the baseline, this one
reads ``../shared`` and says so when it is missing.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter import load  # noqa: E402

SHARED = ROOT.parent / "shared"
WARM_UP = 20  # games played before counting
GAMES = {"emu_ranchers": 2, "fox_in_the_henhouse": 4, "desplumados": 4, "hens": 4}


class Counting:
    """A trace function counting the instructions executed, in all and per function."""

    def __init__(self, per_function: bool):
        self.total = 0
        self.per_function = per_function
        self.by_function = Counter()
        self.calls = Counter()

    def __call__(self, frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            self.total += 1
            if self.per_function:
                self.by_function[frame.f_code.co_name] += 1
        elif event == "call" and self.per_function:
            self.calls[frame.f_code.co_name] += 1
        return self


def count(new, legal, play, terminal, games: int, counting: Counting) -> tuple:
    """(instructions, actions) of ``games`` random playouts; only listing and
    playing are counted.  ``play(state, actions, index)`` plays the pick."""
    rnd = random.Random(1).random
    for seed in range(-WARM_UP, 0):  # not counted: what is made once, on first use (generated flow functions)
        s = new(seed)
        while not terminal(s):
            acts = legal(s)
            play(s, acts, int(rnd() * len(acts)))
    rnd = random.Random(1).random
    actions = 0
    for seed in range(games):
        s = new(seed)
        while not terminal(s):
            sys.settrace(counting)
            acts = legal(s)
            play(s, acts, int(rnd() * len(acts)))
            sys.settrace(None)
            actions += 1
    return counting.total, actions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games", nargs="*", default=list(GAMES))
    ap.add_argument("--players", type=int, help="player count (default: each game's usual)")
    ap.add_argument("-n", type=int, default=20, help="games per count (default 20)")
    ap.add_argument("--top", type=int, default=0, help="list the interpreter's K busiest functions")
    ap.add_argument("--knowledge", action="store_true", help="keep who has seen which card (default: not)")
    ap.add_argument("--by-action", action="store_true",
                    help="play through State.apply(action), which looks it up (default: State.apply_at(index))")
    args = ap.parse_args(argv)
    have_baseline = (SHARED / "baseline").is_dir()
    if have_baseline:
        sys.path.insert(0, str(SHARED))
    else:
        print(f"note: {SHARED / 'baseline'} is missing; the interpreter alone", file=sys.stderr)
    print(f"{'game':22} {'players':>7} {'ours/action':>12} {'baseline/action':>16} {'ratio':>6}  (baseline / ours, per game)")
    for stem in args.games:
        if stem not in GAMES:
            print(f"unknown game {stem!r}: one of {', '.join(GAMES)}", file=sys.stderr)
            return 2
        players = args.players or GAMES[stem]
        game = load(ROOT / "games" / f"{stem}.rules", knowledge=args.knowledge)
        ours = Counting(args.top > 0)
        total, actions = count(lambda seed: game.new_state(seed, players), lambda s: s.legal_actions(),
                               (lambda s, acts, i: s.apply(acts[i])) if args.by_action else
                               (lambda s, acts, i: s.apply_at(i)), lambda s: s.is_terminal, args.n, ours)
        line = f"{stem:22} {players:>7} {total / actions:>12.0f}"
        if have_baseline:
            mod = importlib.import_module(f"baseline.{stem}")
            btotal, bactions = count(lambda seed: mod.new_game(seed, players), mod.legal_actions,
                                     lambda s, acts, i: mod.apply(s, acts[i]), mod.is_terminal, args.n,
                                     Counting(False))
            # per game, not per action: the two split a game into actions differently (see playouts.py)
            line += f" {btotal / bactions:>16.0f} {btotal / total:>6.2f}"
        print(line, flush=True)
        for name, c in ours.by_function.most_common(args.top):
            print(f"    {name:32} {c / args.n:>10.0f} per game  {100 * c / total:5.1f}%  "
                  f"{ours.calls[name] / args.n:8.1f} calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
