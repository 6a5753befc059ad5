"""Emu Ranchers for bench/differential.py (see there): games/emu_ranchers.rules
against ../shared/baseline/emu_ranchers.py.

At the start of each year the interpreter's deal is overwritten with the
baseline's (same hands, same draw pile order, same first player); actions
are split the same way in both, one text per baseline action.
"""

from __future__ import annotations

BASELINE = "emu_ranchers"
RULES = "emu_ranchers.rules"
PLAYERS = (2,)
OPTIONS = ("excuse", "pawns", "courts")


def add_arguments(ap):
    for opt in OPTIONS:
        ap.add_argument(f"--{opt}", action="store_true", help=f"the {opt.capitalize()} option")


def options(args):
    return {k: True for k in OPTIONS if getattr(args, k, False)}


def load_game(load, path, opts):
    return load(path, **opts)


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


def start(B, game, seed, players, opts):
    return B.new_game(seed, players, **opts), game.new_state(seed, players)


def sync(B, b, st, memo):
    """Make the interpreter's fresh year match the baseline's deal."""
    if memo.get("year") == b.year:
        return
    memo["year"] = b.year
    for p in (0, 1):
        st.put([B.NAMES[c] for c in b.hands[p]], "hand", p)
    st.put([B.NAMES[c] for c in b.draw], "draw_pile")
    st.set_var("first_player", b.first_player)
    st.set_var("seat", b.player)
    st.me = b.player  # whose turn: set by hand, as the deal was


def legal(B, b, st):
    """{text: [baseline actions to play for it]}"""
    return {base_text(B, b, a): [a] for a in B.legal_actions(b)}


def interp_text(text):
    return text


def final(B, b, st):
    if [float(x) for x in B.returns(b)] != st.returns():
        return f"scores differ {B.returns(b)} vs {st.returns()}"
    return None
