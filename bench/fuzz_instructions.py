"""Machine instructions per action of the fuzzer and of ``simulate`` on the
same settings, counted by valgrind: the fuzzer's speed target without a
noisy machine's noise.

    python3 bench/fuzz_instructions.py [GAME ...] [--players P] [--examples N] [--default] [--before DIR]

bench/fuzz_speed.py times the fuzzer against ``simulate`` on the settings
it drew; on a shared 2-core machine its ratio moves by a quarter from run
to run.  This script runs the same comparison under ``valgrind
--tool=callgrind``, counting only inside ``functools.reduce``, in child
processes with ``PYTHONHASHSEED=0`` (nothing else calls it meanwhile:
Hypothesis does only to sample from a flag enum and to explain a failure,
a phase the fuzzer's searches leave out).  The two sides:

  fuzz      ``interpreter.fuzz.fuzz`` with its default checks, N examples
            at seed 0 (Hypothesis's search is seeded: the same games each
            time), after a warm-up run of 10 examples at another seed that
            is not counted; settings drawn as by default (``--default``:
            the parameters at their defaults).  Counted: its searches
            (``interpreter.fuzz.play_searches``), what bench/fuzz_speed.py
            times; not the loading, the rules' examples or the report
  simulate  random games as ``rulerun simulate`` plays them, on each
            setting the fuzzer played, until they have played as many
            actions as the fuzzer did with it (so each setting weighs as
            much as in bench/fuzz_speed.py's ``same`` column); each
            setting compiled, and one game of it played, before counting

and prints each side's instructions per action and their ratio (simulate /
fuzz).  Instructions are not time (a cache miss costs more than an add):
a guide for one change at a time, as bench/instructions.py is for
playouts; the target is timed by bench/fuzz_speed.py.  Under valgrind a
run takes some 50 times longer: a few minutes a game at the default 100
examples.

``--before DIR`` counts the fuzzer of another checkout too (a worktree of
an earlier commit), on its own settings and its own simulate (a checkout
older than ``play_searches`` is counted whole, loading and report too).

Needs valgrind (``apt install valgrind``); says so when it is missing.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from instructions import GAMES, callgrind, parser, refused  # noqa: E402
MAX_ACTIONS = 5000  # as bench/fuzz_speed.py


def child(side: str, stem: str, players: int, examples: int, draw: bool, tree: Path) -> None:
    """Play one side inside ``functools.reduce``; print its actions (and,
    for the fuzzer, the settings it played) on the last line of stdout."""
    sys.path.insert(0, str(tree))
    path = tree / "games" / f"{stem}.rules"
    if side == "fuzz":
        from interpreter import fuzz as fuzzing

        fuzzing.fuzz(path, players=players, examples=10, seed=9, max_actions=MAX_ACTIONS, vary_small=draw)
        # the searches alone, as bench/fuzz_speed.py times them (not the loading, the
        # rules' examples or the report)
        searches = getattr(fuzzing, "play_searches", None)
        run = functools.partial(fuzzing.fuzz, path, players=players, examples=examples, seed=0,
                                max_actions=MAX_ACTIONS, vary_small=draw)
        if searches is None:  # an older checkout, with no play_searches: the whole call
            report = functools.reduce(lambda _, __: run(), [0], None)
        else:
            fuzzing.play_searches = lambda *args: functools.reduce(lambda _, __: searches(*args), [0], None)
            report = run()
        print(json.dumps({"actions": report.actions, "settings": report.settings}))
        return
    sys.path.insert(0, str(tree / "bench"))
    from fuzz_speed import simulate_speed
    from interpreter import load

    base = load(path, knowledge=False)
    settings = json.loads(os.environ["FUZZ_SETTINGS"])
    games = [(base.with_params(**one["params"]) if one["params"] else base, one["actions"]) for one in settings]
    for g, _ in games:
        simulate_speed(g, players, 1, -1)  # compiled, and its code written, before counting

    def play(_, __) -> int:
        total = 0
        for g, wanted in games:
            played, seed = 0, 5000
            while played < wanted:
                played += simulate_speed(g, players, 1, seed, count=True)
                seed += 1
            total += played
        return total

    print(json.dumps({"actions": functools.reduce(play, [0], 0)}))


def count(side: str, stem: str, players: int, examples: int, draw: bool, tree: Path, settings=None) -> tuple:
    """(instructions, the child's report) of one side, counted by callgrind in a child process."""
    args = ["--child", side, stem, "--players", str(players), "--examples", str(examples), "--tree", str(tree)]
    env = {"FUZZ_SETTINGS": json.dumps(settings)} if settings is not None else None
    counted, out = callgrind(__file__, args + ([] if draw else ["--default"]), f"{side} {stem}", env)
    return counted, json.loads(out.strip().splitlines()[-1])


def measure(stem: str, players: int, examples: int, draw: bool, tree: Path) -> tuple:
    """(fuzz instructions per action, simulate's on the same settings)."""
    fuzz_ir, report = count("fuzz", stem, players, examples, draw, tree)
    sim_ir, played = count("simulate", stem, players, examples, draw, tree, report["settings"])
    return fuzz_ir / report["actions"], sim_ir / played["actions"]


def main(argv=None) -> int:
    ap = parser(__doc__, "fuzzer")
    ap.add_argument("--examples", type=int, default=100, help="fuzz examples counted (default 100)")
    ap.add_argument("--default", action="store_true", help="the parameters at their defaults (default: drawn)")
    args = ap.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], args.players, args.examples, not args.default, args.tree.resolve())
        return 0
    why = refused(args.before, args.games)
    if why is not None:
        print(why, file=sys.stderr)
        return 2
    print(f"{'game':22} {'players':>7} {'fuzz/action':>12} {'simulate/action':>16} {'ratio':>6}"
          + (f" {'before':>7}" if args.before is not None else ""))
    for stem in args.games:
        players = args.players or GAMES[stem]
        fuzz_ir, sim_ir = measure(stem, players, args.examples, not args.default, ROOT)
        line = f"{stem:22} {players:>7} {fuzz_ir:>12,.0f} {sim_ir:>16,.0f} {sim_ir / fuzz_ir:>6.3f}"
        if args.before is not None:
            before_fuzz, before_sim = measure(stem, players, args.examples, not args.default, args.before.resolve())
            line += f" {before_sim / before_fuzz:>7.3f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
