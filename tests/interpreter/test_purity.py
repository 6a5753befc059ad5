"""Pure user functions: which ones the compiler keeps the values of, and
that a kept value never outlives what it was computed from."""

from __future__ import annotations

import re

import pytest

import rulelang
from interpreter import load
from interpreter.compiler.purity import Purity

GAME = """\
game "Birds"
players 1

card attributes: rank: int
cards:
  "One"    1
  "Two"    2
  "Three"  3

zone pile: pile, public
zone birds: stacks, public
zone far: pile, public
var bonus: int = 0
card var value: int = card.rank

function total(b: stack) = sum(x.value for x in b)
function small(b: stack) = total(b) < 5
function top_rank(b: stack) = top(b).rank
function with_bonus(b: stack) = total(b) + bonus
function crowded(b: stack) = size(pile) > 1
function own_seat(b: stack) = size(b) > 0 and me == 0
function named(b: stack) = count(x == "One" for x in b) + sum(x.value for x in b)
function same(b: stack, c: stack) = b == c
function gone(p: player) = size(far)

action hatch "hatch":
  move top(pile) to new stack in birds
action grow(b in birds) "grow {b}":
  require not empty(pile)
  move top(pile) to b
action boost(b in birds) "boost {b}":
  set top(b).value = 9
action check(b in birds) "check {b}":
  require small(b)
  move top(b) to far
action stop "stop":
  end game

play:
  move all_cards() to pile
  turn 0:
    choose hatch
  repeat 5 times:
    turn 0:
      choose grow, boost, check, stop

outcome(p):
  score gone(p) + gone(p)
"""


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = tmp_path_factory.mktemp("purity") / "birds.rules"
    p.write_text(GAME)
    return p


def test_what_is_pure(path):
    g = rulelang.load_checked(str(path))
    purity = Purity(g)
    verdict = {name: purity.pure(name) for name in g.functions}
    assert verdict == {
        "total": True, "small": True, "top_rank": True,
        "with_bonus": False,  # a variable
        "crowded": False,     # a zone
        "own_seat": False,    # the player to move
        "named": False,       # names a card and reads card variables: its cards are not all its own
        "same": False,        # a stack used as a value, not looked through
        "gone": False,        # a zone
    }
    assert purity.card_vars["small"] == {"value"}
    assert purity.card_vars["top_rank"] == set()


def test_the_emu_ranchers_birds_are_kept_by_their_cards():
    g = load("games/emu_ranchers.rules")
    sources = "\n".join(g.new_state(1, 2).m.generated_sources)
    assert sources.count("_memo") >= 3 * 3  # common_suits, bird_value, sound: get, set, clear
    assert "tuple(map(st.C.__getitem__" in sources  # the card variable "value" is part of the key


def test_a_function_that_reads_a_few_items_is_computed_not_kept():
    # direction(b) reads two cards of the stack: cheaper to compute than its key (the
    # stack's cards and their values); common_suits(b) goes through the stack: kept
    g = load("games/emu_ranchers.rules")
    defs = "\n".join(g.new_state(1, 2).m.generated_sources).split("\ndef ")
    # (sign written out: see compiler.inline)
    direction = [d for d in defs if re.search(r"\(\(\(st\.C\[\w+_cards\[1\]\] - st\.C\[\w+_cards\[0\]\]\) > 0\)", d)]
    common = [d for d in defs if d.startswith("_fn") and "_inter(map(" in d]
    assert direction and all("_memo" not in d for d in direction if d.startswith("_fn"))
    assert any(d.startswith("_enum") for d in direction)  # written into the grow search, not called
    assert common and all("_memo" in d for d in common)


def texts(state):
    return [state.action_text(a) for a in state.legal_actions()]


def test_a_kept_value_follows_a_card_variable(path):
    state = load(path).new_state(0, 1)
    state.apply_text("hatch")  # a bird of Three (the pile's top)
    assert "check 1" in texts(state), "a total of 3 is small"
    state.apply_text("boost 1")  # its card now counts 9
    assert not [t for t in texts(state) if t.startswith("check")], "the bird's total is no longer small"


def test_a_kept_value_follows_the_cards_of_its_stack(path):
    state = load(path).new_state(0, 1)
    state.apply_text("hatch")
    seen = []
    while True:
        legal = texts(state)
        seen.append(any(t.startswith("check") for t in legal))
        grow = [t for t in legal if t.startswith("grow")]
        if not grow:
            break
        state.apply_text(grow[0])
    # Three, then Two, then One: totals of 3, 5 and 6 as the bird grows
    assert seen[0] is True and seen[-1] is False


def test_the_results_functions_keep_values_for_one_state_only(path):
    """The score calls gone(p) twice; it is computed once per scoring, and
    never carried over to another state or a later position."""
    state = load(path).new_state(0, 1)
    state.apply_text("hatch")
    before = state.clone()
    assert state.scores() == [0]
    state.apply_text("check 1")  # the bird's card goes far
    assert state.scores() == [2]
    assert before.scores() == [0] and state.winners() == [0]
    assert state.m.frozen_memo, "the values of gone(p) were kept while scoring"


HOLDERS = """\
game "Partner"
players 1

card attributes: rank: int
cards:
  "One"    1
  "Two"    2

zone pile: pile, public
zone far: pile, public
card var value: int = card.rank
card var partner: card = card
card var home: pile = far
card var friends: list of card = [card]

function pv(c: card) = c.partner.value
function hs(c: card) = size(c.home)
function fr(c: card) = sum(x.rank for x in c.friends)
function rank_of(z: pile) = size(z)

action pair "pair":
  set top(pile).partner = bottom(pile)
action bump "bump":
  set bottom(pile).value = 50
action shift "shift":
  move bottom(pile) to far
action stop "stop":
  end game

play:
  move all_cards() to pile
  repeat 4 times:
    turn 0:
      choose pair, bump, shift, stop

outcome(p):
  score pv(top(pile)) * 1000 + hs(top(pile)) + 100 * fr(top(pile))
"""


def test_a_card_variable_that_holds_a_card_a_place_or_a_list_is_not_pure(tmp_path):
    path = tmp_path / "partner.rules"
    path.write_text(HOLDERS)
    g = rulelang.load_checked(str(path))
    purity = Purity(g)
    assert {name: purity.pure(name) for name in g.functions} == {
        "pv": False,       # the partner's value: a card not among the arguments
        "hs": False,       # the size of a zone the card names
        "fr": False,       # a list of cards
        "rank_of": False,  # a place: its cards are read from the state
    }
    game = load(path)
    state = game.new_state(1, 1)
    seen = []
    for text in ("pair", "bump", "shift"):
        state.apply_text(text)
        seen.append(state.scores())
    # Two's partner is One (value 1, then 50); One goes far; Two's friends are itself (rank 2)
    assert seen == [[1200], [50200], [50201]]
    again = game.new_state(1, 1)  # the same game, played again: nothing kept from the first
    again.apply_text("pair")
    assert again.scores() == [1200]


def test_a_kept_value_costs_the_work_budget_what_computing_it_did():
    """Whether a pure function's value was kept or computed, the expressions
    spend the same share of the work budget: a rule error for going past it
    does not depend on what the process computed before."""
    import random

    game = load("games/emu_ranchers.rules")
    state = game.new_state(3, 2)
    rnd = random.Random(3)
    spent = []
    while not state.is_terminal and len(spent) < 120:
        for _ in range(2):  # the first time computes the birds' values, the second finds them kept
            fresh = state.clone()
            fresh._legal = None
            fresh.legal_actions()
            spent.append(state.m.work_left)
        assert spent[-1] == spent[-2]
        legal = state.legal_actions()
        state.apply(legal[rnd.randrange(len(legal))])
    assert len(set(spent)) > 1, "the searches read stacks through the kept functions"
    # the grow search reads a bird's kept common suits in place (no call when kept)
    assert re.search(r"h\d+_e = _memo\d+\.get\(tuple\(v0_cards\)\)", "".join(state.m.generated_sources))
