"""Simultaneous secret choices and "nobody wins".

- ``simultaneously for p in PLAYERS [from P] [if COND]: choose ...``: each
  listed player who passes COND decides in turn (``me`` = that player)
  against the same position; a chosen action changes nothing until everyone
  has chosen; then the kept actions take effect in the order of choosing.
- Others cannot read a pending choice: not in observations, not in
  rulerun's log ("chooses in secret"), and a resampled state (for search)
  holds a fresh draw of the other players' pending choices.
- ``nobody wins if COND`` in the outcome: winners() is empty when COND holds.
"""

from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

from interpreter import load
from interpreter.runner import cli
from rulelang import check, parse

GAME = '''game "secret numbers"
players 2..4
cards:
  "A"
zone deck: pile
player var pick: int = 0
var order: int = 0
param target: int in 0..9 = 0
action choose_number(n in 1..3) "pick {n}":
  set pick(me) = n
  set order = order * 10 + count(q == me for q in players) * (1 + count(q < me for q in players))
action pass_turn "pass":
  pass
var first: player = 0
play:
  set first = 1
  simultaneously for p in players from first if p != 2:
    choose choose_number
  turn 0:
    choose pass_turn
outcome(p):
  score pick(p)
  nobody wins if target > 0 and all(pick(q) < target for q in players)
'''


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "secret.rules"
    p.write_text(GAME)
    return str(p)


def test_each_chooses_in_turn_and_nothing_happens_until_all_have(path):
    st = load(path).new_state(1, 4)
    assert st.current_player == 1  # from "first", seat 2 skipped by the condition
    st.apply_text("pick 3")
    assert st.current_player == 3  # then 4, wrapping round to 1
    assert [st.get_var("pick", p) for p in range(4)] == [0, 0, 0, 0]
    assert st.get_var("order") == 0
    st.apply_text("pick 2")
    assert st.current_player == 0
    st.apply_text("pick 1")
    # all chose: the actions took effect in the order of choosing
    assert [st.get_var("pick", p) for p in range(4)] == [1, 3, 0, 2]
    assert st.get_var("order") == 241
    assert st.legal_action_texts() == ["pass"]


def test_a_pending_choice_is_secret(path):
    st = load(path).new_state(1, 3)
    a = [x for x in st.legal_actions() if st.action_text(x) == "pick 3"][0]
    assert st.is_secret(a)
    before = st.observation(0)
    st.apply(a)
    for p in range(3):
        assert st.observation(p)["player_vars"]["pick"] == [0, 0, 0]
    assert st.observation(0)["zones"] == before["zones"]
    st.apply_text("pick 1")
    assert not st.is_secret(st.legal_actions()[0])  # the pass is a plain choice


def test_resampling_draws_other_players_pending_choices_anew(path):
    seen = set()
    for seed in range(30):
        st = load(path).new_state(1, 3)
        st.apply_text("pick 3")  # seat 1 chooses 3 in secret; seat 0 is next
        r = st.resample(0, seed)
        while r.current_player == 0 and "pass" not in r.legal_action_texts():
            r.apply_text("pick 1")
        seen.add(r.get_var("pick", 1))
        # the real state is untouched
        st.apply_text("pick 1")
        assert st.get_var("pick", 1) == 3
    assert seen == {1, 2, 3}


def test_rulerun_does_not_print_a_secret_choice(path):
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    r = runner.invoke(cli, ["run", path, "--players", "3", "--seed", "4"], prog_name="rulerun")
    assert r.exit_code == 0, r.stderr
    lines = [line for line in r.stdout.splitlines() if ": " in line and line.strip()[:1].isdigit()]
    assert [line.split(": ", 1)[1] for line in lines] == ["chooses in secret", "chooses in secret", "pass"]


def test_nobody_wins_when_the_condition_holds(tmp_path, path):
    game = load(path, target=4)  # nobody can pick 4
    st = game.new_state(1, 2)
    rng = random.Random(1)
    while not st.is_terminal:
        st.apply(rng.choice(st.legal_actions()))
    assert st.winners() == []
    assert st.scores() == [st.get_var("pick", p) for p in range(2)]
    st = load(path, target=2).new_state(1, 2)
    st.apply_text("pick 3")
    st.apply_text("pick 1")
    st.apply_text("pass")
    assert st.winners() == [1]


@pytest.mark.parametrize("body, code", [
    ("  simultaneously for p in players:\n    set first = p\n", "RL109"),
    ("  simultaneously for p in players:\n    choose pass_turn\n    choose pass_turn\n", "RL109"),
    ("  simultaneously for p in 3:\n    choose pass_turn\n", "RL103"),
    ("  simultaneously for p in players from 1 = 2:\n    choose pass_turn\n", "RL001"),
])
def test_what_a_simultaneous_choice_may_hold(body, code):
    text = GAME.replace('''  simultaneously for p in players from first if p != 2:
    choose choose_number
''', body)
    module, diags = parse(text, "t.rules")
    if module is not None:
        _, diags = check(module)
    assert code in [d.code for d in diags if d.severity == "error"], [d.render(text) for d in diags]
