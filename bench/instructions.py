"""Machine instructions per random playout, counted by valgrind: the
interpreter against the baseline, with none of a noisy machine's noise.

    python3 bench/instructions.py [GAME ...] [--players P] [-n N] [--knowledge] [--before DIR]

Timings on a shared virtual machine move by 20% and more from one run to
the next, so a change worth 3% cannot be seen in bench/playouts.py.  This
script runs each side in a child process under ``valgrind --tool=callgrind``
and counts the instructions the CPU executes (in C as well as in Python:
list copies, dict lookups, allocation) while N uniformly random games are
played (our side by ``State.apply_at``, as bench/playouts.py plays;
``--by-action`` through ``State.apply(action)``), after WARM_UP games that
are not counted (the interpreter generates some of its code on first use).  The same picks as bench/playouts.py;
``PYTHONHASHSEED=0``, so two runs of one tree give the same count to a few
instructions in a million.  Two trees that differ in code the games do not
run can still differ by up to about 0.7%: objects land at other addresses,
and the allocator and dicts keyed by ``id`` take other paths.  Trust a change
of more than 1%.

Instructions are not time: a cache miss costs more than an add, and the
ratio here runs above the ratio of bench/playouts.py (Fox: 0.53 here, about
0.43 timed).  It is a guide for one change at a time; the targets are
timed by bench/playouts.py.  Under valgrind a game runs some 50 times
slower: keep N small (default 20).

``--before DIR`` counts the interpreter of another checkout too (a
worktree of an earlier commit: ``git worktree add /tmp/before REV``), each
game's rules file taken from there, and prints the change beside it.

Needs valgrind (``apt install valgrind``) and, for the baseline's column,
``../shared/baseline``; it says so when either is missing.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
WARM_UP = 20  # games played before counting
GAMES = {"emu_ranchers": 2, "fox_in_the_henhouse": 4, "desplumados": 4, "hens": 4}
COUNTED = re.compile(r"Collected : (\d+)")


def child(side: str, stem: str, players: int, games: int, knowledge: bool, tree: Path = ROOT,
          by_action: bool = False) -> None:
    """Play WARM_UP games, then ``games`` more inside ``functools.reduce``:
    the one C function callgrind is told to count in (it is called nowhere
    else while a game is played).  ``tree``: the checkout whose interpreter
    and rules file "ours" plays."""
    rnd = random.Random(1).random
    if side == "ours":
        sys.path.insert(0, str(tree))
        from interpreter import load
        game = load(tree / "games" / f"{stem}.rules", knowledge=knowledge)
        if by_action or not hasattr(game.new_state(0, players), "apply_at"):  # (a checkout older than it)
            def play(seeds) -> int:
                for seed in seeds:
                    s = game.new_state(seed, players)
                    while not s.is_terminal:
                        acts = s.legal_actions()
                        s.apply(acts[int(rnd() * len(acts))])
                return 0
        else:  # as bench/playouts.py plays
            def play(seeds) -> int:
                for seed in seeds:
                    s = game.new_state(seed, players)
                    while not s.is_terminal:
                        s.apply_at(int(rnd() * len(s.legal_actions())))
                return 0
    else:
        sys.path.insert(0, str(SHARED))
        mod = importlib.import_module(f"baseline.{stem}")
        legal, apply, terminal = mod.legal_actions, mod.apply, mod.is_terminal

        def play(seeds) -> int:
            for seed in seeds:
                s = mod.new_game(seed, players)
                while not terminal(s):
                    acts = legal(s)
                    apply(s, acts[int(rnd() * len(acts))])
            return 0

    play(range(-WARM_UP, 0))
    functools.reduce(lambda _, seeds: play(seeds), [range(games)], 0)


def callgrind(script: str, args: list, what: str, env=None) -> tuple:
    """(instructions counted inside ``functools.reduce``, stdout) of
    ``script`` run with ``args`` under callgrind, PYTHONHASHSEED=0 (and
    ``env`` added); for this script and bench/fuzz_instructions.py."""
    cmd = ["valgrind", "--tool=callgrind", "--toggle-collect=functools_reduce", "--callgrind-out-file=/dev/null",
           sys.executable, script, *args]
    done = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED="0", **(env or {})))
    found = COUNTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"valgrind failed on {what}:\n{done.stderr[-2000:]}")
    return int(found.group(1)), done.stdout


def count(side: str, stem: str, players: int, games: int, knowledge: bool, tree: Path = ROOT,
          by_action: bool = False) -> int:
    """Instructions per game of one side, counted by callgrind in a child process."""
    args = ["--child", side, stem, "--players", str(players), "-n", str(games), "--tree", str(tree)]
    args += (["--knowledge"] if knowledge else []) + (["--by-action"] if by_action else [])
    return callgrind(__file__, args, f"{side} {stem}")[0] // games


def refused(before, games) -> str | None:
    """Why a run cannot start (``--before`` no checkout, valgrind missing, a
    game unknown), or None; for this script and bench/fuzz_instructions.py."""
    if before is not None and not (before / "interpreter").is_dir():
        return f"--before {before}: no interpreter/ there (a checkout of this repository?)"
    if shutil.which("valgrind") is None:
        return "valgrind is not installed: this script counts instructions with it (apt install valgrind)"
    unknown = [stem for stem in games if stem not in GAMES]
    if unknown:
        return f"unknown game {unknown[0]!r}: one of {', '.join(GAMES)}"
    return None


def parser(doc: str, counted: str) -> argparse.ArgumentParser:
    """The arguments of this script and bench/fuzz_instructions.py alike:
    the games, ``--players``, ``--before`` (a checkout whose ``counted`` is
    counted too), and the hidden ones by which :func:`callgrind` runs a
    side in a child (``--child SIDE GAME``, ``--tree``)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("games", nargs="*", default=list(GAMES))
    ap.add_argument("--players", type=int, help="player count (default: each game's usual)")
    ap.add_argument("--before", type=Path, metavar="DIR", help=f"also count the {counted} of this checkout")
    ap.add_argument("--child", nargs=2, metavar=("SIDE", "GAME"), help=argparse.SUPPRESS)
    ap.add_argument("--tree", type=Path, default=ROOT, help=argparse.SUPPRESS)
    return ap


def main(argv=None) -> int:
    ap = parser(__doc__, "interpreter")
    ap.add_argument("-n", type=int, default=20, help="games counted per side (default 20)")
    ap.add_argument("--knowledge", action="store_true", help="keep who has seen which card (default: not)")
    ap.add_argument("--by-action", action="store_true",
                    help="play through State.apply(action), which looks it up (default: State.apply_at(index))")
    args = ap.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], args.players, args.n, args.knowledge, args.tree.resolve(), args.by_action)
        return 0
    why = refused(args.before, args.games)
    if why is not None:
        print(why, file=sys.stderr)
        return 2
    have_baseline = (SHARED / "baseline").is_dir()
    if not have_baseline:
        print(f"note: {SHARED / 'baseline'} is missing; the interpreter alone", file=sys.stderr)
    print(f"{'game':22} {'players':>7} {'ours/game':>12} {'baseline/game':>14} {'ratio':>6}  (baseline / ours)"
          + (f" {'before/game':>12} {'change':>7}" if args.before is not None else ""))
    for stem in args.games:
        players = args.players or GAMES[stem]
        ours = count("ours", stem, players, args.n, args.knowledge, by_action=args.by_action)
        line = f"{stem:22} {players:>7} {ours:>12,}"
        if have_baseline:
            theirs = count("base", stem, players, args.n, False)
            line += f" {theirs:>14,} {theirs / ours:>6.3f}"
        elif args.before is not None:
            line += f" {'':>14} {'':>6}"
        if args.before is not None:
            before = count("ours", stem, players, args.n, args.knowledge, args.before.resolve(), args.by_action)
            line += f" {before:>12,} {100 * (ours - before) / before:>+6.1f}%"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
