"""Uniformly random playouts: the interpreter against the hand-written baseline.

    python bench/playouts.py [GAME ...] [-n N] [--players P] [--seed S] [--repeat R] [--profile]

For each game in ``games/`` that has a baseline in ``../shared/baseline/``,
plays N uniformly random games with the interpreter and N with the baseline,
back to back in this process, on the same game seeds, and reports
playouts/s for each and their ratio (interpreter / baseline).  With
``--repeat R`` the pair is timed R times, alternating, and the median ratio
is reported (the machines are noisy: compare ratios, not absolute times).
``--players`` takes a count, a list (``3,5``) or a range (``3-7``): one
timing per count that the game allows (default: the game's usual count).

Only the bench scripts that compare with the baseline (this one,
clones.py and the differential checks) read ``../shared``; when it is
missing this one says so and times the interpreter alone.

Action granularity: both split a turn the same way for Emu Ranchers (play a
card, then draw; each year-end growth is one action).  For ¡Desplumados!
they differ in one place: the rules file discards a set of cards as one
action (a set choice), where the baseline takes one action per card and
then "stop discarding", so the two count a game's actions differently
(about 55 against 124 at 4 players); elsewhere both take one action per card played, place a thief's or
the meadow's hen by a second action, and make the escaping hen's slowest
slapper a chance event.  Compare playouts/s, not actions/s.

The interpreter plays each action by its index in the listing
(``State.apply_at``), as the baseline plays the action it picks without
checking it; ``--by-action`` hands the action itself to ``State.apply``,
which first looks it up among the legal ones (1.5 to 5% of a game's
instructions: bench/instructions.py).

The games are loaded as ``rulerun simulate`` loads them for random bots:
without keeping who knows which card (``load(..., knowledge=False)``), which
the baseline does not keep either.  ``--knowledge`` keeps it, as a game
played by bots that read observations or sample states does.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter import load  # noqa: E402

SHARED = ROOT.parent / "shared"
GAMES = {
    # game file stem: (baseline module, default players)
    "emu_ranchers": ("emu_ranchers", 2),
    "fox_in_the_henhouse": ("fox_in_the_henhouse", 4),
    "desplumados": ("desplumados", 4),
    "hens": ("hens", 4),
}


def play_interpreter(game, seeds, players, rnd, by_action=False):
    """The interpreter's playouts: each action played by its index in the
    listing (``State.apply_at``), as the baseline plays the one it picks,
    or (``by_action``) handed back to ``State.apply``, which looks it up."""
    actions = 0
    for seed in seeds:
        s = game.new_state(seed, players)
        if by_action:
            while not s.is_terminal:
                acts = s.legal_actions()
                s.apply(acts[int(rnd() * len(acts))])
                actions += 1
        else:
            while not s.is_terminal:
                s.apply_at(int(rnd() * len(s.legal_actions())))
                actions += 1
    return actions


def play_baseline(mod, seeds, players, rnd):
    actions = 0
    for seed in seeds:
        s = mod.new_game(seed, players)
        legal, apply, terminal = mod.legal_actions, mod.apply, mod.is_terminal
        while not terminal(s):
            acts = legal(s)
            apply(s, acts[int(rnd() * len(acts))])
            actions += 1
    return actions


def timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


def bench_game(stem, n, seed, repeat, baseline_mod, players=None, game=None, knowledge=False, by_action=False):
    game = game or load(ROOT / "games" / f"{stem}.rules", knowledge=knowledge)
    if players is None:
        players = max(game.min_players, min(GAMES[stem][1], game.max_players))
    seeds = list(range(seed, seed + n))
    game.new_state(seed, players)  # compile the machine for this count before timing
    rows = []
    for _ in range(repeat):
        ti, ai = timed(play_interpreter, game, seeds, players, random.Random(seed).random, by_action)
        row = {"interp_s": ti, "interp_actions": ai}
        if baseline_mod is not None:
            tb, ab = timed(play_baseline, baseline_mod, seeds, players, random.Random(seed).random)
            row.update(base_s=tb, base_actions=ab, ratio=tb / ti)
        rows.append(row)
    out = {
        "game": stem, "players": players, "n": n, "seed": seed, "repeat": repeat, "knowledge": game.knowledge,
        "interp_playouts_per_s": n / statistics.median(r["interp_s"] for r in rows),
        "interp_actions_per_game": rows[0]["interp_actions"] / n,
    }
    if baseline_mod is not None:
        out["baseline_playouts_per_s"] = n / statistics.median(r["base_s"] for r in rows)
        out["baseline_actions_per_game"] = rows[0]["base_actions"] / n
        ratios = sorted(r["ratio"] for r in rows)
        out["ratio"] = statistics.median(ratios)
        out["ratio_range"] = [ratios[0], ratios[-1]]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="*", help="game file stems (default: every game with a rules file)")
    ap.add_argument("-n", type=int, default=300, help="playouts per timing (default 300)")
    ap.add_argument("--players", help="a count, list (3,5) or range (3-7); counts a game does not allow are skipped")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="timings per game; the median is reported")
    ap.add_argument("--json", action="store_true", help="print one JSON object per game")
    ap.add_argument("--profile", action="store_true", help="profile the interpreter's playouts instead")
    ap.add_argument("--knowledge", action="store_true",
                    help="keep who knows which card, as for bots that read observations (default: not kept, "
                         "as simulate with random bots, and as the baseline)")
    ap.add_argument("--by-action", action="store_true",
                    help="play each action through State.apply(action), which looks it up in the listing "
                         "(default: State.apply_at(index), as the baseline plays what it picks, unchecked)")
    args = ap.parse_args(argv)

    stems = args.games or [s for s in GAMES if (ROOT / "games" / f"{s}.rules").exists()]
    unknown = [s for s in stems if s not in GAMES]
    if unknown:
        ap.error(f"unknown game(s): {', '.join(unknown)} (known: {', '.join(GAMES)})")

    baseline = None
    if (SHARED / "baseline").is_dir():
        sys.path.insert(0, str(SHARED))
        import importlib
        baseline = {s: importlib.import_module(f"baseline.{GAMES[s][0]}") for s in stems
                    if (SHARED / "baseline" / f"{GAMES[s][0]}.py").exists()}
    else:
        print(f"note: {SHARED / 'baseline'} is missing; timing the interpreter alone (no ratio)",
              file=sys.stderr)

    counts = []
    for part in (args.players or "").split(","):
        if part:
            lo, _, hi = part.partition("-")
            counts += range(int(lo), int(hi or lo) + 1)
    runs = []
    for stem in stems:
        game = load(ROOT / "games" / f"{stem}.rules", knowledge=args.knowledge)
        ok = [p for p in counts if game.min_players <= p <= game.max_players]
        if counts and not ok:
            print(f"note: {stem} is for {game.min_players}-{game.max_players} players; skipped", file=sys.stderr)
        runs += [(stem, game, p) for p in ok or [None]]

    if args.profile:
        import cProfile
        import pstats
        for stem, game, players in runs:
            if players is None:
                players = max(game.min_players, min(GAMES[stem][1], game.max_players))
            prof = cProfile.Profile()
            prof.runcall(play_interpreter, game, range(args.n), players, random.Random(args.seed).random,
                         args.by_action)
            pstats.Stats(prof).sort_stats("tottime").print_stats(20)
        return 0

    for stem, game, players in runs:
        r = bench_game(stem, args.n, args.seed, args.repeat, (baseline or {}).get(stem), players, game,
                       by_action=args.by_action)
        if args.json:
            print(json.dumps(r))
            continue
        kept = "  knowledge kept" if r["knowledge"] else ""
        print(f"{stem}  players={r['players']}  n={r['n']}  seed={r['seed']}  repeat={r['repeat']}{kept}")
        print(f"  interpreter  {r['interp_playouts_per_s']:9.1f} playouts/s"
              f"  ({r['interp_actions_per_game']:.1f} actions/game)")
        if "ratio" in r:
            print(f"  baseline     {r['baseline_playouts_per_s']:9.1f} playouts/s"
                  f"  ({r['baseline_actions_per_game']:.1f} actions/game)")
            lo, hi = r["ratio_range"]
            print(f"  ratio        {r['ratio']:9.3f}x  (range {lo:.3f}-{hi:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
