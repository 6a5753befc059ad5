"""A value that names a place (a pile, a grid, a row of stacks, one stack)
reaches the user as the place itself, never as the engine's number for it:
``Game.evaluate`` gives its cards, an example's failure names it as the
rules do (``rows(0)[0]``, ``hand(1)``)."""

from __future__ import annotations

import pytest

from interpreter import load
from interpreter.examples import run_examples

GAME = """\
game "Places"
players 2

cards:
  "A"
  "B"
  "C"
  "D"
  "E"

zone deck: pile, public
zone hand: pile, per player, public
zone rows: stacks, per player, public
zone yard: grid 3 by 3, public
var target: pile = deck  # the place last aimed at
var marked: list of stack = [b for b in rows(0)]

action aim(p in players) "aim at {p}":
  set target = hand(p)
action start(c in deck) "start a row with {c}":
  move c to new stack in rows(me)
action grow(b in rows(me), c in deck) "put {c} on row {b}":
  move c to b
action place(c in deck, x in open_cells(yard)) "place {c} at {x}":
  move c to yard at x
action take(c in deck) "take {c}":
  move c to hand(me)
action mark(b in rows(me)) "mark row {b}":
  set marked = marked + [b]
action drop(b in rows(me)) "drop row {b}":
  move b to deck
action pick(r in [rows(0), rows(1)]) "pick {r}":
  pass

setup:
  move all_cards() to deck

play:
  repeat 6 times:
    turn 0:
      choose aim, start, grow, place, take, mark, drop, pick

outcome(p):
  score 0

example "a stack and a pile, named":
  move "A" to new stack in rows(0)
  move "B" to hand(0)
  move "C" to hand(1)
  expect legal grow(rows(0)[0], "B") by 0
  expect target == hand(1)
  expect [hand(1), deck] == [deck]
"""


def game(tmp_path):
    path = tmp_path / "places.rules"
    path.write_text(GAME)
    return load(path)


def test_evaluate_gives_the_cards_of_a_place(tmp_path):
    g = game(tmp_path)
    st = g.new_state(0, 2)
    for text in ("start a row with A", "put B on row 1", "start a row with C", "place D at (0, 0)", "take E",
                 "aim at player 1"):
        st.apply_text(text)
    assert g.evaluate(st, "hand(0)") == ["E"]
    assert g.evaluate(st, "target") == ["E"]  # a pile variable: the cards of the place it holds
    assert g.evaluate(st, "deck") == []
    assert g.evaluate(st, "rows(0)") == [["A", "B"], ["C"]]
    assert g.evaluate(st, "rows(0)[0]") == ["A", "B"]
    assert g.evaluate(st, "yard") == ["D"]
    assert g.evaluate(st, "[hand(0), hand(1)]") == [["E"], []]
    assert g.evaluate(st, "top(rows(0)[0])") == "B"  # a card is still its name


def test_an_examples_failure_names_places_as_the_rules_do(tmp_path):
    """Before, a stack and a pile showed as the engine's numbers for them:
    'grow(12288, "B") is not legal for player 1'."""
    (result,) = run_examples(game(tmp_path))
    messages = [message for _, message in result.failures]
    assert messages == [
        'grow(rows(0)[0], "B") is not legal for player 1',  # B is in hand, not in the deck
        "target == hand(1) is false: target is deck",
        "[hand(1), deck] == [deck] is false",  # (not "[hand(1), deck] is [hand(1), deck]")
    ]


def test_evaluate_gives_a_cell_as_x_and_y(tmp_path):
    g = game(tmp_path)
    st = g.new_state(0, 2)
    assert g.evaluate(st, "open_cells(yard)") == [(0, 0)]
    st.apply_text("place D at (0, 0)")
    assert g.evaluate(st, 'cell_of("D")') == (0, 0)
    assert g.evaluate(st, "open_cells(yard)") == [(-1, 0), (0, -1), (0, 1), (1, 0)]


def test_evaluate_says_in_the_rules_words_what_cannot_be_evaluated(tmp_path):
    from interpreter.runtime import RuleError

    g = game(tmp_path)
    st = g.new_state(0, 2)
    for text in ("start a row with A", "start a row with B", "mark row 2", "drop row 2"):
        st.apply_text(text)
    # the stack marked has left its row: no Python IndexError, the rules' words
    with pytest.raises(RuleError, match="no stack 2 in player 1's rows"):
        g.evaluate(st, "marked")
    with pytest.raises(RuleError, match="no such card or stack"):
        g.evaluate(st, "top(hand(1))")


def test_an_action_on_a_row_of_stacks_names_the_row(tmp_path):
    st = game(tmp_path).new_state(0, 2)
    assert [t for t in st.legal_action_texts() if t.startswith("pick")] == \
        ["pick player 1's rows", "pick player 2's rows"]
