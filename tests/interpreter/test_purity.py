"""Pure user functions: which ones the compiler keeps the values of, and
that a kept value never outlives what it was computed from."""

from __future__ import annotations

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
    assert sources.count("_memo") >= 4 * 3  # common_suits, direction, bird_value, sound: get, set, clear
    assert "tuple(map(st.C.__getitem__" in sources  # the card variable "value" is part of the key


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
