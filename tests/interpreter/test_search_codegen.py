"""How an action's search is written (``searches.enumerator``).

An action of two parameters tested at most on their own (no require
joins them), its inner domain read from no other parameter,
offers every combination: its search lists them with one comprehension
instead of nested loops.  It must list the same actions in the same order,
charge the search budget what the loops would, and stop where they stop
when ``can()`` asks whether there is any.  A condition is tested by its truth alone where that is
the same (a bit of a mask, a number against zero).  The cards of the innermost loop's stack are
looked up only once a test has let the round through to the first test that reads them."""

import itertools
import re
from pathlib import Path

import pytest

from interpreter import load
from interpreter.runtime import MAX_SEARCH, RuleError

PAIRS = '''game "pairs"
players 2
card attributes: n: int
cards:
{cards}
zone pile: pile, public
zone hand: pile, per player, public
var v: int = 0
action pair(c in hand(me), d in pile) "pair {c} {d}":
  require c.n > 1
  set v = c.n
action probe(x in 1..2) "probe {x}":
  require can(pair)
  set v = x
action pass_turn "pass":
  pass
setup:
  deal {hand} from pile to hand(0)
play:
  turn 0:
    choose probe, pair, pass_turn
outcome(p):
  score v
'''


def game(tmp_path, cards, hand, value=lambda i: i % 4):
    text = PAIRS.replace("{cards}", "\n".join(f'  "C{i}" {value(i)}' for i in range(cards))).replace(
        "{hand}", str(hand))
    path = tmp_path / "pairs.rules"
    path.write_text(text, encoding="utf-8")
    return load(path)


def test_every_pair_is_listed_in_the_loops_order_and_charged_as_they_would(tmp_path):
    state = game(tmp_path, 12, 5).new_state(0)
    hand, pile = state.zone_cards("hand", 0), state.zone_cards("pile")
    kept = [c for c in hand if int(c[1:]) % 4 > 1]
    k, p = len(kept), len(pile)
    legal = state.legal_actions()
    assert "for v0 in v0_d[1:] for v1 in d1]" in "".join(state.m.generated_sources)
    texts = [state.action_text(a) for a in legal]
    assert texts == ["probe 1", "probe 2"] + [f"pair {c} {d}" for c, d in itertools.product(kept, pile)] + ["pass"]
    # charged: probe's two values and its can(pair) (asked once: it reads no value of probe),
    # which went as far as the loops go to their first action (the kept cards, then one
    # round); then pair's own search: each kept card, then each (card, d), as loops charge
    assert state.m.search_left == MAX_SEARCH - (2 + (k + p) + (k + k * p))


def test_a_range_of_numbers_first_lists_every_pair_too(tmp_path):
    # the range's values are the outer loop's (its high end read too), the hand's cards the inner
    text = PAIRS.replace("action pair(c in hand(me), d in pile) \"pair {c} {d}\":\n  require c.n > 1",
                         "action pair(n in 2..4, d in hand(me)) \"pair {n} {d}\":")
    text = text.replace("{cards}", "\n".join(f'  "C{i}" {i % 4}' for i in range(6))).replace("{hand}", "2")
    path = tmp_path / "range.rules"
    path.write_text(text.replace("set v = c.n", "set v = n"), encoding="utf-8")
    state = load(path).new_state(0)
    hand = state.zone_cards("hand", 0)
    texts = [state.action_text(a) for a in state.legal_actions()]
    assert texts == ["probe 1", "probe 2"] + [f"pair {n} {d}" for n in (2, 3, 4) for d in hand] + ["pass"]


def test_a_condition_is_tested_by_its_truth_alone_where_that_is_the_same():
    from interpreter.compiler.searches import truth

    assert truth("((_t3[v0] >> v1) & 1 == 1)") == "((_t3[v0] >> v1) & 1)"
    assert truth("((_t13[v1] & h15) != 0)") == "((_t13[v1] & h15))"
    # not one comparison of the whole condition: left as it is
    for src in ["(a != 0) and (b != 0)", "(len(x) != 0) or (y != 0)", "f(x) != 0", "((x) == 1)",
                "(x & 1 == 1) and (y & 1 == 1)"]:
        assert truth(src) == src
    for src, env in [("((a >> b) & 1 == 1)", {"a": 5, "b": 1}), ("((a >> b) & 1 == 1)", {"a": 5, "b": 2}),
                     ("((a - b) != 0)", {"a": 3, "b": 3}), ("((a - b) != 0)", {"a": 3, "b": -3})]:
        assert bool(eval(truth(src), {}, env)) == eval(src, {}, env)


ROWS = '''game "rows"
players 2
card attributes: n: int, tag: int
cards:
{cards}
zone pile: pile, public
zone hand: pile, per player, public
zone rows: stacks, per player, public
function tags(s: stack) = sum([x.tag for x in s])
action put(c in hand(me), s in rows(me)) "put {c} on {s}":
  require tags(s) > c.tag
  require top(s).n < c.n
  move c to s
action pass_turn "pass":
  pass
setup:
  pass
play:
  turn 0:
    choose put, pass_turn
outcome(p):
  score 0
'''


ROW_CARDS = {f"C{i}": (i, (i * 5) % 3) for i in range(9)}  # (n, tag) per card


def rows_state(tmp_path, rows):
    """A position of ROWS: three cards in hand, ``rows`` the player's stacks."""
    path = tmp_path / "rows.rules"
    path.write_text(ROWS.replace("{cards}", "\n".join(f'  "{c}" {n} {t}' for c, (n, t) in ROW_CARDS.items())),
                    encoding="utf-8")
    state = load(path).new_state(0)
    state.put(["C8", "C7", "C1"] if rows != [["C4", "C7"], ["C6"]] else ["C8", "C1", "C3"], "hand", 0)
    for row in rows:
        state.put(row, "rows", 0)
    return state


def row_puts(state):
    """The puts the rule allows, worked out here."""
    cards, hand, stacks = ROW_CARDS, state.zone_cards("hand", 0), state.zone_cards("rows", 0)
    return [f"put {c} on {i + 1}" for c in hand for i, s in enumerate(stacks)
            if sum(cards[x][1] for x in s) > cards[c][1] and cards[s[-1]][0] < cards[c][0]]


@pytest.mark.parametrize("rows", [[["C0"], ["C5", "C1"], ["C2", "C3", "C6"]], [["C4", "C7"], ["C6"]], []])
def test_a_stack_s_top_card_is_read_once_per_stack_not_once_per_card(tmp_path, rows):
    # the tags test reads the stack through a function, the top test its cards: the top
    # card's n, which cannot fail (a stack is never empty), is worked out once per stack,
    # beside the stack's tags (a memo filled at the first card), in the rows the inner loop
    # goes through: not once per card of the hand and stack, nor looked up by stack
    state = rows_state(tmp_path, rows)
    texts = [state.action_text(a) for a in state.legal_actions()]
    assert texts == row_puts(state) + ["pass"]
    assert any(t.startswith("put") for t in texts) == bool(rows)
    source = "".join(state.m.generated_sources)
    search = source[source.rindex("def _site"):]
    memo = re.search(r"(m\d+) = \[\]", search)[1]
    built = search.index(f"{memo}.append((v1, {memo}_x, ")
    assert search.index("for v0 in ") < search.index("for v1 in d1:") < built < search.index("v1_cards[-1]")
    assert search.count("v1_cards[-1]") == 1 and search.count(".append((v1, ") == 1
    loop = search.index(f"for v1, {memo}_v, ")
    assert loop > built and "v1_cards" not in search[loop:] and f"{memo}[" not in search


def test_a_memo_the_inner_test_starts_with_is_filled_for_every_value_at_once(tmp_path):
    # tags(s), kept per stack, leads the inner test: filled for every stack at the first round
    # (the function's table read in place), each beside its stack in the rows the inner loop
    # goes through; the same actions in the same order
    state = rows_state(tmp_path, [["C0"], ["C5", "C1"], ["C4"]])
    source = "".join(state.m.generated_sources)
    assert re.search(r"if m\d+ is None:\n\s+m\d+ = \[\]\n\s+for v1 in d1:", source)
    assert re.search(r"m\d+_x_e = _memo\d+\.get\(tuple\(v1_cards\)\)", source)
    for _ in range(2):  # the second time, the function's values are kept
        state._legal = None
        assert [state.action_text(a) for a in state.legal_actions()] == row_puts(state) + ["pass"]
    assert row_puts(state)


STACK_TEST = '''game "stack tests"
players 2
card attributes: n: int
cards:
{cards}
zone deck: pile, public
zone hand: pile, per player, public
zone rows: stacks, per player, public
FUNCTION
action put(b in rows(me), c in hand(me)) "put {c} on {b}":
  require TEST
  move c to b
action pass_turn "pass":
  pass
play:
  turn 0:
    choose put, pass_turn
outcome(p):
  score 0
'''
EMPTY_STACK = STACK_TEST.replace("FUNCTION", "").replace("TEST", "empty(b) or top(b).n < c.n")


# the parameters the other way round: the card outside, the stack inside
CARD_FIRST = STACK_TEST.replace("FUNCTION", "").replace("put(b in rows(me), c in hand(me))",
                                                        "put(c in hand(me), b in rows(me))")


@pytest.mark.parametrize("test", ["top(b).n < c.n or size(b) > 2", "c.n > top(b).n + size(b)"])
def test_what_an_inner_stack_s_tests_read_of_it_alone_is_worked_out_once_per_stack(tmp_path, test):
    # top(b).n and size(b) cannot fail and read the stack alone: worked out for every stack
    # before the loops, in the rows the loop over the stacks goes through for each card
    path = tmp_path / "card_first.rules"
    path.write_text(CARD_FIRST.replace("TEST", test).replace("{cards}", "\n".join(f'  "C{i}" {i}' for i in range(9))),
                    encoding="utf-8")
    state = load(path).new_state(0)
    state.put(["C7", "C2", "C5"], "hand", 0)
    state.put(["C3"], "rows", 0)
    state.put(["C6", "C1", "C0"], "rows", 0)
    state.put(["C4", "C8"], "rows", 0)
    hand, stacks = state.zone_cards("hand", 0), state.zone_cards("rows", 0)
    n = {c: int(c[1:]) for c in hand + [x for s in stacks for x in s]}
    holds = {"top(b).n < c.n or size(b) > 2": lambda c, s: n[s[-1]] < n[c] or len(s) > 2,
             "c.n > top(b).n + size(b)": lambda c, s: n[c] > n[s[-1]] + len(s)}[test]
    assert [state.action_text(a) for a in state.legal_actions()] == \
        [f"put {c} on {i + 1}" for c in hand for i, s in enumerate(stacks) if holds(c, s)] + ["pass"]
    source = "".join(state.m.generated_sources)
    search = source[source.rindex("def _site"):]
    rows = re.search(r"(r\d+) = \[\]\n\s+for v1 in d1:\n\s+v1_cards = .*\n\s+\1\.append\(\(v1, ", search)
    assert rows and rows.start() < search.index("for v0 in ")
    loop = search.index(f"in {rows[1]}:")
    assert "v1_cards" not in search[loop:] and "len(" not in search[loop:]


INNER_STACK = '''game "inner stack"
players 2
card attributes: n: int, tag: int
cards:
  "C0" 0 0
  "C1" 1 1
  "C3" 3 0
  "C4" 4 1
  "C5" 5 2
zone pile: pile, public
zone hand: pile, per player, public
zone rows: stacks, per player, public
function tall(s: stack) = size(s) > 1 and top(s).n > 2
action lay(c in hand(me), s in rows(me)) "lay {c} on {s}":
  require top(s).n < c.n
  move c to s
action put(c in hand(me), s in rows(me)) "put {c} on {s}":
  require TEST
  move c to s
action ask "ask":
  require can(put)
action pass_turn "pass":
  pass
play:
  turn 0:
    choose lay, put, ask, pass_turn
outcome(p):
  score 0
'''


@pytest.mark.parametrize("test, on", [
    ("sum(y.n for y in s) > 2", [1]),  # the inner stack alone: a prefilter reading a memo of its cards
    ("tall(s)", [1]),  # ... through a helper written in
    ("c.tag <= sum(y.n for y in s)", [1]),  # a memo that reads the stack's cards, the loop not
    ("c.tag > sum(y.n for y in s)", [2]),
])
def test_a_memo_of_an_inner_stack_reads_its_own_cards_wherever_it_is_tested(tmp_path, test, on):
    # the memo of a stack is written with the stack's cards: each loop that tests it looks
    # them up itself (not those another action's search left behind in the same listing)
    path = tmp_path / "inner_stack.rules"
    path.write_text(INNER_STACK.replace("TEST", test), encoding="utf-8")
    state = load(path).new_state(0)
    state.put(["C5"], "hand", 0)
    state.put(["C0", "C3"], "rows", 0)
    state.put(["C1"], "rows", 0)
    assert state.legal_action_texts() == ["lay C5 on 1", "lay C5 on 2"] + [f"put C5 on {i}" for i in on] + \
        ["ask", "pass"]


def test_what_cannot_fail_is_worked_out_per_outer_value_a_stack_s_top_too(tmp_path):
    # empty(b) and top(b) cannot fail (a stack is never empty): both are worked out once per
    # stack, read as locals in the inner loop
    path = tmp_path / "empty.rules"
    path.write_text(EMPTY_STACK.replace("{cards}", "\n".join(f'  "C{i}" {i}' for i in range(8))), encoding="utf-8")
    state = load(path).new_state(0)
    state.put(["C7", "C2", "C5"], "hand", 0)
    state.put(["C3"], "rows", 0)
    state.put(["C6", "C1"], "rows", 0)
    texts = [state.action_text(a) for a in state.legal_actions()]
    hand, stacks = state.zone_cards("hand", 0), state.zone_cards("rows", 0)
    assert texts == [f"put {c} on {i + 1}" for i, s in enumerate(stacks) for c in hand
                     if int(s[-1][1:]) < int(c[1:])] + ["pass"]
    source = "".join(state.m.generated_sources)
    outer = source[source.index("for v0 in v0_d:"):source.index("for v1 in d1:")]
    inner = source[source.index("for v1 in d1:"):]
    assert re.search(r"y\d+ = .*\[-1\]", outer) and "[-1]" not in inner[:inner.index("out.append")]


def test_no_cards_make_no_stack(tmp_path):
    # moving an empty pile to a new stack makes no stack (a stack whose last card leaves goes
    # away too): a row of stacks never holds an empty one
    path = tmp_path / "nostack.rules"
    path.write_text('''game "no stack"
players 1
cards:
  "A"
  "B"
zone deck: pile, public
zone hand: pile, per player, public
zone rows: stacks, per player, public
var made: int = 0
action stack_hand "stack the hand":
  move hand(me) to new stack in rows(me)
  set made = size(rows(me))
setup:
  move "A" to hand(0)
play:
  turn 0:
    choose stack_hand
  turn 0:
    choose stack_hand
outcome(p):
  score made
''', encoding="utf-8")
    state = load(path).new_state(0)
    state.apply(state.legal_actions()[0])
    assert state.zone_cards("rows", 0) == [["A"]]
    state.apply(state.legal_actions()[0])  # the hand is empty now
    assert state.zone_cards("rows", 0) == [["A"]]
    assert state.is_terminal and state.scores() == [1]
    state.put([], "rows", 0)
    assert state.zone_cards("rows", 0) == [["A"]]


def _rules(tmp_path, name, text):
    path = tmp_path / f"{name}.rules"
    path.write_text(text, encoding="utf-8")
    return load(path)


ONE_CHOICE = '''game "one"
players 2
card attributes: n: int
cards:
  "A" 1
  "B" 2
zone pile: pile, public
var v: int = 0
FUNCTION
action a(x in 1..3) "a {x}":
  require TEST
  set v = x
action pass_turn "pass":
  pass
setup:
  move "A" to pile
  move "B" to pile
play:
  turn 0:
    choose a, pass_turn
outcome(p):
  score v
'''


@pytest.mark.parametrize("function, test, legal", [
    # a kept function of no arguments, first in the test (found by a review: it failed to load)
    ("function target() = sum([x * 2 for x in [1, 2, 3]])", "target() > x + 9", ["a 1", "a 2"]),
    # a product past the bound fails when worked out: not worked out before the test reads it
    ("", "x < 5 or size(pile) * 1000 * 1000000000000 > 0", ["a 1", "a 2", "a 3"]),
])
def test_what_is_worked_out_early_never_fails_where_the_test_would_not(tmp_path, function, test, legal):
    game = _rules(tmp_path, "one", ONE_CHOICE.replace("FUNCTION", function).replace("TEST", test))
    state = game.new_state(0)
    assert [state.action_text(a) for a in state.legal_actions()] == legal + ["pass"]


def test_a_memo_of_an_action_can_asks_about_is_worked_out_value_by_value(tmp_path):
    # can(put) stops at put's first action: the stacks after it are never worked out, so a
    # value that would fail there (tags of a stack of two: a division by zero) is never asked
    # for (a review found the memo filled for every stack at once, and the division failing)
    text = ROWS.replace("function tags(s: stack) = sum([x.tag for x in s])",
                        "function tags(s: stack) = sum([x.tag for x in s]) / (size(s) - 2)")
    text = text.replace("action pass_turn", '''action probe(x in 1..2) "probe {x}":
  require can(put)
action pass_turn''').replace("choose put, pass_turn", "choose probe, pass_turn")
    cards = {f"C{i}": (i, (i * 5) % 3) for i in range(9)}
    state = _rules(tmp_path, "can", text.replace("{cards}", "\n".join(
        f'  "{c}" {n} {t}' for c, (n, t) in cards.items()))).new_state(0)
    state.put(["C8", "C7"], "hand", 0)
    state.put(["C4", "C5", "C1"], "rows", 0)  # tags 2 + 0 + 2 = 4, / 1: C8 (tag 1) may go on it
    state.put(["C2", "C3"], "rows", 0)  # a stack of two: its tags divide by zero
    assert [state.action_text(a) for a in state.legal_actions()] == ["probe 1", "probe 2", "pass"]


SECOND = STACK_TEST.replace("TEST", "second(b) < c.n")


@pytest.mark.parametrize("rows, error", [([["C1", "C2"], ["C5", "C3", "C0"]], None),
                                         ([["C1", "C2"], ["C5"]], "IndexError")])
def test_a_function_computed_each_time_is_written_into_the_search_as_it_would_run(tmp_path, rows, error):
    # second(b) reads two cards of the stack: written into the search (b's cards at hand), it
    # lists what the call lists and fails where the call fails (a stack of one card)
    results = []
    for function in ("function second(b: stack) = b[1].n",
                     "function second(b: stack):\n  let x = b[1].n\n  return x"):  # (a let: called)
        path = tmp_path / "second.rules"
        path.write_text(SECOND.replace("{cards}", "\n".join(f'  "C{i}" {i}' for i in range(8)))
                        .replace("FUNCTION", function), encoding="utf-8")
        state = load(path).new_state(0)
        state.put(["C4", "C7"], "hand", 0)
        for row in rows:
            state.put(row, "rows", 0)
        source = "".join(state.m.generated_sources)
        try:
            results.append([state.action_text(a) for a in state.legal_actions()])
        except RuleError as err:
            results.append((err.message, path.read_text().splitlines()[err.span.line - 1]))
        results.append("v0_cards[1]" in source[source.index("def _enum"):])
    assert results[1] is True and results[3] is False  # written in, then called
    assert results[0] == results[2]
    if error is None:
        assert results[0] == ["put C4 on 1", "put C7 on 1", "put C4 on 2", "put C7 on 2", "pass"]
    else:
        assert isinstance(results[0], tuple)


@pytest.mark.parametrize("game, players, shares", [("emu_ranchers", 2, False), ("desplumados", 4, True),
                                                   ("hens", 4, True)])
def test_a_listing_keeps_what_its_searches_share_only_where_they_can(game, players, shares):
    # copies of a card told apart (¡Desplumados!), a grid's open cells (Hens) are kept while a
    # choice is listed; Emu has neither (no copies, no set choice, no grid): no dict per listing
    state = load(Path(__file__).resolve().parents[2] / "games" / f"{game}.rules").new_state(1, players)
    state.legal_actions()
    source = "".join(state.m.generated_sources)
    sites = [part for part in source.split("\ndef ") if part.startswith("_site") and "    out = []" in part]
    assert sites and all((".domain_cache = dict()" in part) == shares for part in sites)


PRINTED_FIRST = '''game "printed first"
players 2
card attributes: n: int
cards:
  "A" 1
  "B" 2
  "C" 3
  "D" 4
zone pile: pile, public
zone hand: pile, per player, public
var v: int = 0
function many(p: player) = count(x.n > 1 for x in hand(p))
action a(c in hand(me)) "a {c}":
  REQUIRES
  set v = c.n
action pass_turn "pass":
  pass
setup:
  move "A" to hand(0)
  move "B" to hand(0)
  move "C" to hand(0)
  move "D" to PLACE
play:
  turn 0:
    choose a, pass_turn
outcome(p):
  score v + many(p)
'''


def _printed_first(tmp_path, requires, place="pile"):
    return _rules(tmp_path, "printed", PRINTED_FIRST.replace("REQUIRES", "\n  ".join(requires))
                  .replace("PLACE", place)).new_state(0)


@pytest.mark.parametrize("requires", [["require c.n > 1", "require 12 / (size(pile) + c.n - 2) > 1"],
                                      ["require c.n > 1 and 12 / (size(pile) + c.n - 2) > 1"]])
def test_a_card_s_printed_tests_read_a_table_and_the_tests_after_them_stay_as_written(tmp_path, requires):
    # the tests of the card alone that lead are one table read; the one that reads the pile follows
    state = _printed_first(tmp_path, requires)
    assert [state.action_text(a) for a in state.legal_actions()] == ["a B", "a C", "pass"]
    search = "".join(state.m.generated_sources)
    # the table first, the division (//) after it
    assert re.search(r"if _p\d+\[v0\] and \(.*//", search), search
    # with the pile empty, the test after it divides by zero (for B), as written
    empty = _printed_first(tmp_path, requires, place="hand(1)")
    with pytest.raises(RuleError, match="division by zero|divide"):
        empty.legal_actions()


def test_a_test_that_reads_the_state_first_is_not_moved_after_the_card_s_printed_test(tmp_path):
    # the division fails for A (one card in the pile): evaluated first for every card, as
    # written, even for A, whose printed test (n > 1) would have spared it
    state = _printed_first(tmp_path, ["require 12 / (size(pile) + c.n - 2) > 1 and c.n > 1"])
    with pytest.raises(RuleError, match="division by zero|divide"):
        state.legal_actions()
    search = "".join(state.m.generated_sources)
    assert not re.search(r"if _p\d+\[v0\]", search)
    assert [state.action_text(a) for a in _printed_first(tmp_path, ["require c.n > 1 and 12 / (size(pile) + c.n - 2) > 1"])
            .legal_actions()] == ["a B", "a C", "pass"]


def test_a_printed_test_that_fails_for_some_card_ends_the_table_and_is_left_to_play_time(tmp_path):
    # 6 / (4 - c.n) divides by zero for D alone: not worked out when the game is loaded, so the
    # table holds c.n > 1 only, and the division fails where D is listed, as written
    requires = ["require c.n > 1", "require 6 / (4 - c.n) > 0"]
    state = _printed_first(tmp_path, requires)
    assert [state.action_text(a) for a in state.legal_actions()] == ["a B", "a C", "pass"]
    search = "".join(state.m.generated_sources)
    assert re.search(r"if _p\d+\[v0\] and \(\(\(6 // ", search), search
    state = _printed_first(tmp_path, requires)
    state.put(["D"], "hand", 0)
    with pytest.raises(RuleError, match="division by zero|divide"):
        state.legal_actions()


def test_a_count_of_a_place_by_a_table_charges_its_cards_in_the_function_itself(tmp_path):
    # many(p) counts hand(p) by a table of n > 1 (B and C): the function charges the hand's size to the
    # work budget in its own lines (no call of _tick on the way), and fails as _tick fails
    state = _printed_first(tmp_path, ["require many(me) > 1"])
    assert [state.action_text(a) for a in state.legal_actions()] == ["a A", "a B", "a C", "pass"]
    source = "".join(state.m.generated_sources)
    function = next(part for part in source.split("\ndef ") if "_m.work_left -= len(_x)" in part)
    assert "_tick(st, st.Z" not in function and "sum(map(_p" in function
    name = function.split("(")[0].removeprefix("def ")
    many = state.m.namespace.ns[name]
    state.m.work_left = 10
    assert many(state, 0) == 2 and state.m.work_left == 7  # A, B, C: 3 cards, 2 of them over 1
    state.m.work_left = 2
    with pytest.raises(RuleError, match="over 10,000,000 values"):
        many(state, 0)
