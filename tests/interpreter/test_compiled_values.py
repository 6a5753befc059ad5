"""An operation on literals and parameters alone is worked out when the game
is compiled and written into the generated code as its value (a number or a
truth value); one that fails, or whose value is past the bound on numbers,
is left to play time, where it fails at its own line as before."""

import re

import pytest

from interpreter import load
from interpreter.runtime import RuleError

RULES = '''game "folds"
players 2
cards:
  "A"
zone pile: pile, public
param k: int in 0..10 = 3
var v: int = 0
action add "add":
  require v < k * 4 + max(1, k - 5) and (if k > 2 then true else v > 100)
  set v += 1
action odd "odd":
  set v = ODD
action wait "wait":
  pass
play:
  while true:
    turn 0:
      choose add, odd, wait
outcome(p):
  score v
'''


def load_rules(tmp_path, odd="1", **params):
    path = tmp_path / "folds.rules"
    text = RULES.replace("ODD", odd)
    path.write_text(text, encoding="utf-8")
    return load(path, **params), text.splitlines().index(f"  set v = {odd}") + 1


def test_an_operation_on_parameters_is_written_as_its_value(tmp_path):
    game, _ = load_rules(tmp_path)
    state = game.new_state(0)
    adds = 0
    while "add" in [state.action_text(a) for a in state.legal_actions()]:
        state.apply_text("add")
        adds += 1
    assert adds == 3 * 4 + 1  # v < 13
    source = game.generated_source()
    assert "< 13)" in source and "max(" not in source and "_mul(" not in source
    # another value of the parameter: another game, folded again
    other, _ = load_rules(tmp_path, k=1)
    state = other.new_state(0)
    assert "add" not in [state.action_text(a) for a in state.legal_actions()]  # v < 5, but v > 100 too


@pytest.mark.parametrize("odd, message", [("k / (k - 3)", "division by zero"),
                                          ("k * 1000000 * 1000000 * 1000000", "beyond the bound")])
def test_an_operation_that_fails_still_fails_at_play_time_at_its_line(tmp_path, odd, message):
    game, line = load_rules(tmp_path, odd)
    state = game.new_state(0)
    with pytest.raises(RuleError) as info:
        state.apply_text("odd")
    assert info.value.span.line == line and message in info.value.message


CARDS = '''game "tables"
players 2
enum Kind: Hen, Fox, Dog
card attributes: kind: Kind, n: int
cards:
  "H1" Hen 1
  "H2" Hen 2
  "F0" Fox 0
  "D3" Dog 3
  "D4" Dog 4
zone pile: pile, public
param low: int in 0..9 = 2
var v: int = 0
var b: bool = false
action probe "probe":
  set TARGET = EXPR
play:
  move all_cards() to pile
  while true:
    turn 0:
      choose probe
outcome(p):
  score v
'''


# the whole test a table mapped over the pile, not a generator
WHOLE = r"map\(_p"
# a body that reads the state (v): the filter alone read from a table, the body evaluated for
# the cards that pass, as the filter says (the Fox's n of 0 never divides)
FILTER = r" if _p\d+\[c\d+\]"


@pytest.mark.parametrize("expr, expected, code", [
    ("count(x.kind in {Hen, Dog} for x in pile)", 4, WHOLE),
    ("count(x for x in pile if x.n >= low)", 3, WHOLE),
    ("count(x.n > low for x in pile if x.kind == Dog)", 2, WHOLE),
    ("any(x.n > low and x.kind == Hen for x in pile)", False, WHOLE),
    ("any(x.n >= low and x.kind == Hen for x in pile)", True, WHOLE),
    ("all(x.n > 0 for x in pile if x.kind != Fox)", True, WHOLE),
    ("all(x.n > 0 for x in pile)", False, WHOLE),
    ('all(x != "F0" for x in pile if x.kind == Fox)', False, WHOLE),
    ("sum(x.n + v for x in pile if x.kind == Dog)", 7, FILTER),
    ("count(x.n > v for x in pile if x.kind == Dog)", 2, FILTER),
    ("count(10 / x.n > v for x in pile if x.kind != Fox)", 4, FILTER),
    ("size([x for x in pile if x.n >= low])", 3, FILTER),
    ("all(x.n > v for x in pile if x.kind != Fox)", True, FILTER),
    ("any(x.n > v + 3 for x in pile if x.kind == Hen)", False, FILTER),
])
def test_a_test_of_printed_attributes_is_a_table_of_the_cards(tmp_path, expr, expected, code):
    """A count, any or all whose test reads only what is printed on the card becomes a table
    mapped over the cards; a generator whose body reads the state (v) has its filter alone
    read from a table, and its body is evaluated for the cards that pass, as the filter says
    (no division by the Fox's zero)."""
    target = "b" if isinstance(expected, bool) else "v"
    path = tmp_path / "tables.rules"
    path.write_text(CARDS.replace("TARGET", target).replace("EXPR", expr), encoding="utf-8")
    game = load(path)
    state = game.new_state(0)
    state.apply_text("probe")
    assert game.evaluate(state, target) == expected
    assert re.search(code, game.generated_source())


def test_a_test_some_card_cannot_pass_is_worked_out_at_play_time(tmp_path):
    # 10 / 0 for the Fox: no table; the probe fails at its line when the Fox is there
    path = tmp_path / "tables.rules"
    text = CARDS.replace("TARGET", "v").replace("EXPR", "count(x.n * 2 > 10 / x.n for x in pile)")
    path.write_text(text, encoding="utf-8")
    game = load(path)
    state = game.new_state(0)
    with pytest.raises(RuleError) as info:
        state.apply_text("probe")
    assert "division by zero" in info.value.message
    assert info.value.span.line == text.splitlines().index("  set v = count(x.n * 2 > 10 / x.n for x in pile)") + 1
    assert "map(_p" not in game.generated_source()


PICK = CARDS.replace('''action probe "probe":
  set TARGET = EXPR''', '''action pick(c in pile) "pick {c}":
  require TEST
  set v = c.n''').replace("choose probe", "choose pick")


@pytest.mark.parametrize("test, table, expected", [
    ("c.kind in {Hen, Dog}", True, ["H1", "H2", "D3", "D4"]),
    ("c.n >= low and c.kind != Hen", True, ["D3", "D4"]),
    ('c != "F0"', True, ["H1", "H2", "D3", "D4"]),
    ("c.n > v", False, ["H1", "H2", "D3", "D4"]),  # reads a variable: tested as written
    ("c.n * 2 > 10 / (c.n - 3)", False, None),  # fails for D3: tested as written, and fails there
])
def test_a_search_s_test_of_printed_attributes_is_a_table_of_the_cards(tmp_path, test, table, expected):
    path = tmp_path / "pick.rules"
    path.write_text(PICK.replace("TEST", test), encoding="utf-8")
    game = load(path)
    state = game.new_state(0)
    if expected is None:
        with pytest.raises(RuleError) as info:
            state.legal_actions()
        assert "division by zero" in info.value.message
    else:
        assert sorted(state.action_text(a) for a in state.legal_actions()) == sorted(f"pick {c}" for c in expected)
    assert bool(re.search(r"if _p\d+\[v0\]:", game.generated_source())) == table


def test_what_reads_parameters_alone_is_told_once_per_rules_and_per_node(tmp_path):
    """Whether an expression reads literals and parameters alone is a fact of the
    rules: kept with them, with the node it is about, for the next compiles (for
    other parameter values, as the fuzzer makes them); a kept answer is read only
    for that very node, never for another that took its id."""
    import rulelang
    from rulelang import ast as A
    from interpreter.compiler import compile_game
    from interpreter.compiler.expressions import Expressions

    path = tmp_path / "folds.rules"
    path.write_text(RULES.replace("ODD", "1"), encoding="utf-8")
    g = rulelang.load_checked(path)
    compile_game(g, {})
    kept = g.derived["static"]
    exprs = Expressions(g, {"k": 3}, None)
    answers = {id(node): exprs._static(node) for node, _ in kept.values()}
    assert {k: v for k, (_, v) in kept.items()} == answers and True in answers.values() and False in answers.values()
    compile_game(g, {"k": 7})  # (folded again: "add" offered up to 28)
    assert len(g.derived["static"]) == len(kept)  # nothing more to tell
    node = next(n for n, static in kept.values() if static)
    other = A.Name(id="v", span=node.span)  # another node (not static) kept under that node's id
    kept[id(node)] = (other, False)
    assert exprs.is_static(node) is True and kept[id(node)] == (node, True)  # told again, for the node itself


ZERO = '''game "zero"
players 2..3
cards:
  "A"
  "B"
zone pile: pile, public
param draws: int in 0..5 = 2
var round: int = 0
var v: int = 0
action add "add":
  require v < 4 + round * max(0, draws - 2)
  set v += 1
action odd "odd":
  set v = ODD
action next_round "next round":
  set round += 1
play:
  while true:
    turn 0:
      choose add, odd, next_round
outcome(p):
  score v
'''


def zero_game(tmp_path, odd="1", **params):
    path = tmp_path / "zero.rules"
    text = ZERO.replace("ODD", odd)
    path.write_text(text, encoding="utf-8")
    return load(path, **params), text.splitlines().index(f"  set v = {odd}") + 1


def adds_offered(state) -> int:
    adds = 0
    while "add" in [state.action_text(a) for a in state.legal_actions()]:
        state.apply_text("add")
        adds += 1
    return adds


def test_a_product_by_zero_of_a_variable_is_worked_out_when_compiled(tmp_path):
    """``round * max(0, draws - 2)`` with 2 draws is 0 whatever the round: the
    test is written as ``v < 4``; with 3 draws it reads the round as before."""
    game, _ = zero_game(tmp_path)
    state = game.new_state(0)
    state.apply_text("next round")
    state.apply_text("next round")
    assert adds_offered(state) == 4
    assert re.search(r"< 4\)", game.generated_source()) and "* 0" not in game.generated_source()
    three, _ = zero_game(tmp_path, draws=3)
    state = three.new_state(0)
    state.apply_text("next round")
    state.apply_text("next round")
    assert adds_offered(state) == 4 + 2 * 1


@pytest.mark.parametrize("odd, value, message", [
    ("round * 0 + 7", 7, None),                    # a variable: folded
    ("0 * player_count - 2", -2, None),            # the player count: folded
    ("(v / 0) * 0", None, "division by zero"),     # a part that can fail: left to play time
    ("round * 0 + 1000000000000 * 1000 * 1000", None, "beyond the bound"),  # a part past the bound
    # a factor that folds to a small number is that number: the product is checked where it is
    # stored, as 1000000000000 * 1000 * 5 would be (not by the product itself)
    ("1000000000000 * 1000 * (round * 0 + 5) / 10", 500000000000000, None),
    ("1000000000000 * 1000 * (round * 0 + 5)", None, "5000000000000000 is beyond the bound"),
])
def test_a_product_by_zero_folds_only_what_cannot_fail(tmp_path, odd, value, message):
    game, line = zero_game(tmp_path, odd)
    state = game.new_state(0)
    if message is None:
        state.apply_text("odd")
        assert state.scores()[0] == value
    else:
        with pytest.raises(RuleError) as info:
            state.apply_text("odd")
        assert info.value.span.line == line and message in info.value.message
