"""Examples in rules files (docs/language.md, section 2.16): ``example``
blocks build a position with statements and say what holds there.  The
checker refuses a bad one with every diagnostic; ``rulerun test`` runs
them; the fuzzer reports a failing one; a variant overrides one by its text.
The four games carry their rulebooks' examples, and they hold."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import rulelang
from interpreter import load
from interpreter.cli import cli
from interpreter.examples import run_examples
from interpreter.fuzz import fuzz

ROOT = Path(__file__).resolve().parents[2]

TINY = '''game "Tiny"
players 2..3
param bonus: int in 0..5 = 1 "added to each total"
option doubled: bool = false "totals count twice"
card attributes: rank: int
cards:
  "One" 1
  "Two" 2
  "Three" 3
  "Four" 4
zone deck: pile, hidden
zone hand: pile, per player, owner
zone table: pile, public
var played: int = 0
function total(p: player) = (sum(c.rank for c in hand(p)) + bonus) * (if doubled then 2 else 1)
action play_card(c in hand(me)) "play {c}":
  require c.rank > 1
  move c to table
when "Four" enters table:
  set played += 10
play:
  for p in players:
    deal 1 from deck to hand(p)
  turn 0:
    choose play_card
outcome(p):
  score total(p)
  then lowest size(hand(p))
'''


def write(tmp_path, text, name="tiny.rules"):
    path = tmp_path / name
    path.write_text(text)
    return path


def results(tmp_path, examples, base=TINY):
    return run_examples(load(write(tmp_path, base + examples)))


def test_an_example_that_holds(tmp_path):
    [r] = results(tmp_path, '''
example "two cards and the bonus":
  with bonus = 2
  move "One" to hand(0)
  move "Three" to hand(0)
  expect total(0) == 6
  expect legal play_card("Three") by 0
  expect illegal play_card("One") by 0
  expect illegal play_card("Three") by 1
  expect scores [6, 2]
  expect winner 0
''')
    assert r.passed and r.players == 2 and r.text == "two cards and the bonus"


def test_each_failing_expectation_is_told_with_its_line_and_values(tmp_path):
    example = '''
example "wrong on purpose":
  players 3
  move "Two" to hand(1)
  expect total(1) == 4
  expect legal play_card("One") by 1
  expect illegal play_card("Two") by 1
  expect scores [1, 3, 2]
  expect winners [0, 2]
  expect size(hand(1)) == 1
'''
    [r] = results(tmp_path, example)
    assert not r.passed and r.players == 3
    lines = (TINY + example).splitlines()
    at = [lines[int(where.rsplit(":", 2)[1]) - 1].strip() for where, _ in r.failures]
    assert at == ["expect total(1) == 4", 'expect legal play_card("One") by 1', 'expect illegal play_card("Two") by 1',
                  "expect scores [1, 3, 2]", "expect winners [0, 2]"]
    assert [why for _, why in r.failures] == [
        "total(1) == 4 is false: total(1) is 3",
        'play_card("One") is not legal for player 2',
        'play_card("Two") is legal for player 2',
        "the scores are [1, 3, 1], not [1, 3, 2]",
        "the winners are player 2, not player 1, player 3"]


def test_expectations_are_checked_where_they_stand_and_triggers_fire(tmp_path):
    [r] = results(tmp_path, '''
example "before and after the Four is played":
  expect played == 0
  move "Four" to table
  expect played == 10
  move "Four" to hand(0)
  expect played == 10
  expect total(0) == 5
''')
    assert r.passed, r.failures


def test_with_sets_parameters_and_options_for_that_example_only(tmp_path):
    first, second = results(tmp_path, '''
example "doubled":
  with doubled = true
  with bonus = 0
  move "Three" to hand(0)
  expect total(0) == 6

example "the defaults":
  move "Three" to hand(0)
  expect total(0) == 4
''')
    assert first.passed and second.passed


def test_a_rule_that_fails_in_an_example_is_a_failure_not_a_crash(tmp_path):
    [r] = results(tmp_path, '''
example "nothing to take":
  move top(hand(0)) to table
  expect played == 0
''')
    assert not r.passed and "a statement failed" in r.failures[0][1] and "no such card" in r.failures[0][1]
    [r] = results(tmp_path, '''
example "an empty max":
  expect max(c.rank for c in hand(0)) == 1
''')
    assert r.failures[0][1].startswith("could not be evaluated: max of nothing")


@pytest.mark.parametrize("example, code, message", [
    ('example "x":\n  move "One" to hand(0)\n', "RL119", "add an `expect` line"),
    ('example "x":\n  players 5\n  expect played == 0\n', "RL119", "for 2 to 3 players, not 5"),
    ('example "x":\n  with bonuss = 2\n  expect played == 0\n', "RL119", 'did you mean "bonus"'),
    ('example "x":\n  with bonus = 1 + 1\n  expect played == 0\n', "RL119", "a plain value"),
    ('example "x":\n  with bonus = true\n  expect played == 0\n', "RL103", "should be a number"),
    ('example "x":\n  turn 0:\n    choose play_card\n  expect played == 0\n', "RL119", "no players to decide"),
    ('example "x":\n  expect total(0)\n', "RL103", "an expectation should be true/false"),
    ('example "x":\n  expect legal play_cards("One") by 0\n', "RL112", 'did you mean "play_card"'),
    ('example "x":\n  expect legal play_card("One", 2) by 0\n', "RL104", "takes 1 parameter, not 2"),
    ('example "x":\n  expect legal play_card(2) by 0\n', "RL103", "should be a card"),
    ('example "x":\n  expect legal play_card("One") by 7\n', "RL116", "no seat 7"),
    ('example "x":\n  expect scores [true]\n', "RL103", "the expected scores"),
    ('example "x":\n  expect winner "One"\n', "RL103", "the expected winners"),
    ('example "x":\n  expect total(zz) == 1\n', "RL101", "zz"),
])
def test_the_checker_refuses_a_bad_example(example, code, message):
    _, diags = rulelang.check(rulelang.parse(TINY + "\n" + example, "tiny.rules")[0])
    errors = [d for d in diags if d.severity == "error"]
    assert any(d.code == code and message in d.message for d in errors), [(d.code, d.message) for d in errors]


def test_rulerun_test_reports_each_example_and_exits_1_on_a_failure(tmp_path):
    good = write(tmp_path, TINY + '\nexample "fine":\n  move "Two" to hand(0)\n  expect total(0) == 3\n')
    result = CliRunner().invoke(cli, ["test", str(good)])
    assert result.exit_code == 0 and "ok   fine" in result.output and "1 example passed" in result.output
    result = CliRunner().invoke(cli, ["test", str(good), "--set", "bonus=2"])
    assert result.exit_code == 1 and "FAIL fine" in result.output and "total(0) is 4" in result.output
    result = CliRunner().invoke(cli, ["test", str(write(tmp_path, TINY, "none.rules"))])
    assert result.exit_code == 1 and "declares no example" in result.output


def test_the_fuzzer_reports_a_failing_example(tmp_path):
    path = write(tmp_path, TINY + '\nexample "off by one":\n  move "Two" to hand(0)\n  expect total(0) == 2\n')
    report = fuzz(path, examples=3, seed=1)
    [f] = [f for f in report.findings if f.kind == "example"]
    assert f.message == '"off by one": total(0) == 2 is false: total(0) is 3' and f.where.endswith(":32:3")
    assert not [f for f in fuzz(path, examples=3, seed=1, kinds=("dead_state",)).findings if f.kind == "example"]


def test_a_variant_overrides_an_example_by_its_text(tmp_path):
    write(tmp_path, TINY + '\nexample "a total":\n  move "Two" to hand(0)\n  expect total(0) == 3\n')
    variant = write(tmp_path, 'extends "tiny.rules"\noverride param bonus = 3\n'
                    'override example "a total":\n  move "Two" to hand(0)\n  expect total(0) == 5\n', "v.rules")
    [r] = run_examples(load(variant))
    assert r.passed
    bad = write(tmp_path, 'extends "tiny.rules"\noverride example "a totl":\n  expect played == 0\n', "w.rules")
    _, diags, _ = rulelang.check_file(bad)
    assert any(d.code == "RL118" and 'did you mean "a total"' in d.message for d in diags)


@pytest.mark.parametrize("name", ["emu_ranchers", "fox_in_the_henhouse", "desplumados", "hens"])
def test_the_games_examples_from_their_rulebooks_hold(name):
    rs = run_examples(load(ROOT / "games" / f"{name}.rules"))
    assert len(rs) >= 4
    assert [r for r in rs if not r.passed] == []


@pytest.mark.parametrize("path", sorted((ROOT / "games" / "variants").glob("*.rules")), ids=lambda p: p.stem)
def test_each_house_variant_keeps_or_restates_its_base_s_examples(path):
    assert [r for r in run_examples(load(path)) if not r.passed] == []


def test_a_scoring_slip_breaks_a_rulebook_example(tmp_path):
    """What the examples are for: a mistake the fuzzer alone cannot see (the
    game still runs and ends) now fails an example."""
    text = (ROOT / "games" / "emu_ranchers.rules").read_text()
    slip = text.replace("then total - upkeep - bonus else", "then total - upkeep + bonus else")
    assert slip != text
    failed = [r for r in run_examples(load(write(tmp_path, slip, "emu.rules"))) if not r.passed]
    assert [r.text for r in failed] == ["the Crown, 9 and 8 of Suns lose 6 at the end of the year",
                                        "number cards totalling 15 lose 3, and 5 more with an Ace"]


def test_do_takes_a_legal_action_and_stops_the_example_at_an_illegal_one(tmp_path):
    [good, bad] = results(tmp_path, '''
example "play the Four":
  move "Four" to hand(0)
  do play_card("Four") by 0
  expect "Four" in table and played == 10

example "the One cannot be played":
  move "One" to hand(0)
  do play_card("One") by 0
  expect "One" in table
''')
    assert good.passed, good.failures
    assert [why for _, why in bad.failures] == ['play_card("One") is not legal for player 1']  # and no more


def test_after_setup_starts_from_the_game_s_setup_and_nobody_wins_is_an_expectation(tmp_path):
    base = TINY.replace("play:\n  for p in players:\n    deal 1 from deck to hand(p)\n",
                        "setup:\n  for p in players:\n    deal 1 from deck to hand(p)\nplay:\n")
    base = base.replace("  then lowest size(hand(p))\n", "  nobody wins if played > 5\n")
    [r, s] = results(tmp_path, '''
example "one card each" after setup:
  expect all(size(hand(p)) == 1 for p in players)
  expect "Four" in hand(0)  # dealt from the top of the unshuffled deck
  expect winner 0

example "too many Fours":
  set played = 6
  expect nobody wins
''', base)
    assert r.passed and s.passed, (r.failures, s.failures)


def test_an_action_with_a_follow_up_choice_cannot_be_done_in_an_example():
    text = TINY.replace('  require c.rank > 1\n  move c to table\n', '  require c.rank > 1\n  move c to table\n  choose play_card\n')
    _, diags = rulelang.check(rulelang.parse(text + '\nexample "x":\n  do play_card("Two") by 0\n  expect played == 0\n',
                                             "tiny.rules")[0])
    assert any(d.code == "RL119" and "follow-up choice" in d.message for d in diags)


def test_an_expectation_the_game_ended_before_is_a_failure_not_a_pass(tmp_path):
    base = TINY.replace("  set played += 10\n", "  set played += 10\n  end game\n")
    [r] = results(tmp_path, '''
example "after the Four, nothing":
  expect played == 0
  move "Four" to table
  expect played == 10
''', base)
    assert [why for _, why in r.failures] == [
        "never checked: the game ended before this line (an `end game` in the rules)"]


def test_the_words_of_examples_remain_free_as_names(tmp_path):
    """example, expect, legal, scores, by, do: keywords only at the head of an
    example's line, so a file may name its own things so."""
    text = TINY.replace('var played: int = 0\n', 'var played: int = 0\nvar legal: bool = true\nvar by: int = 0\n'
                        'function scores(p: player) = total(p) + by\n')
    [r] = results(tmp_path, '''
example "soft words":
  move "Two" to hand(0)
  expect by == 0 and scores(1) == 1 and legal
  set by = 2
  expect illegal play_card("Two") by 1
  expect legal play_card("Two") by 0
''', text)
    assert r.passed, r.failures


def test_an_example_may_lay_a_card_face_down_where_the_game_itself_never_does(tmp_path):
    # Tiny lays nothing face down; its example does, and the card is face down
    [r] = results(tmp_path, '''
example "a card laid face down by the example":
  move "Two" face down to table
  expect "Two".face_down
  move "Three" to table
  expect not "Three".face_down
''')
    assert r.passed, r


def test_a_game_s_states_do_not_carry_the_slots_of_its_examples(tmp_path):
    # the loop and the let of an example have slots of their own, in its machine only:
    # the game's states are no larger for them, and a shuffle there finds its slot
    examples = '''
example "each player draws from the shuffled deck":
  shuffle deck
  for p in players:
    deal 1 from deck to hand(p)
  let dealt = size(hand(0)) + size(hand(1))
  expect dealt == 2
  expect size(deck) == 2
'''
    with_examples = load(write(tmp_path, TINY + examples))
    [r] = run_examples(with_examples)
    assert r.passed, r.failures
    without = load(write(tmp_path, TINY, "plain.rules"))
    for n in (2, 3):
        sizes = [len(g.new_state(1, n).L) for g in (with_examples, without)]
        assert sizes[0] == sizes[1]
    assert with_examples.checked.nslots > with_examples.checked.nslots_play
