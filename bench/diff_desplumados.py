"""¡Desplumados! for bench/differential.py (see there): games/desplumados.rules
against ../shared/baseline/desplumados.py.

The interpreter is loaded with ``explicit_chance=True``.  After the
baseline's ``new_game`` the interpreter's setup (its own chance events
resolved arbitrarily) is overwritten with the baseline's deal: the draw
pile in the same order (the baseline's deck top is the end of its list),
the hands, the meadow, the first player.  Later chance events (the escaping
hen's slowest slapper) are resolved by the driver: it takes the outcome
after which the whole position agrees with the baseline's (``project``).

Action texts, baseline tuple -> rules file:

    ('play', hen)         put Red hen in your henhouse   (also absent-minded)
    ('play', ROOSTER)     put Rooster on your henhouse
    ('play', DOG)         show Dog: it chases out your impostor
    ('play', FOX)         set Fox loose
    ('play', ESCAPING)    throw Escaping hen
    ('impostor', q)       put Impostor hen in the henhouse of player q+1
    ('thief', q)          send Thief to player q+1
    ('tornado', +1 / -1)  play Tornado: hands pass Left / Right
    ('evict',)            discard your rightmost hen and your impostor
    ('meadow', g, t)      give G to the meadow for T
    ('place', where)      put H in your hand / put H in your henhouse / discard H
    ('discard', k), ('done',)   see discard_texts

After every step the whole position is compared too (draw pile order,
hands, henhouses left to right, roosters, meadow, discard pile, the hen
being placed, whose turn), so a difference shows where it starts.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

BASELINE = "desplumados"
RULES = "desplumados.rules"
PLAYERS = (3, 4, 5, 6, 7)

NAMES = ("Red hen", "Green hen", "Purple hen", "Absent-minded hen", "Escaping hen", "Impostor hen",
         "Rooster", "Dog", "Thief", "Fox", "Tornado", "Moon")
DIRECTION = {1: "Left", -1: "Right"}


def add_arguments(ap):
    pass


def options(args):
    return {}


def load_game(load, path, opts):
    return load(path, explicit_chance=True, **opts)


# ---------------------------------------------------------------- actions
def discard_texts(B, b, st):
    """{text: [baseline actions]} for the "discard cards" action, in the
    granularity the rules file uses.

    Step by step (today): the baseline's ('discard', k) is "discard K" at
    the start of a turn and "also discard K" once discarding; ('done',) is
    "stop discarding".  As one decision choosing a set of cards ("discard
    Dog, Fox"): each non-empty sub-multiset of the hand is the baseline's
    sequence of ('discard', k) then ('done',) if cards are left.  Which one
    is in use is read off the interpreter's texts (a comma after "discard");
    with a single card in hand the two read the same."""
    acts = B.legal_actions(b)
    if b.phase == B.DISCARDING:
        return {("stop discarding" if a[0] == "done" else f"also discard {NAMES[a[1]]}"): [a]
                for a in acts if a[0] in ("discard", "done")}
    as_set = any(is_discard_text(t) and ", " in t for t in st.legal_action_texts())
    if not as_set:
        return {f"discard {NAMES[a[1]]}": [a] for a in acts if a[0] == "discard"}
    hand = Counter(b.hands[b.player])
    kinds = sorted(hand)
    out = {}
    for counts in product(*(range(hand[k] + 1) for k in kinds)):
        chosen = [k for k, c in zip(kinds, counts) for _ in range(c)]
        if not chosen:
            continue
        seq = [B.DISCARD[k] for k in chosen]
        if len(chosen) < sum(hand.values()):
            seq.append(B.DONE)
        out[interp_text("discard " + ", ".join(NAMES[k] for k in chosen))] = seq
    return out


def is_discard_text(t):
    return t.startswith("discard ") and not t.startswith("discard your ")


def interp_text(text):
    """The interpreter's action text, normalized for comparison: the cards
    of a set discard in name order."""
    if is_discard_text(text) and ", " in text:
        return "discard " + ", ".join(sorted(text[len("discard "):].split(", ")))
    return text


def base_text(B, b, a):
    tag = a[0]
    if tag == "play":
        k = a[1]
        if k <= B.ABSENT:
            return f"put {NAMES[k]} in your henhouse"
        return {B.ROOSTER: "put Rooster on your henhouse",
                B.DOG: "show Dog: it chases out your impostor",
                B.FOX: "set Fox loose",
                B.ESCAPING: "throw Escaping hen"}[k]
    if tag == "impostor":
        return f"put Impostor hen in the henhouse of player {a[1] + 1}"
    if tag == "thief":
        return f"send Thief to player {a[1] + 1}"
    if tag == "tornado":
        return f"play Tornado: hands pass {DIRECTION[a[1]]}"
    if tag == "evict":
        return "discard your rightmost hen and your impostor"
    if tag == "meadow":
        return f"give {NAMES[a[1]]} to the meadow for {NAMES[a[2]]}"
    if tag == "place":
        h = NAMES[b.pending]
        return {"hand": f"put {h} in your hand", "henhouse": f"put {h} in your henhouse",
                "discard": f"discard {h}"}[a[1]]
    raise ValueError(a)


def legal(B, b, st):
    """{text: [baseline actions to play for it]}"""
    out = discard_texts(B, b, st)
    for a in B.legal_actions(b):
        if a[0] not in ("discard", "done"):
            t = base_text(B, b, a)
            if t in out:
                raise ValueError(f"two baseline actions read {t!r}")
            out[t] = [a]
    return out


# ---------------------------------------------------------------- positions
def project(B, b):
    """The baseline's position, in the interpreter's card names."""
    n = b.n
    deck = list(b.deck)  # the moon, once drawn, is in neither pile: compared without it
    meadow = [c for c in (B.RED, B.GREEN, B.PURPLE) for _ in range(b.meadow[c])]
    return {
        "draw_pile": [NAMES[c] for c in deck],
        "hands": [sorted(NAMES[c] for c in b.hands[p]) for p in range(n)],
        "henhouses": [[NAMES[c] for c in b.houses[p]] for p in range(n)],
        "roosters": [int(b.roosters[p]) for p in range(n)],
        "meadow": sorted(NAMES[c] for c in meadow),
        "discard_pile": sorted(NAMES[c] for c in b.discard),
        "loot": [NAMES[b.pending]] if b.pending != B.NO_CARD else [],
        "elsewhere": [],
        "to_move": None if B.is_terminal(b) else b.player,
    }


def project_state(st):
    """The interpreter's position in the same form as :func:`project`."""
    n = st.num_players

    z = st.zone_cards

    def hand(p):  # the moon, once drawn, lies in a hand in the rules file: left out
        return sorted(c for c in z("hand", p) if c != "Moon")
    return {
        "draw_pile": z("draw_pile"),
        "hands": [hand(p) for p in range(n)],
        "henhouses": [z("henhouse", p) for p in range(n)],
        "roosters": [len(z("roost", p)) for p in range(n)],
        "meadow": sorted(z("meadow")),
        "discard_pile": sorted(z("discard_pile")),
        "loot": z("loot"),
        "elsewhere": sorted(z("aside") + [c for p in range(n) for c in z("passing", p)]),
        "to_move": None if st.is_terminal else st.current_player,
    }


# ---------------------------------------------------------------- the game
def start(B, game, seed, players, opts):
    b = B.new_game(seed, players, **opts)
    st = game.new_state(seed, players)
    while st.is_chance_node:  # the setup's shuffles: overwritten below
        st.apply(0)
    deal(B, b, st)
    return b, st


def deal(B, b, st):
    """Put every card where the baseline has it (by card id, so that a
    copy placed in one zone is not taken again for another)."""
    free = {name: list(st.m.card_ids(name)) for name in NAMES}

    def ids(kinds):
        return [free[NAMES[k]].pop() for k in kinds]

    st.put(ids(b.deck), "draw_pile")
    st.put(ids(c for c in (B.RED, B.GREEN, B.PURPLE) for _ in range(b.meadow[c])), "meadow")
    st.put(ids(b.discard), "discard_pile")
    for p in range(b.n):
        st.put(ids(b.hands[p]), "hand", p)
        st.put(ids(b.houses[p]), "henhouse", p)
        st.put(ids([B.ROOSTER] * b.roosters[p]), "roost", p)
    left = {k: v for k, v in free.items() if v}
    if left and not b.moon_drawn:
        raise ValueError(f"cards not placed: {left}")
    st.me = b.player
    st.set_var("seat", b.player)


def sync(B, b, st, memo):
    pass  # one deal, at the start


def result(B, b):
    """How the game ended (counted in the summary)."""
    return "moon" if b.moon_drawn else "won"


def weight(text):
    """--weighted: hens to henhouses and attacks on them, fewer discards,
    so that wins (not only the moon) are reached and compared."""
    if text.endswith("in your henhouse"):
        return 30
    if text.startswith(("send Thief", "set Fox", "throw", "put Impostor", "show Dog", "discard your")):
        return 5
    if text.startswith(("discard ", "also discard ")):
        return 0.3
    return 1


def final(B, b, st):
    if sorted(b.winners) != sorted(st.winners()):
        return f"winners differ: baseline {[p + 1 for p in b.winners]} vs rules file {[p + 1 for p in st.winners()]}"
    return None
