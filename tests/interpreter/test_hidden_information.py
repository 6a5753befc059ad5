"""Hidden information: observations, knowledge and resampling, for both games
(Emu Ranchers, and Fox in the Henhouse at 2, 3 and 4 players).

What a player may know (the project's rulings, hard-coded here):

- Emu Ranchers: your own hand; the discard pile and all birds are public;
  a card the opponent took from the discard pile was seen by both.
- Fox in the Henhouse: a card in your hand is seen by you; a card you move
  face down is remembered by you; no one sees face-down cards otherwise;
  each season's shuffle forgets everything.

The engine keeps, per card, the seats that know it (``State.knows``);
``observation(p)`` names a card where p sees its zone or knows it, else
``None``; ``resample(p, rng)`` deals the cards p does not know at random
among their places.  Bots get only the legal actions and an observation.
"""

from __future__ import annotations

import functools
import inspect
import random
from collections import Counter
from pathlib import Path

import pytest

from interpreter import load
from interpreter.agents import RandomAgent
from interpreter.runner import play

ROOT = Path(__file__).resolve().parents[2]
RULES = {"emu": ROOT / "games" / "emu_ranchers.rules", "fox": ROOT / "games" / "fox_in_the_henhouse.rules"}
CONFIGS = [("emu", 2), ("fox", 2), ("fox", 3), ("fox", 4)]
IDS = [f"{k}-{n}p" for k, n in CONFIGS]
FOX_FIELD = {2: 1, 3: 1, 4: 2}


@functools.lru_cache(maxsize=None)
def game(kind, **params):
    return load(RULES[kind], **params)


# ---------------------------------------------------------------- helpers
def pile_places(st):
    """[(zone, owner)] of every pile zone instance (owner None: shared)."""
    out = []
    for z in st.m.zones:
        if z.kind != "pile":
            continue
        out += [(z.name, p) for p in range(st.num_players)] if z.per_player else [(z.name, None)]
    return out


def obs_pile(obs, zone, owner):
    entry = obs["zones"][zone]
    return entry if owner is None else entry[owner]


def ids_in(st, zone, owner):
    """The card ids of a zone instance, bottom first (to move one exact copy
    with ``put`` when several cards share a name)."""
    return list(st.Z[st.m.zone_instance(st, zone, owner)])


def full_layout(st):
    """Every zone instance's card names (the whole hidden state that matters)."""
    out = {}
    for z in st.m.zones:
        for p in (range(st.num_players) if z.per_player else (None,)):
            out[(z.name, p)] = st.zone_cards(z.name, p)
    return out


def all_card_names(st):
    out = []
    for cards in full_layout(st).values():
        for c in cards:
            out += c if isinstance(c, list) else [c]
    return Counter(out)


def hidden_slots(st, p):
    """[(zone, owner, index)] of the cards p neither sees nor knows, from
    observation(p)'s None entries."""
    obs = st.observation(p)
    slots = []
    for z in st.m.zones:
        owners = range(st.num_players) if z.per_player else (None,)
        for owner in owners:
            shown = obs_pile(obs, z.name, owner)
            if z.kind == "stacks":  # both games' stacks are public
                assert all(c is not None for s in shown for c in s)
                continue
            assert len(shown) == len(st.zone_cards(z.name, owner))
            slots += [(z.name, owner, i) for i, c in enumerate(shown) if c is None]
    return slots


def permute_hidden(st, p, rng):
    """A clone of st whose cards hidden from p are permuted among their
    places (at least two names change place), or None if they are all alike."""
    slots = hidden_slots(st, p)
    ids = {(z, o): ids_in(st, z, o) for z, o in {(z, o) for z, o, _ in slots}}
    cards = [ids[(z, o)][i] for z, o, i in slots]
    if len({st.card_name(c) for c in cards}) < 2:
        return None
    new = cards[:]
    while [st.card_name(c) for c in new] == [st.card_name(c) for c in cards]:
        rng.shuffle(new)
    layout = {k: v[:] for k, v in ids.items()}
    for (z, o, i), c in zip(slots, new):
        layout[(z, o)][i] = c
    s = st.clone()
    for (z, o), content in layout.items():
        s.put(content, z, o)  # each instance rebuilt whole: the result is exact
    for (z, o), content in layout.items():
        assert ids_in(s, z, o) == content
    return s


def place_of(st, card):
    for z, o in pile_places(st):
        content = ids_in(st, z, o)
        if card in content:
            return z, o, content
    raise AssertionError("card not in a pile")


def exchange(st, a, b):
    """A clone of st with cards a and b (ids) in each other's places."""
    s = st.clone()
    if a == b:
        return s
    za, oa, ca = place_of(s, a)
    zb, ob, cb = place_of(s, b)
    if (za, oa) == (zb, ob):
        ca = [b if c == a else a if c == b else c for c in ca]
        s.put(ca, za, oa)
    else:
        ca = [b if c == a else c for c in ca]
        cb = [a if c == b else c for c in cb]
        s.put(ca, za, oa)
        s.put(cb, zb, ob)
    return s


def random_play(st, rng, steps):
    for _ in range(steps):
        if st.is_terminal:
            break
        legal = st.legal_actions()
        assert legal, "a live state without a legal action"
        st.apply(rng.choice(legal))
    return st


@functools.lru_cache(maxsize=None)
def midgame_states(kind, n, count=10):
    """Random mid-game states (seeded); callers must clone before playing."""
    out = []
    for seed in range(count):
        rng = random.Random(7000 + seed)
        st = game(kind).new_state(seed, n)
        random_play(st, rng, rng.randrange(1, 120))
        if not st.is_terminal:
            out.append(st)
    assert len(out) >= count - 1
    return tuple(out)


def play_out(st, rng):
    while not st.is_terminal:
        legal = st.legal_actions()
        assert legal, f"no legal action at {st!r}"
        st.apply(rng.choice(legal))
    return st


# ---------------------------------------------------------------- (a) hidden cards do not show
@pytest.mark.parametrize("kind, n", CONFIGS, ids=IDS)
def test_states_differing_only_in_hidden_cards_look_the_same(kind, n):
    rng = random.Random(1)
    others_saw_it = 0
    checked = 0
    for st in midgame_states(kind, n):
        for p in range(n):
            twin = permute_hidden(st, p, rng)
            if twin is None:
                continue
            checked += 1
            assert full_layout(twin) != full_layout(st)
            assert all_card_names(twin) == all_card_names(st)
            assert twin.observation(p) == st.observation(p)
            assert twin.observation_text(p) == st.observation_text(p)
            if st.current_player == p:
                assert twin.legal_action_texts() == st.legal_action_texts()
            others_saw_it += any(twin.observation(q) != st.observation(q) for q in range(n) if q != p)
    assert checked >= n * 4
    assert others_saw_it > 0  # the twins really differ, for someone who can see it


# ---------------------------------------------------------------- (b) resample agrees with what p knows
@pytest.mark.parametrize("kind, n", CONFIGS, ids=IDS)
def test_resample_keeps_the_observation_and_plays_on(kind, n):
    for k, st in enumerate(midgame_states(kind, n)):
        for p in range(n):
            for seed in range(2):
                rs = st.resample(p, seed * 100 + k)
                assert rs.observation(p) == st.observation(p)
                assert all_card_names(rs) == all_card_names(st)
                assert {key: len(v) for key, v in full_layout(rs).items()} == \
                       {key: len(v) for key, v in full_layout(st).items()}
                assert rs.current_player == st.current_player
                if st.current_player == p:
                    assert rs.legal_action_texts() == st.legal_action_texts()
                assert rs.legal_actions()
                end = play_out(rs, random.Random(seed))
                assert end.is_terminal and len(end.returns()) == n
        # the truth is untouched
        assert st.observation(0) == midgame_states(kind, n)[k].observation(0)


@pytest.mark.parametrize("kind, n", CONFIGS, ids=IDS)
def test_resample_with_a_random_generator_object(kind, n):
    st = midgame_states(kind, n)[0]
    r = random.Random(3)
    a = st.resample(1, r)
    b = st.resample(1, r)  # the generator moved on
    assert a.observation(1) == b.observation(1) == st.observation(1)
    # the same int seed gives the same state
    assert full_layout(st.resample(1, 42)) == full_layout(st.resample(1, 42))


# ---------------------------------------------------------------- (c) resample really randomises
@pytest.mark.parametrize("kind, n", CONFIGS, ids=IDS)
def test_resample_differs_from_the_truth(kind, n):
    for st in midgame_states(kind, n)[:3]:
        for p in range(n):
            truth = full_layout(st)
            kinds = len({st.zone_cards(z, o)[i] for z, o, i in hidden_slots(st, p)})
            assert kinds >= 2  # something to randomise
            layouts = [full_layout(st.resample(p, seed)) for seed in range(12)]
            assert any(lay != truth for lay in layouts)
            distinct = {tuple((k, tuple(map(str, v))) for k, v in sorted(lay.items(), key=str)) for lay in layouts}
            assert len(distinct) >= min(3, kinds)
            # ... but only where p cannot see
            for lay in layouts:
                for z, o in pile_places(st):
                    mine = obs_pile(st.observation(p), z, o)
                    for i, c in enumerate(mine):
                        if c is not None:
                            assert lay[(z, o)][i] == c


# ---------------------------------------------------------------- (d) knowledge in Fox
def fox_start(n, mover, accept=lambda st: True, **params):
    g = game("fox", **params)
    for seed in range(500):
        st = g.new_state(seed, n)
        if st.current_player == mover and accept(st):
            return st
    raise AssertionError("no such seed")


def named(obs):
    """Every card name an observation shows, with where: {(zone, owner, i): name}."""
    out = {}
    for zone, entry in obs["zones"].items():
        if entry and isinstance(entry[0], list):
            for o, pile in enumerate(entry):
                out.update({(zone, o, i): c for i, c in enumerate(pile) if c is not None})
        else:
            out.update({(zone, None, i): c for i, c in enumerate(entry) if c is not None})
    return out


@pytest.mark.parametrize("n", (2, 3, 4))
def test_fox_taking_from_a_henhouse_teaches_the_taker_only(n):
    # player 1 (seat 0) takes card 1 of player 2's (seat 1) henhouse, then
    # puts their old hand card back there, face down
    def ok(st):
        old, x = st.zone_cards("hand", 0)[0], st.zone_cards("henhouse", 1)[0]
        return not (old == "Fox" and x.startswith("Hen"))  # so the old card may go back
    st = fox_start(n, 0, ok)
    old = st.zone_cards("hand", 0)[0]
    x = st.zone_cards("henhouse", 1)[0]
    assert st.observation(1)["zones"]["henhouse"][1] == [None, None]
    st.apply_text("take card 1 of player 2's henhouse")
    assert st.observation(0)["zones"]["hand"][0] == [old, x]
    assert st.observation(1)["zones"]["hand"][0] == [None, None]
    for q in range(2, n):
        assert st.observation(q)["zones"]["hand"][0] == [None, None]
    st.apply_text(f"put back {old}")
    assert st.zone_cards("henhouse", 1)[-1] == old
    # player 1 remembers the card put back face down, and holds the taken one
    assert st.observation(0)["zones"]["henhouse"][1][-1] == old
    assert st.observation(0)["zones"]["hand"][0] == [x]
    for q in range(1, n):
        assert st.observation(q)["zones"]["henhouse"][1] == [None, None]
        assert st.observation(q)["zones"]["hand"][0] == [None]
    assert f"P2: 1:?, 2:{old}" in st.observation_text(0)  # positions kept: actions name them
    assert "P1: 2 face down" in st.observation_text(1)


@pytest.mark.parametrize("n", (2, 3, 4))
def test_fox_a_hand_card_taken_is_still_known_to_its_former_owner(n):
    # player 2 (seat 1) takes player 1's (seat 0) hand card and keeps it
    def ok(st):
        mine, theirs = st.zone_cards("hand", 1)[0], st.zone_cards("hand", 0)[0]
        return not (theirs == "Fox" and mine.startswith("Hen"))
    st = fox_start(n, 1, ok)
    h = st.zone_cards("hand", 0)[0]
    a = st.zone_cards("hand", 1)[0]
    st.apply_text("take player 1's hand card")
    assert st.observation(0)["zones"]["hand"][1] == [None, h]
    st.apply_text(f"put back {a}")
    assert st.zone_cards("hand", 1) == [h]
    assert st.observation(0)["zones"]["hand"][1] == [h]   # seat 0 saw it go
    assert st.observation(0)["zones"]["hand"][0] == [a]   # and sees what came back
    assert st.observation(1)["zones"]["hand"][0] == [a]   # seat 1 remembers what it gave
    for q in range(2, n):
        assert st.observation(q)["zones"]["hand"][1] == [None]
        assert st.observation(q)["zones"]["hand"][0] == [None]


def knowledge(st):
    ids = [c for c in range(len(st.m.card_names)) if st.loc[c] >= 0]
    return {(p, c): st.knows(p, c) for p in range(st.num_players) for c in ids}


@pytest.mark.parametrize("n", (3, 4))
def test_fox_the_dogs_swap_teaches_nobody_anything(n):
    # player 1 puts the dog back face down into the field, then swaps
    def ok(st):
        return st.zone_cards("hand", 0) == ["Farmer's Dog"]
    st = fox_start(n, 0, ok)
    st.apply_text("take field card 1")
    taken = st.zone_cards("hand", 0)[-1]
    st.apply_text("put back Farmer's Dog")
    assert st.current_player == 0
    assert st.observation(0)["zones"]["field"][-1] == "Farmer's Dog"
    before = knowledge(st)
    counts = [len(named(st.observation(p))) for p in range(n)]
    for text in st.legal_action_texts():
        s = st.clone()
        s.apply_text(text)
        assert knowledge(s) == before, text
        assert [len(named(s.observation(p))) for p in range(n)] == counts, text
    # knowledge follows the dog to its new place, for its owner only
    s = st.clone()
    last = FOX_FIELD[n]
    s.apply_text(f"swap card 1 of player 2's henhouse with card {last} of the field")
    assert s.zone_cards("henhouse", 1)[0] == "Farmer's Dog"
    assert s.observation(0)["zones"]["henhouse"][1][0] == "Farmer's Dog"
    assert s.observation(0)["zones"]["field"][last - 1] is None
    for q in range(1, n):
        assert s.observation(q)["zones"]["henhouse"][1] == [None, None]
    assert s.observation(0)["zones"]["hand"][0] == [taken]


@pytest.mark.parametrize("n", (2, 3, 4))
def test_fox_a_new_season_forgets(n):
    g = game("fox", days=2, seasons=2)
    for seed in range(3):
        st = g.new_state(seed, n)
        rng = random.Random(seed)
        knew_more = False
        takes = 0
        while True:
            legal = st.legal_action_texts()
            if legal[0].startswith("take "):
                if takes == 2 * n:
                    break  # the first turn of season 2
                takes += 1
            for p in range(n):
                outside = {k for k in named(st.observation(p)) if k[:2] != ("hand", p)}
                knew_more |= bool(outside)
            st.apply(rng.choice(st.legal_actions()))
        assert knew_more  # something was learnt in season 1
        for p in range(n):
            assert named(st.observation(p)) == {("hand", p, 0): st.zone_cards("hand", p)[0]}
        kn = knowledge(st)
        for (p, c), k in kn.items():
            assert k == (st.loc[c] == st.m.zone_instance(st, "hand", p))


def settle(st):
    """Play out a Farmer's Wife or Dog effect (first choices) up to the next take."""
    while not st.is_terminal and not st.legal_action_texts()[0].startswith("take "):
        st.apply(st.legal_actions()[0])


@pytest.mark.parametrize("n", (2, 3))
def test_fox_which_card_goes_back_is_not_seen(n):
    # seat 1 takes seat 0's hand card h and keeps it: seat 0 knows h is in
    # seat 1's hand.  Later seat 1 takes a field card y and puts back h or y,
    # face down.  Seat 0 cannot tell which went back.
    def ok(st):
        hand0, hand1 = st.zone_cards("hand", 0)[0], st.zone_cards("hand", 1)[0]
        return "Fox" not in (hand0, hand1) and "Fox" not in st.zone_cards("field")
    st = fox_start(n, 1, ok)
    h, a = st.zone_cards("hand", 0)[0], st.zone_cards("hand", 1)[0]
    st.apply_text("take player 1's hand card")
    st.apply_text(f"put back {a}")
    settle(st)
    # the others take their own henhouse card 1 and put it back
    while st.current_player != 1:
        p = st.current_player
        st.apply_text(f"take card 1 of player {p + 1}'s henhouse")
        st.apply_text(f"put back {st.zone_cards('hand', p)[-1]}")
        settle(st)
    assert st.observation(0)["zones"]["hand"][1] == [h]
    st.apply_text("take field card 1")
    y = st.zone_cards("hand", 1)[-1]
    assert y != h
    worlds = []
    for back in (h, y):
        s = st.clone()
        s.apply_text(f"put back {back}")
        settle(s)
        worlds.append(s.observation(0)["zones"])
    assert worlds[0] == worlds[1]


@pytest.mark.parametrize("n", (2, 3, 4))
def test_fox_the_kind_of_a_card_put_back_face_down_is_not_shown(n):
    # two worlds that differ only in seat 0's hand card (Hen 2 or Farmer),
    # which seat 1 has never seen; seat 0 takes the field card and puts its
    # old hand card back into the field, face down
    base = fox_start(n, 0, lambda st: st.zone_cards("hand", 1)[0] not in ("Hen 2", "Farmer"))

    def unknown_copy(st, name):
        return next(c for c in st.m.card_ids(name) if st.loc[c] >= 0 and not st.knows(1, c))

    mine = ids_in(base, "hand", 0)[0]
    a = exchange(base, mine, unknown_copy(base, "Hen 2"))
    b = exchange(a, ids_in(a, "hand", 0)[0], unknown_copy(a, "Farmer"))
    worlds = [a, b]
    assert a.zone_cards("hand", 0) == ["Hen 2"] and b.zone_cards("hand", 0) == ["Farmer"]
    assert worlds[0].observation(1) == worlds[1].observation(1)  # the same to seat 1
    for st, mine in zip(worlds, ("Hen 2", "Farmer")):
        assert not st.knows(1, ids_in(st, "hand", 0)[0])
        st.apply_text("take field card 1")
        st.apply_text(f"put back {mine}")
    assert worlds[0].observation(1)["zones"] == worlds[1].observation(1)["zones"]
    assert worlds[0].observation(1) == worlds[1].observation(1)


# ---------------------------------------------------------------- (e) Emu: the opponent's hand
def test_emu_opponent_hand_is_hidden_except_cards_seen_in_the_discard_pile():
    g = game("emu")
    taken_seen = 0
    for seed in range(4):
        st = g.new_state(seed)
        rng = random.Random(seed)
        public = set()  # cards seen face up this year
        draw = len(st.zone_cards("draw_pile"))
        while not st.is_terminal:
            if len(st.zone_cards("draw_pile")) > draw:  # a new year: the shuffle forgets
                public = set()
            draw = len(st.zone_cards("draw_pile"))
            public |= set(st.zone_cards("discard_pile"))
            for p in range(2):
                for b in st.zone_cards("birds", p):
                    public |= set(b)
            for p in range(2):
                q = 1 - p
                shown = st.observation(p)["zones"]["hand"][q]
                real = st.zone_cards("hand", q)
                assert shown == [c if c in public else None for c in real]
                assert st.observation(p)["zones"]["hand"][p] == st.zone_cards("hand", p)
                assert all(c is None for c in st.observation(p)["zones"]["draw_pile"])
            a = rng.choice(st.legal_actions())
            if st.action_text(a) == "take the top discard":
                q = st.current_player
                card = st.zone_cards("discard_pile")[-1]
                st.apply(a)
                assert st.observation(1 - q)["zones"]["hand"][q][-1] == card
                taken_seen += 1
            else:
                st.apply(a)
    assert taken_seen > 0


def test_emu_a_drawn_card_is_not_shown_to_the_opponent():
    st = game("emu").new_state(2)
    p = st.current_player
    assert all(c is None for c in st.observation(1 - p)["zones"]["hand"][p])
    st.apply_text(next(t for t in st.legal_action_texts() if t.startswith("discard ")))
    st.apply_text("draw from the pile")
    assert st.observation(1 - p)["zones"]["hand"][p] == [None] * len(st.zone_cards("hand", p))


# ---------------------------------------------------------------- (f) bots never get the state
def test_random_agent_takes_only_actions_and_observation():
    params = list(inspect.signature(RandomAgent.choose).parameters)
    assert params == ["self", "legal_actions", "observation"]


@pytest.mark.parametrize("kind, n", CONFIGS, ids=IDS)
def test_the_runner_gives_bots_only_actions_and_their_observation(kind, n):
    calls = []

    class Spy(RandomAgent):
        needs_observation = True

        def __init__(self, seed, seat):
            super().__init__(seed)
            self.seat = seat

        def choose(self, *args, **kwargs):
            calls.append((self.seat, args, kwargs))
            return super().choose(*args, **kwargs)

    st = game(kind).new_state(5, n)
    play(st, [Spy(s, s) for s in range(n)])
    assert st.is_terminal and calls
    for seat, args, kwargs in calls:
        assert kwargs == {}
        legal, obs = args
        assert isinstance(legal, tuple) and all(isinstance(a, tuple) for a in legal)
        assert isinstance(obs, dict) and obs["player"] == seat and obs["to_move"] == seat
