"""The ``rulerun`` command line (interpreter.runner) and the random bot."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from interpreter import load
from interpreter.agents import RandomAgent
from interpreter.runner import cli, make_agents

ROOT = Path(__file__).resolve().parents[2]
EMU = str(ROOT / "games" / "emu_ranchers.rules")
ACTION_LINE = re.compile(r"^ {0,3}(\d+)  P([12]): \S.*$")

from snippets import DEAD_RULES  # noqa: E402 - a rules text shared with test_play.py


def dead_rules():
    return DEAD_RULES.replace("{extra}", "").replace("{choices}", "")


def tie_rules():
    return (DEAD_RULES.replace('"Dead End"', '"Tie"')
            .replace("{extra}", '\naction go "go on":\n  pass\n')
            .replace("{choices}", ", go"))


def make_runner():
    try:
        return CliRunner(mix_stderr=False)  # click 8.1
    except TypeError:
        return CliRunner()  # click >= 8.2 keeps stderr apart


def invoke(*args):
    return make_runner().invoke(cli, list(args), prog_name="rulerun")


def assert_one_line_error(result, code=2, *fragments):
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("rulerun: error: "), lines[0]
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    assert "Traceback" not in result.stderr + result.stdout


def action_lines(stdout):
    return [ln for ln in stdout.splitlines() if ACTION_LINE.match(ln)]


# ---------------------------------------------------------------- check
def test_check_ok():
    r = invoke("check", EMU)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.strip() == f"{EMU}: ok"


def test_check_broken_copy_reports_file_line_col(tmp_path):
    text = Path(EMU).read_text(encoding="utf-8")
    assert "require follows(b, c.rank)" in text
    bad = tmp_path / "broken.rules"
    bad.write_text(text.replace("require follows(b, c.rank)", "require folows(b, c.rank)"), encoding="utf-8")
    line = next(i for i, ln in enumerate(bad.read_text().splitlines(), 1) if "folows" in ln)
    r = invoke("check", str(bad))
    assert r.exit_code == 1
    assert f"{bad}:{line}:11: error:" in r.stderr
    assert "[RL101]" in r.stderr and "folows" in r.stderr
    assert "ok" not in r.stdout
    # running or simulating it prints the same diagnostics and exits 1
    for args in (["run", str(bad)], [str(bad)], ["simulate", str(bad), "-n", "2"]):
        r2 = invoke(*args)
        assert r2.exit_code == 1
        assert f"{bad}:{line}:11: error:" in r2.stderr
        assert "Traceback" not in r2.stderr


# ---------------------------------------------------------------- run
def test_run_plays_to_the_end_and_matches_a_replay():
    r = invoke(EMU, "--seed", "5")
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    assert out.startswith("Emu Ranchers")
    assert "players: 2  seed: 5" in out
    assert "years=4" in out and "excuse=false" in out
    lines = action_lines(out)
    assert [int(ACTION_LINE.match(ln).group(1)) for ln in lines] == list(range(1, len(lines) + 1))
    m = re.search(r"^game over after (\d+) actions$", out, re.M)
    assert m and int(m.group(1)) == len(lines) > 50
    scores = [int(s) for s in re.search(r"^scores: P1 (-?\d+), P2 (-?\d+)$", out, re.M).groups()]
    winner = re.search(r"^winners?: (.*)$", out, re.M).group(1)

    # the same game, replayed through the API with the same bots
    state = load(EMU).new_state(5, 2)
    bots = make_agents(5, 2)
    texts = []
    while not state.is_terminal:
        p = state.current_player
        a = bots[p].choose(state.legal_actions())
        texts.append(f"P{p + 1}: {state.action_text(a)}")
        state.apply(a)
    assert [ln.split("  ", 2)[-1] for ln in (x.strip() for x in lines)] == texts
    assert scores == list(state.scores())
    expected = ", ".join(f"P{w + 1}" for w in state.winners())
    assert winner.startswith(expected)
    assert all(scores[w] == max(scores) for w in state.winners())


def test_same_seed_same_output_and_run_alias():
    a = invoke(EMU, "--seed", "11")
    b = invoke(EMU, "--seed", "11")
    c = invoke("run", EMU, "--seed", "11")
    d = invoke(EMU, "--seed", "12")
    assert a.exit_code == b.exit_code == c.exit_code == d.exit_code == 0
    assert a.stdout == b.stdout == c.stdout
    assert action_lines(a.stdout) != action_lines(d.stdout)


def test_quiet_prints_no_actions_but_the_result():
    loud = invoke(EMU, "--seed", "3")
    quiet = invoke(EMU, "--seed", "3", "--quiet")
    assert quiet.exit_code == 0
    assert action_lines(quiet.stdout) == []
    tail = lambda s: s.strip().splitlines()[-3:]  # noqa: E731
    assert tail(quiet.stdout) == tail(loud.stdout)
    assert tail(quiet.stdout)[0].startswith("game over after ")


def test_set_params_take_effect():
    r = invoke(EMU, "--seed", "4", "--set", "excuse=true", "--set", "years=1", "-q")
    assert r.exit_code == 0, r.stderr
    assert "excuse=true" in r.stdout and "years=1" in r.stdout
    one_year = int(re.search(r"game over after (\d+) actions", r.stdout).group(1))
    four = invoke(EMU, "--seed", "4", "-q")
    four_years = int(re.search(r"game over after (\d+) actions", four.stdout).group(1))
    assert one_year < four_years / 2


@pytest.mark.parametrize("args, fragments", [
    (["--set", "nosuch=1"], ['unknown parameter "nosuch"']),
    (["--set", "years=0"], ["years", "1..20"]),
    (["--set", "years=many"], ["years", "number"]),
    (["--set", "excuse"], ["--set", "NAME=VALUE"]),
    (["--players", "3"], ["2 players", "3"]),
    (["--seed", "x"], ["--seed"]),
])
def test_bad_input_is_one_line_exit_2(args, fragments):
    assert_one_line_error(invoke(EMU, *args), 2, *fragments)


def test_bad_files_exit_2(tmp_path):
    assert_one_line_error(invoke(str(tmp_path / "nosuch.rules")), 2, "nosuch.rules", "does not exist")
    assert_one_line_error(invoke("check", str(tmp_path / "nosuch.rules")), 2, "does not exist")
    assert_one_line_error(invoke(str(tmp_path)), 2, "directory")


def test_dead_state_and_shared_win(tmp_path):
    dead = tmp_path / "dead.rules"
    dead.write_text(dead_rules(), encoding="utf-8")
    assert invoke("check", str(dead)).exit_code == 0
    r = invoke(str(dead), "--seed", "1")
    assert r.exit_code == 1
    assert r.stderr.strip() == ("rulerun: dead state: the game is not over after 0 actions, "
                                "but P1 has no legal action (game seed 1)")

    tie = tmp_path / "tie.rules"
    tie.write_text(tie_rules(), encoding="utf-8")
    r = invoke(str(tie), "--seed", "1")
    assert r.exit_code == 0, r.stderr
    assert "   1  P1: go on" in r.stdout
    assert "winners: P1, P2 (shared win)" in r.stdout
    r = invoke("simulate", str(tie), "-n", "3", "--json")
    assert json.loads(r.stdout)["wins_per_seat"] == [1.5, 1.5]


def test_rule_error_at_play_time(tmp_path):
    text = Path(EMU).read_text(encoding="utf-8")
    bad = tmp_path / "overdeal.rules"
    bad.write_text(text.replace("deal hand_size from", "deal hand_size + 30 from"), encoding="utf-8")
    r = invoke(str(bad), "--seed", "1")
    assert r.exit_code == 1
    assert r.stderr.startswith("rulerun: rule error: ")
    assert "cannot deal 36 cards" in r.stderr
    assert "Traceback" not in r.stderr


def test_keyboard_interrupt_exits_130(monkeypatch):
    import interpreter.game as game  # where the commands load games from (imported when needed)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(game, "load", interrupted)
    r = invoke(EMU, "--seed", "1")
    assert r.exit_code == 130
    assert "rulerun: interrupted" in r.stderr
    assert "Traceback" not in r.stderr


# ---------------------------------------------------------------- simulate, params, help
def test_simulate_json():
    r = invoke("simulate", EMU, "-n", "20", "--seed", "7", "--json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert set(data) == {"games", "players", "seed", "mean_actions", "wins_per_seat", "mean_scores",
                         "capped", "achievements", "games_per_s", "params", "interrupted", "seats",
                         "shared_wins", "no_winner", "length", "turns", "actions_used", "triggers", "records", "never_ran"}
    assert data["games"] == 20 and data["players"] == 2 and data["seed"] == 7
    assert len(data["wins_per_seat"]) == len(data["mean_scores"]) == 2
    assert sum(data["wins_per_seat"]) == pytest.approx(20)
    assert data["mean_actions"] > 50 and data["games_per_s"] > 0
    assert data["params"]["years"] == 4 and data["params"]["excuse"] is False
    # reproducible from the seed: game 1 of seed 7 is game 0 of seed 8
    r8 = invoke("simulate", EMU, "-n", "19", "--seed", "8", "--json")
    r7 = invoke("simulate", EMU, "-n", "1", "--seed", "7", "--json")
    d8, d7 = json.loads(r8.stdout), json.loads(r7.stdout)
    total = [a * 19 + b for a, b in zip(d8["mean_scores"], d7["mean_scores"])]
    assert total == pytest.approx([s * 20 for s in data["mean_scores"]])


def test_simulate_text_and_bad_n():
    r = invoke("simulate", EMU, "-n", "3", "--seed", "1", "--set", "years=1")
    assert r.exit_code == 0, r.stderr
    assert "3 games, 2 players, seeds 1..3" in r.stdout
    assert "years=1" in r.stdout
    # wins, win share and its interval, mean score and its interval
    assert re.search(r"^P1\s+\d+\.\d\d\s+\d+\.\d%\s+\[\d+\.\d, \d+\.\d\]\s+-?\d+\.\d\d\s+"
                     r"\[-?\d+\.\d\d, -?\d+\.\d\d\]\s*$", r.stdout, re.M), r.stdout
    assert "games/s" in r.stdout
    assert_one_line_error(invoke("simulate", EMU, "-n", "0"), 2, "-n")
    assert_one_line_error(invoke("simulate", EMU), 2, "--games")


def test_params_lists_declared_parameters():
    r = invoke("params", EMU)
    assert r.exit_code == 0, r.stderr
    rows = {ln.split()[0]: ln.split()[1:4] for ln in r.stdout.splitlines()[2:] if ln.strip()}
    assert rows["years"] == ["param", "int", "4"]
    assert rows["excuse"] == ["option", "bool", "false"]
    assert set(rows) == {"name", "excuse", "pawns", "courts", "years", "upkeep", "hand_size"}


def test_params_shows_the_values_under_settings():
    r = invoke("params", EMU, "--set", "years=2", "--set", "excuse=true")
    assert r.exit_code == 0, r.stderr
    rows = {ln.split()[0]: ln.split()[1:4] for ln in r.stdout.splitlines()[2:] if ln.strip()}
    assert rows["name"][2] == "value" and rows["years"] == ["param", "int", "2"]
    assert rows["excuse"] == ["option", "bool", "true"] and rows["upkeep"][2] == "18"
    r = invoke("params", EMU, "--set", "years=99")
    assert r.exit_code == 2 and "years" in r.stderr


def test_help():
    r = invoke("--help")
    assert r.exit_code == 0
    assert "rulerun FILE" in r.stdout
    for command in ("check", "run", "simulate", "params"):
        assert re.search(rf"^\s+{command}\s+\S", r.stdout, re.M), command
    for command in ("check", "run", "simulate", "params"):
        sub = invoke(command, "--help")
        assert sub.exit_code == 0 and "Example" in sub.stdout


# ---------------------------------------------------------------- the bot
def test_random_agent_is_seeded_and_uniform():
    legal = [(0, i) for i in range(4)]
    a, b = RandomAgent(3), RandomAgent(3)
    picks = [a.choose(legal) for _ in range(400)]
    assert picks == [b.choose(legal, {"player": 0}) for _ in range(400)]
    assert set(picks) == set(legal)
    assert all(60 < picks.count(x) < 140 for x in legal)
    assert picks != [RandomAgent(4).choose(legal) for _ in range(400)]


# ---------------------------------------------------------------- a real process
def test_real_subprocess():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    ok = subprocess.run([sys.executable, "-m", "interpreter.runner", EMU, "--seed", "2", "-q"],
                        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert re.search(r"^winners?: P[12]", ok.stdout, re.M)
    bad = subprocess.run([sys.executable, "-m", "interpreter.runner", EMU, "--set", "nosuch=1"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.startswith("rulerun: error: unknown parameter") and "Traceback" not in bad.stderr
    assert bad.stdout == ""


def test_help_does_not_load_the_parser():
    """``rulerun --help`` answers without importing the parser, the compiler or rich
    (lazy imports keep it quick)."""
    import subprocess
    import sys
    code = ("import sys; from interpreter.runner import cli\n"
            "try:\n    cli.main(args=['--help'], prog_name='rulerun')\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('lark', 'rulelang.parser', 'interpreter.compiler', 'rich') if m in sys.modules]\n"
            "print('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "Check, play and simulate" in out
    assert "HEAVY []" in out


def test_the_console_script_keeps_regex_out_and_a_library_does_not(tmp_path):
    """``rulerun`` blocks the optional ``regex`` module in its own process
    (Lark then goes without it); a program that imports rulelang does not."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(ROOT), RULELANG_NO_CACHE="1")
    script = ("import sys\nfrom interpreter.cli import main\n"
              f"try:\n    main(['check', {str(ROOT / 'games' / 'hens.rules')!r}])\nexcept SystemExit:\n    pass\n"
              "print('REGEX', 'regex' in sys.modules and sys.modules['regex'] is None, 'lark' in sys.modules)")
    library = ("import sys, rulelang\n"
               f"rulelang.check_file({str(ROOT / 'games' / 'hens.rules')!r})\n"
               "print('REGEX', 'regex' in sys.modules and sys.modules['regex'] is None, 'lark' in sys.modules)")
    out = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
           for code in (script, library)]
    assert out[0].returncode == 0 and "hens.rules: ok" in out[0].stdout, out[0].stderr
    assert "REGEX True True" in out[0].stdout
    assert out[1].returncode == 0 and "REGEX False True" in out[1].stdout, out[1].stderr


def test_a_mistyped_command_is_answered_with_the_nearest_one():
    result = CliRunner().invoke(cli, ["simulat", "games/emu_ranchers.rules"])
    assert result.exit_code == 2
    assert "did you mean 'rulerun simulate'" in result.output and "does not exist" not in result.output
    # a file name stays a file name, even when it does not exist
    result = CliRunner().invoke(cli, ["nosuchfile.rules"])
    assert result.exit_code == 2 and "does not exist" in result.output


def test_version():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("rulerun ") and result.output.strip() != "rulerun"


def test_check_takes_set(tmp_path):
    rules = tmp_path / "gated.rules"
    rules.write_text((ROOT / "examples" / "last_card.rules").read_text().replace(
        'game "Last Card"', 'game "Last Card"\noption open: bool = false "the table is open"').replace(
        "        choose play_card, draw, pass_turn", "        if open:\n          choose play_card, draw, pass_turn\n"
        "        else:\n          choose play_card, draw, pass_turn"))
    lines = rules.read_text().splitlines()
    first, second = [i + 1 for i, line in enumerate(lines) if line.strip() == "choose play_card, draw, pass_turn"]
    plain = CliRunner().invoke(cli, ["check", str(rules)])
    assert plain.exit_code == 0 and f"gated.rules:{first}:11: warning: this choice can never be reached" in plain.output
    opened = CliRunner().invoke(cli, ["check", str(rules), "--set", "open=true"])
    assert opened.exit_code == 0 and f"gated.rules:{second}:11: warning: this choice can never be reached" \
        in opened.output and f"gated.rules:{first}:" not in opened.output
    assert CliRunner().invoke(cli, ["check", str(rules), "--set", "opne=true"]).exit_code == 2
