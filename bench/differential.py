"""Differential check: a rules file against the hand-written baseline, in lock step.

    python bench/differential.py [GAME] [-n GAMES] [--seed S] [--players P] [game options]

GAME is ``emu_ranchers`` (the default; ``emu``), ``desplumados``
(``des``) or ``hens``; ``bench/diff_GAME.py`` holds what is particular to a game: how
the interpreter's deal is made to match the baseline's, how the
baseline's actions read as the rules file's action texts, and how the
result is compared.  ``--players`` takes a count, a list (``3,5``) or a
range (``3-7``); game i is played with the counts in turn (the default:
every count the game allows).  ``--weighted`` chooses actions with the game module's
weights instead of uniformly (for ¡Desplumados!: hens to henhouses, so
that games are won as well as ended by the moon).  ``--rules FILE`` checks another version of
the rules file (a variant, a deliberate mistake).  Emu options: ``--excuse --pawns --courts``; Hens options:
``--solo-target T --rounds R --rooster-round K --no-step-scores``.

Each game: the same deal in both engines; then at every decision the two
sets of legal actions (as text) must be equal, one random action is played
in both, and at the end the results must agree.  Where a game module
describes whole positions (``project``), the positions are compared after
every step as well, and a chance event of the interpreter (with
``explicit_chance``) is resolved by taking the outcome after which its
position agrees with the baseline's.

Reads ``../shared/baseline`` (like every bench script, and unlike the
project's code and tests); says so and stops when it is missing.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
SHARED = ROOT.parent / "shared"

from interpreter import load  # noqa: E402

GAMES = {"emu_ranchers": "diff_emu_ranchers", "desplumados": "diff_desplumados", "hens": "diff_hens"}
ALIASES = {"emu": "emu_ranchers", "des": "desplumados"}


class Disagreement(Exception):
    pass


def position_diff(a, b):
    return "; ".join(f"{k}: baseline {a[k]} vs rules file {b.get(k)}" for k in a if a[k] != b.get(k))


def settle_chance(G, B, b, st):
    """At an interpreter chance node, the outcome(s) after which the position
    agrees with the baseline's (depth first, for chained events).
    Returns (state, events resolved)."""
    if not st.is_chance_node:
        return st, 0
    if not hasattr(G, "project"):
        raise Disagreement("the interpreter stopped at a chance node, and this game has no project()")
    target = G.project(B, b)
    tried = []

    def search(s, depth):
        if not s.is_chance_node:
            tried.append(s)
            return (s, depth) if G.project_state(s) == target else None
        for o, _ in s.chance_outcomes():
            c = s.clone()
            c.apply(o)
            found = search(c, depth + 1)
            if found:
                return found
        return None

    found = search(st, 0)
    if found is None:
        raise Disagreement("no chance outcome reproduces the baseline's position; outcome 0 gives: "
                           + position_diff(target, G.project_state(tried[0])))
    return found


def pick(texts, rnd, weight):
    """One of the sorted texts: uniformly, or in proportion to ``weight``."""
    if weight is None:
        return texts[rnd.randrange(len(texts))]
    return rnd.choices(texts, [weight(t) for t in texts])[0]


def play_one(G, B, game, seed, players, opts, rnd, weight=None):
    """One game in lock step; returns (decisions, chance events, result)."""
    b, st = G.start(B, game, seed, players, opts)
    memo = {}
    steps = chance = 0
    check = hasattr(G, "project")
    if check and G.project(B, b) != G.project_state(st):
        raise Disagreement("the deals differ: " + position_diff(G.project(B, b), G.project_state(st)))
    while not B.is_terminal(b):
        G.sync(B, b, st, memo)
        where = f"step {steps}"
        if st.is_terminal:
            raise Disagreement(f"{where}: the interpreter ended early (winners {st.winners()})")
        if st.current_player != B.current_player(b):
            raise Disagreement(f"{where}: to move {st.current_player} vs baseline {B.current_player(b)}")
        bl = G.legal(B, b, st)
        il = {}
        for a in st.legal_actions():
            t = G.interp_text(st.action_text(a))
            if t in il:
                raise Disagreement(f"{where}: two interpreter actions read {t!r}")
            il[t] = a
        if set(bl) != set(il):
            raise Disagreement(f"{where}: legal actions differ\n"
                               f"  only baseline: {sorted(set(bl) - set(il))}\n"
                               f"  only rules file: {sorted(set(il) - set(bl))}\n"
                               f"  both: {sorted(set(bl) & set(il))}")
        if not bl:
            raise Disagreement(f"{where}: neither engine has a legal action, and the game is not over (stuck)")
        text = pick(sorted(bl), rnd, weight)
        for a in bl[text]:
            B.apply(b, a)
        st.apply(il[text])
        st, k = settle_chance(G, B, b, st)
        chance += k
        steps += 1
        if check and G.project(B, b) != G.project_state(st):
            raise Disagreement(f"{where}: after {text!r} the positions differ: "
                               + position_diff(G.project(B, b), G.project_state(st)))
    if not st.is_terminal:
        raise Disagreement("the baseline ended, the interpreter did not")
    err = G.final(B, b, st)
    if err:
        raise Disagreement(err)
    return steps, chance, G.result(B, b) if hasattr(G, "result") else None


def player_counts(text, allowed):
    if not text:
        return list(allowed)
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    bad = [p for p in out if p not in allowed]
    if bad:
        raise SystemExit(f"player count(s) {bad} not allowed (allowed: {list(allowed)})")
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("game", nargs="?", default="emu_ranchers")
    for opt in ("-n", "--seed", "--players", "--rules"):
        pre.add_argument(opt)
    known, _ = pre.parse_known_args(argv)
    stem = ALIASES.get(known.game, known.game)
    if stem not in GAMES:
        print(f"unknown game {known.game!r} (known: {', '.join(GAMES)})", file=sys.stderr)
        return 2
    G = importlib.import_module(GAMES[stem])

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("game", nargs="?", default="emu_ranchers", help="emu_ranchers (default), desplumados or hens")
    ap.add_argument("-n", type=int, default=200, help="games (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", help="a count, list or range (default: every allowed count in turn)")
    ap.add_argument("--rules", type=Path, help="another rules file for the game (default: games/GAME.rules)")
    ap.add_argument("--weighted", action="store_true",
                    help="choose actions with the game module's weights (e.g. more hens to henhouses, more wins)")
    G.add_arguments(ap)
    args = ap.parse_args(argv)

    if not (SHARED / "baseline").is_dir():
        print(f"{SHARED / 'baseline'} is missing: nothing to compare against", file=sys.stderr)
        return 2
    sys.path.insert(0, str(SHARED))
    B = importlib.import_module(f"baseline.{G.BASELINE}")

    counts = player_counts(args.players, G.PLAYERS)
    opts = G.options(args)
    game = G.load_game(load, args.rules or ROOT / "games" / G.RULES, opts)
    rnd = random.Random(args.seed)
    steps = chance = 0
    per = {}
    results = {}
    weight = getattr(G, "weight", None) if args.weighted else None
    if args.weighted and weight is None:
        print(f"note: {stem} has no weights; choosing uniformly", file=sys.stderr)
    for i in range(args.n):
        players = counts[i % len(counts)]
        seed = args.seed + i
        try:
            s, c, res = play_one(G, B, game, seed, players, opts, rnd, weight)
        except Disagreement as e:
            print(f"{stem}: game {i} (seed {seed}, {players} players): {e}", file=sys.stderr)
            return 1
        steps += s
        chance += c
        g, d = per.get(players, (0, 0))
        per[players] = (g + 1, d + s)
        if res is not None:
            results[res] = results.get(res, 0) + 1
    what = ", ".join(f"{p} players: {g} games, {d} decisions" for p, (g, d) in sorted(per.items()))
    extra = f", {chance} chance events matched" if chance else ""
    if results:
        extra += " (" + ", ".join(f"{k}: {v}" for k, v in sorted(results.items())) + ")"
    print(f"{stem}: {args.n} games, {steps} decisions{extra}: legal actions and results agree "
          f"({opts or 'basic rules'}{'; weighted' if weight else ''}; {what})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
