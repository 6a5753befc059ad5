"""An operation on literals and parameters alone is worked out when the game
is compiled and written into the generated code as its value (a number or a
truth value); one that fails, or whose value is past the bound on numbers,
is left to play time, where it fails at its own line as before."""

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
