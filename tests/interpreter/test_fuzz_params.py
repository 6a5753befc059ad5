"""The fuzzer draws every option and small-range parameter by default
(interpreter/fuzz_params.py): a fault behind a setting is found without
naming it, --fixed pins one, a finding's parameters shrink toward the low
end of their range, and what ran only under a setting is said."""

from pathlib import Path

from click.testing import CliRunner

from interpreter.fuzz import fuzz
from interpreter.fuzz_params import SMALL_RANGE, only_under_a_setting, small_parameters
from interpreter.game import load
from interpreter.runner import cli

TARGETS = Path(__file__).resolve().parents[1] / "fuzz_targets"

# After `rounds` rounds a card is taken from an empty pile: a rule error at the
# end of every game, whatever the rounds.  A `bonus` round runs only when the option is on.
ROUNDS = '''game "Rounds"
players 2
option bonus: bool = false "one more round at the end"
param rounds: int in 1..9 = 6 "rounds in a game"
param big: int in 1..500 = 3 "a wide range: not drawn unless named"
card attributes: n: int
cards:
  "A" 1
  "B" 2
zone pile: pile, public
zone spare: pile, public
zone hand: pile, per player, public
var ticks: int = 0
action tick "tick":
  set ticks += 1
action tock "tock":
  set ticks += 2
play:
  move all_cards() to pile
  repeat rounds times:
    for p in players:
      turn p:
        choose tick, tock
  if bonus:
    turn 0:
      choose tick, tock
  move top(spare) to hand(0)
outcome(p):
  score ticks
'''


def write(tmp_path, text):
    p = tmp_path / "rounds.rules"
    p.write_text(text)
    return p


def test_the_parameters_drawn_by_default(tmp_path):
    game = load(write(tmp_path, ROUNDS))
    assert small_parameters(game) == ["bonus", "rounds"]  # "big" has 500 values
    assert SMALL_RANGE >= 20
    assert small_parameters(load(TARGETS / "long_table.rules")) == ["hand"]


def test_a_fault_behind_a_parameter_is_found_without_naming_it():
    report = fuzz(TARGETS / "long_table.rules", players=2, examples=200, max_actions=500)
    assert [f.kind for f in report.findings] == ["invariant"], report.findings
    assert report.findings[0].params == {"hand": 5}
    pinned = fuzz(TARGETS / "long_table.rules", players=2, examples=100, max_actions=500, fixed=("hand",))
    assert pinned.findings == []
    assert fuzz(TARGETS / "long_table.rules", players=2, examples=100, max_actions=500, vary_small=False).ok


def test_a_finding_comes_back_with_the_fewest_rounds(tmp_path):
    report = fuzz(write(tmp_path, ROUNDS), players=2, examples=100, kinds=("rule_error",))
    f = report.findings[0]
    assert f.kind == "rule_error"
    # the error ends every game; shrinking draws rounds down to 1, and the trace is one round long
    assert f.params.get("rounds") == 1 and len(f.actions) == 2, (f.params, f.actions)


def test_what_ran_only_with_an_option_on_is_said(tmp_path):
    text = ROUNDS.replace("  move top(spare) to hand(0)\n", "")
    report = fuzz(write(tmp_path, text), players=2, examples=60)
    assert report.ok, report.findings
    assert any("if branch taken only with bonus = true" in line for line in report.only_under), report.only_under
    assert not any("never happened" in u and "if branch" in u for u in report.unused), report.unused


def test_the_report_says_how_the_games_spread_over_the_settings(tmp_path):
    text = ROUNDS.replace("  move top(spare) to hand(0)\n", "")
    report = fuzz(write(tmp_path, text), players=2, examples=40)
    assert report.ok, report.findings
    settings = report.settings
    # every game and action of the search, each under the setting it was played with
    assert sum(s["games"] for s in settings) == report.games
    assert sum(s["actions"] for s in settings) == report.actions
    assert {s["players"] for s in settings} == {2}
    assert len({tuple(s["params"].items()) for s in settings}) == len(settings)
    plain = [s for s in settings if s["params"] == {}]
    assert len(plain) == 1 and plain[0]["games"] > 0  # the game as written: half the examples
    for s in settings:
        # a game of r rounds (and the bonus round) is 2 * r actions (+ 1) long, whatever is chosen
        rounds, bonus = s["params"].get("rounds", 6), s["params"].get("bonus", False)
        assert s["actions"] == s["games"] * (2 * rounds + bonus), s
    assert any(s["params"].get("bonus") for s in settings) and any("rounds" in s["params"] for s in settings)
    assert report.to_dict()["settings"] == settings
    fixed = fuzz(write(tmp_path, text), players=2, examples=10, vary_small=False)
    assert fixed.settings == [{"players": 2, "params": {}, "games": fixed.games, "actions": fixed.actions}]


def test_only_under_a_setting_reads_the_counts():
    points = {("branch", "if branch taken", "f:3:1"): {(("x", 2),): 4, (): 0},
              ("branch", "else", "f:4:1"): {(("x", 2),): 1, (): 3},
              ("loop", "never", "f:5:1"): {(): 0}}
    assert only_under_a_setting(points, {"x": 1}) == ["f:3:1: if branch taken only with x = 2"]


def test_the_command_draws_by_default_and_pins_with_fixed(tmp_path):
    path = str(TARGETS / "long_table.rules")
    found = CliRunner().invoke(cli, ["fuzz", path, "--players", "2", "--examples", "200"])
    assert found.exit_code == 1 and "invariant" in found.output and "hand=5" in found.output
    pinned = CliRunner().invoke(cli, ["fuzz", path, "--players", "2", "--examples", "50", "--fixed", "hand"])
    assert pinned.exit_code == 0, pinned.output
    none = CliRunner().invoke(cli, ["fuzz", path, "--players", "2", "--examples", "50", "--fixed", "all"])
    assert none.exit_code == 0, none.output
    bad = CliRunner().invoke(cli, ["fuzz", path, "--fixed", "hnad"])
    assert bad.exit_code == 2 and "unknown parameter" in bad.output


def test_a_game_made_for_a_drawn_setting_is_left_out_of_the_collectors_walks(tmp_path, monkeypatch):
    """Each game made for a drawn setting (and the machine compiled for it, if any) lives as long as the run: it is frozen
    (gc.freeze) as what was loaded before the run is, so the collections of the run (its
    last, full one most) do not walk it; the run leaves nothing frozen."""
    import gc

    from interpreter.fuzz_late import Shared

    text = ROUNDS.replace("  move top(spare) to hand(0)\n", "")
    compiled = []
    game = Shared.game

    def counting(*args):
        g = game(*args)
        compiled.append(gc.get_freeze_count())
        return g

    seen = []
    monkeypatch.setattr(Shared, "game", counting)
    report = fuzz(write(tmp_path, text), players=2, examples=20, seed=1,
                  progress=lambda games, actions: seen.append((len(compiled), gc.get_freeze_count())))
    assert report.ok and len(compiled) >= 2, (report.findings, compiled)
    frozen = {}
    for n, count in seen:
        frozen.setdefault(n, count)  # the first game after n compiles
    # after each new setting (none before the first), more is frozen than just before it
    assert all(frozen[n] > compiled[n - 1] for n in frozen if n), (frozen, compiled)
    assert gc.get_freeze_count() == 0
