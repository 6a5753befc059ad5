"""Fox in the Henhouse (games/fox_in_the_henhouse.rules) against its rulebook.

Every expectation below comes from the Fox in the Henhouse rulebook and from
the project's rulings for it (hard-coded here; neither file is read):

- deck: 2 players 7 cards (Fox, Farmer, Farmer's Wife, Hens 1-4); 3 players
  10 (add the Farmer's Dog and Hens 1 and 3); 4 players all 14 (2 Foxes,
  Farmer, Wife, Dog, Rooster, two sets of Hens 1-4);
- each season: shuffle, 1 card in each hand, 2 face down in each henhouse,
  the rest (1, 1 or 2 cards) face down in the field;
- a turn: take one card from any henhouse, any opponent's hand or the field,
  then put one of the two cards now in hand back where the taken one came
  from (it may be the same card);
- 2 players: a player may not take the card that was just taken from their
  own hand on the opponent's last turn;
- the Fox: holding the fox and a hen, the hen must go back; the fox may go
  back only beside the farmer, the wife, the dog, the rooster or another fox;
- the Farmer's Wife put back: every player passes one henhouse card, unseen,
  to the henhouse of the player on their left; the Farmer's Dog put back: that
  player may swap any two face-down cards (henhouses and field) unseen;
- 4 seasons (a parameter) of 7 days (a parameter); a day is one turn for
  each player; the first player moves one seat left each season;
- season score: hen in hand 2 x value, hen in henhouse = value, a rooster in
  the henhouse cancels its hens, a fox in the henhouse makes its hens score
  -2 x value (rooster or not), a fox in hand -1, a season below 0 counts 0;
- most eggs wins; ties are shared.

Positions are built with the scenario helpers of ``State`` (``put`` and
friends) on seeded states.  Seats are 0-based here; action texts say
"player 1" for seat 0.
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter
from math import comb
from pathlib import Path

import pytest

from interpreter import IllegalAction, load

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "games" / "fox_in_the_henhouse.rules"

HENS = {"Hen 1": 1, "Hen 2": 2, "Hen 3": 3, "Hen 4": 4}
DECKS = {
    2: Counter({"Fox": 1, "Farmer": 1, "Farmer's Wife": 1,
                "Hen 1": 1, "Hen 2": 1, "Hen 3": 1, "Hen 4": 1}),
    3: Counter({"Fox": 1, "Farmer": 1, "Farmer's Wife": 1, "Farmer's Dog": 1,
                "Hen 1": 2, "Hen 2": 1, "Hen 3": 2, "Hen 4": 1}),
    4: Counter({"Fox": 2, "Farmer": 1, "Farmer's Wife": 1, "Farmer's Dog": 1, "Rooster": 1,
                "Hen 1": 2, "Hen 2": 2, "Hen 3": 2, "Hen 4": 2}),
}
FIELD = {2: 1, 3: 1, 4: 2}
COUNTS = (2, 3, 4)


@functools.lru_cache(maxsize=None)
def game(**params):
    return load(RULES, **params)


# ---------------------------------------------------------------- helpers
def all_cards(st):
    """Every card in play, wherever it lies."""
    out = st.zone_cards("deck") + st.zone_cards("field")
    for p in range(st.num_players):
        out += st.zone_cards("hand", p) + st.zone_cards("henhouse", p)
    return out


def in_play_ids(st):
    return [c for c in range(len(st.m.card_names)) if st.loc[c] >= 0]


def arrange(st, hands=None, houses=None, field=None):
    """Lay out a position.  ``hands`` and ``houses`` map seats to card names
    (bottom first); places not given are filled, to their usual sizes, with
    the cards not named.  Copies of one name are told apart by id, so a name
    given twice uses two different copies."""
    n = st.num_players
    hands, houses = dict(hands or {}), dict(houses or {})
    pool = in_play_ids(st)
    used = set()

    def pick(name):
        for c in pool:
            if c not in used and st.card_name(c) == name:
                used.add(c)
                return c
        raise ValueError(f"no free copy of {name!r}")

    plan = {}
    for p, names in hands.items():
        plan[("hand", p)] = [pick(x) for x in names]
    for p, names in houses.items():
        plan[("henhouse", p)] = [pick(x) for x in names]
    if field is not None:
        plan[("field", None)] = [pick(x) for x in field]
    rest = [c for c in pool if c not in used]
    wanted = [(("hand", p), 1) for p in range(n)] + [(("henhouse", p), 2) for p in range(n)]
    wanted.append((("field", None), FIELD[n]))
    for key, size in wanted:
        if key not in plan:
            plan[key], rest = rest[:size], rest[size:]
    if rest:
        plan[("deck", None)] = rest
    for (zone, p), ids in plan.items():
        st.put(ids, zone, p)
    for (zone, p), ids in plan.items():
        assert st.zone_cards(zone, p) == [st.card_name(c) for c in ids]
    return st


def start(n, seed=0, mover=None, **params):
    """A new game of n players; with ``mover``, the first seed whose first
    player is that seat."""
    g = game(**params)
    for s in range(seed, seed + 200):
        st = g.new_state(s, n)
        if mover is None or st.current_player == mover:
            return st
    raise AssertionError("no such seed")


def texts(st):
    return st.legal_action_texts()


def takes(st):
    return [t for t in texts(st) if t.startswith("take ")]


def ref_score(hand, house, floor=0):
    """The rulebook's season score, written out independently."""
    def hens(cards):
        return sum(HENS.get(c, 0) for c in cards)
    in_hand = 2 * hens(hand) - hand.count("Fox")
    if "Fox" in house:
        in_house = -2 * hens(house)
    elif "Rooster" in house:
        in_house = 0
    else:
        in_house = hens(house)
    return max(floor, in_hand + in_house)


def play_random(g, n, seed, on_step=None):
    st = g.new_state(seed, n)
    rng = random.Random(seed)
    while not st.is_terminal:
        if on_step:
            on_step(st)
        st.apply(rng.choice(st.legal_actions()))
    return st


# ---------------------------------------------------------------- deck and deal
def test_default_parameters():
    assert game().params == {"seasons": 4, "days": 7, "floor": 0}
    assert (game().min_players, game().max_players) == (2, 4)


@pytest.mark.parametrize("n, size", [(2, 7), (3, 10), (4, 14)])
def test_deck_per_player_count(n, size):
    for seed in range(5):
        st = game().new_state(seed, n)
        cards = all_cards(st)
        assert len(cards) == size
        assert Counter(cards) == DECKS[n]


@pytest.mark.parametrize("n", COUNTS)
def test_the_deal(n):
    seen_first = set()
    for seed in range(30):
        st = game().new_state(seed, n)
        assert st.zone_cards("deck") == []
        assert len(st.zone_cards("field")) == FIELD[n]
        for p in range(n):
            assert len(st.zone_cards("hand", p)) == 1
            assert len(st.zone_cards("henhouse", p)) == 2
        seen_first.add(st.current_player)
        assert st.current_player == st.get_var("first_player")
    assert seen_first == set(range(n))  # the first player is drawn at random


@pytest.mark.parametrize("n", COUNTS)
def test_each_player_sees_only_their_own_hand_at_the_deal(n):
    st = game().new_state(3, n)
    for p in range(n):
        obs = st.observation(p)["zones"]
        assert obs["hand"][p] == st.zone_cards("hand", p)
        for q in range(n):
            assert obs["henhouse"][q] == [None, None]
            if q != p:
                assert obs["hand"][q] == [None]
        assert obs["field"] == [None] * FIELD[n]


# ---------------------------------------------------------------- taking
@pytest.mark.parametrize("n", COUNTS)
def test_take_actions(n):
    for mover in range(n):
        st = start(n, mover=mover)
        expected = [f"take card {i} of player {q + 1}'s henhouse" for q in range(n) for i in (1, 2)]
        expected += [f"take player {q + 1}'s hand card" for q in range(n) if q != mover]
        expected += [f"take field card {i}" for i in range(1, FIELD[n] + 1)]
        assert sorted(texts(st)) == sorted(expected)
        assert f"take player {mover + 1}'s hand card" not in texts(st)  # never your own hand


def _source_of(text):
    """(zone, seat, index) of the card a take action names."""
    m = re.fullmatch(r"take card (\d) of player (\d)'s henhouse", text)
    if m:
        return "henhouse", int(m[2]) - 1, int(m[1]) - 1
    m = re.fullmatch(r"take player (\d)'s hand card", text)
    if m:
        return "hand", int(m[1]) - 1, 0
    m = re.fullmatch(r"take field card (\d)", text)
    return "field", None, int(m[1]) - 1


@pytest.mark.parametrize("n", COUNTS)
def test_take_moves_the_card_to_the_hand_and_put_back_returns_to_its_place(n):
    base = start(n, seed=5, mover=1)
    mover = base.current_player
    for take in takes(base):
        zone, q, i = _source_of(take)
        st = base.clone()
        taken = st.zone_cards(zone, q)[i]
        old = st.zone_cards("hand", mover)[0]
        before = {key: st.zone_cards(*key) for key in [("field", None)] +
                  [(z, p) for z in ("hand", "henhouse") for p in range(n)]}
        st.apply_text(take)
        assert st.zone_cards("hand", mover) == [old, taken]
        assert len(st.zone_cards(zone, q)) == len(before[(zone, q)]) - 1
        for choice in texts(st):
            assert choice.startswith("put back ")
            after = st.clone()
            after.apply_text(choice)
            back = choice[len("put back "):]
            kept = [old, taken]
            kept.remove(back)
            # the put-back card lies on top of the place the taken one came from
            assert after.zone_cards(zone, q)[-1] == back
            assert Counter(after.zone_cards(zone, q)) == Counter(before[(zone, q)]) - Counter([taken]) + Counter([back])
            assert after.zone_cards("hand", mover) == kept
            # nothing else moved
            for key, cards in before.items():
                if key not in ((zone, q), ("hand", mover)):
                    assert after.zone_cards(*key) == cards, key
            assert Counter(all_cards(after)) == DECKS[n]


def test_put_back_choices_are_both_cards_normally():
    st = arrange(start(3, mover=0), hands={0: ["Hen 2"]}, field=["Farmer"])
    st.apply_text("take field card 1")
    assert sorted(texts(st)) == ["put back Farmer", "put back Hen 2"]


# ---------------------------------------------------------------- the fox
@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("hen", sorted(HENS))
def test_holding_fox_and_hen_the_hen_goes_back(n, hen):
    # the fox in hand, a hen taken
    st = arrange(start(n, mover=0), hands={0: ["Fox"]}, field=[hen] + ["Farmer"] * (FIELD[n] - 1))
    st.apply_text("take field card 1")
    assert texts(st) == [f"put back {hen}"]
    with pytest.raises(IllegalAction):
        st.apply_text("put back Fox")
    st.apply_text(f"put back {hen}")
    assert st.zone_cards("hand", 0) == ["Fox"]
    assert st.zone_cards("field")[-1] == hen
    # a hen in hand, the fox taken
    st = arrange(start(n, mover=0), hands={0: [hen]}, houses={1: ["Fox", "Farmer's Wife"]})
    st.apply_text("take card 1 of player 2's henhouse")
    assert texts(st) == [f"put back {hen}"]


@pytest.mark.parametrize("n, partner", [(2, "Farmer"), (2, "Farmer's Wife"), (3, "Farmer's Dog"),
                                        (4, "Rooster"), (4, "Farmer"), (4, "Farmer's Wife"),
                                        (4, "Farmer's Dog")])
def test_fox_may_go_back_beside_farmer_wife_dog_rooster(n, partner):
    for fox_in_hand in (True, False):
        hand, taken = (["Fox"], partner) if fox_in_hand else ([partner], "Fox")
        st = arrange(start(n, mover=0), hands={0: hand}, houses={1: [taken, "Hen 1"]})
        st.apply_text("take card 1 of player 2's henhouse")
        assert sorted(texts(st)) == sorted(["put back Fox", f"put back {partner}"])
        st.apply_text("put back Fox")
        assert st.zone_cards("hand", 0) == [partner]
        assert st.zone_cards("henhouse", 1) == ["Hen 1", "Fox"]


def test_two_foxes_give_one_put_back_action():
    st = arrange(start(4, mover=0), hands={0: ["Fox"]}, houses={1: ["Fox", "Hen 1"]})
    st.apply_text("take card 1 of player 2's henhouse")
    assert texts(st) == ["put back Fox"]
    st.apply_text("put back Fox")
    assert st.zone_cards("hand", 0) == ["Fox"]
    assert st.zone_cards("henhouse", 1) == ["Hen 1", "Fox"]


@pytest.mark.parametrize("n, name", [(3, "Hen 1"), (3, "Hen 3"), (4, "Hen 2"), (4, "Hen 4")])
def test_identical_cards_give_one_action(n, name):
    st = arrange(start(n, mover=0), hands={0: [name]}, houses={2: [name, "Farmer"]})
    st.apply_text("take card 1 of player 3's henhouse")
    assert texts(st) == [f"put back {name}"]
    st.apply_text(f"put back {name}")
    assert st.zone_cards("hand", 0) == [name]
    assert Counter(st.zone_cards("henhouse", 2)) == Counter([name, "Farmer"])


# ---------------------------------------------------------------- 2 players: no raiding back
def two_player_raid(keep_taken):
    """Seat 0 takes seat 1's hand card (Hen 4) holding Hen 2, and keeps it
    (putting Hen 2 into seat 1's hand) or gives it back."""
    st = arrange(start(2, mover=0), hands={0: ["Hen 2"], 1: ["Hen 4"]},
                 houses={0: ["Farmer", "Hen 1"], 1: ["Hen 3", "Farmer's Wife"]}, field=["Fox"])
    st.apply_text("take player 2's hand card")
    assert st.zone_cards("hand", 0) == ["Hen 2", "Hen 4"]
    st.apply_text("put back Hen 2" if keep_taken else "put back Hen 4")
    assert st.current_player == 1
    return st


def test_two_players_may_not_take_back_the_card_just_taken_from_their_hand():
    st = two_player_raid(keep_taken=True)
    assert st.zone_cards("hand", 0) == ["Hen 4"]
    assert st.zone_cards("hand", 1) == ["Hen 2"]
    assert "take player 1's hand card" not in texts(st)
    with pytest.raises(IllegalAction):
        st.apply_text("take player 1's hand card")
    # everything else stays open
    assert len(takes(st)) == 4 + 1
    # ... and only for that one turn
    st.apply_text("take field card 1")
    st.apply_text("put back Hen 2")  # Fox + Hen: the hen goes back
    assert st.current_player == 0
    assert "take player 2's hand card" in texts(st)
    st.apply_text("take card 1 of player 1's henhouse")
    st.apply_text("put back Farmer")
    assert st.current_player == 1
    assert "take player 1's hand card" in texts(st)


def test_two_players_may_take_from_the_raider_when_the_card_came_back():
    # the raider put the taken card itself back: the card now in the
    # raider's hand was never taken from the victim, so it may be taken
    st = two_player_raid(keep_taken=False)
    assert st.zone_cards("hand", 0) == ["Hen 2"]
    assert st.zone_cards("hand", 1) == ["Hen 4"]
    assert "take player 1's hand card" in texts(st)
    st.apply_text("take player 1's hand card")
    assert st.zone_cards("hand", 1) == ["Hen 4", "Hen 2"]


def test_two_players_taking_from_a_henhouse_blocks_nothing():
    st = arrange(start(2, mover=0), hands={0: ["Hen 2"], 1: ["Hen 4"]},
                 houses={0: ["Farmer", "Hen 1"], 1: ["Hen 3", "Farmer's Wife"]}, field=["Fox"])
    st.apply_text("take card 1 of player 2's henhouse")
    st.apply_text("put back Hen 2")
    assert "take player 1's hand card" in texts(st)


@pytest.mark.parametrize("n", (3, 4))
def test_more_players_may_raid_back(n):
    st = arrange(start(n, mover=0), hands={0: ["Hen 2"], 1: ["Hen 4"]})
    st.apply_text("take player 2's hand card")
    st.apply_text("put back Hen 2")
    assert st.current_player == 1
    assert "take player 1's hand card" in texts(st)


# ---------------------------------------------------------------- the Farmer's Wife
@pytest.mark.parametrize("n, actor, gifts", [
    (2, 0, (1, 2)), (2, 1, (2, 2)),
    (3, 1, (1, 2, 1)), (3, 2, (2, 2, 1)),
    (4, 0, (1, 2, 2, 1)), (4, 3, (2, 1, 1, 2)),
])
def test_farmers_wife_everyone_passes_a_henhouse_card_left(n, actor, gifts):
    # distinct cards in the henhouses, so every move can be followed
    houses = {2: {0: ["Hen 1", "Hen 2"], 1: ["Hen 3", "Hen 4"]},
              3: {0: ["Hen 1", "Hen 2"], 1: ["Hen 3", "Hen 4"], 2: ["Fox", "Farmer's Dog"]},
              4: {0: ["Hen 1", "Hen 2"], 1: ["Hen 3", "Hen 4"], 2: ["Fox", "Farmer's Dog"],
                  3: ["Rooster", "Farmer"]}}[n]
    st = arrange(start(n, mover=actor), hands={actor: ["Farmer's Wife"]}, houses=houses)
    before = {p: st.zone_cards("henhouse", p) for p in range(n)}
    st.apply_text("take field card 1")
    st.apply_text("put back Farmer's Wife")
    assert st.zone_cards("field")[-1] == "Farmer's Wife"
    # every player, from the actor leftwards, picks a henhouse position
    order = [(actor + k) % n for k in range(n)]
    for q in order:
        assert st.current_player == q
        assert texts(st) == ["pass henhouse card 1 to the left", "pass henhouse card 2 to the left"]
        st.apply_text(f"pass henhouse card {gifts[q]} to the left")
    passed = {q: before[q][gifts[q] - 1] for q in range(n)}
    for q in range(n):
        cards = st.zone_cards("henhouse", q)
        assert len(cards) == 2
        right = (q - 1) % n  # the player whose left neighbour q is
        kept = [c for c in before[q] if c != passed[q]]
        assert Counter(cards) == Counter(kept + [passed[right]])
    # and the turn order goes on after the actor
    assert st.current_player == (actor + 1) % n
    assert st.legal_action_texts()[0].startswith("take ")


def test_farmers_wife_acts_wherever_she_is_put_back():
    # put back into a hand (the source was a player's hand) she still acts
    st = arrange(start(3, mover=0), hands={0: ["Farmer's Wife"], 1: ["Hen 1"]})
    st.apply_text("take player 2's hand card")
    st.apply_text("put back Farmer's Wife")
    assert st.zone_cards("hand", 1) == ["Farmer's Wife"]
    assert st.current_player == 0
    assert texts(st) == ["pass henhouse card 1 to the left", "pass henhouse card 2 to the left"]


def test_no_effect_for_other_cards():
    st = arrange(start(3, mover=0), hands={0: ["Farmer"]})
    st.apply_text("take field card 1")
    st.apply_text("put back Farmer")
    assert st.current_player == 1
    assert all(t.startswith("take ") for t in texts(st))


# ---------------------------------------------------------------- the Farmer's Dog
def dog_position(n, actor=0):
    houses = {3: {0: ["Hen 1", "Hen 2"], 1: ["Hen 3", "Hen 4"], 2: ["Fox", "Farmer"]},
              4: {0: ["Hen 1", "Hen 2"], 1: ["Hen 3", "Hen 4"], 2: ["Fox", "Farmer"],
                  3: ["Rooster", "Farmer's Wife"]}}[n]
    st = arrange(start(n, mover=actor), hands={actor: ["Farmer's Dog"]}, houses=houses)
    field = st.zone_cards("field")
    st.apply_text("take field card 1")
    st.apply_text("put back Farmer's Dog")
    assert st.zone_cards("field") == field[1:] + ["Farmer's Dog"]
    assert st.current_player == actor
    return st


@pytest.mark.parametrize("n", (3, 4))
def test_farmers_dog_offers_every_pair_of_face_down_cards_or_none(n):
    st = dog_position(n)
    face_down = 2 * n + FIELD[n]
    legal = texts(st)
    assert len(legal) == comb(face_down, 2) + 1
    assert len(set(legal)) == len(legal)
    assert "leave the cards as they are" in legal
    assert sum(t.startswith("swap ") for t in legal) == comb(face_down, 2)


def _places(st):
    n = st.num_players
    out = {f"player {p + 1}'s henhouse": ("henhouse", p) for p in range(n)}
    out["the field"] = ("field", None)
    return out


@pytest.mark.parametrize("n", (3, 4))
def test_farmers_dog_swaps_the_two_chosen_cards(n):
    base = dog_position(n)
    places = _places(base)
    swaps = [t for t in texts(base) if t.startswith("swap ")]
    for text in swaps:
        # "swap card I of A with card J of B"
        head, tail = text[len("swap card "):].split(" with card ")
        i, a = head.split(" of ", 1)
        j, b = tail.split(" of ", 1)
        za, zb = places[a], places[b]
        st = base.clone()
        before = {k: st.zone_cards(*k) for k in places.values()}
        st.apply_text(text)
        after = {k: st.zone_cards(*k) for k in places.values()}
        expect = {k: list(v) for k, v in before.items()}
        x, y = before[za][int(i) - 1], before[zb][int(j) - 1]
        expect[za][int(i) - 1] = y
        expect[zb][int(j) - 1] = x
        assert after == expect, text
        assert st.current_player == 1  # the next player's turn
    st = base.clone()
    before = {k: st.zone_cards(*k) for k in places.values()}
    st.apply_text("leave the cards as they are")
    assert {k: st.zone_cards(*k) for k in places.values()} == before
    assert st.current_player == 1


def test_farmers_dog_a_named_swap():
    st = dog_position(3)
    st.apply_text("swap card 1 of player 1's henhouse with card 2 of player 3's henhouse")
    assert st.zone_cards("henhouse", 0) == ["Farmer", "Hen 2"]
    assert st.zone_cards("henhouse", 2) == ["Fox", "Hen 1"]
    st = dog_position(3)
    st.apply_text("swap card 2 of player 2's henhouse with card 1 of the field")
    assert st.zone_cards("henhouse", 1) == ["Hen 3", "Farmer's Dog"]
    assert st.zone_cards("field") == ["Hen 4"]


# ---------------------------------------------------------------- seasons
def _season_log(g, n, seed):
    """Random play; for each season, the movers of its take actions and the
    state at its first decision."""
    log = []
    st = g.new_state(seed, n)
    rng = random.Random(seed)
    days = g.params["days"]
    ntakes = 0
    while not st.is_terminal:
        legal = texts(st)
        if legal[0].startswith("take "):
            if ntakes % (days * n) == 0:
                log.append({"start": st.clone(), "movers": []})
            log[-1]["movers"].append(st.current_player)
            ntakes += 1
        st.apply(rng.choice(st.legal_actions()))
    return log, st


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("params", [{}, {"days": 2, "seasons": 3}, {"days": 1, "seasons": 5}])
def test_seasons_days_and_first_player(n, params):
    g = game(**params)
    seasons, days = g.params["seasons"], g.params["days"]
    for seed in range(3):
        log, end = _season_log(g, n, seed)
        assert end.is_terminal
        assert len(log) == seasons
        first = log[0]["start"].get_var("first_player")
        for s, season in enumerate(log):
            lead = (first + s) % n  # one seat left each season
            assert season["movers"] == [(lead + k) % n for k in range(n)] * days
            st = season["start"]
            # a fresh deal: sizes, the whole deck, and only one's own hand known
            assert Counter(all_cards(st)) == DECKS[n]
            assert len(st.zone_cards("field")) == FIELD[n]
            for p in range(n):
                assert len(st.zone_cards("hand", p)) == 1
                assert len(st.zone_cards("henhouse", p)) == 2
                obs = st.observation(p)["zones"]
                assert obs["hand"][p] == st.zone_cards("hand", p)
                named = [c for z in obs["henhouse"] for c in z if c is not None]
                named += [c for q, z in enumerate(obs["hand"]) if q != p for c in z if c is not None]
                named += [c for c in obs["field"] if c is not None]
                assert named == [], (s, p)


@pytest.mark.parametrize("n", COUNTS)
def test_eggs_add_up_the_season_scores(n):
    # A game of k seasons plays exactly as the first k seasons of a longer
    # one (same seed, same choices), and its last position is not re-dealt.
    for seed in range(3):
        prev = [0] * n
        starts = _season_log(game(), n, seed)[0]
        for k in range(1, 5):
            end = play_random(game(seasons=k), n, seed)
            eggs = [end.get_var("eggs", p) for p in range(n)]
            for p in range(n):
                hand, house = end.zone_cards("hand", p), end.zone_cards("henhouse", p)
                assert eggs[p] - prev[p] == ref_score(hand, house), (seed, k, p)
                assert game().evaluate(end, f"season_score({p})") == ref_score(hand, house)
            assert end.returns() == [float(e) for e in eggs]
            if k < 4:
                assert [starts[k]["start"].get_var("eggs", p) for p in range(n)] == eggs
            prev = eggs


# ---------------------------------------------------------------- scoring
def score(st, p, g=None):
    return (g or game()).evaluate(st, f"season_score({p})")


@pytest.mark.parametrize("n, hand, house, expected", [
    # a hen in hand: twice its value
    (2, ["Hen 3"], ["Farmer", "Farmer's Wife"], 6),
    (4, ["Hen 4"], ["Farmer's Dog", "Rooster"], 8),
    # hens in the henhouse: their value
    (2, ["Farmer"], ["Hen 2", "Hen 4"], 6),
    (3, ["Hen 1"], ["Hen 3", "Farmer's Dog"], 2 + 3),
    (3, ["Hen 3"], ["Hen 1", "Hen 3"], 6 + 4),
    # a rooster in the henhouse cancels its hens (not the hand's)
    (4, ["Hen 1"], ["Rooster", "Hen 4"], 2),
    (4, ["Rooster"], ["Hen 2", "Hen 3"], 5),  # a rooster in hand does nothing
    # a fox in the henhouse: its hens score -2 x value
    (2, ["Hen 4"], ["Fox", "Hen 1"], 8 - 2),
    (4, ["Hen 4"], ["Fox", "Hen 2"], 8 - 4),
    (4, ["Hen 3"], ["Fox", "Fox"], 6),
    # a fox in hand: -1
    (2, ["Fox"], ["Hen 1", "Hen 2"], 3 - 1),
    (4, ["Fox"], ["Rooster", "Hen 4"], 0),  # -1 -> 0
    # a negative season counts 0
    (2, ["Farmer"], ["Fox", "Hen 3"], 0),
    (2, ["Fox"], ["Farmer", "Farmer's Wife"], 0),
    # nothing
    (2, ["Farmer"], ["Farmer's Wife", "Fox"], 0),
])
def test_season_score(n, hand, house, expected):
    st = arrange(game().new_state(1, n), hands={0: hand}, houses={0: house})
    assert score(st, 0) == expected == ref_score(hand, house)


@pytest.mark.parametrize("hand, house, expected", [
    (["Farmer"], ["Fox", "Hen 3"], -6),
    (["Fox"], ["Farmer", "Farmer's Wife"], -1),
    (["Fox"], ["Fox", "Hen 4"], -1 - 8),
    (["Hen 1"], ["Fox", "Hen 4"], 2 - 8),
    (["Farmer"], ["Rooster", "Hen 4"], 0),
])
def test_season_score_below_zero_with_a_lower_floor(hand, house, expected):
    g = game(floor=-100)
    st = arrange(g.new_state(1, 4), hands={0: hand}, houses={0: house})
    assert score(st, 0, g) == expected == ref_score(hand, house, floor=-100)
    assert score(st, 0) == max(0, expected)  # the default floor


def test_fox_in_henhouse_beats_the_rooster():
    # three cards in one henhouse only to test the rule: the fox's -2 x value
    # applies with a rooster there too
    g = game(floor=-100)
    st = arrange(g.new_state(1, 4), hands={0: ["Farmer"]}, houses={0: ["Fox", "Rooster"]})
    st.put(["Hen 4"], "henhouse", 0)
    assert st.zone_cards("henhouse", 0) == ["Fox", "Rooster", "Hen 4"]
    assert score(st, 0, g) == -8
    assert score(st, 0) == 0
    st.put(["Hen 3"], "hand", 0)  # and hens in hand still count
    assert score(st, 0, g) == 2 * 3 - 8
    assert score(st, 0) == 0


@pytest.mark.parametrize("n", COUNTS)
def test_season_score_matches_the_rulebook_on_random_positions(n):
    g, low = game(), game(floor=-100)
    for seed in range(2):
        steps = iter(range(10_000))

        def check(st):
            if next(steps) % 17:  # a sample of positions: evaluate() compiles each time
                return
            for p in range(n):
                hand, house = st.zone_cards("hand", p), st.zone_cards("henhouse", p)
                assert score(st, p) == ref_score(hand, house)
                assert score(st, p, low) == ref_score(hand, house, floor=-100)
        play_random(g, n, seed, on_step=check)


@pytest.mark.parametrize("n", COUNTS)
def test_winner_has_most_eggs_and_ties_are_shared(n):
    end = play_random(game(), n, 11)
    assert end.is_terminal
    eggs = [end.get_var("eggs", p) for p in range(n)]
    best = max(eggs)
    assert end.winners() == [p for p in range(n) if eggs[p] == best]
    for values, winners in [([5] + [3] * (n - 1), [0]),
                            ([1] * (n - 1) + [9], [n - 1]),
                            ([7, 7] + [2] * (n - 2), [0, 1]),
                            ([4] * n, list(range(n)))]:
        st = end.clone()
        for p, v in enumerate(values):
            st.set_var("eggs", v, p)
        assert st.returns() == [float(v) for v in values]
        assert st.winners() == winners
