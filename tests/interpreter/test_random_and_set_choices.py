"""Random lets and random orders (exact chance trees with
``explicit_chance=True``, seeded runs) and set choices (``cs in subsets of
Z sized a..b``) at play time."""

from __future__ import annotations

import time
from itertools import permutations
from math import factorial

import pytest
from hypothesis import given, settings, strategies as strat

from interpreter import CHANCE, RuleError, load
from interpreter.compiler.helpers import subsets


def load_text(tmp_path, text, name="t.rules", **kw):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load(path, **kw)


def digits(values) -> int:
    out = 0
    for v in values:
        out = out * 10 + v
    return out


V = {"A": 1, "B": 2, "C": 3}


# ================================================================ random lets and orders
ORDER = '''game "orders"
players 1..6
cards:
  "X"
zone deck: pile, public
var order: list of player = [p for p in players if false]
var pick: player = 0
action go "go":
  pass
setup:
  {stmt}
play:
  turn 0:
    choose go
outcome(p):
  score 0
'''

ORDER_STMTS = {
    "let": "let o = random order of players\n  set order = o",
    "set": "set order = random order of players",
    "set of a list": "set order = random order of [p for p in players]",
}


def leaves(state, prob=1.0, path=()):
    """Every end of the chance tree from ``state``: (state, probability, outcome counts on the way)."""
    if state.current_player == CHANCE:
        outcomes = state.chance_outcomes()
        for o, p in outcomes:
            s = state.clone()
            s.apply(o)
            yield from leaves(s, prob * p, path + (len(outcomes),))
    else:
        yield state, prob, path


@pytest.mark.parametrize("how", sorted(ORDER_STMTS))
@pytest.mark.parametrize("k", [2, 3, 4])
def test_random_order_is_k_minus_1_chance_nodes_reaching_every_permutation_once(tmp_path, how, k):
    game = load_text(tmp_path, ORDER.replace("{stmt}", ORDER_STMTS[how]), explicit_chance=True)
    found = list(leaves(game.new_state(1, k)))
    assert all(path == tuple(range(k, 1, -1)) for _, _, path in found)
    orders = [tuple(s.get_var("order")) for s, _, _ in found]
    assert len(orders) == factorial(k)
    assert sorted(orders) == sorted(permutations(range(k)))  # each exactly once
    assert all(p == pytest.approx(1 / factorial(k)) for _, p, _ in found)


@pytest.mark.parametrize("expr,want", [("[p for p in players if false]", ()),
                                       ("[p for p in players if p == 1]", (1,))])
def test_random_order_of_fewer_than_two_items_has_no_chance_node(tmp_path, expr, want):
    game = load_text(tmp_path, ORDER.replace("{stmt}", f"set order = random order of {expr}"),
                     explicit_chance=True)
    state = game.new_state(1, 3)
    assert state.current_player == 0
    assert tuple(state.get_var("order")) == want


def test_random_pick_is_one_uniform_chance_node(tmp_path):
    game = load_text(tmp_path, ORDER.replace("{stmt}", "let x = random players\n  set pick = x"),
                     explicit_chance=True)
    state = game.new_state(1, 4)
    assert state.current_player == CHANCE
    assert state.chance_outcomes() == [(j, 0.25) for j in range(4)]
    for j in range(4):
        s = state.clone()
        s.apply(j)
        assert s.current_player == 0
        assert s.get_var("pick") == j


def test_random_pick_from_nothing_is_a_rule_error(tmp_path):
    game = load_text(tmp_path, ORDER.replace("{stmt}", "set pick = random [p for p in players if false]"))
    with pytest.raises(RuleError):
        game.new_state(1, 2)


def test_seeded_random_orders_are_deterministic_and_vary(tmp_path):
    game = load_text(tmp_path, ORDER.replace("{stmt}", ORDER_STMTS["let"]))
    seen = set()
    for seed in range(60):
        a = tuple(game.new_state(seed, 3).get_var("order"))
        b = tuple(game.new_state(seed, 3).get_var("order"))
        assert a == b
        assert sorted(a) == [0, 1, 2]
        seen.add(a)
    assert seen == set(permutations(range(3)))


def test_random_order_of_cards_moves_them_in_that_order(tmp_path):
    text = '''game "cards"
players 2
card attributes: v: int
cards:
  "A" 1
  "B" 2
  "C" 3
zone deck: pile, public
zone pot: pile, public
var trace: int = 0
action go "go":
  pass
setup:
  let o = random order of deck
  for c in o:
    set trace = trace * 10 + c.v
  move o to pot
play:
  turn 0:
    choose go
outcome(p):
  score 0
'''
    game = load_text(tmp_path, text, explicit_chance=True)
    found = list(leaves(game.new_state(1)))
    assert len(found) == 6
    traces = set()
    for s, _, _ in found:
        pot = s.zone_cards("pot")
        assert s.get_var("trace") == digits(V[n] for n in pot)
        traces.add(s.get_var("trace"))
    assert len(traces) == 6


# ================================================================ set choices
SETS = '''game "sets"
players 2
card attributes: v: int
cards:
{rows}
zone deck: pile, public
zone pile: pile, public
zone hand: pile, per player, owner
card var marked: bool = false
action d(cs in subsets of hand(me) sized {lo}..{hi}) "discard {cs}":
  move cs to pile
action k(cs in subsets of hand(me)) "keep {cs}":
  pass
play:
  turn 0:
    choose {which}
outcome(p):
  score 0
'''
ROWS = '  "A" 1 *2\n  "B" 2\n  "C" 3'


def sets_game(tmp_path, which="d", lo=1, hi=2, rows=ROWS):
    text = SETS.replace("{rows}", rows).replace("{which}", which).replace("{lo}", str(lo)).replace("{hi}", str(hi))
    return load_text(tmp_path, text)


def test_set_choice_offers_each_set_once_smallest_first(tmp_path):
    state = sets_game(tmp_path).new_state(1)
    state.put(["A", "A", "B"], "hand", 0)
    assert state.legal_action_texts() == ["discard A", "discard B", "discard A, A", "discard A, B"]
    state = sets_game(tmp_path).new_state(1)
    state.put(["A", "A"], "hand", 0)  # (every card a copy of the first)
    assert state.legal_action_texts() == ["discard A", "discard A, A"]


def test_set_choice_order_follows_the_pile(tmp_path):
    state = sets_game(tmp_path).new_state(1)
    state.put(["A", "A", "B", "C"], "hand", 0)
    assert state.legal_action_texts() == ["discard A", "discard B", "discard C", "discard A, A",
                                          "discard A, B", "discard A, C", "discard B, C"]
    state = sets_game(tmp_path, lo=2, hi=9).new_state(1)
    state.put(["C", "B", "A"], "hand", 0)
    assert state.legal_action_texts() == ["discard C, B", "discard C, A", "discard B, A", "discard C, B, A"]


def test_set_choice_default_size_is_nothing_to_all(tmp_path):
    state = sets_game(tmp_path, which="k").new_state(1)
    state.put(["A", "B"], "hand", 0)
    assert state.legal_action_texts() == ["keep nothing", "keep A", "keep B", "keep A, B"]


def test_copies_told_apart_by_a_card_var_are_not_collapsed(tmp_path):
    state = sets_game(tmp_path).new_state(1)
    state.put(["A", "A", "B"], "hand", 0)
    first_a = state.m.card_ids("A")[0]
    state.set_card_var("marked", first_a, True)
    texts = state.legal_action_texts()
    assert texts.count("discard A") == 2
    assert texts.count("discard A, B") == 2
    assert texts.count("discard A, A") == 1
    assert len(texts) == 6


def test_a_set_choice_beside_a_card_choice_over_the_same_hand_groups_the_same_copies(tmp_path):
    # the card choice tells the hand's copies apart first (kept for the choice): the set
    # choice after it must group them by the same card variables, and outside a search too
    text = SETS.replace("action k(cs in subsets of hand(me))", 'action one(c in hand(me)) "play {c}":\n'
                        '  pass\naction k(cs in subsets of hand(me))')
    game = load_text(tmp_path, text.replace("{rows}", ROWS).replace("{which}", "one, d").replace("{lo}", "1")
                     .replace("{hi}", "2"))
    state = game.new_state(1)
    state.put(["A", "A", "B"], "hand", 0)
    assert state.legal_action_texts() == ["play A", "play B", "discard A", "discard B", "discard A, A",
                                          "discard A, B"]
    state = game.new_state(1)
    state.put(["A", "A"], "hand", 0)  # (copies of one name only: the first is played)
    assert [a[1] for a in state.legal_actions() if state.action_text(a) == "play A"] == [state.Z[
        state.m.zone_instance(state, "hand", 0)][0]]
    state = game.new_state(1)
    state.put(["A", "A", "B"], "hand", 0)
    state.set_card_var("marked", state.m.card_ids("A")[1], True)
    texts = state.legal_action_texts()
    assert texts.count("play A") == 2 and texts.count("discard A") == 2 and texts.count("discard A, A") == 1
    assert len(texts) == 3 + 6
    hand = state.Z[state.m.zone_instance(state, "hand", 0)]
    assert state.m.domain_cache is None  # (outside a search: what can() sees)
    assert len(subsets(state, hand, 1, 2)) == 6
    state.set_card_var("marked", state.m.card_ids("A")[1], False)
    assert len(subsets(state, hand, 1, 2)) == 4  # the two As are copies again


@pytest.mark.parametrize("bound, small", [("MAX_COPY_PLANS", 2), ("MAX_MAKERS", 1)])
def test_what_a_game_keeps_of_its_piles_is_begun_again_when_full_and_listings_stay_the_same(monkeypatch, bound, small):
    # ¡Desplumados! has copies, card variables and a set choice (discard any cards of the
    # hand): its listings, with the plans of its piles of copies, or the makers of its sets,
    # dropped as soon as a few are kept, are those of a game that keeps them all
    import random
    from pathlib import Path
    from interpreter.compiler import copies
    path = Path(__file__).resolve().parents[2] / "games" / "desplumados.rules"

    def listings(seed):
        st = load(path, knowledge=False).new_state(seed, 4)
        rng, out = random.Random(seed), []
        while not st.is_terminal and len(out) < 300:
            out.append(st.legal_actions())
            assert len(st.m.copy_plans) <= copies.MAX_COPY_PLANS and len(copies._MAKERS) <= copies.MAX_MAKERS
            st.apply_at(rng.randrange(len(out[-1])))
        return out
    kept = [listings(seed) for seed in range(3)]
    assert any(len(a) == 2 and isinstance(a[1], tuple) for listing in kept for a in listing)  # (sets listed)
    monkeypatch.setattr(copies, bound, small)
    monkeypatch.setattr(copies, "_MAKERS", {})
    monkeypatch.setattr(copies, "_MET", set())
    assert [listings(seed) for seed in range(3)] == kept


def test_three_copies_with_the_middle_one_marked_make_two_choices_the_first_card_each(tmp_path):
    # the first and third A are still copies of each other, the marked one is not: a choice
    # of one card offers the first A and the marked A (never the third), and the sets group
    # the hand as {A, A}, {marked A}, {B}; the same hand unmarked again groups all three As
    text = SETS.replace("action k(cs in subsets of hand(me))", 'action one(c in hand(me)) "play {c}":\n'
                        '  pass\naction k(cs in subsets of hand(me))')
    game = load_text(tmp_path, text.replace("{rows}", '  "A" 1 *3\n  "B" 2').replace("{which}", "one, d")
                     .replace("{lo}", "1").replace("{hi}", "2"))
    for repeat in range(2):  # (the second time, the hand's grouping by names is known)
        state = game.new_state(1)
        state.put(["A", "A", "A", "B"], "hand", 0)
        a1, a2, _ = state.m.card_ids("A")
        state.set_card_var("marked", a2, True)
        plays = [a for a in state.legal_actions() if state.action_text(a).startswith("play")]
        assert [a[1] for a in plays] == [a1, a2, state.m.card_ids("B")[0]]
        sets = [state.action_text(a) for a in state.legal_actions() if state.action_text(a).startswith("discard")]
        assert len(sets) == 3 + 4 and sets.count("discard A") == 2 and sets.count("discard A, A") == 2
        state.set_card_var("marked", a2, False)  # (the legal actions are listed again)
        assert [a[1] for a in state.legal_actions() if state.action_text(a).startswith("play")] == \
            [a1, state.m.card_ids("B")[0]]
        assert state.legal_action_texts()[2:] == ["discard A", "discard B", "discard A, A", "discard A, B"]


@pytest.mark.parametrize("hand", [["A", "B", "C"], ["A", "A", "B"]])
def test_a_listing_s_sets_come_as_actions_when_given_the_action(tmp_path, hand):
    # a lone set parameter tested by nothing: its listing is the sets made into actions in
    # one pass; the same sets, in the same order, with or without copies in the hand
    state = sets_game(tmp_path).new_state(1)
    state.put(hand, "hand", 0)
    cards = state.Z[state.m.zone_instance(state, "hand", 0)]
    plain = subsets(state, cards, 1, 2)
    assert subsets(state, cards, 1, 2, 7) == [(7, s) for s in plain]
    assert [a[1] for a in state.legal_actions()] == plain


def test_can_asks_about_a_set_choice(tmp_path):
    # can(d) searches the sets until the first one: a hand of one card has no set of two
    text = SETS.replace("    choose {which}", "    choose k\n    if can(d):\n      choose d")
    game = load_text(tmp_path, text.replace("{rows}", ROWS).replace("{lo}", "2").replace("{hi}", "2"))
    for hand, then in ((["A", "B"], ["discard A, B"]), (["B"], None)):
        state = game.new_state(1)
        state.put(hand, "hand", 0)
        state.apply_text("keep nothing")
        assert (state.legal_action_texts() if then else state.is_terminal) == (then or True)


def test_set_choice_moves_the_chosen_cards(tmp_path):
    state = sets_game(tmp_path).new_state(1)
    state.put(["A", "B", "A", "C"], "hand", 0)
    state.apply_text("discard B, C")
    assert sorted(state.zone_cards("pile")) == ["B", "C"]
    assert state.zone_cards("hand", 0) == ["A", "A"]
    assert state.is_terminal


def test_set_choice_larger_than_the_hand_offers_nothing(tmp_path):
    state = sets_game(tmp_path, lo=3, hi=3).new_state(1)
    state.put(["A", "B"], "hand", 0)
    assert state.legal_actions() == ()


def test_set_choice_over_the_bound_is_a_rule_error_not_a_hang(tmp_path):
    rows = "\n".join(f'  "N{i}" {i}' for i in range(20))
    state = sets_game(tmp_path, which="k", rows=rows).new_state(1)
    state.put([f"N{i}" for i in range(20)], "hand", 0)  # 2**20 sets
    t0 = time.perf_counter()
    with pytest.raises(RuleError) as info:
        state.legal_actions()
    assert time.perf_counter() - t0 < 5
    assert "100000" in info.value.message.replace(",", "").replace("_", "")


def test_set_choice_just_under_the_bound_is_fine(tmp_path):
    rows = "\n".join(f'  "N{i}" {i}' for i in range(16))
    state = sets_game(tmp_path, which="k", rows=rows).new_state(1)
    state.put([f"N{i}" for i in range(16)], "hand", 0)  # 2**16 = 65536 sets
    assert len(state.legal_actions()) == 2 ** 16


@settings(max_examples=150, deadline=None)
@given(shape=strat.lists(strat.integers(0, 3), min_size=0, max_size=7), lo=strat.integers(0, 3),
       hi=strat.integers(0, 7))
def test_a_set_s_cards_are_read_off_the_hand_at_its_positions(shape, lo, hi):
    # past the few sets written as one list display, each set is read off the hand by a getter
    # made once per shape (copies._getter): the cards at the set's positions, in order, as a
    # tuple (one card, or none, too)
    from interpreter.compiler.copies import _getter, _subset_positions

    labels = {}
    shape = tuple(labels.setdefault(x, len(labels)) for x in shape)  # (groups numbered by first card)
    hand = [100 + 7 * i for i in range(len(shape))]
    for pos in _subset_positions(shape, lo, min(hi, len(shape))):
        assert _getter(pos)(hand) == tuple(hand[i] for i in pos)


@settings(max_examples=150, deadline=None)
@given(shape=strat.lists(strat.integers(0, 3), min_size=0, max_size=8), copies=strat.booleans(),
       lo=strat.integers(0, 3), hi=strat.integers(0, 8), tagged=strat.booleans())
def test_a_shape_s_sets_are_made_by_one_function_that_reads_only_the_hand(shape, copies, lo, hi, tagged):
    # the sets of a hand of a given shape are made by one function, kept for that shape: a list
    # display written of numbers alone for a few sets (it reads no name but its arguments), or
    # getters or combinations for more; whichever it is, the sets are the positions' cards, in
    # the order _subset_positions gives, as (uid, set) when tagged
    from interpreter.compiler.copies import MAX_WRITTEN, _maker, _subset_positions

    labels = {}
    shape = tuple(labels.setdefault(x, len(labels)) for x in shape) if copies else tuple(range(len(shape)))
    hand = [100 + 7 * i for i in range(len(shape))]
    hi = min(hi, len(shape))
    make, _ = _maker(len(shape), None if len(set(shape)) == len(shape) else shape, lo, hi, tagged)
    sets = [tuple(hand[i] for i in pos) for pos in _subset_positions(shape, lo, hi)]
    assert make(hand, 7) == ([(7, x) for x in sets] if tagged else sets)
    if len(sets) <= MAX_WRITTEN:
        assert make.__code__.co_filename == "<rulelang:_sets>" and make.__code__.co_names == ()


def test_a_shape_s_maker_is_written_when_the_shape_comes_back_and_only_for_few_cards(tmp_path, monkeypatch):
    # subsets() keeps a maker per shape of hand, sizes of set, and whether the sets come as
    # actions; one written as source (a compile) is made the second time a shape is met, and
    # only for few cards in all: 64 sets of a hundred cards each are made by getters
    from itertools import combinations

    from interpreter.compiler import copies
    monkeypatch.setattr(copies, "_MAKERS", {})
    monkeypatch.setattr(copies, "_MET", set())
    state = sets_game(tmp_path).new_state(1)
    state.put(["A", "B", "C"], "hand", 0)
    hand = state.Z[state.m.zone_instance(state, "hand", 0)]
    for lo, hi, uid in [(1, 1, None), (2, 3, None), (2, 3, 7), (0, 9, 7), (3, 1, None)]:
        want = [x for k in range(max(lo, 0), min(hi, 3) + 1) for x in combinations(hand, k)]
        for _ in range(2):  # (met, then kept)
            assert subsets(state, hand, lo, hi, uid) == ([(uid, x) for x in want] if uid is not None else want)
    assert len(copies._MAKERS) == 5 and copies._MET == set(copies._MAKERS)
    assert all(make.__code__.co_filename == "<rulelang:_sets>" for make in copies._MAKERS.values())
    big, _ = copies._maker(100, (0,) * 100, 37, 100, True)  # (one name: 64 sets, 37 to 100 cards each)
    assert big.__code__.co_filename != "<rulelang:_sets>"
    assert big(list(range(100)), 7) == [(7, tuple(range(k))) for k in range(37, 101)]


def test_a_card_variable_set_at_random_is_the_clones_own(tmp_path):
    # a random value set in a card variable is written by the flow's own setter (a chance
    # step, not generated code): the clone that draws it keeps it, its original does not
    text = SETS.replace("{rows}", ROWS).replace("{which}", "m").replace("{lo}", "1").replace("{hi}", "2")
    text = text.replace(
        'action k(cs in subsets of hand(me)) "keep {cs}":',
        'card var weight: int = 0\naction m(c in hand(me)) "weigh {c}":\n  set c.weight = random [5 for q in players]\n'
        'action k(cs in subsets of hand(me)) "keep {cs}":')
    state = load_text(tmp_path, text).new_state(1)
    state.put(["B"], "hand", 0)
    card = state.m.card_ids("B")[0]
    twin = state.clone()
    twin.apply(twin.legal_actions()[0])
    assert twin.card_var("weight", card) == 5
    assert state.card_var("weight", card) == 0
    state.apply(state.legal_actions()[0])
    assert state.card_var("weight", card) == 5
