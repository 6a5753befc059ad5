"""Emu Ranchers (games/emu_ranchers.rules) against its rulebook.

Every expectation below comes from the Emu Ranchers rulebook by P.D. Magnus
(its examples are hard-coded here, the file itself is not read) and from the
project's rulings for it: the best upkeep payment (no change), the direction
fixed by the second card, the draw after a discard, the year end, the
first player alternating each year, four years, and the Excuse/Pawns/Courts
options.

Positions are built with the scenario helpers of ``State`` (``put`` and
friends) on seeded states.  Decktet cards used (rank, suits):

    Ace of X 1 {X}   Crowns 10: Huntress Moons, Bard Suns, Sea Waves,
                     End Leaves, Calamity Wyrms, Windfall Knots
    Author 2 Mo/Kn   Desert 2 Su/Wy   Origin 2 Wa/Le
    Journey 3 Mo/Wa  Painter 3 Su/Kn  Savage 3 Le/Wy
    Mountain 4 Mo/Su Sailor 4 Wa/Le   Battle 4 Wy/Kn
    Forest 5 Mo/Le   Discovery 5 Su/Wa Soldier 5 Wy/Kn
    Lunatic 6 Mo/Wa  Penitent 6 Su/Wy Market 6 Le/Kn
    Chance Meeting 7 Mo/Le  Castle 7 Su/Kn  Cave 7 Wa/Wy
    Diplomat 8 Mo/Su Mill 8 Wa/Le     Betrayal 8 Wy/Kn
    Pact 9 Mo/Su     Darkness 9 Wa/Wy Merchant 9 Le/Kn
    Pawns: Harvest Mo/Su/Le, Watchman Mo/Wy/Kn, Light Keeper Su/Wa/Kn,
           Borderland Wa/Le/Wy
    Courts: Consul Mo/Wa/Kn, Rite Mo/Le/Wy, Island Su/Wa/Wy, Window Su/Le/Kn
"""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest

from interpreter import IllegalAction, load
from interpreter.compiler import ParamError

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "games" / "emu_ranchers.rules"

ACES = [f"Ace of {s}" for s in ("Moons", "Suns", "Waves", "Leaves", "Wyrms", "Knots")]
CROWNS = ["Huntress", "Bard", "Sea", "End", "Calamity", "Windfall"]
NUMBERS = ["Author", "Desert", "Origin", "Journey", "Painter", "Savage", "Mountain", "Sailor",
           "Battle", "Forest", "Discovery", "Soldier", "Lunatic", "Penitent", "Market",
           "Chance Meeting", "Castle", "Cave", "Diplomat", "Mill", "Betrayal", "Pact",
           "Darkness", "Merchant"]
PAWNS = ["Harvest", "Watchman", "Light Keeper", "Borderland"]
COURTS = ["Consul", "Rite", "Island", "Window"]

# The rulebook's two scoring examples.
ORANGE_BIRD = ["Bard", "Pact", "Diplomat"]  # Crown, 9, 8 of Suns: -6
BLUE_BIRD = ["Ace of Waves", "Origin", "Journey", "Discovery", "Lunatic", "Mill", "Sea"]  # 16


@functools.lru_cache(maxsize=None)
def game(**params):
    return load(RULES, **params)


# ---------------------------------------------------------------- helpers
def all_cards(st):
    """Every card in play, wherever it lies."""
    out = list(st.zone_cards("draw_pile")) + list(st.zone_cards("discard_pile"))
    for p in range(st.num_players):
        out += st.zone_cards("hand", p)
        for bird in st.zone_cards("birds", p):
            out += bird
    return out


def value(g, st, p, i):
    return g.evaluate(st, f"bird_value(birds({p})[{i}])")


def set_hand(st, p, cards):
    """Make ``cards`` player p's whole hand (the old hand goes on the draw pile)."""
    old = [c for c in st.zone_cards("hand", p) if c not in cards]
    if old:
        st.put(old, "draw_pile")
    st.put(cards, "hand", p)


def fresh_turn(g, seed=1):
    """A new game, its first player about to play, with an empty hand."""
    st = g.new_state(seed)
    p = st.current_player
    set_hand(st, p, [])
    return st, p


def texts(st):
    return set(st.legal_action_texts())


def grows(st):
    return {t for t in st.legal_action_texts() if t.startswith("grow ")}


def is_play_step(st):
    return any(t.startswith("discard ") for t in st.legal_action_texts())


def random_until(st, rng, stop, limit=5000):
    for _ in range(limit):
        if st.is_terminal or stop(st):
            return st
        st.apply(rng.choice(st.legal_actions()))
    raise AssertionError("the condition never came")


def near_year_end(g, seed):
    """A random game of the year's last turn: one card left in the draw pile
    and a player about to play (hatch, grow or discard)."""
    st = g.new_state(seed)
    random_until(st, random.Random(seed),
                 lambda s: len(s.zone_cards("draw_pile")) == 1 and is_play_step(s))
    assert not st.is_terminal
    return st


def arrange(st, hands, birds, last):
    """Lay out a position: every card to the discard pile, then each player's
    birds and hand, then ``last`` as the only card of the draw pile."""
    st.put(all_cards(st), "discard_pile")
    for p, bs in birds.items():
        for b in bs:
            st.put(b, "birds", p)
    for p, h in hands.items():
        st.put(h, "hand", p)
    st.put([last], "draw_pile")
    assert st.zone_cards("draw_pile") == [last]
    for p, h in hands.items():
        assert st.zone_cards("hand", p) == h
    for p, bs in birds.items():
        assert st.zone_cards("birds", p) == bs


def play_out_randomly(g, seed, on_action=None):
    st = g.new_state(seed)
    rng = random.Random(seed)
    while not st.is_terminal:
        before = st.clone()
        a = rng.choice(st.legal_actions())
        st.apply(a)
        if on_action:
            on_action(before, a, st)
    return st


# ---------------------------------------------------------------- scoring
def test_rulebook_example_orange_bird_loses_6():
    g = game()
    st = g.new_state(3)
    st.put(ORANGE_BIRD, "birds", 0)
    # 18 - 9 - 8 = 1 for the number cards, plus 5 for the Crown
    assert value(g, st, 0, 0) == -6


def test_rulebook_example_blue_bird_scores_16():
    g = game()
    st = g.new_state(3)
    st.put(["Castle"], "birds", 1)  # an unrelated first bird: the blue one is bird 2
    st.put(BLUE_BIRD, "birds", 1)
    # 2+3+5+8 = 18 pay the upkeep; the 6 is left, plus 10 for the Ace and Crown
    assert value(g, st, 1, 1) == 16
    assert value(g, st, 1, 0) == 7 - 18


@pytest.mark.parametrize("cards, expected", [
    # a loss without Ace or Crown: the rulebook's "15 loses 3" (3+5+7 of Moons)
    (["Journey", "Forest", "Chance Meeting"], -3),
    # a loss with an Ace only: 2+3 = 5 -> -13, and -5 more
    (["Ace of Moons", "Author", "Journey"], -13 - 5),
    # a loss with an Ace and a Crown: 3+4 = 7 -> -11, and -10 more
    (["Ace of Suns", "Painter", "Mountain", "Bard"], -11 - 10),
    # an Ace alone: no number card at all
    (["Ace of Leaves"], -18 - 5),
    # exactly 18, no Ace or Crown: everything pays the upkeep, nothing is left
    (["Journey", "Lunatic", "Darkness"], 0),
    # 2+4+6+8 = 20: 4+6+8 = 18 pays the upkeep, the 2 is left
    (["Desert", "Mountain", "Penitent", "Diplomat"], 2),
    # profit with an Ace only: 2,3,5,6,8 -> pay 2+3+5+8 = 18, keep 6, +5
    (["Ace of Waves", "Origin", "Journey", "Discovery", "Lunatic", "Mill"], 6 + 5),
    # profit with a Crown only: 9+5+4 = 18 pays, nothing left but the Crown: +5
    (["Sea", "Darkness", "Discovery", "Sailor"], 5),
    # an Ace only, total 19 and no part makes 18 exactly: all goes, the Ace earns 5
    (["Ace of Waves", "Origin", "Sailor", "Discovery", "Mill"], 5),
    # no change: 9+8+5 = 22 and no smaller part reaches 18 (9+8 = 17), so all goes
    (["Pact", "Diplomat", "Forest"], 0),
    # ... and a Crown still earns its 5 when no number card is left
    (["Bard", "Pact", "Diplomat", "Discovery"], 5),
    # 3+4+6+8+9 = 30: the best payment is 4+6+8 = 18 (or 3+6+9), keep 12
    (["Painter", "Mountain", "Penitent", "Diplomat", "Pact"], 12),
])
def test_bird_values(cards, expected):
    g = game()
    st = g.new_state(5)
    st.put(cards, "birds", 0)
    assert value(g, st, 0, 0) == expected


def test_fifteen_loses_three_and_the_numbers_are_read_right():
    g = game()
    st = g.new_state(5)
    st.put(["Journey", "Forest", "Chance Meeting"], "birds", 0)
    assert g.evaluate(st, "sum([x.rank for x in birds(0)[0]])") == 15
    assert value(g, st, 0, 0) == -3
    st.put(["Huntress"], "birds", 0, stack=0)  # add a Crown: 5 more lost
    assert value(g, st, 0, 0) == -8


def test_least_sum_at_least_through_evaluate():
    g = game()
    st = g.new_state(2)
    # the language has no list literal: read the numbers from a hand
    set_hand(st, 0, ["Pact", "Diplomat", "Forest", "Journey"])  # 9, 8, 5, 3
    assert g.evaluate(st, "[x.rank for x in hand(0)]") == [9, 8, 5, 3]
    # 9+8 = 17 < 18; 9+8+3 = 20 is the smallest sum reaching 18
    assert g.evaluate(st, "least_sum_at_least([x.rank for x in hand(0)], 18)") == 20
    assert g.evaluate(st, "least_sum_at_least([x.rank for x in hand(0)], 17)") == 17
    assert g.evaluate(st, "least_sum_at_least([x.rank for x in hand(0)], 21)") == 22
    # short of the target: the whole total
    assert g.evaluate(st, "least_sum_at_least([x.rank for x in hand(0)], 40)") == 25


# ---------------------------------------------------------------- legality
def test_hatch_and_discard_offers():
    g = game(excuse=True, pawns=True, courts=True)
    st, p = fresh_turn(g, 4)
    hand = ["Ace of Moons", "Pact", "Sea", "Excuse", "Harvest", "Consul"]
    set_hand(st, p, hand)
    assert st.zone_cards("birds", p) == []
    # hatch: every Ace, number and Crown; never the Excuse, a Pawn or a Court
    assert texts(st) == {"hatch Ace of Moons", "hatch Pact", "hatch Sea"} | {f"discard {c}" for c in hand}
    st.apply_text("hatch Pact")
    assert st.zone_cards("birds", p) == [["Pact"]]
    assert st.zone_cards("hand", p) == [c for c in hand if c != "Pact"]


def test_rulebook_example_ace_2_4_of_waves_takes_a_wave_of_5_or_more():
    g = game()
    st, p = fresh_turn(g, 6)
    st.put(["Ace of Waves", "Origin", "Sailor"], "birds", p)
    set_hand(st, p, ["Journey", "Discovery", "Darkness", "Sea", "Forest", "Market"])
    assert g.evaluate(st, f"common_suits(birds({p})[0])") == {"Waves"}
    assert grows(st) == {"grow bird 1 with Discovery", "grow bird 1 with Darkness", "grow bird 1 with Sea"}


def test_grow_needs_a_suit_shared_by_every_card_of_the_bird():
    g = game()
    st, p = fresh_turn(g, 7)
    st.put(["Journey", "Forest"], "birds", p)  # {Moons, Waves} & {Moons, Leaves} = {Moons}, going up
    set_hand(st, p, ["Lunatic", "Chance Meeting", "Cave", "Market", "Huntress", "Sea", "Author"])
    assert g.evaluate(st, f"common_suits(birds({p})[0])") == {"Moons"}
    # Cave (Waves) and Market (Leaves) share a suit with one card only; Author is lower
    assert grows(st) == {"grow bird 1 with Lunatic", "grow bird 1 with Chance Meeting",
                         "grow bird 1 with Huntress"}


def test_rulebook_example_castle_then_penitent_commits_to_suns_going_down():
    g = game()
    st, p = fresh_turn(g, 8)
    q = 1 - p
    st.put(["Castle"], "birds", p)  # the 7 of Suns and Knots
    hand = ["Penitent", "Diplomat", "Painter", "Windfall", "Ace of Suns", "Cave"]
    set_hand(st, p, hand)
    # a lone number card may go up or down, in either of its suits
    assert grows(st) == {f"grow bird 1 with {c}" for c in hand if c != "Cave"}
    st.apply_text("grow bird 1 with Penitent")  # the 6 of Suns and Wyrms
    st.apply_text("draw from the pile")
    assert st.current_player == q
    st.apply(next(a for a in st.legal_actions() if st.action_text(a).startswith("discard ")))
    st.apply_text("draw from the pile")
    assert st.current_player == p
    assert st.zone_cards("birds", p) == [["Castle", "Penitent"]]
    set_hand(st, p, ["Diplomat", "Bard", "Discovery", "Desert", "Ace of Suns", "Painter", "Battle"])
    assert g.evaluate(st, f"direction(birds({p})[0])") == -1
    # now an orange (Suns) bird growing down: lower Suns only, skipping ranks is fine
    assert grows(st) == {"grow bird 1 with Discovery", "grow bird 1 with Desert",
                         "grow bird 1 with Ace of Suns", "grow bird 1 with Painter"}


def test_lone_ace_grows_up_and_lone_crown_grows_down():
    g = game()
    st, p = fresh_turn(g, 9)
    st.put(["Ace of Moons"], "birds", p)
    st.put(["Huntress"], "birds", p)
    set_hand(st, p, ["Author", "Pact", "Desert"])
    assert grows(st) == {"grow bird 1 with Author", "grow bird 1 with Pact",
                         "grow bird 2 with Author", "grow bird 2 with Pact"}
    for r in range(1, 11):
        assert g.evaluate(st, f"follows(birds({p})[0], {r})") == (r > 1), r
        assert g.evaluate(st, f"follows(birds({p})[1], {r})") == (r < 10), r

    st, p = fresh_turn(g, 9)
    st.put(["Ace of Suns"], "birds", p)
    st.put(["Huntress"], "birds", p)
    set_hand(st, p, ["Bard", "Ace of Moons", "Mountain", "Desert", "Sea"])
    # a Crown may grow a lone Ace, an Ace a lone Crown
    assert grows(st) == {"grow bird 1 with Bard", "grow bird 1 with Mountain", "grow bird 1 with Desert",
                         "grow bird 2 with Ace of Moons", "grow bird 2 with Mountain"}


def test_equal_rank_never_follows():
    g = game(pawns=True)
    st, p = fresh_turn(g, 10)
    st.put(["Forest"], "birds", p)
    for r in range(1, 11):
        assert g.evaluate(st, f"follows(birds({p})[0], {r})") == (r != 5), r
    set_hand(st, p, ["Harvest"])
    assert grows(st) == {f"grow bird 1 with Harvest as {r}" for r in (2, 3, 4, 6, 7, 8, 9)}


def test_after_a_discard_only_the_pile():
    g = game()
    st, p = fresh_turn(g, 11)
    st.put(["Merchant"], "discard_pile")
    set_hand(st, p, ["Pact", "Cave"])
    st.apply_text("discard Cave")
    assert st.current_player == p
    assert texts(st) == {"draw from the pile"}
    top = st.zone_cards("draw_pile")[-1]
    st.apply_text("draw from the pile")
    assert st.zone_cards("hand", p) == ["Pact", top]
    assert st.zone_cards("discard_pile") == ["Merchant", "Cave"]
    assert st.current_player == 1 - p


def test_after_a_hatch_the_top_discard_may_be_taken():
    g = game()
    st, p = fresh_turn(g, 12)
    set_hand(st, p, ["Pact", "Cave"])
    assert st.zone_cards("discard_pile") == []
    st.apply_text("hatch Pact")
    # no discard pile at the beginning of a year: only the draw pile
    assert texts(st) == {"draw from the pile"}

    st, p = fresh_turn(g, 12)
    set_hand(st, p, ["Pact", "Cave"])
    st.put(["Merchant", "Lunatic"], "discard_pile")
    pile = len(st.zone_cards("draw_pile"))
    st.apply_text("hatch Pact")
    assert texts(st) == {"draw from the pile", "take the top discard"}
    st.apply_text("take the top discard")
    assert st.zone_cards("hand", p) == ["Cave", "Lunatic"]
    assert st.zone_cards("discard_pile") == ["Merchant"]
    assert len(st.zone_cards("draw_pile")) == pile
    assert st.current_player == 1 - p


def test_after_a_grow_the_top_discard_may_be_taken():
    g = game()
    st, p = fresh_turn(g, 13)
    st.put(["Castle"], "birds", p)
    set_hand(st, p, ["Pact", "Penitent"])
    st.put(["Merchant"], "discard_pile")
    st.apply_text("grow bird 1 with Penitent")
    assert st.zone_cards("birds", p) == [["Castle", "Penitent"]]
    assert texts(st) == {"draw from the pile", "take the top discard"}
    with pytest.raises(IllegalAction):
        st.apply_text("hatch Pact")  # one play a turn
    st.apply_text("draw from the pile")
    assert st.current_player == 1 - p


def test_turns_alternate_play_then_draw_in_random_play():
    g = game()
    seen = []

    def check(before, a, after):
        t = before.action_text(a)
        seen.append((before.current_player, t))
        if before.zone_cards("draw_pile") and t.startswith(("draw", "take")):
            prev_player, prev = seen[-2]
            assert prev_player == before.current_player
            assert prev.startswith(("hatch ", "grow ", "discard "))
            if prev.startswith("discard "):
                assert t == "draw from the pile"
            if after.zone_cards("draw_pile"):  # still the year: the other player plays
                assert after.current_player == 1 - before.current_player
                assert is_play_step(after)
                assert len(after.zone_cards("hand", before.current_player)) == 6
        elif before.zone_cards("draw_pile"):
            assert t.startswith(("hatch ", "grow ", "discard "))
            assert after.current_player == before.current_player
            assert not is_play_step(after)

    for seed in (1, 2):
        seen.clear()
        play_out_randomly(g, seed, check)
        assert any(t == "take the top discard" for _, t in seen)


# ---------------------------------------------------------------- year end
def year_end_position(g, seed):
    """Player p is about to play the year's last turn.

    p: the orange bird (Crown, 9, 8 of Suns going down); nothing in hand can
       grow it; the last card of the pile is Castle (7 of Suns): it can.
    q: Journey, Lunatic (Moons/Waves going up); Mill and Darkness can grow it.
    """
    st = near_year_end(g, seed)
    p = st.current_player
    q = 1 - p
    arrange(st,
            hands={p: ["Sailor", "Market", "Battle", "Soldier", "Betrayal", "Savage"],
                   q: ["Mill", "Darkness", "Ace of Knots", "Origin", "Author", "Forest"]},
            birds={p: [list(ORANGE_BIRD)], q: [["Journey", "Lunatic"]]},
            last="Castle")
    return st, p, q


def test_year_end_growth_then_scoring_one_year_game():
    g = game(years=1)
    st, p, q = year_end_position(g, 21)
    assert "hatch Sailor" in texts(st)  # the year is not over yet
    st.apply_text("discard Savage")
    assert texts(st) == {"draw from the pile"}
    st.apply_text("draw from the pile")
    # the last card is drawn: the year is over.  No hatching, no drawing,
    # but birds may still grow
    assert st.zone_cards("draw_pile") == []
    assert st.current_player == q
    assert texts(st) == {"grow bird 1 with Mill", "grow bird 1 with Darkness", "stop growing"}
    st.apply_text("grow bird 1 with Mill")
    assert texts(st) == {"grow bird 1 with Darkness", "stop growing"}
    st.apply_text("grow bird 1 with Darkness")
    # q can grow no more: their turn at year end is over
    assert st.current_player == p
    assert texts(st) == {"grow bird 1 with Castle", "stop growing"}
    st.apply_text("stop growing")
    assert st.is_terminal
    # unplayable cards are discarded
    assert st.zone_cards("hand", p) == [] and st.zone_cards("hand", q) == []
    for c in ("Castle", "Sailor", "Ace of Knots", "Origin", "Author", "Forest"):
        assert c in st.zone_cards("discard_pile")
    assert st.zone_cards("birds", q) == [["Journey", "Lunatic", "Mill", "Darkness"]]
    # p: -6 (the rulebook's orange bird); q: 3+6+8+9 = 26, pay 3+6+9 = 18, keep 8
    assert st.get_var("score", p) == -6
    assert st.get_var("score", q) == 8
    assert st.returns()[p] == -6.0 and st.returns()[q] == 8.0
    assert st.winners() == [q]


def test_year_end_growth_changes_the_score():
    g = game(years=1)
    st, p, q = year_end_position(g, 22)
    st.apply_text("discard Savage")
    st.apply_text("draw from the pile")
    st.apply_text("stop growing")  # q keeps Journey, Lunatic: 9 -> -9
    assert st.current_player == p
    st.apply_text("grow bird 1 with Castle")
    # no more growth possible: the year end is over for p too
    assert st.is_terminal
    # Crown, 9, 8, 7: 24, no part of it but the whole reaches 18 -> 0 + 5
    assert st.get_var("score", p) == 5
    assert st.get_var("score", q) == -9


def test_taking_the_discard_does_not_end_the_year():
    g = game(years=1)
    st, p, q = year_end_position(g, 23)
    st.put(["Savage"], "discard_pile")
    st.put(["Pact"], "hand", p)  # out of the orange bird, to hatch it
    st.apply_text("hatch Pact")
    st.apply_text("take the top discard")
    assert st.zone_cards("draw_pile") == ["Castle"]
    assert st.current_player == q
    assert is_play_step(st) and "hatch Mill" in texts(st)


def test_year_end_scores_and_next_year_starts_with_the_other_player():
    g = game()
    st, p, q = year_end_position(g, 24)
    first = st.get_var("first_player")
    st.apply_text("discard Savage")
    st.apply_text("draw from the pile")
    st.apply_text("grow bird 1 with Darkness")  # 3+6+9 = 18 -> 0; Mill can no longer follow
    st.apply_text("stop growing")               # p keeps the orange bird: -6
    # year 2 is dealt
    assert not st.is_terminal
    assert st.get_var("score", p) == -6 and st.get_var("score", q) == 0
    assert st.get_var("first_player") == first
    assert st.current_player == 1 - first
    assert st.zone_cards("birds", 0) == [] and st.zone_cards("birds", 1) == []
    assert st.zone_cards("discard_pile") == []
    assert len(st.zone_cards("hand", 0)) == len(st.zone_cards("hand", 1)) == 6
    assert len(st.zone_cards("draw_pile")) == 36 - 12
    assert is_play_step(st)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_four_years_first_player_alternates_and_scores_add_up(seed):
    g = game()
    st = g.new_state(seed)
    first = st.get_var("first_player")
    assert st.current_player == first
    starts = [st.current_player]
    year_scores = []
    totals = [0, 0]
    rng = random.Random(seed)
    prev = len(st.zone_cards("draw_pile"))
    while not st.is_terminal:
        if not st.zone_cards("draw_pile"):
            # year end: grow only, or the Excuse choice; never hatch or draw
            for t in st.legal_action_texts():
                assert t.startswith(("grow ", "stop growing", "excuse ", "keep all birds")), t
        else:
            assert st.get_var("score", 0) == totals[0] and st.get_var("score", 1) == totals[1]
        st.apply(rng.choice(st.legal_actions()))
        n = len(st.zone_cards("draw_pile"))
        if n > prev or st.is_terminal:
            # the year just ended and was scored
            if not st.is_terminal:
                assert st.zone_cards("birds", 0) == [] == st.zone_cards("birds", 1)
                assert n == 24 and st.zone_cards("discard_pile") == []
                starts.append(st.current_player)
            gained = [st.get_var("score", p) - totals[p] for p in (0, 1)]
            year_scores.append(gained)
            if st.is_terminal:  # the last year's birds stay on the table
                for p in (0, 1):
                    assert gained[p] == g.evaluate(st, f"sum(bird_value(b) for b in birds({p}))")
            totals = [st.get_var("score", p) for p in (0, 1)]
        prev = n
    assert len(year_scores) == 4
    assert starts == [first, 1 - first, first, 1 - first]
    assert st.returns() == [float(x) for x in totals]
    assert st.zone_cards("hand", 0) == [] == st.zone_cards("hand", 1)


def test_first_player_is_a_random_seat():
    g = game()
    firsts = {g.new_state(seed).get_var("first_player") for seed in range(20)}
    assert firsts == {0, 1}


def test_years_parameter_gives_a_one_year_game():
    g1 = game(years=1)
    st = g1.new_state(5)
    rng = random.Random(5)
    refills = 0
    prev = len(st.zone_cards("draw_pile"))
    while not st.is_terminal:
        st.apply(rng.choice(st.legal_actions()))
        n = len(st.zone_cards("draw_pile"))
        refills += n > prev
        prev = n
    assert refills == 0
    for p in (0, 1):
        assert st.get_var("score", p) == g1.evaluate(st, f"sum(bird_value(b) for b in birds({p}))")
    assert game(years=2).params["years"] == 2
    with pytest.raises(ParamError):
        load(RULES, years=0)


# ---------------------------------------------------------------- options
@pytest.mark.parametrize("params, extra", [
    ({}, []),
    ({"excuse": True}, ["Excuse"]),
    ({"pawns": True}, PAWNS),
    ({"courts": True}, COURTS),
    ({"excuse": True, "pawns": True, "courts": True}, ["Excuse"] + PAWNS + COURTS),
])
def test_deck(params, extra):
    g = game(**params)
    st = g.new_state(3)
    cards = all_cards(st)
    assert len(cards) == 36 + len(extra)
    assert sorted(cards) == sorted(ACES + NUMBERS + CROWNS + extra)
    assert len(st.zone_cards("hand", 0)) == len(st.zone_cards("hand", 1)) == 6
    assert len(st.zone_cards("draw_pile")) == len(cards) - 12


@pytest.mark.parametrize("option, wild", [("pawns", "Light Keeper"), ("courts", "Island")])
def test_wild_card_continues_the_order(option, wild):
    g = game(**{option: True})
    st, p = fresh_turn(g, 14)
    st.put(["Journey", "Discovery"], "birds", p)  # 3, 5 of Waves going up
    other = "Harvest" if option == "pawns" else "Window"  # no Waves
    set_hand(st, p, [wild, other])
    # a 6..9 only; never an Ace or Crown; never a hatch
    assert texts(st) == ({f"grow bird 1 with {wild} as {r}" for r in (6, 7, 8, 9)}
                         | {f"discard {wild}", f"discard {other}"})
    st.apply_text(f"grow bird 1 with {wild} as 7")
    assert st.zone_cards("birds", p) == [["Journey", "Discovery", wild]]
    assert st.card_var("value", wild) == 7
    assert value(g, st, p, 0) == 3 + 5 + 7 - 18
    st.apply_text("draw from the pile")
    st.apply(next(a for a in st.legal_actions() if st.action_text(a).startswith("discard ")))
    st.apply_text("draw from the pile")
    # the bird continues above 7, in the suit all its cards share (Waves)
    set_hand(st, p, ["Lunatic", "Mill", "Darkness", "Diplomat"])
    assert grows(st) == {"grow bird 1 with Mill", "grow bird 1 with Darkness"}
    st.apply_text("grow bird 1 with Darkness")
    # 3+5+7+9 = 24; no part makes 18, the least that reaches it is 3+7+9 = 19
    assert value(g, st, p, 0) == 24 - 19


def test_pawn_counts_as_its_declared_number():
    g = game(pawns=True)
    st, p = fresh_turn(g, 15)
    st.put(["Forest"], "birds", p)  # 5 of Moons and Leaves
    set_hand(st, p, ["Harvest"])   # Moons, Suns, Leaves
    assert grows(st) == {f"grow bird 1 with Harvest as {r}" for r in (2, 3, 4, 6, 7, 8, 9)}
    st.apply_text("grow bird 1 with Harvest as 7")
    assert st.zone_cards("birds", p) == [["Forest", "Harvest"]]
    assert value(g, st, p, 0) == 5 + 7 - 18
    assert g.evaluate(st, f"direction(birds({p})[0])") == 1


def test_pawn_on_a_lone_ace_or_crown_is_a_number():
    g = game(pawns=True)
    st, p = fresh_turn(g, 15)
    st.put(["Ace of Suns"], "birds", p)
    st.put(["Bard"], "birds", p)
    set_hand(st, p, ["Light Keeper"])
    legal = grows(st)
    for b in (1, 2):
        assert {t for t in legal if t.startswith(f"grow bird {b} ")} == \
            {f"grow bird {b} with Light Keeper as {r}" for r in range(2, 10)}
    st.apply_text("grow bird 2 with Light Keeper as 9")
    # counted as a number: 9 - 18, and the Crown's 5
    assert value(g, st, p, 1) == 9 - 18 - 5


def excuse_position(g, seed, p_birds, p_hand=None, q_hand_extra=None):
    st = near_year_end(g, seed)
    p = st.current_player
    q = 1 - p
    p_hand = p_hand or ["Excuse", "Battle", "Soldier", "Betrayal", "Savage", "Market"]
    arrange(st,
            hands={p: p_hand,
                   q: ["Author", "Painter", "Desert", "Mountain", "Penitent", "Calamity"] + (q_hand_extra or [])},
            birds={p: p_birds, q: [["Merchant", "End"]]},  # 9 of Leaves, Crown: 9 -> -9 - 5
            last="Windfall")
    return st, p, q


def finish_last_turn(st, p):
    st.apply_text("discard Savage")
    st.apply_text("draw from the pile")
    # q cannot grow (End is a Crown) and holds no Excuse: p's year end
    assert st.is_terminal or st.current_player == p


def test_excuse_discards_a_losing_bird():
    g = game(excuse=True, years=1)
    st, p, q = excuse_position(g, 31, [list(ORANGE_BIRD), list(BLUE_BIRD)])
    finish_last_turn(st, p)
    assert texts(st) == {"excuse bird 1", "keep all birds"}  # the blue bird does not lose
    st.apply_text("excuse bird 1")
    assert st.is_terminal
    assert st.zone_cards("birds", p) == [BLUE_BIRD]
    assert st.get_var("score", p) == 16
    assert st.get_var("score", q) == -14
    assert "Excuse" in st.zone_cards("discard_pile")


def test_excuse_may_be_kept():
    g = game(excuse=True, years=1)
    st, p, q = excuse_position(g, 32, [list(ORANGE_BIRD), list(BLUE_BIRD)])
    finish_last_turn(st, p)
    st.apply_text("keep all birds")
    assert st.is_terminal
    assert st.get_var("score", p) == 16 - 6


def test_excuse_takes_only_one_of_two_losing_birds():
    g = game(excuse=True, years=1)
    st, p, q = excuse_position(g, 33, [list(ORANGE_BIRD), ["Forest", "Chance Meeting"]])
    finish_last_turn(st, p)
    assert texts(st) == {"excuse bird 1", "excuse bird 2", "keep all birds"}
    st.apply_text("excuse bird 2")
    assert st.is_terminal
    assert st.zone_cards("birds", p) == [ORANGE_BIRD]
    assert st.get_var("score", p) == -6


def test_excuse_without_a_losing_bird_offers_nothing():
    g = game(excuse=True, years=1)
    st, p, q = excuse_position(g, 34, [list(BLUE_BIRD)])
    finish_last_turn(st, p)
    assert st.is_terminal
    assert st.get_var("score", p) == 16


def test_excuse_only_for_its_holder():
    g = game(excuse=True, years=1)
    st, p, q = excuse_position(g, 35, [list(ORANGE_BIRD)],
                               p_hand=["Battle", "Soldier", "Betrayal", "Savage", "Market", "Cave"],
                               q_hand_extra=["Excuse"])
    st.apply_text("discard Savage")
    st.apply_text("draw from the pile")
    # q holds the Excuse and has a losing bird
    assert st.current_player == q
    assert texts(st) == {"excuse bird 1", "keep all birds"}
    st.apply_text("excuse bird 1")
    # p has a losing bird but no Excuse: nothing to choose
    assert st.is_terminal
    assert st.get_var("score", q) == 0
    assert st.get_var("score", p) == -6


# ---------------------------------------------------------------- determinism
def play_fixed(st, actions_from=None, n=150):
    """Play n actions chosen by a seeded RNG (or replay a given list)."""
    if actions_from is not None:
        for a in actions_from:
            st.apply(a)
        return st
    rng = random.Random(99)
    for _ in range(n):
        if st.is_terminal:
            break
        st.apply(rng.choice(st.legal_actions()))
    return st


def test_same_seed_same_actions_same_states():
    g = game()
    a = play_fixed(g.new_state(42))
    # other states created and played in between, and a fresh load
    other = play_fixed(g.new_state(43), n=77)
    g2 = load(RULES)
    b = play_fixed(g2.new_state(42), actions_from=list(a.history))
    c_first = g2.new_state(42)
    play_fixed(g2.new_state(7), n=30)
    c = play_fixed(c_first, actions_from=list(a.history))
    for s in (b, c):
        assert s.history == a.history
        for p in (0, 1):
            assert s.observation(p) == a.observation(p)
            assert s.zone_cards("hand", p) == a.zone_cards("hand", p)
        assert s.zone_cards("draw_pile") == a.zone_cards("draw_pile")
        assert s.legal_action_texts() == a.legal_action_texts()
    assert other.history != a.history


def test_different_seeds_different_deals():
    g = game()
    deals = [tuple(tuple(g.new_state(s).zone_cards("hand", p)) for p in (0, 1)) for s in range(6)]
    assert len(set(deals)) == 6
    assert g.new_state(1).zone_cards("hand", 0) == g.new_state(1).zone_cards("hand", 0)


# ---------------------------------------------------------------- parameters
def test_upkeep_parameter_changes_scoring():
    g10 = game(upkeep=10)
    st = g10.new_state(3)
    st.put(ORANGE_BIRD, "birds", 0)           # 17: pays 9+8 (no smaller part reaches 10): 0 + 5
    st.put(["Journey", "Lunatic"], "birds", 0)  # 9 < 10: -1
    st.put(["Painter", "Mountain", "Penitent"], "birds", 0)  # 13: pay 4+6 = 10, keep 3
    assert [value(g10, st, 0, i) for i in range(3)] == [5, -1, 3]
    g = game()
    st = g.new_state(3)
    st.put(ORANGE_BIRD, "birds", 0)
    assert value(g, st, 0, 0) == -6


@pytest.mark.parametrize("size", [1, 4, 8, 12])
def test_hand_size_parameter_changes_the_deal(size):
    g = game(hand_size=size)
    st = g.new_state(6)
    assert len(st.zone_cards("hand", 0)) == len(st.zone_cards("hand", 1)) == size
    assert len(st.zone_cards("draw_pile")) == 36 - 2 * size


# ---------------------------------------------------------------- known bugs
def test_declared_rank_of_a_wild_card_is_public():
    g = game(pawns=True)
    st, p = fresh_turn(g, 16)
    st.put(["Journey", "Discovery"], "birds", p)
    set_hand(st, p, ["Light Keeper"])
    six, seven = st.clone(), st.clone()
    six.apply_text("grow bird 1 with Light Keeper as 6")
    seven.apply_text("grow bird 1 with Light Keeper as 7")
    assert g.evaluate(six, f"bird_value(birds({p})[0])") != g.evaluate(seven, f"bird_value(birds({p})[0])")
    # the opponent can see the bird, so what it knows must differ
    assert six.observation(1 - p) != seven.observation(1 - p)
