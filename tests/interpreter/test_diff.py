"""rulerun diff: two rules files in lock step, the first place they differ,
and which changed lines of the second never ran (interpreter/diff.py)."""

import json
from pathlib import Path

from click.testing import CliRunner

from interpreter import load
from interpreter.diff import changed_lines, diff, play_pair
from interpreter.runner import cli

ROOT = Path(__file__).resolve().parents[2]

# Each player in turn plays a card or draws; after four rounds the most cards
# on the table wins.  A house rule hides behind an option that is off.
BASE = '''game "Lay"
players 2..3
option generous: bool = false "a player with an empty hand draws two"
param rounds: int in 1..9 = 4 "rounds in a game"
card attributes: n: int
cards:
  "A" 1
  "B" 2
  "C" 3
  "D" 4
  "E" 5
  "F" 6
zone deck: pile, hidden
zone hand: pile, per player, owner
zone table: pile, per player, public
var flag: bool = false
action lay(c in hand(me)) "play {c}":
  require c.n > 0
  move c to table(me)
action draw "draw":
  require not empty(deck)
  move top(deck) to hand(me)
action wait "wait":
  pass
play:
  shuffle deck
  for p in players:
    deal 1 from deck to hand(p)
  repeat rounds times:
    for p in players:
      turn p:
        if generous and empty(hand(p)):
          deal 1 from deck to hand(p)
        choose lay, draw, wait
outcome(p):
  score size(table(p))
'''


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def replay_differs(a, b, report) -> bool:
    """Play the reported actions on both files: they agree before the last
    step and differ after it (the difference is real, and no longer)."""
    d = report.difference
    ga, gb = load(a), load(b)
    sa, sb = ga.new_state(d.seed, d.players), gb.new_state(d.seed, d.players)
    for text in d.actions:
        assert sorted(sa.legal_action_texts()) == sorted(sb.legal_action_texts())
        sa.apply_text(text)
        sb.apply_text(text)
    return (sorted(sa.legal_action_texts()) != sorted(sb.legal_action_texts())
            or sa.debug_text() != sb.debug_text() or sa.is_terminal != sb.is_terminal)


def test_a_file_and_its_copy_do_not_differ(tmp_path):
    a, b = write(tmp_path, "a.rules", BASE), write(tmp_path, "b.rules", BASE)
    report = diff(a, b, examples=20)
    assert report.same and report.games == 20 and report.actions > 0
    assert report.changed_lines == [] and report.never_ran == []


def test_a_require_that_forbids_an_action_shows_at_the_first_decision(tmp_path):
    a = write(tmp_path, "a.rules", BASE)
    b = write(tmp_path, "b.rules", BASE.replace('require not empty(deck)', 'require size(deck) > 100'))
    report = diff(a, b, examples=20)
    d = report.difference
    assert d.kind == "legal" and d.actions == []  # drawing is legal in A only, from the start
    assert ["legal in A only", "draw", ""] in d.details
    assert replay_differs(a, b, report)


def test_a_changed_effect_is_found_after_the_shortest_game_that_uses_it(tmp_path):
    a = write(tmp_path, "a.rules", BASE)
    b = write(tmp_path, "b.rules", BASE.replace("  move c to table(me)", "  move c to bottom of deck"))
    report = diff(a, b, examples=50)
    d = report.difference
    assert d.kind in ("position", "legal")
    assert len(d.actions) == 1 and d.actions[0].startswith("play ")  # one card played shows it
    assert replay_differs(a, b, report)


def test_different_results_at_the_end(tmp_path):
    a = write(tmp_path, "a.rules", BASE)
    b = write(tmp_path, "b.rules", BASE.replace("score size(table(p))", "score 2 * size(table(p))"))
    d = diff(a, b, examples=20).difference
    assert d.kind == "results" and d.details[0][0] == "results"


def test_a_rule_error_in_one_file_only(tmp_path):
    a = write(tmp_path, "a.rules", BASE)
    b = write(tmp_path, "b.rules", BASE.replace("deal 1 from deck to hand(p)\n  repeat",
                                                "deal 9 from deck to hand(p)\n  repeat"))
    d = diff(a, b, examples=10).difference
    assert d.kind == "rule_error" and "in B only" in d.message and d.actions == []


def test_a_change_behind_an_option_that_is_off_never_ran(tmp_path):
    a = write(tmp_path, "a.rules", BASE)
    text = BASE.replace("          deal 1 from deck to hand(p)", "          deal 2 from deck to hand(p)")
    b = write(tmp_path, "b.rules", text)
    report = diff(a, b, examples=30)
    assert report.same
    line = text.splitlines().index("          deal 2 from deck to hand(p)") + 1
    assert report.changed_lines == [[line, "deal 2 from deck to hand(p)"]]
    assert report.never_ran == report.changed_lines
    # with the option on, the change runs and shows
    on = diff(a, b, examples=60, params={"generous": "true"})
    assert not on.same and replay_differs_with(a, b, on, generous=True)


def replay_differs_with(a, b, report, **params):
    d = report.difference
    sa = load(a, **params).new_state(d.seed, d.players)
    sb = load(b, **params).new_state(d.seed, d.players)
    for text in d.actions:
        sa.apply_text(text)
        sb.apply_text(text)
    return sa.debug_text() != sb.debug_text() or sorted(sa.legal_action_texts()) != sorted(
        sb.legal_action_texts())


def test_a_change_that_ran_without_mattering_is_not_listed(tmp_path):
    a = write(tmp_path, "a.rules", BASE)
    b = write(tmp_path, "b.rules", BASE.replace("  require c.n > 0", "  require c.n > -5"))
    report = diff(a, b, examples=20)
    assert report.same and len(report.changed_lines) == 1 and report.never_ran == []


def test_changed_lines_leave_out_blank_lines_and_comments():
    assert changed_lines("a\nb\n", "a\n\n# note\nb\nc  # new\n") == [[5, "c  # new"]]


def test_play_pair_stops_where_both_games_end(tmp_path):
    a = write(tmp_path, "a.rules", BASE)
    played = []
    n = play_pair(load(a), load(a), 2, 3, lambda step, k: 0, 1000, played)
    assert n == len(played) == 8  # four rounds of two turns


# ---------------------------------------------------------------- the command
def test_the_command_exits_0_when_the_same_and_1_when_not(tmp_path):
    a = write(tmp_path, "a.rules", BASE)
    same = run("diff", a, write(tmp_path, "b.rules", BASE), "--examples", "10")
    assert same.exit_code == 0 and "no difference found in 10 games" in same.output
    other = run("diff", a, write(tmp_path, "c.rules", BASE.replace("score size", "score 3 * size")),
                "--examples", "10")
    assert other.exit_code == 1 and "they differ (results)" in other.output


def test_the_command_names_the_lines_that_never_ran(tmp_path):
    a = write(tmp_path, "a.rules", BASE)
    b = write(tmp_path, "b.rules", BASE.replace("          deal 1 from deck", "          deal 2 from deck"))
    result = run("diff", a, b, "--examples", "10")
    assert result.exit_code == 0
    assert "these never ran" in result.output and "b.rules:" in result.output


def test_the_command_json_report(tmp_path):
    a = write(tmp_path, "a.rules", BASE)
    b = write(tmp_path, "b.rules", BASE.replace('require not empty(deck)', 'require false'))
    result = run("diff", a, b, "--examples", "5", "--json")
    data = json.loads(result.output)
    assert result.exit_code == 1 and data["same"] is False and data["difference"]["kind"] == "legal"


def test_bad_input_is_one_line(tmp_path):
    a = write(tmp_path, "a.rules", BASE)
    b = write(tmp_path, "b.rules", BASE.replace("players 2..3", "players 4..5"))
    result = CliRunner().invoke(cli, ["diff", a, b])
    assert result.exit_code == 2 and "no count suits both" in result.output
    result = CliRunner().invoke(cli, ["diff", a, b, "--players", "two"])
    assert result.exit_code == 2 and "--players" in result.output
    broken = write(tmp_path, "broken.rules", BASE.replace("move c to table(me)", "move c to tabel(me)"))
    result = CliRunner().invoke(cli, ["diff", a, broken])
    assert result.exit_code == 1 and "did you mean" in result.output
    assert "Traceback" not in result.output


def test_a_real_variant_a_shorter_emu_year(tmp_path):
    """A smaller hand in Emu Ranchers shows in the first deal."""
    text = (ROOT / "games" / "emu_ranchers.rules").read_text()
    b = write(tmp_path, "emu_small_hand.rules", text.replace("param hand_size: int in 1..12 = 6",
                                                             "param hand_size: int in 1..12 = 5"))
    report = diff(ROOT / "games" / "emu_ranchers.rules", b, examples=5)
    assert report.difference.kind == "position" and report.difference.actions == []
    assert any(d[0] == "hand of player 1" for d in report.difference.details)
