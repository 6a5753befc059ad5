"""``can(a, b...)`` runs each action's search written again as a test
(``compiler.search_first``): it returns at the first legal choice instead
of raising out of the list the search adds to.  Both ways must answer the
same, charge the search budget the same, and fail with the same error at
the same point; the old way is still there (an action's ``first`` is None)
for a can() compiled after the game, so each test compares the two."""

import random

import pytest

from interpreter import load
from interpreter.compiler import helpers
from interpreter.runtime import RuleError

ASKS = '''game "asks"
players 2
card attributes: n: int
cards:
{cards}
zone pile: pile, public
zone hand: pile, per player, public
var v: int = 0
action one(c in hand(me)) "one {c}":
  require c.n > 2
action pair(c in hand(me), d in pile) "pair {c} {d}":
  require c.n > 1
action sum_five(c in hand(me), d in pile) "sum five {c} {d}":
  require c.n + d.n == 5
action upto(x in 1..3) "up to {x}":
  require x < size(pile)
action bare "bare":
  require size(pile) > 3
action sets(cs in subsets of hand(me) sized 2..2) "sets {cs}":
  pass
action split(cs in subsets of hand(me) sized 2..2) "split {cs}":
  require sum(c.n for c in cs) == 3
action risky(c in hand(me)) "risky {c}":
  require 12 / (c.n - 2) > 3
action ask(x in 1..2) "ask {x}":
  require can(one, pair, sum_five, upto, bare, sets, split)
action take(c in pile) "take {c}":
  move c to hand(me)
action drop(c in hand(me)) "drop {c}":
  move c to pile
setup:
  deal {hand} from pile to hand(0)
  deal {hand} from pile to hand(1)
play:
  repeat 15 times:
    for p in players:
      turn p:
        if can(one, pair, sum_five, upto, bare, sets, split, ask):
          choose take, drop, one, pair, sum_five, upto, bare, sets, split, ask
        else:
          choose take
outcome(p):
  score v
'''
ASKED = ("one", "pair", "sum_five", "upto", "bare", "sets", "split", "ask", "risky")


def game(tmp_path, cards, hand, value=lambda i: i % 5):
    text = ASKS.replace("{cards}", "\n".join(f'  "C{i}" {value(i)}' for i in range(cards))).replace(
        "{hand}", str(hand))
    path = tmp_path / "asks.rules"
    path.write_text(text, encoding="utf-8")
    return load(path)


def defs_of(g) -> dict:
    """The game's actions by name: the searches a can() calls."""
    return g.machine_for(None).action_defs


def asked(state, defs, names, by_test: bool):
    """can(names) asked of the flow at ``state`` (a clone of it): its answer
    or its error (message, place and all), and the search budget it leaves;
    ``by_test`` False: it raises out of the searches, as before."""
    state = state.clone()
    kept = {n: defs[n].first for n in names}
    if not by_test:
        for n in names:
            defs[n].first = None
    try:
        answer = helpers.can_now(state, defs, names)
    except RuleError as err:
        answer = f"{err}"
    finally:
        for n in names:
            defs[n].first = kept[n]
    return answer, state.m.search_left


def play(g, seed: int, questions, steps: int = 80) -> list:
    """Each question (names) asked both ways at each position of a random
    game, which must agree, and the answers: the trace."""
    defs = defs_of(g)
    rnd = random.Random(seed)
    state = g.new_state(seed)
    trace = []
    for _ in range(steps):
        for names in questions:
            answer = asked(state, defs, names, True)
            assert answer == asked(state, defs, names, False), (names, answer)
            trace.append(answer[0])
        legal = state.legal_actions()
        if not legal:
            break
        try:
            state.apply_at(rnd.randrange(len(legal)))
        except RuleError as err:  # (the flow's own can() failed: as asked above, at the next turn)
            trace.append(f"{err}")
            break
    return trace


def test_every_action_a_can_asks_about_has_its_search_written_as_a_test(tmp_path):
    defs = defs_of(game(tmp_path, 14, 4))
    assert {n for n, d in defs.items() if d.first is not None} == set(ASKED) - {"risky"}  # asked by no can()
    assert defs["take"].first is None and defs["drop"].first is None  # asked by no can()


@pytest.mark.parametrize("cards, hand, seen", [(14, 4, {True, False}), (9, 2, {True, False}), (20, 6, {True})])
def test_can_by_the_test_answers_and_charges_as_the_raise_did(tmp_path, cards, hand, seen):
    g = game(tmp_path, cards, hand)
    questions = [(n,) for n in ASKED if n != "risky"] + [ASKED[:-1], ASKED[-2::-1]]
    answers = set()
    for seed in range(8):
        answers.update(play(g, seed, questions))
    assert answers == seen


RISKY = ("        if can(one, pair, sum_five, upto, bare, sets, split, ask):\n"
         "          choose take, drop, one, pair, sum_five, upto, bare, sets, split, ask\n")


@pytest.mark.parametrize("first_two, fails", [((3, 2), False), ((2, 3), True), ((0, 2), True)])
def test_an_error_in_a_search_can_asks_about_is_the_same_and_only_where_the_search_gets_to_it(
        tmp_path, first_two, fails):
    """``risky`` divides by zero for a card of 2, and player 0's first turn
    asks can(risky) of a hand dealt C14, C13, C12 in that order: a card of
    3 first is legal, and the search stops there, before the 2."""
    values = {14: first_two[0], 13: first_two[1], 12: 4}
    text = ASKS.replace("{cards}", "\n".join(f'  "C{i}" {values.get(i, i % 2)}' for i in range(15)))
    text = text.replace("{hand}", "3")
    assert RISKY in text
    text = text.replace(RISKY, "        if can(risky, one):\n          choose take, drop\n")
    path = tmp_path / "risky.rules"
    path.write_text(text, encoding="utf-8")
    g = load(path)
    assert defs_of(g)["risky"].first is not None
    error = f"{path}:52:12: rule error: division by zero"
    if fails:
        with pytest.raises(RuleError) as err:
            g.new_state(0)
        assert str(err.value) == error
        return
    state = g.new_state(0)
    assert len(state.legal_actions()) == 9 + 3  # take one of the pile, or drop one of the hand
    assert asked(state, defs_of(g), ("risky",), True)[0] is True  # (the 2 after the 3)
    answers = set()
    for seed in range(10):  # later turns: both ways agree, where the search meets a 2 first too
        answers.update(play(g, seed, [("risky",), ("one", "risky"), ("risky", "one")]))
    assert True in answers and False in answers
    assert any(isinstance(a, str) and a.endswith("division by zero") for a in answers)


def test_a_can_evaluated_after_the_game_finds_an_action_offered_nowhere(tmp_path):
    """``Game.evaluate`` compiles its expression after the game: its can()
    finds every action of the rules, not only those some choice offers
    (``risky`` is offered nowhere here; it used to fail as a value of the
    wrong kind), and raises out of a search no can() of the rules asked about."""
    text = ASKS.replace("{cards}", "\n".join(f'  "C{i}" {(3, 2, 0)[i % 3]}' for i in range(15)))
    text = text.replace("{hand}", "3").replace(RISKY, "        if can(one):\n          choose take, drop\n")
    path = tmp_path / "later.rules"
    path.write_text(text, encoding="utf-8")
    g = load(path)
    state = g.new_state(0)
    assert g.machine_for(None).action_defs["risky"].first is None  # asked by no can() of the rules
    assert state.zone_cards("hand", 0) == ["C14", "C13", "C12"]  # 0, 2, 3: risky fails at the 2
    with pytest.raises(RuleError, match="division by zero"):
        g.evaluate(state, "can(risky)")
    assert g.evaluate(state, "can(take, risky)") is True  # take has a choice: risky is not searched
    assert g.evaluate(state, "can(drop)") is True
