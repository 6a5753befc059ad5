"""Hens (games/hens.rules) against its rules and the project's reconstruction.

Every expectation below comes from the published rules of Hens (Giampaolo
Razzino, Little Rocket Games, 2022) and from the project's reconstruction
of what they leave out (hard-coded here; neither file is read):

- the card chart: 8 breeds x numbers 1-6; Padovana and Wyandotte (12 cards)
  have every number twice, Sebright and Barnevelder (10) numbers 2-5 twice,
  Sultan and Faverolles (8) numbers 3-4 twice, Cemani and Modern Game (6)
  none; eggs and medals as in ``CHART`` below; 72 hens and 10 goal cards;
- fewer players, fewer breeds: 1-2 players play without Wyandotte,
  Barnevelder, Faverolles and Modern Game (36 hens), 3 players without
  Wyandotte and Modern Game (54 hens), 4 players with all 72;
- setup: one goal card drawn at random and shown to all (``goal``), the other
  nine set aside unseen; 4 cards to each player; the first player is random;
- a turn: draw 2 cards one at a time, each from the deck or from the top of
  an *opponent's* face-up discard pile (never one's own; no opponent's pile in
  the first round); a draw is skipped when nothing can be drawn; place 1 card
  in one's barnyard; discard 1 card face up onto one's own pile;
- placement: the first card at (0, 0); each later card orthogonally next to
  one already there, the barnyard staying within a 4 by 3 or 3 by 4 box; a
  hen's every orthogonal neighbour must be of its breed (any number) or of
  another breed one number apart (a coop asks nothing); instead any card may
  be laid face down as a coop (-1 point) on any open cell;
- 12 rounds, then the end; after round 6 every player with a hen puts the
  rooster on one of their hens (not a coop), in secret: nobody sees the
  choices until all have chosen;
- scoring: the eggs of the largest group (orthogonally joined hens of one
  breed; among groups of that size, the most eggs); plus the eggs of the
  rooster's group unless it is that group (reading: among groups tied in
  size and eggs the largest is one without the rooster, so the rooster's
  group scores); 2 points per full 3 medals; -1 per coop; both goals of the
  goal card, for every player (a coop shows no breed, number, eggs or medals;
  corners and lines are those of the barnyard's bounding box, a line with an
  empty cell is not full):
    1 no coops +3 / largest group of 3 or fewer -2;
    2 hens of 6 or more breeds +3 / 2 or more coops -2;
    3 hens numbered 1 to 6 all present +3 / -1 per hen with no neighbour of
      its breed;
    4 largest group of 6 or more +3 / no medal -2;
    5 5 or more medals +2 / 3 or fewer breeds -2;
    6 22 or more eggs +2 / -1 per breed with exactly one hen;
    7 the four corners are hens +2 / the rooster's group is one hen -2;
    8 +1 per Cemani or Modern Game hen / two breeds each with a group of 4 or
      more +2;
    9 the rooster's group has 4 or more hens +2 / +1 per hen numbered 1;
   10 +2 per line all hens of one breed / +1 per hen numbered 6;
- tie-breaks: the largest group's size, the second largest's, the medals;
  players still tied share the win;
- solo: draws from the deck only; with ``solo_target`` 0 (the default) any
  score wins; with a target, a score below it wins for nobody.

Barnyards are built by playing the game's own placement actions from
arranged hands (see ``play_out``): a picture such as ``"Pa1 Pa2* / ## Se3"``
is laid out row by row (y down, x right), the first card at (0, 0).  Seats
are 0-based here; action texts say "player 1" for seat 0.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from pathlib import Path

import pytest

from interpreter import IllegalAction, load

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "games" / "hens.rules"

# name -> (eggs, medals, copies)
CHART = {
    "Padovana 1": (1, 0, 2), "Padovana 2": (1, 0, 2), "Padovana 3": (2, 0, 2),
    "Padovana 4": (2, 0, 2), "Padovana 5": (1, 0, 2), "Padovana 6": (1, 0, 2),
    "Wyandotte 1": (1, 0, 2), "Wyandotte 2": (1, 0, 2), "Wyandotte 3": (2, 0, 2),
    "Wyandotte 4": (2, 0, 2), "Wyandotte 5": (1, 0, 2), "Wyandotte 6": (1, 0, 2),
    "Sebright 1": (1, 0, 1), "Sebright 2": (2, 0, 2), "Sebright 3": (2, 0, 2),
    "Sebright 4": (2, 0, 2), "Sebright 5": (2, 0, 2), "Sebright 6": (1, 0, 1),
    "Barnevelder 1": (1, 0, 1), "Barnevelder 2": (2, 0, 2), "Barnevelder 3": (2, 0, 2),
    "Barnevelder 4": (2, 0, 2), "Barnevelder 5": (2, 0, 2), "Barnevelder 6": (1, 0, 1),
    "Sultan 1": (2, 1, 1), "Sultan 2": (2, 0, 1), "Sultan 3": (3, 0, 2),
    "Sultan 4": (3, 0, 2), "Sultan 5": (2, 0, 1), "Sultan 6": (2, 1, 1),
    "Faverolles 1": (2, 1, 1), "Faverolles 2": (2, 0, 1), "Faverolles 3": (3, 0, 2),
    "Faverolles 4": (3, 0, 2), "Faverolles 5": (2, 0, 1), "Faverolles 6": (2, 1, 1),
    "Cemani 1": (2, 1, 1), "Cemani 2": (3, 1, 1), "Cemani 3": (3, 2, 1),
    "Cemani 4": (3, 2, 1), "Cemani 5": (3, 1, 1), "Cemani 6": (2, 1, 1),
    "Modern Game 1": (2, 1, 1), "Modern Game 2": (3, 1, 1), "Modern Game 3": (3, 2, 1),
    "Modern Game 4": (3, 2, 1), "Modern Game 5": (3, 1, 1), "Modern Game 6": (2, 1, 1),
}
BREEDS = ("Padovana", "Wyandotte", "Sebright", "Barnevelder", "Sultan", "Faverolles", "Cemani",
          "Modern Game")
BREEDS_IN = {1: {"Padovana", "Sebright", "Sultan", "Cemani"},
             2: {"Padovana", "Sebright", "Sultan", "Cemani"},
             3: {"Padovana", "Sebright", "Sultan", "Cemani", "Barnevelder", "Faverolles"},
             4: set(BREEDS)}
DECK_SIZE = {1: 36, 2: 36, 3: 54, 4: 72}
GOALS = [f"Goal {k}" for k in range(1, 11)]
ABBR = {"Pa": "Padovana", "Wy": "Wyandotte", "Se": "Sebright", "Ba": "Barnevelder", "Su": "Sultan",
        "Fa": "Faverolles", "Ce": "Cemani", "MG": "Modern Game"}


@functools.lru_cache(maxsize=None)
def game(**params):
    return load(RULES, **params)


@functools.lru_cache(maxsize=None)
def chance_game(**params):
    return load(RULES, explicit_chance=True, **params)


# ---------------------------------------------------------------- helpers
def breed_of(name):
    return name.rsplit(" ", 1)[0]


def number_of(name):
    return int(name.rsplit(" ", 1)[1])


def hens_of(counts):
    return Counter({name: CHART[name][2] for name in CHART if breed_of(name) in BREEDS_IN[counts]})


def texts(st):
    return st.legal_action_texts()


def cell(x, y):
    return f"({x}, {y})"


def all_cards(st):
    out = []
    for z in ("box", "goals", "goal", "deck"):
        out += st.zone_cards(z)
    for p in range(st.num_players):
        for z in ("hand", "discards", "barnyard"):
            out += st.zone_cards(z, p)
    return out


def start(n, first=None, seed=0, **params):
    """A new game of n players; with ``first``, the first seed whose first
    player is that seat."""
    g = game(**params)
    for s in range(seed, seed + 300):
        st = g.new_state(s, n)
        if first is None or st.current_player == first:
            return st
    raise AssertionError("no such seed")


def kind(st):
    """What the player to move decides: draw, place, discard or rooster."""
    t = texts(st)[0]
    for k, prefix in (("draw", "draw "), ("place", "place "), ("discard", "discard "),
                      ("rooster", "put the rooster")):
        if t.startswith(prefix):
            return k
    raise AssertionError(t)


def parse(picture):
    """A picture ("Pa1 Pa2 / ## #Se3 Ce4*", rows by y) -> placements in an
    order that keeps each next to an earlier one, first at (0, 0):
    [(name or None, (x, y), coop, rooster)]; "##" is a coop of any spare card."""
    rows = [r.split() for r in picture.replace("/", "\n").strip().splitlines() if r.strip()]
    grid = {}
    for y, row in enumerate(rows):
        for x, tok in enumerate(row):
            if tok == ".":
                continue
            coop = tok.startswith("#")
            rooster = tok.endswith("*")
            tok = tok.strip("#*")
            name = f"{ABBR[tok[:2]]} {tok[2:]}" if tok else None
            grid[(x, y)] = (name, coop, rooster)
    origin = min(grid, key=lambda c: (c[1], c[0]))
    order, todo, seen = [], [origin], {origin}
    while todo:
        c = todo.pop(0)
        order.append(c)
        for d in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            n = (c[0] + d[0], c[1] + d[1])
            if n in grid and n not in seen:
                seen.add(n)
                todo.append(n)
    assert len(order) == len(grid), "the picture is not connected"
    ox, oy = origin
    return [(grid[c][0], (c[0] - ox, c[1] - oy), grid[c][1], grid[c][2]) for c in order]


def _ids_in(st, zone, p=None):
    return list(st.Z[st.m.zone_instance(st, zone, p)])


def set_goal(st, k):
    want = f"Goal {k}"
    old = st.zone_cards("goal")
    if old != [want]:
        st.put([want], "goal")
        st.put(old, "goals")
    assert st.zone_cards("goal") == [want]


def free_copy(st, name):
    """A copy of ``name`` that lies in no barnyard (``put`` by name could take
    a placed one)."""
    fixed = set()
    for q in range(st.num_players):
        fixed |= set(_ids_in(st, "barnyard", q))
    free = [c for c in st.m.card_ids(name) if c not in fixed and st.loc[c] >= 0]
    if not free:
        raise ValueError(f"no free copy of {name!r}")
    return free[0]


def clear(st, zone, p=None):
    """Set a zone's cards aside (into the box, which play never reads)."""
    st.put(_ids_in(st, zone, p), "box")


def fetch(st, p, name, reserved):
    """Bring a copy of ``name`` into p's hand (from anywhere but a barnyard or
    the goal), giving back a spare card so that the hand keeps its size."""
    hand = _ids_in(st, "hand", p)
    if any(st.card_name(c) == name for c in hand):
        return
    spare = [c for c in hand if st.card_name(c) not in reserved]
    st.put([free_copy(st, name)], "hand", p)
    if spare:
        st.put([spare[0]], "box")


def play_out(n, yards, goal=None, rooster_round=0, first=0, seed=0, stop_at_rooster=False, **params):
    """Play a whole game of len(picture) rounds in which player p lays out
    ``yards[p]`` (players without a picture lay coops).  Draws take the first
    legal draw (the deck while it lasts); discards a spare card."""
    plans = {p: parse(pic) for p, pic in yards.items()}
    rounds = max(len(v) for v in plans.values())
    assert all(len(v) == rounds for v in plans.values())
    st = start(n, first=first, seed=seed, rounds=rounds, rooster_round=rooster_round, **params)
    if goal is not None:
        set_goal(st, goal)
    reserved = {name for plan in plans.values() for name, *_ in plan if name}
    steps = {p: 0 for p in range(n)}
    while not st.is_terminal:
        p = st.current_player
        k = kind(st)
        if k == "draw":
            st.apply_text(texts(st)[0])
        elif k == "discard":
            options = [t for t in texts(st) if t[len("discard "):] not in reserved]
            st.apply_text((options or texts(st))[0])
        elif k == "place":
            if p not in plans:
                coops = [t for t in texts(st) if " as a coop at " in t
                         and t[len("place "):t.index(" as a coop")] not in reserved]
                st.apply_text(coops[0])
                continue
            name, (x, y), coop, _ = plans[p][steps[p]]
            steps[p] += 1
            if name is None:
                name = next(c for c in st.zone_cards("hand", p) if c not in reserved)
            else:
                fetch(st, p, name, reserved)
            st.apply_text(f"place {name} as a coop at {cell(x, y)}" if coop else f"place {name} at {cell(x, y)}")
        else:
            if stop_at_rooster:
                return st
            mark = [c for _, c, _, r in plans.get(p, []) if r]
            st.apply_text(f"put the rooster at {cell(*mark[0])}" if mark else texts(st)[0])
    return st


def ev(st, expr):
    return game().evaluate(st, expr)


def yard_view(st, p, viewer=None):
    """{(x, y): (name or None, face_down, rooster)} as ``viewer`` (default p) sees p's barnyard."""
    out = {}
    for e in st.observation(p if viewer is None else viewer)["zones"]["barnyard"][p]:
        card = e["card"]
        rooster = False
        if isinstance(card, dict):
            rooster = bool(card.get("rooster"))
            card = card["card"]
        out[tuple(e["cell"])] = (card, e["face_down"], rooster)
    return out


# ---------------------------------------------------------------- a reference scorer
def ref_score(view, goal_k):
    """(total, largest size, second largest size, medals) of a barnyard view,
    written from the rules above."""
    hens = {c: name for c, (name, down, _) in view.items() if not down}
    rooster = [c for c, (_, down, r) in view.items() if r and not down]
    coops = sum(1 for _, down, _ in view.values() if down)
    near = lambda c: [(c[0] + 1, c[1]), (c[0] - 1, c[1]), (c[0], c[1] + 1), (c[0], c[1] - 1)]
    groups, seen = [], set()
    for c in hens:
        if c in seen:
            continue
        seen.add(c)
        g, todo = [], [c]
        while todo:
            x = todo.pop()
            g.append(x)
            for m in near(x):
                if m in hens and m not in seen and breed_of(hens[m]) == breed_of(hens[c]):
                    seen.add(m)
                    todo.append(m)
        groups.append(frozenset(g))
    eggs = lambda g: sum(CHART[hens[c]][0] for c in g)
    sizes = sorted((len(g) for g in groups), reverse=True) + [0, 0]
    top, second = sizes[0], sizes[1]
    top_eggs = max([eggs(g) for g in groups if len(g) == top] + [0])
    best = [g for g in groups if len(g) == top and eggs(g) == top_eggs]
    rg = next((g for g in groups if rooster and rooster[0] in g), None)
    extra = eggs(rg) if rg is not None and any(g != rg for g in best) else 0
    medals = sum(CHART[n][1] for n in hens.values())
    numbers = Counter(number_of(n) for n in hens.values())
    breeds = Counter(breed_of(n) for n in hens.values())
    rsize = len(rg) if rg is not None else 0
    g1 = g2 = 0
    if goal_k == 1:
        g1, g2 = 3 * (coops == 0), -2 * (top <= 3)
    elif goal_k == 2:
        g1, g2 = 3 * (len(breeds) >= 6), -2 * (coops >= 2)
    elif goal_k == 3:
        g1 = 3 * all(numbers[k] for k in range(1, 7))
        g2 = -sum(1 for c in hens if not any(m in hens and breed_of(hens[m]) == breed_of(hens[c]) for m in near(c)))
    elif goal_k == 4:
        g1, g2 = 3 * (top >= 6), -2 * (medals == 0)
    elif goal_k == 5:
        g1, g2 = 2 * (medals >= 5), -2 * (len(breeds) <= 3)
    elif goal_k == 6:
        g1 = 2 * (sum(CHART[n][0] for n in hens.values()) >= 22)
        g2 = -sum(1 for b in breeds.values() if b == 1)
    elif goal_k == 7:
        if view:
            xs, ys = [c[0] for c in view], [c[1] for c in view]
            g1 = 2 * all(c in hens for c in [(min(xs), min(ys)), (max(xs), min(ys)),
                                               (min(xs), max(ys)), (max(xs), max(ys))])
        g2 = -2 * (rsize == 1)
    elif goal_k == 8:
        g1 = sum(1 for n in hens.values() if breed_of(n) in ("Cemani", "Modern Game"))
        g2 = 2 * (len({breed_of(hens[next(iter(g))]) for g in groups if len(g) >= 4}) >= 2)
    elif goal_k == 9:
        g1, g2 = 2 * (rsize >= 4), numbers[1]
    elif goal_k == 10:
        if view:
            xs, ys = [c[0] for c in view], [c[1] for c in view]
            lines = [[(x, y) for x in range(min(xs), max(xs) + 1)] for y in range(min(ys), max(ys) + 1)]
            lines += [[(x, y) for y in range(min(ys), max(ys) + 1)] for x in range(min(xs), max(xs) + 1)]
            g1 = 2 * sum(1 for ln in lines if all(c in hens for c in ln)
                         and len({breed_of(hens[c]) for c in ln}) == 1)
        g2 = numbers[6]
    total = top_eggs + extra + 2 * (medals // 3) - coops + g1 + g2
    return total, top, second, medals


def ref_winners(refs):
    best = max(refs)
    return [p for p, r in enumerate(refs) if r == best]


# ================================================================ the deck and the deal
def test_default_parameters():
    assert game().params == {"rounds": 12, "rooster_round": 6, "hand_size": 4, "draws": 2, "solo_target": 0}
    assert (game().min_players, game().max_players) == (1, 4)


def test_the_card_chart():
    st = start(4)
    names = ev(st, "[c for c in deck]")
    eggs = ev(st, "[c.eggs for c in deck]")
    medals = ev(st, "[c.medals for c in deck]")
    numbers = ev(st, "[c.number for c in deck]")
    for name, e, m, k in zip(names, eggs, medals, numbers):
        assert (e, m) == CHART[name][:2], name
        assert k == number_of(name)
    # the published shape: two breeds each of 12, 10, 8 and 6 cards
    sizes = Counter(breed_of(n) for n in hens_of(4).elements())
    assert sorted(sizes.values()) == [6, 6, 8, 8, 10, 10, 12, 12]
    assert sum(hens_of(4).values()) == 72


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_deck_per_player_count(n):
    for seed in range(4):
        st = game().new_state(seed, n)
        cards = Counter(all_cards(st))
        hens = Counter({k: v for k, v in cards.items() if not k.startswith("Goal")})
        assert hens == hens_of(n)
        assert sum(hens.values()) == DECK_SIZE[n]
        assert {breed_of(h) for h in hens} == BREEDS_IN[n]
        assert Counter(k for k in cards.elements() if k.startswith("Goal")) == Counter(GOALS)


@pytest.mark.parametrize("n, absent", [(1, {"Wyandotte", "Barnevelder", "Faverolles", "Modern Game"}),
                                       (2, {"Wyandotte", "Barnevelder", "Faverolles", "Modern Game"}),
                                       (3, {"Wyandotte", "Modern Game"}),
                                       (4, set())])
def test_breeds_left_out(n, absent):
    st = game().new_state(0, n)
    assert not {breed_of(c) for c in all_cards(st) if not c.startswith("Goal")} & absent
    for b in absent:
        with pytest.raises(ValueError):
            st.put([f"{b} 3"], "hand", 0)  # not in play at all


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_the_deal(n):
    firsts, goals = set(), set()
    for seed in range(60):
        st = game().new_state(seed, n)
        assert st.zone_cards("box") == []
        goal = st.zone_cards("goal")
        assert len(goal) == 1 and goal[0] in GOALS
        goals.add(goal[0])
        assert sorted(st.zone_cards("goals") + goal) == sorted(GOALS)
        for p in range(n):
            assert len(st.zone_cards("hand", p)) == 4
            assert st.zone_cards("discards", p) == [] and st.zone_cards("barnyard", p) == []
        assert len(st.zone_cards("deck")) == DECK_SIZE[n] - 4 * n
        assert st.current_player == st.get_var("first")
        assert st.get_var("round") == 1
        firsts.add(st.current_player)
    assert firsts == set(range(n))  # the first player is drawn at random
    assert len(goals) >= 8  # the goal card too


@pytest.mark.parametrize("n", [1, 3, 4])
def test_setup_chances_are_explicit_and_uniform(n):
    st = chance_game().new_state(0, n)
    sizes = []
    while True:
        outs = st.chance_outcomes()
        assert sum(p for _, p in outs) == pytest.approx(1)
        assert len({p for _, p in outs}) == 1
        sizes.append(len(outs))
        if len(sizes) == 9 + DECK_SIZE[n] - 1 + 1:
            break
        st.apply(0)
    # the goal cards are shuffled, then the hens, then the first player is drawn
    assert sizes == list(range(10, 1, -1)) + list(range(DECK_SIZE[n], 1, -1)) + [n]
    for i in range(n):
        s = st.clone()
        s.apply(i)
        assert not s.is_chance_node
        assert s.get_var("first") == i == s.current_player
        assert len(s.zone_cards("goal")) == 1


def test_the_goal_is_public_and_hands_are_private():
    st = start(3)
    for p in range(3):
        obs = st.observation(p)["zones"]
        assert obs["goal"] == st.zone_cards("goal")
        assert obs["goals"] == [None] * 9
        assert obs["deck"] == [None] * len(st.zone_cards("deck"))
        for q in range(3):
            if q == p:
                assert obs["hand"][q] == st.zone_cards("hand", q)
            else:
                assert obs["hand"][q] == [None] * 4


# ================================================================ placement
def test_the_first_card_goes_to_the_origin_only():
    st = start(2, first=0)
    st.apply_text("draw from the deck")
    st.apply_text("draw from the deck")
    hand = st.zone_cards("hand", 0)
    assert len(hand) == 6
    assert texts(st) == [f"place {c} at (0, 0)" for c in hand] + [f"place {c} as a coop at (0, 0)" for c in hand]


def at_placement(yard, hand):
    """Player 1 (seat 0) about to place a card, the barnyard laid out as
    ``yard`` and the hand exactly ``hand`` (names)."""
    plan = parse(yard)
    st = start(2, first=0, rounds=len(plan) + 1)  # the picture, then one more card
    reserved = {n for n, *_ in plan if n} | set(hand)
    step = 0
    while True:
        p = st.current_player
        k = kind(st)
        if k == "draw":
            st.apply_text(texts(st)[0])
        elif k == "discard":
            options = [t for t in texts(st) if t[len("discard "):] not in reserved]
            st.apply_text((options or texts(st))[0])
        elif p == 1:
            st.apply_text(next(t for t in texts(st) if " as a coop at " in t
                               and t[len("place "):t.index(" as a coop")] not in reserved))
        elif step == len(plan):
            break
        else:
            name, (x, y), coop, _ = plan[step]
            step += 1
            if name is None:
                name = next(c for c in st.zone_cards("hand", 0) if c not in reserved)
            else:
                fetch(st, 0, name, reserved)
            st.apply_text(f"place {name} as a coop at {cell(x, y)}" if coop else f"place {name} at {cell(x, y)}")
    clear(st, "hand", 0)
    for name in hand:
        fetch(st, 0, name, set(hand))
    assert sorted(st.zone_cards("hand", 0)) == sorted(hand)
    return st


def placements(st, name):
    return [t[len(f"place {name} at "):] for t in texts(st) if t.startswith(f"place {name} at ")]


def coop_cells(st, name):
    return [t[len(f"place {name} as a coop at "):] for t in texts(st)
            if t.startswith(f"place {name} as a coop at ")]


# (0, 0) Padovana 3   (1, 0) Sebright 4   (2, 0) coop
YARD = "Pa3 Se4 ##"
OPEN = [(-1, 0), (0, -1), (0, 1), (1, -1), (1, 1), (2, -1), (2, 1), (3, 0)]


def test_coops_go_to_every_open_cell():
    st = at_placement(YARD, ["Sultan 3", "Cemani 6"])
    for c in ("Sultan 3", "Cemani 6"):
        assert coop_cells(st, c) == [cell(*x) for x in OPEN]


@pytest.mark.parametrize("card, allowed, why", [
    ("Padovana 6", [(-1, 0), (0, -1), (0, 1), (2, -1), (2, 1), (3, 0)],
     "same breed as Pa3, any number; not next to Se4 (6 vs 4)"),
    ("Padovana 5", [(-1, 0), (0, -1), (0, 1), (1, -1), (1, 1), (2, -1), (2, 1), (3, 0)],
     "Pa3 by breed, Se4 one apart"),
    ("Sultan 3", [(1, -1), (1, 1), (2, -1), (2, 1), (3, 0)],
     "another breed with the same number (Pa3) is refused; one apart from Se4"),
    ("Sultan 2", [(-1, 0), (0, -1), (0, 1), (2, -1), (2, 1), (3, 0)],
     "one apart from Pa3, two from Se4"),
    ("Cemani 6", [(2, -1), (2, 1), (3, 0)], "fits neither: only beside the coop"),
    ("Sebright 1", [(1, -1), (1, 1), (2, -1), (2, 1), (3, 0)], "Se4 by breed; two from Pa3"),
])
def test_every_neighbour_must_share_the_breed_or_be_one_apart(card, allowed, why):
    st = at_placement(YARD, [card])
    assert placements(st, card) == [cell(*x) for x in allowed], why
    for x in set(OPEN) - set(allowed):
        with pytest.raises(IllegalAction):
            st.clone().apply_text(f"place {card} at {cell(*x)}")


def test_a_hen_between_two_hens_must_agree_with_both():
    # (0, 0) Pa3  (1, 0) coop  (2, 0) Su5: (1, -1) and (1, 1) touch the coop
    # only; a 4 agrees with Pa3 and Su5 alike, so it goes anywhere
    st = at_placement("Pa3 ## Su5", ["Padovana 4", "Cemani 4"])
    assert placements(st, "Padovana 4") == ["(-1, 0)", "(0, -1)", "(0, 1)", "(1, -1)", "(1, 1)",
                                            "(2, -1)", "(2, 1)", "(3, 0)"]
    assert placements(st, "Cemani 4") == ["(-1, 0)", "(0, -1)", "(0, 1)", "(1, -1)", "(1, 1)",
                                          "(2, -1)", "(2, 1)", "(3, 0)"]
    st = at_placement("Pa3 Pa4 / . Pa5", ["Sebright 4", "Sebright 6", "Sebright 2"])
    # (0, 1): next to Pa3 (one apart) and Pa5 (one apart); (2, 1) next to Pa5 only
    assert "(0, 1)" in placements(st, "Sebright 4")
    assert "(0, 1)" not in placements(st, "Sebright 2")  # Pa3 agrees, Pa5 does not
    assert "(-1, 0)" in placements(st, "Sebright 2")  # Pa3 alone
    assert "(1, -1)" not in placements(st, "Sebright 4")  # Pa4: same number, other breed
    assert placements(st, "Sebright 6") == ["(1, 2)", "(2, 1)"]  # only beside Pa5 alone


def test_coops_constrain_nothing():
    # a coop surrounded: every open cell next to the coop alone takes any hen
    st = at_placement("## ## / ## ##", ["Cemani 1", "Sultan 6"])
    every = ["(-1, 0)", "(-1, 1)", "(0, -1)", "(0, 2)", "(1, -1)", "(1, 2)", "(2, 0)", "(2, 1)"]
    assert placements(st, "Cemani 1") == every
    assert placements(st, "Sultan 6") == every
    assert coop_cells(st, "Cemani 1") == every


def ref_open(cells):
    out = set()
    for x, y in cells:
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if n in cells:
                continue
            xs, ys = [c[0] for c in cells] + [n[0]], [c[1] for c in cells] + [n[1]]
            w, h = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
            if (w <= 4 and h <= 3) or (w <= 3 and h <= 4):
                out.add(n)
    return sorted(out)


@pytest.mark.parametrize("yard", [
    "## ## ## ##",                 # four wide: never five, and not four tall
    "## / ## / ##",                # three tall: a fourth row is fine
    "## / ## / ## / ##",           # four tall: never five, and at most three wide
    "## ## ## / ## . ## / ##",     # 3 by 3: either way is still open
    "## ## ## ## / ## . . ## / ## ## ## .",
])
def test_the_barnyard_stays_in_a_4_by_3_or_3_by_4_box(yard):
    st = at_placement(yard, ["Cemani 3"])
    taken = {c for _, c, _, _ in parse(yard)}
    assert coop_cells(st, "Cemani 3") == [cell(*x) for x in ref_open(taken)]
    assert placements(st, "Cemani 3") == [cell(*x) for x in ref_open(taken)]


def test_four_wide_cannot_become_four_tall_and_four_tall_cannot_become_four_wide():
    st = at_placement("## ## ## ## / ## / ##", ["Cemani 3"])
    assert "(0, 3)" not in coop_cells(st, "Cemani 3") and "(-1, 0)" not in coop_cells(st, "Cemani 3")
    st = at_placement("## ## ## / ## / ## / ##", ["Cemani 3"])
    assert "(3, 0)" not in coop_cells(st, "Cemani 3") and "(-1, 0)" not in coop_cells(st, "Cemani 3")
    assert "(1, 3)" in coop_cells(st, "Cemani 3")


def test_a_coop_is_face_down_to_the_others_only():
    st = at_placement("Pa3 #Ce4", ["Sultan 1"])
    assert yard_view(st, 0) == {(0, 0): ("Padovana 3", False, False), (1, 0): ("Cemani 4", True, False)}
    assert yard_view(st, 0, viewer=1) == {(0, 0): ("Padovana 3", False, False), (1, 0): (None, True, False)}


# ================================================================ draws and discards
def to_turn(st, p, rnd):
    """Play the first legal actions until player p's turn of round ``rnd`` starts."""
    while not (st.current_player == p and kind(st) == "draw" and st.get_var("round") == rnd):
        st.apply_text(texts(st)[0])


def test_no_discard_pile_in_the_first_round():
    st = start(3, first=0)
    to_turn(st, 1, 1)
    assert st.zone_cards("discards", 0) != []
    assert texts(st) == ["draw from the deck"]
    st.apply_text("draw from the deck")
    assert texts(st) == ["draw from the deck"]
    to_turn(st, 2, 1)
    assert texts(st) == ["draw from the deck"]


def test_from_round_two_any_opponents_pile_but_never_ones_own():
    st = start(3, first=0)
    to_turn(st, 0, 2)
    assert st.get_var("round") == 2
    assert all(st.zone_cards("discards", p) for p in range(3))
    assert texts(st) == ["draw from the deck", "draw the top of player 2's discards",
                         "draw the top of player 3's discards"]
    with pytest.raises(IllegalAction):
        st.apply_text("draw the top of player 1's discards")  # one's own pile
    clear(st, "discards", 2)  # an empty pile offers nothing
    assert texts(st) == ["draw from the deck", "draw the top of player 2's discards"]


def test_a_draw_takes_the_top_and_then_the_next_card_down():
    st = start(2, first=0)
    to_turn(st, 0, 2)
    st.put([free_copy(st, "Sultan 1"), free_copy(st, "Cemani 3")], "discards", 1)
    hand = st.zone_cards("hand", 0)
    st.apply_text("draw the top of player 2's discards")
    assert st.zone_cards("hand", 0) == hand + ["Cemani 3"]
    assert st.zone_cards("discards", 1)[-1] == "Sultan 1"
    st.apply_text("draw the top of player 2's discards")
    assert st.zone_cards("hand", 0) == hand + ["Cemani 3", "Sultan 1"]
    assert kind(st) == "place"


def test_draws_come_one_at_a_time_from_either_place():
    st = start(2, first=0)
    to_turn(st, 0, 2)
    deck = st.zone_cards("deck")
    st.apply_text("draw from the deck")
    assert st.zone_cards("hand", 0)[-1] == deck[-1]
    assert texts(st) == ["draw from the deck", "draw the top of player 2's discards"]
    st.apply_text("draw the top of player 2's discards")
    assert len(st.zone_cards("hand", 0)) == 6


def test_with_the_deck_empty_draws_come_from_discards_or_are_skipped():
    st = start(2, first=0)
    while not (st.current_player == 1 and kind(st) == "discard"):
        st.apply_text(texts(st)[0])
    clear(st, "deck")
    last = st.zone_cards("hand", 1)[0]
    st.apply_text(f"discard {last}")
    assert st.current_player == 0 and st.get_var("round") == 2
    assert texts(st) == ["draw the top of player 2's discards"]
    st.apply_text("draw the top of player 2's discards")
    assert st.zone_cards("hand", 0)[-1] == last
    assert kind(st) == "place"  # the second draw is skipped: nothing left to draw
    assert len(st.zone_cards("hand", 0)) == 5


def test_with_nothing_to_draw_both_draws_are_skipped():
    st = start(1)
    while kind(st) != "discard":
        st.apply_text(texts(st)[0])
    clear(st, "deck")
    st.apply_text(texts(st)[0])
    assert st.get_var("round") == 2
    assert kind(st) == "place" and len(st.zone_cards("hand", 0)) == 4


def test_draws_parameter():
    st = start(2, first=0, draws=0)
    assert kind(st) == "place"
    st = start(2, first=0, draws=3)
    for _ in range(3):
        st.apply_text("draw from the deck")
    assert kind(st) == "place" and len(st.zone_cards("hand", 0)) == 7


def test_solo_draws_from_the_deck_only():
    st = start(1)
    seen = set()
    while not st.is_terminal:
        if kind(st) == "draw":
            seen.update(texts(st))
        st.apply_text(texts(st)[-1])
    assert seen == {"draw from the deck"}


def test_the_discard_goes_face_up_on_ones_own_pile():
    st = start(2, first=0)
    st.apply_text("draw from the deck")
    st.apply_text("draw from the deck")
    st.apply_text(texts(st)[0])  # place
    hand = st.zone_cards("hand", 0)
    assert texts(st) == [f"discard {c}" for c in hand]
    st.apply_text(f"discard {hand[2]}")
    assert st.zone_cards("discards", 0) == [hand[2]]
    assert st.zone_cards("hand", 0) == hand[:2] + hand[3:]
    assert st.observation(1)["zones"]["discards"][0] == [hand[2]]
    assert st.current_player == 1  # the turn is over


# ================================================================ rounds
@pytest.mark.parametrize("n", [1, 2, 4])
def test_twelve_rounds_then_the_end(n):
    st = start(n)
    placed = Counter()
    rounds = []
    while not st.is_terminal:
        if kind(st) == "place":
            placed[st.current_player] += 1
            rounds.append(st.get_var("round"))
        st.apply_text(texts(st)[-1])
    assert placed == Counter({p: 12 for p in range(n)})
    assert rounds == [r for r in range(1, 13) for _ in range(n)]
    for p in range(n):
        assert len(st.zone_cards("barnyard", p)) == 12
        assert len(st.zone_cards("hand", p)) == 4


def test_the_rounds_parameter():
    st = start(2, rounds=3, rooster_round=0)
    while not st.is_terminal:
        st.apply_text(texts(st)[0])
    assert [len(st.zone_cards("barnyard", p)) for p in range(2)] == [3, 3]


def test_each_round_starts_with_the_first_player():
    st = start(3, first=1)
    movers = []
    while st.get_var("round") <= 3:
        if kind(st) == "place":
            movers.append(st.current_player)
        st.apply_text(texts(st)[0])
    assert movers == [1, 2, 0] * 3


# ================================================================ the rooster
def rooster_cells(st, p):
    return [c for c, (_, _, r) in yard_view(st, p).items() if r]


def at_the_rooster(yards, n=2, first=0):
    k = len(parse(next(iter(yards.values()))))
    return play_out(n, yards, rooster_round=k, first=first, stop_at_rooster=True)


def test_the_rooster_comes_after_round_six():
    st = start(2, first=0)
    while kind(st) != "rooster":
        assert st.get_var("round") <= 6
        st.apply_text(texts(st)[0])
    assert st.get_var("round") == 6
    assert [len(st.zone_cards("barnyard", p)) for p in range(2)] == [6, 6]
    assert [len(st.zone_cards("discards", p)) for p in range(2)] == [6, 6]  # round 6 is over


def test_the_rooster_goes_on_a_hen_never_a_coop():
    st = at_the_rooster({0: "Pa1 ## Pa3 / ## Se2 ##", 1: "## ## ## / ## ## Su4"})
    assert st.current_player == 0
    assert sorted(texts(st)) == ["put the rooster at (0, 0)", "put the rooster at (1, 1)",
                                 "put the rooster at (2, 0)"]
    assert all(st.is_secret(a) for a in st.legal_actions())
    st.apply_text("put the rooster at (1, 1)")
    assert st.current_player == 1
    assert texts(st) == ["put the rooster at (2, 1)"]


def test_a_player_with_coops_only_gets_no_rooster():
    st = at_the_rooster({0: "## ## ##", 1: "Pa1 Pa2 ##"}, first=0)
    assert st.current_player == 1
    assert sorted(texts(st)) == ["put the rooster at (0, 0)", "put the rooster at (1, 0)"]
    st.apply_text("put the rooster at (1, 0)")
    assert st.is_terminal
    assert rooster_cells(st, 1) == [(1, 0)] and rooster_cells(st, 0) == []
    assert ev(st, "rooster_size(0)") == 0


def test_the_rooster_is_hidden_until_everyone_has_chosen():
    st = at_the_rooster({0: "Pa1 Pa2 Pa3", 1: "Se1 Se2 Se3", 2: "Su1 Su2 Su3"}, n=3, first=0)
    st.apply_text("put the rooster at (1, 0)")
    # not carried out yet: no hen holds the rooster, nobody sees it
    assert ev(st, "sum(count(h.rooster for h in barnyard(p)) for p in players)") == 0
    for viewer in range(3):
        obs = st.observation(viewer)
        assert "rooster" not in repr(obs)
        assert all(rooster_cells(st, p) == [] for p in range(3))
    st.apply_text("put the rooster at (2, 0)")
    assert "rooster" not in repr(st.observation(0)) and "rooster" not in repr(st.observation(2))
    st.apply_text("put the rooster at (0, 0)")
    # all have chosen: the card var shows on each chosen hen, to everyone
    for viewer in range(3):
        assert [[c for c, (_, _, r) in yard_view(st, p, viewer).items() if r] for p in range(3)] == \
            [[(1, 0)], [(2, 0)], [(0, 0)]]
    assert ev(st, "[h for h in barnyard(0) if h.rooster]") == ["Padovana 2"]
    entry = next(e for e in st.observation(1)["zones"]["barnyard"][0] if e["cell"] == [1, 0])
    assert entry["card"] == {"card": "Padovana 2", "rooster": True}


def test_rulerun_announces_a_secret_choice_without_the_rooster():
    from click.testing import CliRunner

    from interpreter.runner import cli

    r = CliRunner().invoke(cli, [str(RULES), "-p", "2", "-s", "3"], prog_name="rulerun")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    secret = [ln for ln in lines if ln.endswith("chooses in secret")]
    assert [ln.split()[1] for ln in secret] == ["P1:", "P2:"]
    assert "put the rooster" not in r.output
    assert not [ln for ln in lines if "rooster" in ln and not ln.startswith("params:")]
    # the secret choices come right after the last discard of round 6
    i = lines.index(secret[0])
    assert "discard" in lines[i - 1]
    assert sum(1 for ln in lines[:i] if " place " in ln) == 12


def test_resample_redraws_anothers_pending_rooster():
    st = at_the_rooster({0: "Pa1 Pa2 Pa3 Pa4", 1: "Se1 Se2 Se3 Se4"}, first=0)
    st.apply_text("put the rooster at (3, 0)")
    assert st.current_player == 1

    def where(s):
        s.apply_text(texts(s)[0])
        assert s.is_terminal
        return rooster_cells(s, 0)[0]

    theirs = {where(st.resample(1, seed)) for seed in range(40)}
    assert len(theirs) >= 3  # not kept: drawn anew among player 1's hens
    assert theirs <= {(0, 0), (1, 0), (2, 0), (3, 0)}
    assert where(st.clone()) == (3, 0)
    mine = {where(st.resample(0, seed)) for seed in range(10)}
    assert mine == {(3, 0)}  # one's own secret choice is kept


def test_no_rooster_with_rooster_round_zero():
    st = play_out(2, {0: "Pa1 Pa2", 1: "Se1 Se2"}, rooster_round=0)
    assert st.is_terminal
    assert rooster_cells(st, 0) == rooster_cells(st, 1) == []


# ================================================================ scoring
NEUTRAL = 8  # Goal 8 scores nothing without Cemani, Modern Game or groups of 4


def solo(yard, goal=NEUTRAL):
    """A finished solo game whose barnyard is ``yard`` (rooster as marked)."""
    roost = "*" in yard
    k = len(parse(yard))
    st = play_out(1, {0: yard}, goal=goal, rooster_round=k if roost else 0)
    assert st.is_terminal
    return st


def parts(st, p=0):
    return {k: ev(st, f"{k}({p})") for k in ("top_size", "top_eggs", "rooster_eggs", "medals", "coops")}


@pytest.mark.parametrize("yard, top, eggs, why", [
    ("Pa3 Pa4 Pa1 / Su2 . Se2", 3, 5, "three Padovana (2+2+1)"),
    ("Pa1 Pa2 / Su2 Su3", 2, 5, "two groups of two: the one with more eggs (Sultan 2+3)"),
    ("Pa3 Pa4 / . Su5 / . Su4", 2, 5, "Sultan 5+4 (2+3) ties with Padovana 3+4 (2+2): most eggs"),
    ("Pa1 ## Pa2", 1, 1, "a coop does not join hens"),
    ("Pa4 Se5 / Se3 Pa4", 1, 2, "diagonal hens are not joined"),
    ("## ##", 0, 0, "no hen: no group"),
])
def test_groups_and_the_largest(yard, top, eggs, why):
    st = solo(yard)
    got = parts(st)
    assert (got["top_size"], got["top_eggs"]) == (top, eggs), why
    assert st.scores()[0] == ref_score(yard_view(st, 0), NEUTRAL)[0]


@pytest.mark.parametrize("yard, total, why", [
    ("Pa1* Pa2 Pa3 / Su2 . .", 4, "rooster on the largest group: its eggs count once (1+1+2)"),
    ("Pa1 Pa2 Pa3 / Su2* . .", 6, "rooster elsewhere: largest 4 + rooster's group 2"),
    ("Pa3 Pa4 . / Su2 Su3* .", 5, "tied size, the rooster's has more eggs (5 v 4): it is the largest, "
                                  "scored once; the Padovana pair does not score"),
    ("Pa3 Pa4 . / Su2* Su3 .", 5, "the same barnyard, the rooster moved within its group"),
    ("Pa3* Pa4 . / Su2 Su3 .", 9, "tied size, the rooster's has fewer eggs (4 v 5): 5 + 4"),
    ("Pa3 Pa4* / . Se3 / . Se2", 8, "tied in size and eggs (4 and 4): the largest is the one "
                                  "without the rooster, so both score"),
    ("Pa3 Pa4 / . Se3* / . Se2", 8, "the same with the rooster on the other group"),
])
def test_the_rooster_group(yard, total, why):
    st = solo(yard)
    assert st.scores()[0] == total, why
    assert ref_score(yard_view(st, 0), NEUTRAL)[0] == total


@pytest.mark.parametrize("yard, medals, points", [
    ("Su2 Su1", 1, 0),
    ("Su6 Su1 / . Ce2", 3, 2),           # one full 3
    ("Ce3 Ce4 / Ce5 .", 5, 2),           # 5: still one full 3
    ("Ce3 Ce4 / Ce5 Ce6", 6, 4),         # two full 3s
    ("Ce3 Ce4 / #Ce5 #Ce6", 4, 2),       # coops show no medals
])
def test_medals_score_two_per_full_three(yard, medals, points):
    st = solo(yard)
    got = parts(st)
    assert got["medals"] == medals
    assert st.scores()[0] == got["top_eggs"] + points - got["coops"] + ev(st, "goal_score(0)")


@pytest.mark.parametrize("coops, yard", [(0, "Pa1 Pa2"), (1, "Pa1 Pa2 ##"), (2, "Pa1 Pa2 ## ##"),
                                         (3, "Pa1 Pa2 ## / . ## ##")])
def test_each_coop_costs_a_point(coops, yard):
    st = solo(yard)
    assert ev(st, "coops(0)") == coops
    assert st.scores()[0] == 2 - coops


# ---------------------------------------------------------------- the goals
FOUR = 4  # Wyandotte, Barnevelder, Faverolles and Modern Game need 4 players

GOAL_CASES = [
    # goal, players, barnyard, points, why
    (1, 1, "Pa1 Pa2 Pa3 Pa4", 3, "no coop; largest 4"),
    (1, 1, "Pa1 Pa2 Pa3 Pa4 / ## . . .", 0, "a coop; largest 4"),
    (1, 1, "Pa1 Pa2 Pa3", 1, "no coop +3; largest 3: -2"),
    (1, 1, "Pa1 Pa2 Pa3 / ## . .", -2, "a coop; largest 3: -2"),
    (2, FOUR, "Pa1 Wy2 Se3 Ba4 / . . . Su5 / . . . Fa6", 3, "6 breeds, no coop"),
    (2, FOUR, "Pa1 Wy2 Se3 Ba4 / ## ## . Su5 / . . . Fa6", 1, "6 breeds +3, 2 coops -2"),
    (2, FOUR, "Pa1 Wy2 Se3 Ba4 / ## . . Su5 / . . . Fa6", 3, "one coop costs nothing here"),
    (2, FOUR, "Pa1 Wy2 Se3 Ba4 / ## ## . Su5 / . . . #Fa6", -2, "a coop's breed is not shown: 5 breeds"),
    (3, 1, "Pa1 Pa2 Pa3 / Pa6 Pa5 Pa4", 3, "1 to 6, no loner"),
    (3, 1, "Pa1 Pa2 Pa3 / #Pa6 Pa5 Pa4", 0, "a 6 face down does not count"),
    (3, 1, "Pa1 Pa2 Pa3 / Pa6 Pa5 Se4", 2, "1 to 6; Sebright 4 is a loner"),
    (3, 1, "Pa1 Se2 Pa3", -3, "three loners"),
    (4, 1, "Pa1 Pa2 Pa3 / Pa6 Pa5 Pa4", 1, "a group of 6 +3; no medal -2"),
    (4, 1, "Pa1 Pa2 Pa3 / Pa6 Pa5 Pa4 / Ce5 . .", 3, "a group of 6; a medal"),
    (4, 1, "Pa1 Pa2 Pa3 / Pa6 Pa5 Su4", -2, "a group of 5; no medal"),
    (4, 1, "Pa1 Pa2 Pa3 / . Pa5 #Ce4", -2, "a coop shows no medal"),
    (5, 1, "Ce2 Ce3 Ce4", 0, "5 medals +2; one breed -2"),
    (5, 1, "Ce2 Ce3 Ce4 Pa5 / . . . Se6 / . . . Su5", 2, "5 medals, 4 breeds"),
    (5, 1, "Ce1 Ce3 Ce4 Pa5 / . . . Se6 / . . . Su5", 2, "Cemani 1 has a medal too: 5"),
    (5, 1, "Ce6 Ce4 Pa5 / . . Se6 / . . Su5", 0, "4 medals, 4 breeds"),
    (5, 1, "Pa1 Pa2 Se3", -2, "no medal, 2 breeds"),
    (6, 1, "Ce1 Ce2 Ce3 Ce4 / Ce6 Ce5 Su4 Su3", 2, "22 eggs; no single hen of a breed"),
    (6, 1, "Ce1 Ce2 Ce3 Ce4 / Ce6 Ce5 Su4 Su5", 0, "21 eggs"),
    (6, 1, "Ce1 Ce2 Ce3 Ce4 / Ce6 Ce5 Su4 ##", -1, "19 eggs; a lone Sultan"),
    (6, 1, "Pa1 Se2 Pa3 Su4", -2, "two breeds with one hen each"),
    (7, 1, "Pa1* Pa2 Pa3 / Pa4 Pa5 Pa6", 2, "four hens at the corners; the rooster's group is 6"),
    (7, 1, "Pa1* Pa2 Pa3 / Pa4 Pa5 ##", 0, "a coop at a corner"),
    (7, 1, "Pa1* Pa2 / Pa3 .", 0, "an empty corner"),
    (7, 1, "Pa1 Se2* Pa3 / Pa2 Pa3 Pa4", 0, "corners +2; the rooster alone on Sebright 2 -2"),
    (7, 1, "Pa1 Se2* Pa3 / Pa2 Pa3 ##", -2, "a coop at a corner; the rooster alone"),
    (8, 1, "Pa1 Pa2 Pa3 Pa4 / ## ## ## ## / Ce1 Ce2 Ce3 Ce4", 6, "4 Cemani; groups of 4 in two breeds"),
    (8, FOUR, "MG1 MG2 MG3 MG4 / ## ## ## ## / Ce1 Ce2 Ce3 Ce4", 10, "8 rare hens; twin flocks"),
    (8, 1, "Pa1 Pa2 Pa3 Pa4 / ## ## ## ## / Pa5 Pa6 Pa1 Pa2", 0, "two groups of 4 of one breed"),
    (8, 1, "Pa1 Pa2 Pa3 Pa4 / ## ## ## ## / Ce1 Ce2 Ce3 #Ce4", 3, "Cemani 4 face down: 3 rare, group of 3"),
    (9, 1, "Pa1* Pa2 Pa3 Pa4", 3, "the rooster's group is 4; one hen numbered 1"),
    (9, 1, "Pa1 Pa2 Pa3* Se4", 1, "the rooster's group is 3"),
    (9, 1, "Pa1 Pa1* Pa2 Su1 / #Se1 . . .", 3, "the rooster's group is 3; three 1s, one more face down"),
    (10, 1, "Pa1 Pa2 Pa3 Pa4 / Pa6 Pa5 Pa4 Pa3 / Se5 Se4 Se3 Se2", 7, "three rows of one breed; one 6"),
    (10, 1, "Pa1 Pa2 Pa3 Pa4 / Pa6 Pa5 Pa4 Pa3 / Se5 Se4 Se3 ##", 5, "a coop breaks a line"),
    (10, 1, "Pa1 Se2 / Pa2 Se3 / Pa3 Se4 / Pa4 Se5", 4, "two columns of one breed"),
    (10, 1, "Pa6 Pa6 Se5 / Pa4 . Se6", 7, "two full columns; a line with an empty cell is not full; three 6s"),
]


@pytest.mark.parametrize("k, n, yard, points, why", GOAL_CASES,
                         ids=[f"goal{c[0]}-{i}" for i, c in enumerate(GOAL_CASES)])
def test_goal_points(k, n, yard, points, why):
    roost = "*" in yard
    size = len(parse(yard))
    st = play_out(n, {0: yard}, goal=k, rooster_round=size if roost else 0)
    assert st.is_terminal
    assert ev(st, f"goal_points({k}, 0)") == points, why
    total, *_ = ref_score(yard_view(st, 0), k)
    assert ev(st, "goal_score(0)") == points
    assert st.scores()[0] == total
    base = parts(st)
    assert total == (base["top_eggs"] + base["rooster_eggs"] + 2 * (base["medals"] // 3)
                     - base["coops"] + points)


def test_every_goal_scores_for_every_player():
    yard = "Pa1 Pa2 Pa3"
    st = play_out(3, {0: yard, 1: yard, 2: "Se1 Se2 ##"}, goal=1)
    assert [ev(st, f"goal_points(1, {p})") for p in range(3)] == [1, 1, -2]
    assert st.scores() == [4 + 1, 4 + 1, 3 - 1 - 2]


# ================================================================ tie-breaks
def duel(a, b, goal=NEUTRAL):
    st = play_out(2, {0: a, 1: b}, goal=goal)
    assert st.is_terminal
    refs = [ref_score(yard_view(st, p), goal) for p in range(2)]
    assert st.scores() == [r[0] for r in refs]
    assert st.winners() == ref_winners(refs)
    return st


def test_the_higher_score_wins_before_any_tie_break():
    st = duel("Su3 Su4 Se5", "Pa1 Pa2 Pa5")
    assert st.scores() == [6, 3]
    assert [ev(st, f"top_size({p})") for p in range(2)] == [2, 3]
    assert st.winners() == [0]


def test_tie_break_the_largest_group():
    st = duel("Pa3 Pa4 Pa5", "Su2 Su3 Pa4")
    assert st.scores() == [5, 5]
    assert [ev(st, f"top_size({p})") for p in range(2)] == [3, 2]
    assert st.winners() == [0]


def test_tie_break_the_second_largest_group():
    st = duel("Pa3 Pa4 Se5 Se6", "Pa3 Pa4 Se5 Su4")
    assert st.scores() == [4, 4]
    assert [ev(st, f"top_size({p})") for p in range(2)] == [2, 2]
    assert [ev(st, f"second_size({p})") for p in range(2)] == [2, 1]
    assert st.winners() == [0]


def test_tie_break_the_medals():
    st = duel("Su1 Su6", "Su2 Su5")
    assert st.scores() == [4, 4]
    assert [ev(st, f"medals({p})") for p in range(2)] == [2, 0]
    assert st.winners() == [0]


def test_players_tied_on_everything_share_the_win():
    st = duel("Pa3 Pa4", "Pa4 Pa3")
    assert st.scores() == [4, 4] and st.winners() == [0, 1]
    st = play_out(3, {0: "Pa3 Pa4", 1: "Pa4 Pa3", 2: "Se1 Se2"}, goal=NEUTRAL)
    assert st.winners() == [0, 1]


# ================================================================ solo
def test_solo_without_a_target_any_score_wins():
    st = solo("## ## ##")
    assert st.scores()[0] < 0
    assert st.winners() == [0]


@pytest.mark.parametrize("target, winners", [(4, [0]), (5, [0]), (6, [])])
def test_solo_with_a_target(target, winners):
    yard = "Pa3 Pa4 Pa5"
    st = play_out(1, {0: yard}, goal=NEUTRAL, solo_target=target)
    assert st.scores() == [5]
    assert st.winners() == winners


def test_the_solo_target_does_not_touch_a_game_of_two():
    st = play_out(2, {0: "Pa3 Pa4 Pa5", 1: "Pa3 Pa4 Su5"}, goal=NEUTRAL, solo_target=100)
    assert st.winners() == [0]


# ================================================================ random play
def play_random(n, seed, on_step=None, **params):
    st = game(**params).new_state(seed, n)
    rng = random.Random(seed)
    while not st.is_terminal:
        if on_step:
            on_step(st)
        st.apply(rng.choice(st.legal_actions()))
    return st


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_random_play_to_the_end(n):
    for seed in range(3):
        def check(st):
            for p in range(n):
                assert len(st.zone_cards("hand", p)) <= 6
            assert len(st.zone_cards("goal")) == 1
            assert Counter(all_cards(st)) == hens_of(n) + Counter(GOALS)
            if kind(st) == "rooster":
                assert st.get_var("round") == 6
                assert all(st.is_secret(a) for a in st.legal_actions())
            else:
                assert not any(st.is_secret(a) for a in st.legal_actions())

        st = play_random(n, seed, on_step=check)
        assert st.get_var("round") == 12
        goal_k = int(st.zone_cards("goal")[0].split()[1])
        refs = []
        for p in range(n):
            view = yard_view(st, p)
            assert len(view) == 12
            xs, ys = {c[0] for c in view}, {c[1] for c in view}
            assert sorted([len(xs), len(ys)]) == [3, 4]  # a full 4 by 3 or 3 by 4 box
            marked = rooster_cells(st, p)
            assert len(marked) <= 1 and all(not view[c][1] for c in marked)  # on a hen, not a coop
            assert ev(st, "open_cells(barnyard(%d))" % p) == []  # the box is full
            refs.append(ref_score(view, goal_k))
        assert st.scores() == [r[0] for r in refs]
        if n > 1:
            assert st.winners() == ref_winners(refs)
        else:
            assert st.winners() == [0]
