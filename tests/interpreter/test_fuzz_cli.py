"""The fuzzing commands of rulerun: fuzz, replay, explore, and check's static warnings."""

import json
from pathlib import Path

from click.testing import CliRunner

from interpreter.runner import cli

ROOT = Path(__file__).resolve().parents[2]

# After four plays the table holds 4 cards; a player whose hand and the deck
# are empty then has nothing to do: a dead state, reached only by some orders.
DEAD = '''game "Dead"
players 2
card attributes: n: int
cards:
  "A" 1
  "B" 2
  "C" 3
  "D" 4
zone deck: pile, hidden
zone hand: pile, per player, owner
zone table: pile, public
player var score: int = 0
action lay(c in hand(me)) "play {c}":
  require c.n != 4 or size(table) < 2
  move c to table
action draw "draw":
  require not empty(deck)
  move top(deck) to hand(me)
play:
  shuffle deck
  for p in players:
    deal 1 from deck to hand(p)
  repeat 4 times:
    for p in players:
      turn p:
        choose lay, draw
outcome(p):
  score score(p)
'''

# The same game, but a player with nothing to do may pass.
FIXED = DEAD.replace('''action draw "draw":''', '''action wait "wait":
  pass

action draw "draw":''').replace("choose lay, draw", "choose lay, draw, wait")


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_fuzz_finds_the_dead_state_and_saves_a_replay(tmp_path):
    rules = write(tmp_path, "dead.rules", DEAD)
    out = tmp_path / "findings"
    r = run("fuzz", rules, "--examples", "60", "--out", str(out))
    assert r.exit_code == 1, r.output
    assert "dead_state: player" in r.output
    assert "dead.rules:26:9" in r.output  # the choice that offers nothing
    files = list(out.glob("*.json"))
    assert len(files) == 1
    # the replay reproduces the finding and shows the whole state
    r = run("replay", str(files[0]))
    assert r.exit_code == 1, r.output
    assert "reproduced: dead_state" in r.output
    assert "table:" in r.output and "hand (P1):" in r.output
    # against the fixed rules, the same actions no longer get stuck
    fixed = write(tmp_path, "fixed.rules", FIXED)
    r = run("replay", str(files[0]), "--rules", fixed)
    assert r.exit_code == 0, r.output
    assert "not reproduced" in r.output


def test_fuzz_json_and_a_clean_game(tmp_path):
    rules = write(tmp_path, "fixed.rules", FIXED)
    r = run("fuzz", rules, "--examples", "30", "--json")
    assert r.exit_code == 0, r.output
    report = json.loads(r.output)
    assert report["ok"] is True and report["findings"] == []
    assert report["games"] >= 30 and report["actions"] > 0
    kinds = {c["kind"] for c in report["coverage"]}
    assert {"action", "choose"} <= kinds


def test_fuzz_bad_input_is_a_one_line_error(tmp_path):
    rules = write(tmp_path, "fixed.rules", FIXED)
    for args in (["--players", "3"], ["--players", "many"], ["--vary", "nosuch"], ["--set", "nosuch=1"]):
        r = CliRunner().invoke(cli, ["fuzz", rules, "--examples", "5", *args])
        assert r.exit_code == 2, (args, r.output)
        assert r.output.strip().startswith("rulerun: error:") or "Error:" in r.output
        assert "Traceback" not in r.output


def test_replay_rejects_corrupt_files(tmp_path):
    bad = write(tmp_path, "bad.json", "{not json")
    r = CliRunner().invoke(cli, ["replay", bad])
    assert r.exit_code == 2 and "not a replay file" in r.output
    other = write(tmp_path, "other.json", json.dumps({"rulelang_replay": 1, "rules": "x.rules"}))
    r = CliRunner().invoke(cli, ["replay", other])
    assert r.exit_code == 2 and "missing or malformed" in r.output
    rules = write(tmp_path, "dead.rules", DEAD)
    wrong = write(tmp_path, "wrong.json", json.dumps({"rulelang_replay": 1, "rules": rules, "finding": {
        "kind": "dead_state", "message": "m", "players": 2, "params": {}, "seed": 0,
        "actions": ["no such action"]}}))
    r = CliRunner().invoke(cli, ["replay", wrong])
    assert r.exit_code == 1 and "does not fit these rules" in r.output


def test_explore_proves_the_fixed_game_and_finds_the_dead_state(tmp_path):
    r = run("explore", write(tmp_path, "fixed.rules", FIXED))
    assert r.exit_code == 0, r.output
    assert "proved: none of the" in r.output
    r = run("explore", write(tmp_path, "dead.rules", DEAD), "--json")
    assert r.exit_code == 1
    report = json.loads(r.output)
    assert report["complete"] and report["dead_states"]
    assert all(p[-1].startswith("P") for p in report["dead_states"])  # paths end with a move


def test_check_reports_static_warnings(tmp_path):
    text = DEAD.replace('''action draw "draw":
  require not empty(deck)''', '''action draw "draw":
  require 1 > 2''')
    rules = write(tmp_path, "static.rules", text)
    r = run("check", rules)
    assert r.exit_code == 0
    assert "RL202" in r.stderr and "static.rules:17:3" in r.stderr  # warnings go to stderr
    assert "ok (1 warning)" in r.stdout


def test_real_games_have_no_static_warnings():
    for name in ("emu_ranchers", "fox_in_the_henhouse", "desplumados", "hens"):
        r = run("check", str(ROOT / "games" / f"{name}.rules"))
        assert r.exit_code == 0
        assert r.output.strip().endswith(": ok"), r.output


def test_fuzz_time_limit(tmp_path):
    path = write(tmp_path, "fixed.rules", FIXED)
    result = run("fuzz", path, "--time", "0.5", "--json")
    data = json.loads(result.output)
    assert result.exit_code == 0 and data["out_of_time"] is True and data["games"] > 10
    bad = CliRunner().invoke(cli, ["fuzz", path, "--time", "0"])
    assert bad.exit_code == 2 and "--time" in bad.output


FLAG = (Path(__file__).parent / "flag_never_set.rules").read_text()


def test_check_names_a_flag_that_is_never_set_and_the_choice_it_hides(tmp_path):
    rules = write(tmp_path, "flag.rules", FLAG)
    r = run("check", rules)
    assert r.exit_code == 0 and "ok (3 warnings)" in r.stdout
    assert '"bonus_ready" is never set to anything but false' in r.stderr and "RL205" in r.stderr
    assert "flag.rules:27:11: warning: this choice can never be reached: claim [RL201]" in r.stderr
    # "other" is set true by wait: nothing is said of it
    assert '"other"' not in r.stderr
    # once the flag can be set true, the choice is reachable and nothing is said
    fixed = write(tmp_path, "fixed.rules", FLAG.replace("  set bonus_ready = false", "  set bonus_ready = true"))
    r = run("check", fixed)
    assert r.exit_code == 0 and "warning" not in r.stderr, r.stderr


def test_a_flag_set_only_to_its_initial_value_in_a_player_variable(tmp_path):
    text = FLAG.replace("var bonus_ready: bool = false", "player var bonus_ready: bool = false") \
        .replace("set bonus_ready = false", "set bonus_ready(me) = false").replace("if bonus_ready and", "if bonus_ready(p) and") \
        .replace("if other or bonus_ready:", "if other or bonus_ready(p):")
    r = run("check", write(tmp_path, "pflag.rules", text))
    assert "RL205" in r.stderr and "this choice can never be reached: claim" in r.stderr, r.stderr
