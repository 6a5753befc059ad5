"""A rules file cannot make the engine do what it does not say: seats that do
not exist, actions whose legality asks about itself, numbers past their
bound, parameter ranges too wide to list, results that cannot be computed.
Each is a diagnostic where the checker can see it, else a rule error at the
line that did it -- never a wrong result, a Python exception or a hang."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from interpreter import RuleError, load
from interpreter.fuzz import fuzz
from interpreter.runner import cli
from interpreter.runtime import MAX_SEARCH, MAX_VALUE
from rulelang import check_file
from rulelang.checker import actions as checker_actions

HEAD = '''game "r"
players {players}
cards:
  "A"
  "B"
zone deck: pile, public
zone hand: pile, per player, public
zone pot: pile, per player, public
'''


def rules(tmp_path, body, players="2..4", name="r.rules"):
    path = tmp_path / name
    path.write_text(HEAD.format(players=players) + body)
    return str(path)


def errors(path):
    _, diags, _ = check_file(path)
    return [d for d in diags if d.severity == "error"]


def cli_run(*args):
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(cli, list(args), prog_name="rulerun")


SEAT_GAME = '''action take "take":
  move top(deck) to hand(me)
play:
  turn {seat}:
    choose take
  end game
outcome(p):
  score size(pot(p))
'''


# ------------------------------------------------------------ seats
def test_a_seat_only_larger_tables_have_is_a_rule_error_at_its_line(tmp_path):
    path = rules(tmp_path, SEAT_GAME.format(seat=3))
    assert errors(path) == []
    game = load(path)
    with pytest.raises(RuleError) as err:
        game.new_state(seed=1, num_players=2)
    assert err.value.span.line == 12 and "no seat 3" in err.value.message
    # at a table of four, seat 3 is the fourth player: the card goes to their hand, not someone's pot
    st = game.new_state(seed=1, num_players=4)
    assert st.current_player == 3
    st.apply(st.legal_actions()[0])
    assert st.is_terminal
    assert [len(st.zone_cards("hand", p)) for p in range(4)] == [0, 0, 0, 1]
    assert [len(st.zone_cards("pot", p)) for p in range(4)] == [0, 0, 0, 0]


def test_a_seat_no_table_has_is_a_diagnostic(tmp_path):
    errs = errors(rules(tmp_path, SEAT_GAME.format(seat=5)))
    assert [e.code for e in errs] == ["RL116"]
    assert "no seat 5" in errs[0].message and "at most 4 players" in errs[0].message
    assert (errs[0].span.line, errs[0].span.column) == (12, 8)


def test_a_player_variable_set_to_a_seat_out_of_range(tmp_path):
    big = rules(tmp_path, '''var pl: player = 1000000000000
action take "take":
  move top(deck) to hand(pl)
play:
  turn 0:
    choose take
outcome(p):
  score 0
''', name="big.rules")
    assert [e.code for e in errors(big)] == ["RL116"]
    later = rules(tmp_path, '''var pl: player = 0
action take "take":
  set pl = 2
  move top(deck) to hand(pl)
play:
  turn 0:
    choose take
  end game with winner 3
outcome(p):
  score 0
''', name="later.rules")
    assert errors(later) == []
    game = load(later)
    st = game.new_state(seed=1, num_players=2)
    with pytest.raises(RuleError) as err:
        st.apply(st.legal_actions()[0])
    assert err.value.span.line == 11 and "no seat 2" in err.value.message
    st = game.new_state(seed=1, num_players=3)
    with pytest.raises(RuleError) as err:  # the named winner is checked too
        st.apply(st.legal_actions()[0])
    assert err.value.span.line == 16 and "no seat 3" in err.value.message
    st = game.new_state(seed=1, num_players=4)
    st.apply(st.legal_actions()[0])
    assert st.winners() == [3] and len(st.zone_cards("hand", 2)) == 1


# ------------------------------------------------------------ can() asking about itself
def test_an_action_whose_legality_asks_about_itself_is_refused(tmp_path):
    path = rules(tmp_path, '''function ready(x: int) = x > 0
action a "a":
  require can(b)
  pass
action b "b":
  let ok = can(a)
  require ok
  pass
action c "c":
  require can(c) or size(deck) > 5
  pass
action d "d":
  require can(a)
  pass
action e "e":
  require ready(size(deck))
  if can(e):
    pass
play:
  turn 0:
    choose a, b, c, d, e
    if can(a, c):
      pass
outcome(p):
  score 0
''', players="2")
    errs = errors(path)
    assert [(e.code, e.span.line) for e in errs] == [("RL111", 10), ("RL111", 17)]
    assert "can(a) -> can(b) -> can(a)" in errs[0].message
    assert "can(c) -> can(c)" in errs[1].message


# ------------------------------------------------------------ the bound on numbers
def test_squaring_a_number_stops_at_the_bound_with_the_line(tmp_path):
    path = rules(tmp_path, '''var v: int = 2
action grow "grow":
  set v = v * v
play:
  while true:
    turn 0:
      choose grow
outcome(p):
  score v
''', players="2")
    st = load(path).new_state(seed=1)
    values = []
    with pytest.raises(RuleError) as err:
        for _ in range(10):
            st.apply(st.legal_actions()[0])
            values.append(st.get_var("v"))
    assert values == [4, 16, 256, 65536, 2**32]  # 2**64 is past 10**15
    assert err.value.span.line == 11 and "beyond the bound" in err.value.message


@pytest.mark.parametrize("statement", ["set v = v + v", "set v += v", "let w = v + v\n  set v = w",
                                       "set v = v + 1000 * v", "set v = 2 * (v * sign(v)) + 1",
                                       "set v = v + v * (if v > 0 then 1 else -1)"])
def test_sums_and_stores_are_bounded_too(tmp_path, statement):
    path = rules(tmp_path, f'''var v: int = 1
action grow "grow":
  {statement}
play:
  while true:
    turn 0:
      choose grow
outcome(p):
  score v
''', players="2")
    st = load(path).new_state(seed=1)
    with pytest.raises(RuleError) as err:
        for _ in range(100):
            st.apply(st.legal_actions()[0])
            assert abs(st.get_var("v")) <= MAX_VALUE
    assert "beyond the bound" in err.value.message


@pytest.mark.parametrize("factor, broken", [("v", True), ("sign(v)", False), ("half(v)", False), ("one(v)", True)])
def test_a_product_is_checked_unless_a_factor_is_small(tmp_path, factor, broken):
    # a factor no larger than 1000 whatever the state (a literal, sign(), a function or an
    # "if" giving only such values) cannot make numbers grow out of hand: no check is needed
    path = rules(tmp_path, f'''var v: int = 1000000000
function half(x: int) = if x > 0 then 500 else -500
function one(x: int) = if x > 0 then x else 1
action take "take":
  require v * {factor} > 0
  pass
play:
  turn 0:
    choose take
outcome(p):
  score 0
''', players="2")
    st = load(path).new_state(seed=1)
    if broken:
        with pytest.raises(RuleError) as err:
            st.legal_actions()
        assert "beyond the bound" in err.value.message
    else:
        assert len(st.legal_actions()) == 1


def test_a_score_past_the_bound_is_a_rule_error_not_an_overflow(tmp_path):
    path = rules(tmp_path, '''var v: int = 999999999999
action take "take":
  pass
play:
  turn 0:
    choose take
outcome(p):
  score 1000 * (1000 * v)
''', players="2")
    st = load(path).new_state(seed=1)
    st.apply(st.legal_actions()[0])
    with pytest.raises(RuleError) as err:
        st.returns()
    assert "score" in err.value.message and "beyond the bound" in err.value.message


# ------------------------------------------------------------ ranges of action parameters
def test_a_range_too_wide_to_list_is_a_diagnostic_when_written_out(tmp_path):
    path = rules(tmp_path, '''action pick(i in 1..1000000000000) "pick {i}":
  pass
action fine(i in -5..5) "fine {i}":
  pass
play:
  turn 0:
    choose pick, fine
outcome(p):
  score 0
''', players="2")
    errs = errors(path)
    assert [(e.code, e.span.line) for e in errs] == [("RL116", 9)]
    assert checker_actions.MAX_SEARCH == MAX_SEARCH  # the checker and the runtime agree


@pytest.mark.parametrize("params,last", [("i in 1..v", "i"), ("i in 1..2000, j in 1..v", "j")])
def test_a_range_that_grows_too_wide_is_a_rule_error_naming_the_action(tmp_path, params, last):
    path = rules(tmp_path, f'''var v: int = 3
action pick({params}) "pick":
  require i * 0 + {last} < 0
  pass
action grow "grow":
  set v = 2000000
play:
  while true:
    turn 0:
      choose grow, pick
outcome(p):
  score 0
''', players="2")
    st = load(path).new_state(seed=1)
    assert len(st.legal_actions()) == 1  # only grow: every pick fails its require
    st.apply(st.legal_actions()[0])
    with pytest.raises(RuleError) as err:
        st.legal_actions()
    assert 'action "pick"' in err.value.message and err.value.span.line == 18


def test_can_inside_a_search_shares_its_budget(tmp_path):
    path = rules(tmp_path, '''var v: int = 3
action inner(i in 1..v) "inner":
  require i < 0
  pass
action outer(j in 1..v) "outer":
  require can(inner) == (j > 0)
  pass
action grow "grow":
  set v = 2000
play:
  while true:
    turn 0:
      choose grow, outer
      if can(inner):
        pass
outcome(p):
  score 0
''', players="2")
    st = load(path).new_state(seed=1)
    st.apply(st.legal_actions()[0])  # 2000 outer values, each asking 2000 inner ones: 4,000,000
    with pytest.raises(RuleError) as err:
        st.legal_actions()
    assert 'action "inner"' in err.value.message


# ------------------------------------------------------------ results that cannot be computed
SCORE_GAME = '''action take "take":
  move top(deck) to hand(me)
play:
  turn 0:
    choose take
  end game
outcome(p):
  score 1 / (size(deck) - 1)
'''


@pytest.mark.parametrize("command", [["run"], ["simulate", "-n", "3"]])
def test_run_and_simulate_report_a_score_that_cannot_be_computed(tmp_path, command):
    path = rules(tmp_path, SCORE_GAME, players="2")
    result = cli_run(command[0], path, "--seed", "1", *command[1:])
    assert result.exit_code == 1, result.stderr
    assert "rulerun: rule error: " in result.stderr and ":15:1: " in result.stderr
    assert "division by zero" in result.stderr and "internal error" not in result.stderr


def test_run_reports_a_seat_the_table_lacks(tmp_path):
    result = cli_run("run", rules(tmp_path, SEAT_GAME.format(seat=3)), "--seed", "1")
    assert result.exit_code == 1
    assert "rule error" in result.stderr and "no seat 3" in result.stderr


def test_fuzz_finds_a_score_that_cannot_be_computed(tmp_path):
    report = fuzz(rules(tmp_path, SCORE_GAME, players="2"), examples=5)
    assert any(f.kind == "rule_error" and "score cannot be computed" in f.message and f.where.endswith(":15:1")
               for f in report.findings)


def test_fuzz_out_under_a_file_is_bad_input(tmp_path):
    (tmp_path / "a_file").write_text("")
    result = cli_run("fuzz", rules(tmp_path, SCORE_GAME, players="2"), "--examples", "2",
                     "--out", str(tmp_path / "a_file" / "findings"))
    assert result.exit_code == 2
    assert result.stderr.startswith("rulerun: error: --out ") and "Traceback" not in result.stderr


def test_a_list_that_doubles_stops_at_the_bound_on_lists(tmp_path):
    path = rules(tmp_path, '''var l: list of int = [1]
action grow "grow":
  set l = l + l
play:
  while true:
    turn 0:
      choose grow
outcome(p):
  score size(l)
''', players="2")
    st = load(path).new_state(seed=1)
    sizes = []
    with pytest.raises(RuleError) as err:
        for _ in range(30):
            st.apply(st.legal_actions()[0])
            sizes.append(st.returns()[0])
    assert sizes[-1] == 2**16 and len(sizes) == 16  # the next, 131,072 items, is past 100,000
    assert err.value.span.line == 11 and "bound on lists" in err.value.message


# ------------------------------------------------------------ explore's memory
def test_explore_stops_at_its_memory_bound_and_says_so():
    from pathlib import Path

    from interpreter.explore import explore
    fox = Path(__file__).resolve().parents[2] / "games" / "fox_in_the_henhouse.rules"
    r = explore(fox, 4, max_states=10_000_000, max_memory_mb=40)
    assert r.stopped_by == "max_memory" and not r.complete
    assert 40 <= r.memory_mb < 200 and r.bytes_per_state > 100
    result = cli_run("explore", str(fox), "--players", "4", "--max-states", "10000000", "--max-memory", "40")
    assert result.exit_code == 0, result.stderr
    assert "stopped at the memory bound, 40 MB" in result.stdout and "KB a position" in result.stdout


# ------------------------------------------------------------ work in expressions
def test_generators_nested_over_large_piles_stop_at_the_work_bound(tmp_path):
    path = tmp_path / "nested.rules"
    path.write_text('''game "r"
players 2
cards:
  "A" *1000
zone deck: pile, public
zone hand: pile, per player, public
function many() = sum(sum(sum(1 for a in deck) for b in deck) for c in deck)
action take "take":
  require size(deck) < 990 or many() > 0
  move top(deck) to hand(me)
play:
  repeat 20 times:
    turn 0:
      choose take
outcome(p):
  score sum(sum(1 for a in deck) for b in deck)
''')
    st = load(str(path)).new_state(seed=1)
    with pytest.raises(RuleError) as err:
        st.legal_actions()  # listing the first decision's actions asks many(): 10^9 values
    assert "10,000,000 values" in err.value.message
    # two levels (10^6 values) are within the bound, and the bound is refilled at every decision
    path.write_text(path.read_text().replace("size(deck) < 990 or many() > 0",
                                             "sum(sum(1 for a in deck) for b in deck) > 0"))
    st = load(str(path)).new_state(seed=1)
    for _ in range(20):
        st.apply(st.legal_actions()[0])
    assert st.is_terminal and st.scores() == [980 * 980] * 2


def test_a_rule_error_speaks_the_rules_language_not_python(tmp_path):
    path = rules(tmp_path, '''action take "take":
  move top(deck) to hand(me)
play:
  turn 0:
    choose take
outcome(p):
  score max(size(hand(q)) for q in players if q == 7)
''', players="2")
    st = load(path).new_state(seed=1)
    st.apply(st.legal_actions()[0])
    with pytest.raises(RuleError) as err:
        st.returns()
    assert "max of nothing" in err.value.message and "arg" not in err.value.message


def test_the_api_refuses_a_player_that_is_not_a_seat():
    from pathlib import Path
    fox = Path(__file__).resolve().parents[2] / "games" / "fox_in_the_henhouse.rules"
    st = load(str(fox)).new_state(seed=1, num_players=2)
    for call in (lambda: st.observation(2), lambda: st.observation_text(-1), lambda: st.resample(5, 1),
                 lambda: st.knows(2, 0), lambda: st.observation(True)):
        with pytest.raises(ValueError, match="is not a seat of this 2-player game"):
            call()
    assert st.observation(1) == st.clone().observation(1)  # a seat of the game is answered as before


def test_the_fuzzer_remembers_a_bounded_number_of_positions(tmp_path, monkeypatch):
    import interpreter.fuzz_game as fz
    path = rules(tmp_path, '''action wait "wait":
  pass
play:
  while true:
    turn 0:
      choose wait
outcome(p):
  score 0
''', players="2")
    kinds = ("cycle", "endless")  # (player 2 never deciding is a "seat" finding, not looked for here)
    assert {f.kind for f in fuzz(path, examples=3, max_actions=50, kinds=kinds).findings} == {"cycle"}
    monkeypatch.setattr(fz, "MAX_REMEMBERED", 0)  # past the bound, the game is played on without keeping positions
    assert {f.kind for f in fuzz(path, examples=3, max_actions=50, kinds=kinds).findings} == {"endless"}
