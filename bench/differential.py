"""Differential check: games/emu_ranchers.rules against the hand-written baseline.

    python bench/differential.py [-n GAMES] [--seed S] [--excuse] [--pawns] [--courts]

Plays N random games in both engines in lock step: at the start of each year
the interpreter's deal is overwritten with the baseline's (same hands, same
draw pile order, same first player), then at every decision the two sets of
legal actions (as text) must be equal, one random action is played in both,
and at the end the scores must agree.  Reads ``../shared/baseline`` (like
every bench script, and unlike the project's code and tests); says so and
stops when it is missing.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared"

from interpreter import load  # noqa: E402


def base_text(B, s, a):
    tag = a[0]
    if tag == "hatch":
        return f"hatch {B.NAMES[a[1]]}"
    if tag == "discard":
        return f"discard {B.NAMES[a[1]]}"
    if tag == "grow":
        _, i, c, r = a
        if B.RANK[c] == B.WILD:
            return f"grow bird {i + 1} with {B.NAMES[c]} as {r}"
        return f"grow bird {i + 1} with {B.NAMES[c]}"
    if tag == "draw":
        return "draw from the pile" if a[1] == "deck" else "take the top discard"
    if tag == "pass":
        return "stop growing" if s.phase == B.YEAR_END else "keep all birds"
    if tag == "excuse":
        return f"excuse bird {a[1] + 1}"
    raise ValueError(a)


def sync_year(B, b, st):
    """Make the interpreter's fresh year match the baseline's deal."""
    for p in (0, 1):
        st.put([B.NAMES[c] for c in b.hands[p]], "hand", p)
    st.put([B.NAMES[c] for c in b.draw], "draw_pile")
    st.set_var("first_player", b.first_player)
    st.set_var("seat", b.player)
    st.me = b.player  # whose turn: set by hand, as the deal was


def run(n, seed, options):
    sys.path.insert(0, str(SHARED))
    from baseline import emu_ranchers as B

    game = load(ROOT / "games" / "emu_ranchers.rules", **options)
    rnd = random.Random(seed)
    steps = 0
    for i in range(n):
        b = B.new_game(seed + i, 2, **options)
        st = game.new_state(seed + i)
        year = -1
        while not B.is_terminal(b):
            if b.year != year:
                year = b.year
                sync_year(B, b, st)
            if st.is_terminal:
                raise SystemExit(f"game {i}: the interpreter ended early")
            if st.current_player != b.player:
                raise SystemExit(f"game {i} step {steps}: player {st.current_player} vs {b.player}")
            bl = {base_text(B, b, a): a for a in B.legal_actions(b)}
            il = {st.action_text(a): a for a in st.legal_actions()}
            if set(bl) != set(il):
                raise SystemExit(f"game {i} step {steps}: legal actions differ\n"
                                 f"  only baseline: {sorted(set(bl) - set(il))}\n"
                                 f"  only interpreter: {sorted(set(il) - set(bl))}")
            text = sorted(bl)[rnd.randrange(len(bl))]
            B.apply(b, bl[text])
            st.apply(il[text])
            steps += 1
        if not st.is_terminal:
            raise SystemExit(f"game {i}: the baseline ended, the interpreter did not")
        if [float(x) for x in B.returns(b)] != st.returns():
            raise SystemExit(f"game {i}: scores differ {B.returns(b)} vs {st.returns()}")
    return steps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    for opt in ("excuse", "pawns", "courts"):
        ap.add_argument(f"--{opt}", action="store_true")
    args = ap.parse_args(argv)
    if not (SHARED / "baseline").is_dir():
        print(f"{SHARED / 'baseline'} is missing: nothing to compare against", file=sys.stderr)
        return 2
    options = {k: True for k in ("excuse", "pawns", "courts") if getattr(args, k)}
    steps = run(args.n, args.seed, options)
    print(f"{args.n} games, {steps} decisions: legal actions and scores agree ({options or 'basic deck'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
