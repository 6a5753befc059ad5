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
from interpreter.runtime import MAX_SEARCH, MAX_WORK, RuleError

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


def asked(state, defs, names, by_test: bool, budget=None):
    """can(names) asked at ``state`` (a clone of it): its answer or its
    error (message, place and all), and the search and work budgets it
    leaves; ``by_test`` False: every search raises out, as before (those a
    can() within a search asks about too).  ``budget``: asked as within a
    search, with that many values left to try (and work), else as the
    flow asks, with a fresh budget."""
    state = state.clone()
    kept = {n: d.first for n, d in defs.items()}
    if not by_test:
        for d in defs.values():
            d.first = None
    try:
        if budget is None:
            state.m.work_left = MAX_WORK  # (as a step starts)
            answer = helpers.can_now(state, defs, names)
        else:
            state.m.search_left, state.m.work_left = budget
            answer = helpers.can(state, defs, names)
    except RuleError as err:
        answer = f"{err}"
    finally:
        for n, d in defs.items():
            d.first = kept[n]
    return answer, state.m.search_left, state.m.work_left


def play(g, seed: int, questions, steps: int = 80, budgets=(None,)) -> list:
    """Each question (names) asked both ways at each position of a random
    game (with each of ``budgets``: see :func:`asked`), which must agree,
    and the answers: the trace."""
    defs = defs_of(g)
    rnd = random.Random(seed)
    state = g.new_state(seed)
    trace = []
    for _ in range(steps):
        for names in questions:
            for budget in budgets:
                answer = asked(state, defs, names, True, budget)
                assert answer == asked(state, defs, names, False, budget), (names, budget, answer)
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


def test_can_within_a_search_runs_out_of_its_budgets_where_the_raise_did(tmp_path):
    """Asked within a search (sharing its budgets), with few values left to
    try or little work: both ways fail at the same point with the same
    error, or answer alike, and leave the same budgets."""
    g = game(tmp_path, 14, 4)
    questions = [(n,) for n in ASKED if n != "risky"] + [ASKED[:-1]]
    budgets = [(1, MAX_WORK), (3, MAX_WORK), (8, MAX_WORK), (MAX_SEARCH, 2), (MAX_SEARCH, 9), (5, 5)]
    answers = set()
    for seed in range(4):
        answers.update(play(g, seed, questions, steps=20, budgets=budgets))
    errors = {a for a in answers if isinstance(a, str)}
    assert True in answers and False in answers
    assert any("parameter values" in e for e in errors) and any("evaluated since" in e for e in errors), errors


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


@pytest.mark.parametrize("when", ["before every turn", "after every action"])
def test_a_can_in_a_trigger_stops_at_the_first_legal_choice_as_in_the_flow(tmp_path, when):
    """A can() in a trigger asks the search written as a test too: it stops
    at the first legal choice (the pile's first card of 3), before a card
    whose test divides by zero (a 2: the listing's search, which works the
    pile's values out at once, fails there)."""
    text = ASKS.replace("{cards}", "\n".join(f'  "C{i}" {(3, 2, 0, 1)[i % 4] if i < 2 else 0}' for i in range(10)))
    text = text.replace("{hand}", "3").replace(RISKY, "        if v >= 0:\n          choose take, drop\n")
    text = text.replace('action risky(c in hand(me)) "risky {c}":\n  require 12 / (c.n - 2) > 3\n',
                        'function fdiv(c: card) = 12 / (c.n - 2)\n'
                        'action risky(c in hand(me), d in pile) "risky {c} {d}":\n  require fdiv(d) > c.n\n')
    text = text.replace("setup:\n", f"{when}:\n  if can(risky):\n    set v = v + 1\nsetup:\n")
    path = tmp_path / "trigger.rules"
    path.write_text(text, encoding="utf-8")
    g = load(path)
    assert defs_of(g)["risky"].first is not None
    state = g.new_state(0)
    assert state.zone_cards("pile")[:2] == ["C0", "C1"]  # 3, then 2
    state.apply_text("drop C9")  # (the pile keeps C0 first: drop puts C9 on its top, its end)
    assert state.get_var("v") == (2 if when == "before every turn" else 1)


def test_a_search_that_uses_its_list_otherwise_is_not_written_as_a_test():
    """The test is written only from lines that add to the list, leave the
    search or read nothing of it; any other use of it (here, its length)
    leaves can() to raise out of the search, as before."""
    from interpreter.compiler.search_first import first_source
    lines = ("def _enum1(st, out, uid):", "    for v0 in st.Z[1]:", "        if not v0:", "            return",
             "        out.append((uid, v0))", "    out += [(uid, 0)]")
    src = first_source(lines, "_first2")
    assert src == ("def _first2(st, out, uid):\n    for v0 in st.Z[1]:\n        if not v0:\n"
                   "            return False\n        return True\n    if [(uid, 0)]:\n        return True\n"
                   "    return False\n")
    assert first_source(lines + ("    if len(out) > 3:", "        return"), "_first3") is None
