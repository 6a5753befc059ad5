"""¡Desplumados! (games/desplumados.rules) against its rulebook.

Every expectation below comes from the ¡Desplumados! rulebook and from the
project's rulings for it (hard-coded here; neither file is read):

- the box: 15 red, 15 green, 15 purple hens, 6 absent-minded hens, 8 escaping
  hens, 9 impostor hens, 10 roosters, 11 dogs, 6 thieves, 6 foxes,
  7 tornadoes, the moon and a blank card; the blank is a spare, so 109 cards
  are in play;
- setup: one red, one green and one purple hen face up in the meadow; the
  moon is set aside, the rest shuffled, 10 cards taken and shuffled with the
  moon and put at the bottom (the moon lies among the bottom 11 cards);
  4 cards to each player; the first player is drawn at random;
- the win: 5 hens of one colour with 3-4 players, 4 with 5-7 (the
  absent-minded hen counting as that colour) and no impostor in the
  henhouse, checked after every action and every effect (also right after a
  thief's or the meadow's hen enters the henhouse and after a dog chases an
  impostor out); the game ends at once;
- henhouses hold 5 cards with 3-4 players, 4 with 5-7; a full henhouse takes
  no more hens (such a play is not legal); the coloured hens of a henhouse
  share one colour; while it holds none (empty, or only an absent-minded hen
  and/or an impostor) a hen of any colour may enter;
- the absent-minded hen is a wildcard hen: it counts towards the flock, may
  enter an empty henhouse, and a henhouse holds at most one;
- the impostor goes only into an opponent's henhouse that has room and no
  impostor; it takes a place; while it is there its owner cannot win;
- the dog is played only with an impostor in one's own henhouse and chases
  it out (both to the discard pile);
- the rooster sits above the row, takes no place, at most one per player;
- the fox: every other player loses their rooster, or else their rightmost
  hen that is not an impostor (the impostor is skipped); a player with no
  hen loses nothing; the fox's player is not affected;
- the thief: takes the rightmost non-impostor hen of a chosen rival who has
  a hen; the thief's player puts it in hand, in their henhouse (only if it
  may enter) or on the discard pile, and ends the turn without drawing;
- the escaping hen: the other players slap it in a uniformly random order;
  the slowest of those who have a hen loses their rightmost non-impostor hen,
  rooster or not; so each of them is equally likely to lose (a chance
  event), and nobody loses anything when none of them has a hen;
- the tornado: its player chooses left or right; all hands pass at once;
  the turn order does not change; the tornado's player then draws back to 4;
- removing an impostor: with an impostor and a hen, discard one's rightmost
  non-impostor hen and the impostor, then draw to 4;
- discarding: one or more cards from hand, then draw to 4;
- the meadow: swap a coloured hen of one's hand (never an absent-minded hen)
  for a meadow hen of another colour, never leaving 3 hens of one colour in
  the meadow; the taken hen goes to hand, to the henhouse (if it may enter)
  or to the discard pile; the turn ends without drawing;
- a turn that starts with an empty hand first draws 2;
- drawing the moon ends the game at once (the rest of that draw is not
  taken); then the most hens of one colour (absent-minded included) win,
  then having a rooster, then having no impostor; players still tied share
  the win;
- the house rule ``max_turns`` (0, no limit, by default): after that many
  turns the game ends and the moon ending decides.

Positions are built with the scenario helpers of ``State`` (``put`` and
friends) on seeded states.  Seats are 0-based here; action texts say
"player 1" for seat 0.  How discarding is spelled and how the moon draw is
seen go through the helpers ``discard`` and ``moon_drawn``, so that the
tests check outcomes, not the shape of a decision.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from itertools import groupby
from pathlib import Path

import pytest

from interpreter import IllegalAction, load

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "games" / "desplumados.rules"

RED, GREEN, PURPLE = "Red hen", "Green hen", "Purple hen"
ABSENT, ESCAPING, IMPOSTOR = "Absent-minded hen", "Escaping hen", "Impostor hen"
ROOSTER, DOG, THIEF, FOX, TORNADO, MOON = "Rooster", "Dog", "Thief", "Fox", "Tornado", "Moon"
COLOURED = (RED, GREEN, PURPLE)
HENS = COLOURED + (ABSENT,)

DECK = Counter({RED: 15, GREEN: 15, PURPLE: 15, ABSENT: 6, ESCAPING: 8, IMPOSTOR: 9,
                ROOSTER: 10, DOG: 11, THIEF: 6, FOX: 6, TORNADO: 7, MOON: 1})
COUNTS = (3, 4, 5, 6, 7)
TARGET = {3: 5, 4: 5, 5: 4, 6: 4, 7: 4}    # hens of one colour that win
CAPACITY = {3: 5, 4: 5, 5: 4, 6: 4, 7: 4}  # places in a henhouse

SHARED = ("draw_pile", "aside", "meadow", "discard_pile", "loot")
PER_PLAYER = ("hand", "henhouse", "roost", "passing")


@functools.lru_cache(maxsize=None)
def game(**params):
    return load(RULES, **params)


@functools.lru_cache(maxsize=None)
def chance_game(**params):
    return load(RULES, explicit_chance=True, **params)


# ---------------------------------------------------------------- helpers
def player(q):
    return f"player {q + 1}"


def all_cards(st):
    """Every card in play, wherever it lies."""
    out = []
    for z in SHARED:
        out += st.zone_cards(z)
    for p in range(st.num_players):
        for z in PER_PLAYER:
            out += st.zone_cards(z, p)
    return out


def hand(st, p):
    return st.zone_cards("hand", p)


def house(st, p):
    return st.zone_cards("henhouse", p)


def roost(st, p):
    return st.zone_cards("roost", p)


def texts(st):
    return st.legal_action_texts()


def _ids(st, zone, p=None):
    return list(st.Z[st.m.zone_instance(st, zone, p)])


def arrange(st, hands=None, houses=None, roosts=None, meadow=None, top=None):
    """Lay out a position.  ``hands``, ``houses`` and ``roosts`` map seats to
    card names (bottom/left first); ``meadow`` gives the three meadow hens;
    ``top`` the cards to be drawn next, in the order they will be drawn.
    The cards of a replaced place are set aside (the ``aside`` zone is empty
    after setup); the cards placed come from the draw pile or the aside."""
    stock = {st.m.zone_instance(st, "draw_pile", None), st.m.zone_instance(st, "aside", None)}
    places = [(("hand", p), names) for p, names in (hands or {}).items()]
    places += [(("henhouse", p), names) for p, names in (houses or {}).items()]
    places += [(("roost", p), names) for p, names in (roosts or {}).items()]
    if meadow is not None:
        places.append((("meadow", None), meadow))
    for (zone, p), _ in places:
        st.put(_ids(st, zone, p), "aside")
    used = set()

    def pick(name):
        for c in st.m.card_ids(name):
            if c not in used and st.loc[c] in stock:
                used.add(c)
                return c
        raise ValueError(f"no free copy of {name!r}")

    for (zone, p), names in places:
        st.put([pick(x) for x in names], zone, p)
    if top is not None:
        ids = [pick(x) for x in top]
        st.put(list(reversed(ids)), "draw_pile")
        assert st.zone_cards("draw_pile")[::-1][:len(top)] == list(top)
    for (zone, p), names in places:
        assert st.zone_cards(zone, p) == list(names)
    assert Counter(all_cards(st)) == DECK
    return st


def start(n, mover=0, seed=0, **params):
    """A new game of n players whose first player is seat ``mover``."""
    g = game(**params)
    for s in range(seed, seed + 500):
        st = g.new_state(s, n)
        if st.current_player == mover:
            return st
    raise AssertionError("no such seed")


def start_chance(n, mover=0, seed=0, **params):
    """The same with explicit chance events: the setup's are resolved at
    random, and the first seed whose first player is ``mover`` is taken."""
    g = chance_game(**params)
    for s in range(seed, seed + 500):
        st = g.new_state(s, n)
        rng = random.Random(s)
        while st.current_player == -1:
            st.apply(rng.randrange(len(st.chance_outcomes())))
        if st.current_player == mover:
            return st
    raise AssertionError("no such seed")


def discard(st, names):
    """The current player's "discard cards" action, discarding ``names``
    (one or more cards of their hand), however the engine spells it: one
    action naming the set, or one card after another then stopping."""
    names = list(names)
    assert names, "discarding takes at least one card"
    want = Counter(names)
    me = st.current_player
    whole = [t for t in texts(st) if t.startswith("discard ") and Counter(t[len("discard "):].split(", ")) == want]
    if whole:  # one action naming the set (or the first card of a one-card discard)
        st.apply_text(whole[0])
    else:  # one card after another
        st.apply_text(f"discard {names[0]}")
        for name in names[1:]:
            st.apply_text(f"also discard {name}")
    if not st.is_terminal and st.current_player == me and "stop discarding" in texts(st):
        st.apply_text("stop discarding")


def discard_options(st):
    """The single cards the current player may discard as the whole action."""
    out = set()
    for t in texts(st):
        if t.startswith("discard ") and ", " not in t and t != "discard your rightmost hen and your impostor":
            out.add(t[len("discard "):])
    return out


def may_discard_nothing(st):
    return any(t in ("stop discarding", "discard", "discard ", "discard nothing") for t in texts(st))


def moon_drawn(st):
    """Has the moon been drawn?  It is no longer in the draw pile, or
    nothing lies on it (the draw stopped at it)."""
    pile = st.zone_cards("draw_pile")
    return MOON not in pile or pile[-1] == MOON


def hand_without_moon(st, p):
    return [c for c in hand(st, p) if c != MOON]


def loot(st, where, name):
    """Where the thief's or the meadow's hen goes: hand, henhouse or discard."""
    st.apply_text({"hand": f"put {name} in your hand",
                   "henhouse": f"put {name} in your henhouse",
                   "discard": f"discard {name}"}[where])


def loot_texts(name):
    return {f"put {name} in your hand", f"put {name} in your henhouse", f"discard {name}"}


def ref_hens(cards):
    """Most hens of one colour, the absent-minded hen counting as any."""
    return max(cards.count(c) for c in COLOURED) + cards.count(ABSENT)


def ref_winners(st):
    """The winners by the rulebook, computed from the zones alone."""
    n = st.num_players
    won = [p for p in range(n) if ref_hens(house(st, p)) >= TARGET[n] and IMPOSTOR not in house(st, p)]
    if won:
        return won
    keys = [(ref_hens(house(st, p)), ROOSTER in roost(st, p), IMPOSTOR not in house(st, p)) for p in range(n)]
    best = max(keys)
    return [p for p in range(n) if keys[p] == best]


def play_random(g, n, seed, limit=20_000, on_step=None):
    """Random legal moves to the end; the movers at each decision."""
    st = g.new_state(seed, n)
    rng = random.Random(seed)
    movers = []
    while not st.is_terminal:
        assert len(movers) < limit, "the game did not end"
        if on_step:
            on_step(st)
        movers.append(st.current_player)
        st.apply(rng.choice(st.legal_actions()))
    return st, movers


def turns_of(movers):
    """The seats of the successive turns (a turn may hold several decisions
    of its player; with 3 or more players two turns in a row have two
    different players)."""
    return [p for p, _ in groupby(movers)]


# ---------------------------------------------------------------- setup
@pytest.mark.parametrize("n", COUNTS)
def test_default_parameters(n):
    g = game()
    assert (g.min_players, g.max_players) == (3, 7)
    assert g.machine_for(n).params == {"win_hens": TARGET[n], "capacity": CAPACITY[n], "hand_size": 4,
                                       "empty_draw": 2, "moon_depth": 10, "max_turns": 0}


@pytest.mark.parametrize("n", COUNTS)
def test_setup_cards_meadow_and_hands(n):
    for seed in range(4):
        st = game().new_state(seed, n)
        cards = all_cards(st)
        assert len(cards) == 109
        assert Counter(cards) == DECK  # the blank card is not in play
        assert "Blank" not in cards
        assert sorted(st.zone_cards("meadow")) == sorted(COLOURED)
        for p in range(n):
            assert len(hand(st, p)) == 4
            assert house(st, p) == [] and roost(st, p) == []
        assert len(st.zone_cards("draw_pile")) == 109 - 3 - 4 * n
        assert st.zone_cards("discard_pile") == [] == st.zone_cards("aside")


@pytest.mark.parametrize("n", (3, 7))
def test_moon_among_the_bottom_eleven_cards(n):
    depths = Counter()
    for seed in range(120):
        pile = game().new_state(seed, n).zone_cards("draw_pile")
        assert pile.count(MOON) == 1
        depths[pile.index(MOON)] += 1  # 0 is the bottom card
    assert set(depths) <= set(range(11))
    assert len(depths) >= 8  # shuffled with the 10 cards, not always at one place
    for seed in range(5):
        assert game(moon_depth=0).new_state(seed, n).zone_cards("draw_pile")[0] == MOON
        assert game(moon_depth=3).new_state(seed, n).zone_cards("draw_pile").index(MOON) <= 3


@pytest.mark.parametrize("n", COUNTS)
def test_first_player_is_random(n):
    firsts = {game().new_state(seed, n).current_player for seed in range(60)}
    assert firsts == set(range(n))


def test_hand_size_parameter():
    st = game(hand_size=3).new_state(0, 4)
    assert all(len(hand(st, p)) == 3 for p in range(4))
    assert len(st.zone_cards("draw_pile")) == 109 - 3 - 12


@pytest.mark.parametrize("n", (3, 7))
def test_invariants_hold_between_decisions_not_while_setup_fills_the_meadow(n):
    # "the meadow holds three hens" is false while setup fills the meadow; a
    # declared invariant is checked between decisions, so setup runs through
    st = load(RULES, check_invariants=True).new_state(0, n)
    assert len(st.zone_cards("meadow")) == 3 and st.m.broken_invariants(st) == []


# ---------------------------------------------------------------- coloured hens
def test_any_colour_enters_an_empty_henhouse():
    st = arrange(start(3), hands={0: [RED, GREEN, PURPLE, DOG]})
    for c in COLOURED:
        assert f"put {c} in your henhouse" in texts(st)
    st.apply_text(f"put {GREEN} in your henhouse")
    assert house(st, 0) == [GREEN]


@pytest.mark.parametrize("colour", COLOURED)
def test_one_colour_per_henhouse(colour):
    others = [c for c in COLOURED if c != colour]
    st = arrange(start(3), hands={0: [RED, GREEN, PURPLE, ABSENT]}, houses={0: [colour, ABSENT]})
    puts = [t for t in texts(st) if t.endswith(" in your henhouse")]
    assert puts == [f"put {colour} in your henhouse"]
    for c in others:
        with pytest.raises(IllegalAction):
            st.apply_text(f"put {c} in your henhouse")
    st.apply_text(f"put {colour} in your henhouse")
    assert house(st, 0) == [colour, ABSENT, colour]  # placed left to right


@pytest.mark.parametrize("contents", [[ABSENT], [IMPOSTOR], [ABSENT, IMPOSTOR], [IMPOSTOR, ABSENT]])
def test_any_colour_while_no_coloured_hen(contents):
    for colour in COLOURED:
        st = arrange(start(3), hands={0: [RED, GREEN, PURPLE, DOG]}, houses={0: contents})
        assert {t for t in texts(st) if t.endswith(" in your henhouse")} == \
            {f"put {c} in your henhouse" for c in COLOURED}
        st.apply_text(f"put {colour} in your henhouse")
        assert house(st, 0) == contents + [colour]


def test_a_henhouse_emptied_by_the_fox_takes_a_new_colour():
    st = arrange(start(3), hands={0: [FOX, DOG, DOG, DOG], 1: [GREEN, DOG, DOG, DOG]},
                 houses={1: [RED]})
    st.apply_text(f"set {FOX} loose")
    assert house(st, 1) == []
    assert st.current_player == 1
    st.apply_text(f"put {GREEN} in your henhouse")
    assert house(st, 1) == [GREEN]


@pytest.mark.parametrize("n", (3, 5))
def test_a_full_henhouse_takes_no_hen(n):
    cap = CAPACITY[n]
    full = [RED] * (cap - 2) + [ABSENT, IMPOSTOR]  # full, but not a win (an impostor)
    st = arrange(start(n), hands={0: [RED, GREEN, ABSENT, DOG]}, houses={0: full})
    assert not [t for t in texts(st) if t.endswith(" in your henhouse")]
    with pytest.raises(IllegalAction):
        st.apply_text(f"put {RED} in your henhouse")
    # one place free: one hen of the colour fits, then the henhouse is full
    st = arrange(start(n), hands={0: [RED, RED, DOG, DOG]}, houses={0: full[1:]})
    assert f"put {RED} in your henhouse" in texts(st)
    st.apply_text(f"put {RED} in your henhouse")
    assert len(house(st, 0)) == cap


# ---------------------------------------------------------------- absent-minded hen
def test_absent_minded_hen_enters_an_empty_henhouse():
    st = arrange(start(3), hands={0: [ABSENT, DOG, DOG, DOG]})
    st.apply_text(f"put {ABSENT} in your henhouse")
    assert house(st, 0) == [ABSENT]


@pytest.mark.parametrize("contents", [[RED], [GREEN, GREEN], [IMPOSTOR], [PURPLE, IMPOSTOR, PURPLE]])
def test_absent_minded_hen_joins_any_colour(contents):
    st = arrange(start(3), hands={0: [ABSENT, DOG, DOG, DOG]}, houses={0: contents})
    st.apply_text(f"put {ABSENT} in your henhouse")
    assert house(st, 0) == contents + [ABSENT]


@pytest.mark.parametrize("contents", [[ABSENT], [RED, ABSENT], [ABSENT, GREEN, IMPOSTOR]])
def test_at_most_one_absent_minded_hen(contents):
    st = arrange(start(3), hands={0: [ABSENT, DOG, DOG, DOG]}, houses={0: contents})
    assert f"put {ABSENT} in your henhouse" not in texts(st)
    with pytest.raises(IllegalAction):
        st.apply_text(f"put {ABSENT} in your henhouse")


def test_absent_minded_hen_may_return_after_it_is_eaten():
    st = arrange(start(3), hands={0: [FOX, DOG, DOG, DOG], 1: [ABSENT, DOG, DOG, DOG]},
                 houses={1: [RED, ABSENT]})
    st.apply_text(f"set {FOX} loose")
    assert house(st, 1) == [RED]
    st.apply_text(f"put {ABSENT} in your henhouse")
    assert house(st, 1) == [RED, ABSENT]


# ---------------------------------------------------------------- the win
@pytest.mark.parametrize("n", COUNTS)
def test_the_win_by_player_count(n):
    target = TARGET[n]
    st = arrange(start(n), hands={0: [GREEN, DOG, DOG, DOG]}, houses={0: [GREEN] * (target - 1)})
    pile = st.zone_cards("draw_pile")
    st.apply_text(f"put {GREEN} in your henhouse")
    assert st.is_terminal
    assert st.winners() == [0] == ref_winners(st)
    assert st.zone_cards("draw_pile") == pile  # at once: no drawing back up
    assert hand(st, 0) == [DOG, DOG, DOG]
    # one hen fewer does not win
    st = arrange(start(n), hands={0: [GREEN, DOG, DOG, DOG]}, houses={0: [GREEN] * (target - 2)})
    st.apply_text(f"put {GREEN} in your henhouse")
    assert not st.is_terminal
    assert st.current_player == 1


@pytest.mark.parametrize("n", (3, 6))
def test_the_absent_minded_hen_counts_towards_the_win(n):
    target = TARGET[n]
    st = arrange(start(n), hands={0: [ABSENT, DOG, DOG, DOG]}, houses={0: [PURPLE] * (target - 1)})
    st.apply_text(f"put {ABSENT} in your henhouse")
    assert st.is_terminal and st.winners() == [0]
    st = arrange(start(n), hands={0: [PURPLE, DOG, DOG, DOG]}, houses={0: [ABSENT] + [PURPLE] * (target - 2)})
    st.apply_text(f"put {PURPLE} in your henhouse")
    assert st.is_terminal and st.winners() == [0]


def test_an_impostor_blocks_the_win_then_the_dog_frees_it():
    # 3 players, 4 hens to win (a house variant), so that a henhouse of 5
    # can hold 4 hens and an impostor
    st = arrange(start(3, win_hens=4), hands={0: [RED, DOG, DOG, DOG]}, houses={0: [RED, RED, IMPOSTOR, RED]})
    st.apply_text(f"put {RED} in your henhouse")
    assert house(st, 0) == [RED, RED, IMPOSTOR, RED, RED]
    assert not st.is_terminal  # 4 red hens, but an impostor
    assert st.current_player == 1
    # back to player 1 (players 2 and 3 discard), who shows a dog
    discard(st, [hand(st, 1)[0]])
    discard(st, [hand(st, 2)[0]])
    assert st.current_player == 0
    arrange(st, hands={0: [DOG, TORNADO, FOX, THIEF]})
    st.apply_text(f"show {DOG}: it chases out your impostor")
    assert st.is_terminal
    assert st.winners() == [0]
    assert house(st, 0) == [RED, RED, RED, RED]
    assert hand(st, 0) == [TORNADO, FOX, THIEF]  # the win came before the drawing


def test_a_hen_stolen_into_the_henhouse_wins_at_once():
    st = arrange(start(3), hands={0: [THIEF, DOG, DOG, DOG]}, houses={0: [RED] * 4, 1: [RED, RED]})
    st.apply_text(f"send {THIEF} to {player(1)}")
    loot(st, "henhouse", RED)
    assert st.is_terminal and st.winners() == [0]
    assert house(st, 0) == [RED] * 5 and house(st, 1) == [RED]


def test_the_win_is_checked_after_a_fox_too():
    # The win is checked after every action, whoever's henhouse it is: a
    # henhouse laid out with five red hens (no action has checked it yet)
    # whose rooster the fox eats instead of a hen wins right after the fox.
    st = arrange(start(3), hands={0: [FOX, DOG, DOG, DOG]}, houses={1: [RED] * 5}, roosts={1: [ROOSTER]},
                 top=[DOG, DOG])
    st.apply_text(f"set {FOX} loose")
    assert st.is_terminal and st.winners() == [1]
    assert house(st, 1) == [RED] * 5 and roost(st, 1) == []
    assert hand(st, 0) == [DOG, DOG, DOG]  # the win came before the fox's player drew


def test_a_meadow_hen_put_in_the_henhouse_wins_at_once():
    st = arrange(start(5), hands={0: [GREEN, DOG, DOG, DOG]}, houses={0: [PURPLE] * 3},
                 meadow=[RED, GREEN, PURPLE])
    st.apply_text(f"give {GREEN} to the meadow for {PURPLE}")
    loot(st, "henhouse", PURPLE)
    assert st.is_terminal and st.winners() == [0]


# ---------------------------------------------------------------- impostor
def test_impostor_goes_only_into_an_opponents_henhouse_with_room_and_no_impostor():
    # 4 players, henhouses of 3 (a house variant, so that a full henhouse
    # without an impostor is not already a win)
    st = arrange(start(4, capacity=3), hands={0: [IMPOSTOR, DOG, DOG, DOG]},
                 houses={0: [], 1: [GREEN, GREEN], 2: [IMPOSTOR, RED], 3: [RED, RED, RED]})
    assert [t for t in texts(st) if t.startswith(f"put {IMPOSTOR}")] == \
        [f"put {IMPOSTOR} in the henhouse of {player(1)}"]
    for q in (0, 2, 3):
        with pytest.raises(IllegalAction):
            st.apply_text(f"put {IMPOSTOR} in the henhouse of {player(q)}")
    st.apply_text(f"put {IMPOSTOR} in the henhouse of {player(1)}")
    assert house(st, 1) == [GREEN, GREEN, IMPOSTOR]
    assert IMPOSTOR not in hand(st, 0)


@pytest.mark.parametrize("n", (3, 5))
def test_impostor_targets_every_opponent_even_without_hens(n):
    st = arrange(start(n), hands={0: [IMPOSTOR, DOG, DOG, DOG]})
    assert [t for t in texts(st) if t.startswith(f"put {IMPOSTOR}")] == \
        [f"put {IMPOSTOR} in the henhouse of {player(q)}" for q in range(1, n)]


def test_impostor_takes_a_place():
    st = arrange(start(3), hands={0: [IMPOSTOR, DOG, DOG, DOG], 1: [RED, DOG, DOG, DOG]},
                 houses={1: [RED] * 3})
    st.apply_text(f"put {IMPOSTOR} in the henhouse of {player(1)}")
    assert st.current_player == 1
    st.apply_text(f"put {RED} in your henhouse")  # the fifth and last place
    assert house(st, 1) == [RED, RED, RED, IMPOSTOR, RED]
    assert not st.is_terminal  # 4 red hens are not 5
    st2 = st.clone()
    discard(st2, [hand(st2, 2)[0]])
    discard(st2, [hand(st2, 0)[0]])
    arrange(st2, hands={1: [RED, DOG, DOG, DOG]})
    assert st2.current_player == 1
    assert f"put {RED} in your henhouse" not in texts(st2)


# ---------------------------------------------------------------- dog
def test_dog_needs_an_impostor_in_ones_own_henhouse():
    show = f"show {DOG}: it chases out your impostor"
    st = arrange(start(3), hands={0: [DOG, RED, RED, RED]}, houses={0: [RED, RED], 1: [IMPOSTOR]})
    assert show not in texts(st)
    with pytest.raises(IllegalAction):
        st.apply_text(show)
    assert discard_options(st) >= {DOG}  # a dog can still be discarded


def test_dog_chases_the_impostor_out():
    st = arrange(start(3), hands={0: [DOG, RED, PURPLE, FOX]}, houses={0: [GREEN, IMPOSTOR, ABSENT]},
                 top=[ROOSTER, THIEF])
    st.apply_text(f"show {DOG}: it chases out your impostor")
    assert house(st, 0) == [GREEN, ABSENT]
    assert st.zone_cards("discard_pile")[-2:] == [IMPOSTOR, DOG]
    assert hand(st, 0) == [RED, PURPLE, FOX, ROOSTER]  # then draws back to 4
    assert st.current_player == 1


# ---------------------------------------------------------------- rooster
def test_rooster_sits_above_the_row_one_at_most():
    st = arrange(start(3), hands={0: [ROOSTER, ROOSTER, DOG, DOG]})
    assert texts(st).count(f"put {ROOSTER} on your henhouse") == 1  # no hens needed
    st.apply_text(f"put {ROOSTER} on your henhouse")
    assert roost(st, 0) == [ROOSTER] and house(st, 0) == []
    st = arrange(start(3), hands={0: [ROOSTER, DOG, DOG, DOG]}, roosts={0: [ROOSTER]})
    assert f"put {ROOSTER} on your henhouse" not in texts(st)
    with pytest.raises(IllegalAction):
        st.apply_text(f"put {ROOSTER} on your henhouse")


def test_rooster_takes_no_place():
    st = arrange(start(3), hands={0: [RED, DOG, DOG, DOG]}, houses={0: [RED] * 4}, roosts={0: [ROOSTER]})
    st.apply_text(f"put {RED} in your henhouse")  # the fifth place is still free
    assert st.is_terminal and st.winners() == [0]


# ---------------------------------------------------------------- fox
def test_fox_takes_each_other_players_rooster_else_rightmost_hen():
    st = arrange(start(5), hands={0: [FOX, DOG, DOG, DOG]},
                 houses={0: [RED, RED], 1: [GREEN, GREEN], 2: [ABSENT, PURPLE, IMPOSTOR],
                         3: [IMPOSTOR], 4: []},
                 roosts={0: [ROOSTER], 1: [ROOSTER]}, top=[TORNADO])
    st.apply_text(f"set {FOX} loose")
    assert house(st, 0) == [RED, RED] and roost(st, 0) == [ROOSTER]  # the fox's player: untouched
    assert house(st, 1) == [GREEN, GREEN] and roost(st, 1) == []     # the rooster, not a hen
    assert house(st, 2) == [ABSENT, IMPOSTOR]                        # the impostor is skipped
    assert house(st, 3) == [IMPOSTOR]                                # no hen: nothing lost
    assert house(st, 4) == []
    assert Counter(st.zone_cards("discard_pile")) == Counter([ROOSTER, PURPLE, FOX])
    assert st.zone_cards("discard_pile")[-1] == FOX
    assert hand(st, 0) == [DOG, DOG, DOG, TORNADO]


def test_fox_takes_the_absent_minded_hen_if_rightmost():
    st = arrange(start(3), hands={0: [FOX, DOG, DOG, DOG]},
                 houses={1: [RED, ABSENT], 2: [ABSENT, GREEN]})
    st.apply_text(f"set {FOX} loose")
    assert house(st, 1) == [RED] and house(st, 2) == [ABSENT]


# ---------------------------------------------------------------- thief
def test_thief_targets_rivals_with_a_hen():
    st = arrange(start(4), hands={0: [THIEF, DOG, DOG, DOG]},
                 houses={0: [RED], 1: [GREEN], 2: [IMPOSTOR], 3: []}, roosts={3: [ROOSTER]})
    assert [t for t in texts(st) if t.startswith(f"send {THIEF}")] == [f"send {THIEF} to {player(1)}"]
    for q in (0, 2, 3):
        with pytest.raises(IllegalAction):
            st.apply_text(f"send {THIEF} to {player(q)}")


@pytest.mark.parametrize("where", ["hand", "henhouse", "discard"])
def test_thief_takes_the_rightmost_non_impostor_hen_and_draws_nothing(where):
    st = arrange(start(3), hands={0: [THIEF, DOG, FOX, ROOSTER]},
                 houses={0: [GREEN], 1: [GREEN, ABSENT, IMPOSTOR]})
    pile = st.zone_cards("draw_pile")
    st.apply_text(f"send {THIEF} to {player(1)}")
    assert house(st, 1) == [GREEN, IMPOSTOR]
    assert st.current_player == 0
    assert set(texts(st)) == loot_texts(ABSENT)
    loot(st, where, ABSENT)
    assert st.current_player == 1 and not st.is_terminal
    assert st.zone_cards("draw_pile") == pile  # the turn ends without drawing
    assert hand(st, 0) == [DOG, FOX, ROOSTER] + ([ABSENT] if where == "hand" else [])
    assert house(st, 0) == [GREEN] + ([ABSENT] if where == "henhouse" else [])
    assert st.zone_cards("discard_pile")[-1] == (ABSENT if where == "discard" else THIEF)
    assert THIEF in st.zone_cards("discard_pile")


@pytest.mark.parametrize("mine, stolen", [([GREEN], RED), ([ABSENT, PURPLE], ABSENT), ([RED] * 4 + [IMPOSTOR], RED)])
def test_stolen_hen_enters_the_henhouse_only_if_it_fits(mine, stolen):
    st = arrange(start(3), hands={0: [THIEF, DOG, DOG, DOG]}, houses={0: mine, 2: [RED, stolen]})
    st.apply_text(f"send {THIEF} to {player(2)}")
    assert set(texts(st)) == loot_texts(stolen) - {f"put {stolen} in your henhouse"}
    with pytest.raises(IllegalAction):
        st.apply_text(f"put {stolen} in your henhouse")


# ---------------------------------------------------------------- escaping hen
def after_chance(st):
    """Every way the chance events after an action can fall, with its exact
    probability: [(probability, state at the next decision)]."""
    if st.current_player != -1:
        return [(1.0, st)]
    out = []
    for outcome, prob in st.chance_outcomes():
        s = st.clone()
        s.apply(outcome)
        out += [(prob * q, leaf) for q, leaf in after_chance(s)]
    return out


def test_escaping_hen_slap_order_is_a_chance_event_over_all_the_others():
    # the others slap in a random order: a uniformly random permutation of the n - 1 others
    st = start_chance(5)
    arrange(st, hands={0: [ESCAPING, DOG, DOG, DOG]}, houses={1: [RED], 2: [GREEN], 3: [PURPLE], 4: [RED]})
    st.apply_text(f"throw {ESCAPING}")
    leaves = after_chance(st)
    assert len(leaves) == 4 * 3 * 2  # 4! orders
    assert sum(p for p, _ in leaves) == pytest.approx(1.0)
    assert all(p == pytest.approx(1 / 24) for p, _ in leaves)


def test_escaping_hen_each_player_with_a_hen_equally_likely_to_lose():
    st = start_chance(5)
    arrange(st, hands={0: [ESCAPING, DOG, DOG, DOG]},
            houses={0: [RED, RED], 1: [GREEN, ABSENT, IMPOSTOR], 2: [IMPOSTOR], 3: [], 4: [PURPLE, PURPLE]},
            roosts={1: [ROOSTER]})
    before = {p: house(st, p) for p in range(5)}
    st.apply_text(f"throw {ESCAPING}")
    odds = {}
    for prob, s in after_chance(st):
        changed = [p for p in range(5) if house(s, p) != before[p]]
        assert len(changed) == 1
        odds[changed[0]] = odds.get(changed[0], 0) + prob
        assert roost(s, 1) == [ROOSTER]  # the rooster does not protect the hens
        assert s.zone_cards("discard_pile")[:2] in ([ESCAPING, ABSENT], [ESCAPING, PURPLE],
                                                    [ABSENT, ESCAPING], [PURPLE, ESCAPING])
        if changed == [1]:
            assert house(s, 1) == [GREEN, IMPOSTOR]  # the impostor is skipped
        else:
            assert house(s, 4) == [PURPLE]
    assert sorted(odds) == [1, 4]
    assert odds[1] == pytest.approx(0.5) and odds[4] == pytest.approx(0.5)


@pytest.mark.parametrize("n", (3, 4, 5, 7))
def test_escaping_hen_chance_is_uniform_among_players_with_a_hen(n):
    st = start_chance(n)
    houses = {p: ([RED] if p % 2 == 0 else []) for p in range(n)}
    houses[0] = [GREEN, GREEN]
    arrange(st, hands={0: [ESCAPING, DOG, DOG, DOG]}, houses=houses)
    st.apply_text(f"throw {ESCAPING}")
    candidates = [p for p in range(1, n) if houses[p]]
    odds = {}
    for prob, s in after_chance(st):
        lost = [p for p in candidates if house(s, p) != houses[p]]
        assert len(lost) == 1
        odds[lost[0]] = odds.get(lost[0], 0) + prob
    assert sorted(odds) == candidates
    assert all(q == pytest.approx(1 / len(candidates)) for q in odds.values())


def test_escaping_hen_with_no_other_hen_takes_nothing():
    st = start_chance(4)
    arrange(st, hands={0: [ESCAPING, DOG, DOG, DOG]},
            houses={0: [RED, RED], 1: [IMPOSTOR], 2: [], 3: []}, roosts={2: [ROOSTER]}, top=[FOX])
    st.apply_text(f"throw {ESCAPING}")
    for _, st in after_chance(st):  # whatever the slap order, nobody loses a hen
        assert st.current_player == 1  # the turn is over
        assert house(st, 0) == [RED, RED] and house(st, 1) == [IMPOSTOR] and roost(st, 2) == [ROOSTER]
        assert st.zone_cards("discard_pile") == [ESCAPING]
        assert hand(st, 0) == [DOG, DOG, DOG, FOX]


def test_escaping_hen_single_candidate_loses():
    st = arrange(start(3), hands={0: [ESCAPING, DOG, DOG, DOG]},
                 houses={0: [RED], 1: [], 2: [PURPLE, ABSENT]}, roosts={2: [ROOSTER]})
    st.apply_text(f"throw {ESCAPING}")
    assert house(st, 2) == [PURPLE] and roost(st, 2) == [ROOSTER] and house(st, 0) == [RED]


def test_escaping_hen_seeded_play_hits_both_candidates():
    losers = set()
    for seed in range(40):
        st = arrange(start(4, seed=seed), hands={0: [ESCAPING, DOG, DOG, DOG]},
                     houses={1: [RED], 2: [], 3: [GREEN]})
        st.apply_text(f"throw {ESCAPING}")
        lost = [p for p in (1, 3) if house(st, p) == []]
        assert len(lost) == 1
        losers.add(lost[0])
    assert losers == {1, 3}


# ---------------------------------------------------------------- tornado
@pytest.mark.parametrize("direction, step", [("Left", 1), ("Right", -1)])
def test_tornado_passes_all_hands_at_once(direction, step):
    n = 4
    hands = {0: [TORNADO, RED, GREEN, PURPLE], 1: [DOG, DOG, FOX, FOX],
             2: [ROOSTER, THIEF, THIEF, ROOSTER], 3: [ABSENT, ESCAPING]}
    st = arrange(start(n), hands=hands, top=[IMPOSTOR, IMPOSTOR, TORNADO])
    assert {t for t in texts(st) if t.startswith(f"play {TORNADO}")} == \
        {f"play {TORNADO}: hands pass Left", f"play {TORNADO}: hands pass Right"}
    st.apply_text(f"play {TORNADO}: hands pass {direction}")
    old = dict(hands)
    old[0] = hands[0][1:]
    for p in range(n):
        giver = (p - step) % n
        got = hand(st, p)
        if p == 0:  # the tornado's player then draws back up to 4
            need = 4 - len(old[giver])
            assert Counter(got) == Counter(old[giver] + [IMPOSTOR, IMPOSTOR, TORNADO][:need])
        else:
            assert Counter(got) == Counter(old[giver])
    assert st.zone_cards("discard_pile") == [TORNADO]
    assert st.current_player == 1  # the turn order does not change


def test_tornado_turn_order_unchanged_in_play():
    st = arrange(start(5), hands={0: [TORNADO, DOG, DOG, DOG]})
    st.apply_text(f"play {TORNADO}: hands pass Right")
    order = [st.current_player]
    for _ in range(6):
        discard(st, [hand(st, st.current_player)[0]])
        order.append(st.current_player)
    assert order == [1, 2, 3, 4, 0, 1, 2]


# ---------------------------------------------------------------- remove an impostor
REMOVE = "discard your rightmost hen and your impostor"


@pytest.mark.parametrize("contents, legal", [([IMPOSTOR], False), ([RED, RED], False), ([], False),
                                             ([IMPOSTOR, RED], True), ([ABSENT, IMPOSTOR], True)])
def test_remove_impostor_needs_an_impostor_and_a_hen(contents, legal):
    st = arrange(start(3), hands={0: [DOG, DOG, DOG, DOG]}, houses={0: contents, 1: [RED, IMPOSTOR]})
    assert (REMOVE in texts(st)) == legal


def test_remove_impostor_discards_rightmost_hen_and_impostor():
    st = arrange(start(3), hands={0: [FOX, DOG, RED, GREEN]},
                 houses={0: [GREEN, IMPOSTOR, GREEN, ABSENT]}, top=[THIEF])
    st.apply_text(REMOVE)
    assert house(st, 0) == [GREEN, GREEN]
    assert Counter(st.zone_cards("discard_pile")) == Counter([ABSENT, IMPOSTOR])
    assert hand(st, 0) == [FOX, DOG, RED, GREEN]  # already 4: nothing drawn
    assert st.zone_cards("draw_pile")[-1] == THIEF
    assert st.current_player == 1


# ---------------------------------------------------------------- discarding
def test_discard_options_are_the_hand_and_never_nothing():
    st = arrange(start(3), hands={0: [FOX, DOG, RED, TORNADO]})
    assert discard_options(st) == {FOX, DOG, RED, TORNADO}
    assert not may_discard_nothing(st)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_discard_cards_then_draw_to_four(k):
    kept_all = [FOX, DOG, RED, TORNADO]
    st = arrange(start(3), hands={0: list(kept_all)}, top=[THIEF, ROOSTER, ESCAPING, GREEN, PURPLE])
    thrown, kept = kept_all[:k], kept_all[k:]
    discard(st, thrown)
    assert Counter(st.zone_cards("discard_pile")) == Counter(thrown)
    assert Counter(hand(st, 0)) == Counter(kept + [THIEF, ROOSTER, ESCAPING, GREEN][:k])
    assert st.zone_cards("draw_pile")[-1] == [THIEF, ROOSTER, ESCAPING, GREEN, PURPLE][k]
    assert st.current_player == 1


def test_discard_two_copies():
    st = arrange(start(3), hands={0: [DOG, DOG, RED, FOX]}, top=[THIEF, ROOSTER])
    discard(st, [DOG, DOG])
    assert Counter(hand(st, 0)) == Counter([RED, FOX, THIEF, ROOSTER])
    assert st.zone_cards("discard_pile") == [DOG, DOG]


# ---------------------------------------------------------------- meadow
def test_meadow_exchanges_offered():
    st = arrange(start(3), hands={0: [RED, ABSENT, GREEN, DOG]}, meadow=[RED, GREEN, PURPLE])
    gives = sorted(t for t in texts(st) if t.startswith("give "))
    assert gives == sorted([
        f"give {RED} to the meadow for {GREEN}", f"give {RED} to the meadow for {PURPLE}",
        f"give {GREEN} to the meadow for {RED}", f"give {GREEN} to the meadow for {PURPLE}"])
    for t in (f"give {ABSENT} to the meadow for {RED}", f"give {RED} to the meadow for {RED}",
              f"give {DOG} to the meadow for {RED}"):
        with pytest.raises(IllegalAction):
            st.apply_text(t)


def test_meadow_never_three_of_one_colour():
    st = arrange(start(3), hands={0: [RED, GREEN, PURPLE, DOG]}, meadow=[RED, RED, GREEN])
    gives = sorted(t for t in texts(st) if t.startswith("give "))
    # a red hen would make 3 reds; a green for the green is no exchange
    assert gives == sorted([
        f"give {GREEN} to the meadow for {RED}",
        f"give {PURPLE} to the meadow for {RED}", f"give {PURPLE} to the meadow for {GREEN}"])
    st.apply_text(f"give {GREEN} to the meadow for {RED}")
    assert sorted(st.zone_cards("meadow")) == sorted([RED, GREEN, GREEN])


@pytest.mark.parametrize("where", ["hand", "henhouse", "discard"])
def test_meadow_hen_goes_to_hand_henhouse_or_discard_without_drawing(where):
    st = arrange(start(3), hands={0: [PURPLE, DOG, FOX, ROOSTER]}, houses={0: [GREEN]},
                 meadow=[RED, GREEN, PURPLE])
    pile = st.zone_cards("draw_pile")
    st.apply_text(f"give {PURPLE} to the meadow for {GREEN}")
    assert sorted(st.zone_cards("meadow")) == sorted([RED, PURPLE, PURPLE])
    assert set(texts(st)) == loot_texts(GREEN)
    loot(st, where, GREEN)
    assert st.current_player == 1
    assert st.zone_cards("draw_pile") == pile
    assert hand(st, 0) == [DOG, FOX, ROOSTER] + ([GREEN] if where == "hand" else [])
    assert house(st, 0) == [GREEN] + ([GREEN] if where == "henhouse" else [])
    assert st.zone_cards("discard_pile") == ([GREEN] if where == "discard" else [])


def test_meadow_hen_enters_the_henhouse_only_if_it_fits():
    st = arrange(start(3), hands={0: [PURPLE, DOG, FOX, ROOSTER]}, houses={0: [RED]},
                 meadow=[RED, GREEN, PURPLE])
    st.apply_text(f"give {PURPLE} to the meadow for {GREEN}")
    assert set(texts(st)) == loot_texts(GREEN) - {f"put {GREEN} in your henhouse"}


# ---------------------------------------------------------------- empty hand, turn order
def test_a_turn_starting_with_an_empty_hand_draws_two_first():
    st = arrange(start(3), hands={0: [RED, DOG, DOG, DOG], 1: []},
                 top=[FOX, THIEF, ROOSTER, IMPOSTOR, TORNADO, ESCAPING, GREEN])
    st.apply_text(f"put {RED} in your henhouse")  # player 1 draws the fox
    assert hand(st, 0) == [DOG, DOG, DOG, FOX]
    assert st.current_player == 1
    assert Counter(hand(st, 1)) == Counter([THIEF, ROOSTER])
    discard(st, [THIEF])  # then, like any turn, back up to 4
    assert Counter(hand(st, 1)) == Counter([ROOSTER, IMPOSTOR, TORNADO, ESCAPING])


def test_empty_draw_parameter():
    st = arrange(start(3, empty_draw=3), hands={0: [RED, DOG, DOG, DOG], 1: []},
                 top=[FOX, THIEF, ROOSTER, IMPOSTOR])
    st.apply_text(f"put {RED} in your henhouse")
    assert Counter(hand(st, 1)) == Counter([THIEF, ROOSTER, IMPOSTOR])


# ---------------------------------------------------------------- the moon
def test_the_moon_drawn_in_the_refill_ends_the_game_at_once():
    st = arrange(start(3), hands={0: [FOX, DOG, RED, TORNADO]}, houses={0: [RED, RED], 1: [GREEN]},
                 top=[THIEF, MOON, ROOSTER, GREEN])
    discard(st, [FOX, DOG, TORNADO])
    assert st.is_terminal
    assert moon_drawn(st)
    assert hand_without_moon(st, 0) == [RED, THIEF]  # the rest of that draw is not taken
    pile = [c for c in st.zone_cards("draw_pile") if c != MOON]
    assert pile[-2:] == [GREEN, ROOSTER]
    for p in (1, 2):
        assert MOON not in hand(st, p)
    assert st.winners() == [0] == ref_winners(st)


def test_the_moon_drawn_at_the_start_of_a_turn_ends_the_game():
    for top, got in [([FOX, MOON, THIEF, ROOSTER], []), ([FOX, THIEF, MOON, ROOSTER], [THIEF])]:
        st = arrange(start(3), hands={0: [RED, DOG, DOG, DOG], 1: []}, houses={1: [GREEN, GREEN], 2: [GREEN, GREEN]},
                     top=top)
        st.apply_text(f"put {RED} in your henhouse")
        assert st.is_terminal and moon_drawn(st)
        assert hand_without_moon(st, 1) == got
        assert ROOSTER in st.zone_cards("draw_pile")
        assert st.winners() == [1, 2] == ref_winners(st)


def test_the_moon_is_never_drawn_by_an_action_that_draws_nothing():
    st = arrange(start(3), hands={0: [THIEF, DOG, DOG, DOG]}, houses={1: [RED]}, top=[MOON])
    st.apply_text(f"send {THIEF} to {player(1)}")
    loot(st, "hand", RED)
    assert not st.is_terminal and st.current_player == 1
    assert st.zone_cards("draw_pile")[-1] == MOON


def end_by_moon(st):
    """The current player discards one card and draws the moon."""
    p = st.current_player
    arrange(st, top=[MOON])
    discard(st, [hand(st, p)[0]])
    assert st.is_terminal and moon_drawn(st)
    return st


@pytest.mark.parametrize("houses, roosts, winners", [
    # the most hens of one colour
    ({0: [RED, RED, RED], 1: [GREEN, GREEN], 2: [PURPLE]}, {1: [ROOSTER], 2: [ROOSTER]}, [0]),
    # the absent-minded hen counts; impostors and roosters do not
    ({0: [RED, RED], 1: [GREEN, ABSENT, GREEN], 2: [IMPOSTOR, PURPLE, PURPLE]}, {0: [ROOSTER]}, [1]),
    ({0: [ABSENT], 1: [], 2: [IMPOSTOR]}, {1: [ROOSTER]}, [0]),
    # most hens beats a rooster and beats having no impostor
    ({0: [RED, IMPOSTOR, RED, RED, RED], 1: [GREEN, GREEN, GREEN], 2: []}, {1: [ROOSTER]}, [0]),
    # tied on hens: the rooster decides
    ({0: [RED, RED], 1: [GREEN, GREEN], 2: [PURPLE]}, {1: [ROOSTER], 2: [ROOSTER]}, [1]),
    # tied on hens, a rooster beats having no impostor
    ({0: [RED, RED], 1: [GREEN, IMPOSTOR, GREEN], 2: [PURPLE]}, {1: [ROOSTER]}, [1]),
    # tied on hens and roosters: no impostor decides
    ({0: [RED, RED, IMPOSTOR], 1: [GREEN, ABSENT], 2: [PURPLE]}, {0: [ROOSTER], 1: [ROOSTER]}, [1]),
    ({0: [RED, RED, IMPOSTOR], 1: [GREEN, ABSENT], 2: [PURPLE]}, {}, [1]),
    # still tied: shared
    ({0: [RED, RED], 1: [GREEN, ABSENT], 2: [PURPLE]}, {0: [ROOSTER], 1: [ROOSTER]}, [0, 1]),
    ({0: [RED, IMPOSTOR], 1: [IMPOSTOR, GREEN], 2: [PURPLE, IMPOSTOR]}, {}, [0, 1, 2]),
    ({0: [], 1: [], 2: []}, {}, [0, 1, 2]),
    ({0: [], 1: [IMPOSTOR], 2: []}, {2: [ROOSTER]}, [2]),
    # a full henhouse with an impostor has not won: the count decides
    ({0: [RED, RED, RED, RED, IMPOSTOR], 1: [GREEN, GREEN, GREEN, GREEN], 2: []}, {1: [ROOSTER]}, [1]),
])
def test_moon_ending_tie_break_chain(houses, roosts, winners):
    st = arrange(start(3), hands={0: [DOG, DOG, DOG, DOG]}, houses=houses, roosts=roosts)
    end_by_moon(st)
    assert st.winners() == winners == ref_winners(st)


def test_moon_ending_with_more_players():
    st = arrange(start(6), hands={0: [DOG, DOG, DOG, DOG]},
                 houses={0: [RED], 1: [GREEN, GREEN, ABSENT], 2: [PURPLE, PURPLE, PURPLE],
                         3: [IMPOSTOR, RED, RED, RED], 4: [], 5: [GREEN]},
                 roosts={2: [ROOSTER], 3: [ROOSTER]})
    end_by_moon(st)
    assert st.winners() == [2] == ref_winners(st)


# ---------------------------------------------------------------- max_turns
@pytest.mark.parametrize("n, k", [(3, 1), (4, 7), (7, 12)])
def test_max_turns_ends_the_game_and_the_moon_ending_decides(n, k):
    g = game(max_turns=k)
    for seed in range(3):
        st, movers = play_random(g, n, seed)
        turns = turns_of(movers)
        assert len(turns) <= k
        won = any(ref_hens(house(st, p)) >= TARGET[n] and IMPOSTOR not in house(st, p) for p in range(n))
        if not won:
            assert len(turns) == k
            assert not moon_drawn(st)
        assert st.winners() == ref_winners(st)


def test_max_turns_zero_means_no_limit():
    lengths = []
    for seed in range(3):
        st, movers = play_random(game(), 3, seed)
        lengths.append(len(turns_of(movers)))
        won = any(ref_hens(house(st, p)) >= 5 and IMPOSTOR not in house(st, p) for p in range(3))
        assert won or moon_drawn(st)
    assert max(lengths) > 30


# ---------------------------------------------------------------- random play
@pytest.mark.parametrize("n", COUNTS)
def test_random_play_to_the_end(n):
    for seed in range(3):
        def check(st):
            # at every decision: the declared invariants, the capacities,
            # every card in one place
            assert st.m.broken_invariants(st) == []
            assert Counter(all_cards(st)) == DECK
            assert st.current_player in range(n)

        st, movers = play_random(game(), n, seed, on_step=check)
        turns = turns_of(movers)
        first = turns[0]
        assert turns == [(first + i) % n for i in range(len(turns))]  # clockwise, one turn each
        won = [p for p in range(n) if ref_hens(house(st, p)) >= TARGET[n] and IMPOSTOR not in house(st, p)]
        assert won or moon_drawn(st)
        if won:
            assert won == [turns[-1]]
        assert st.winners() == ref_winners(st)
        for p in range(n):
            cards = house(st, p)
            assert set(cards) <= set(HENS) | {IMPOSTOR}
            assert len({c for c in cards if c in COLOURED}) <= 1
            assert len(cards) <= CAPACITY[n]


# ---------------------------------------------------------------- the game need not end
def test_meadow_visits_can_go_on_for_ever():
    # The rules bound neither meadow visits nor thefts, and neither draws a card:
    # three players each holding one hen of a different colour, the meadow
    # holding one of each, can swap with the meadow for ever.  Each always can
    # (their colour is never twice in the meadow), so a fixed way of playing
    # comes back to a position it has seen: the game as written need not end.
    st = arrange(start(3), hands={0: [DOG, DOG, DOG, RED], 1: [DOG, DOG, DOG, GREEN],
                                  2: [DOG, DOG, DOG, PURPLE]},
                 meadow=[RED, GREEN, PURPLE])
    pile = st.zone_cards("draw_pile")
    seen = {}
    for turn in range(60):
        key = st.key()
        if key in seen:
            break
        seen[key] = turn
        visits = [t for t in texts(st) if t.startswith("give ")]
        assert visits, texts(st)
        st.apply_text(visits[0])
        taken = [t for t in texts(st) if t.endswith("in your hand")]
        st.apply_text(taken[0])
    else:
        raise AssertionError("no position came back")
    assert turn >= 3 and not st.is_terminal
    assert st.zone_cards("draw_pile") == pile  # nobody drew: the moon never comes
