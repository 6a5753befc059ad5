"""Bugs found by trying the tool as a new user would, each kept as a test:

- a valid file whose action searches a generator over a range parameter
  (directly, or through a one-line function called with it) crashed the
  compiler's inliner with a Python traceback;
- a parameter whose default reads ``player_count`` was shown, and evaluated,
  with the smallest player count's value whatever count was played;
- an unexpected exception inside rulerun printed a traceback;
- a function of a stack that reads a card variable other than the first
  failed to load: the code keeping its values wrote a Python syntax error.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from interpreter import load
from interpreter.runner import cli

GENERATOR_OVER_RANGE = '''
game "crash"
players 2
card attributes: number: int
cards:
  "One" 1
  "Two" 2
zone deck: pile, public
zone hand: pile, per player, owner
{function}
action take(i in 0..3, c in hand(me)) "take {{c}} {{i}}":
  require {require}
  move c to deck
play:
  deal 1 from deck to hand(0)
  deal 1 from deck to hand(1)
  turn 0:
    choose take
outcome(p):
  score 0
'''

BY_PLAYERS = '''
game "by players"
players 3..6
param target: int in 1..9 = if player_count <= 4 then 5 else 4   "what wins"
cards:
  "A" *10
zone deck: pile
var seen: int = 0
play:
  set seen = target
outcome(p):
  score seen
'''


def invoke(*args):
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(cli, list(args), prog_name="rulerun")


def write(tmp_path, text, name="game.rules"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("function, require", [
    ("", "any(x.number == i for x in hand(me))"),
    ("function holds(n: int) = any(x.number == n for x in hand(me))", "holds(i)"),
])
def test_a_generator_over_a_range_parameter_compiles_and_filters(tmp_path, function, require):
    path = write(tmp_path, GENERATOR_OVER_RANGE.format(function=function, require=require))
    r = invoke("check", path)
    assert r.exit_code == 0, r.stderr
    assert "Traceback" not in r.stderr
    st = load(path).new_state(0)
    # player 1 holds the top card of the deck (Two, number 2): only i == 2 matches it
    assert st.legal_action_texts() == ["take Two 2"]


def test_defaults_that_read_the_player_count_follow_the_count_played(tmp_path):
    path = write(tmp_path, BY_PLAYERS)
    game = load(path)
    assert game.params_for(4)["target"] == 5 and game.params_for(5)["target"] == 4
    five = game.new_state(1, 5)
    assert five.get_var("seen") == 4
    assert game.evaluate(five, "target") == 4
    assert game.evaluate(game.new_state(1, 3), "target") == 5

    r = invoke("run", path, "--players", "5", "--seed", "1")
    assert r.exit_code == 0, r.stderr
    assert "params: target=4" in r.stdout
    r = invoke("simulate", path, "-n", "3", "--players", "6", "--json")
    assert json.loads(r.stdout)["params"] == {"target": 4}
    r = invoke("params", path)
    assert "5 (3-4 players), 4 (5-6 players)" in r.stdout
    r = invoke("params", path, "--players", "5")
    assert "target" in r.stdout and "5 (3-4" not in r.stdout
    assert r.stdout.split("target")[1].split()[2] == "4"
    r = invoke("params", path, "--players", "9")
    assert r.exit_code == 2 and "3 to 6 players" in r.stderr


def test_an_internal_error_is_one_line_not_a_traceback(tmp_path, monkeypatch, capsys):
    from interpreter import game

    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom")
    monkeypatch.setattr(game, "load", broken)
    monkeypatch.delenv("RULERUN_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["params", write(tmp_path, BY_PLAYERS)], prog_name="rulerun")
    assert exit_info.value.code == 70
    err = capsys.readouterr().err
    assert err.startswith("rulerun: internal error: ZeroDivisionError: boom") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


STACK_TOTAL = """game "Memo"
players 2
card attributes: rank: int
cards:
  "A" 1
  "B" 2
zone deck: pile, public
zone rows: stacks, public
card var a: int = 0
card var b: int = 1
function total(s: stack) = sum(x.b for x in s)
action start "start":
  move top(deck) to new stack in rows
action bump(s in rows) "bump {s}":
  require total(s) < 10
  set top(s).b += 4
play:
  turn 0:
    choose start
  repeat 3 times:
    turn 0:
      choose bump
outcome(p):
  score sum(total(s) for s in rows)
"""


def test_a_function_of_a_stack_reading_a_later_card_variable_loads_and_follows_it(tmp_path):
    # total() is kept by the cards of its stack and their values of b, the second card
    # variable (found by a review: the key was written "map(2.__add__, ...)", not Python)
    path = tmp_path / "memo.rules"
    path.write_text(STACK_TOTAL)
    game = load(path)
    st = game.new_state(0, 2)
    st.apply_text("start")
    totals = []
    while st.legal_actions():
        totals.append(game.evaluate(st, "total(rows[0])"))
        st.apply(st.legal_actions()[0])
    assert totals == [1, 5, 9]  # each bump adds 4 to the top card's b; at 9 the require still holds
    assert st.is_terminal and st.scores() == [13, 13]
