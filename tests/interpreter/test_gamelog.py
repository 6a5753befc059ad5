"""Game logs: rulerun FILE --log writes one game as JSON Lines; rulerun
replay LOG plays it again, checks every step, and names the first that no
longer fits, or the line of a log it cannot read."""

import json
from pathlib import Path

from click.testing import CliRunner

from interpreter.gamelog import LogError, read_log
from interpreter.runner import cli

ROOT = Path(__file__).resolve().parents[2]
GAME = str(ROOT / "examples" / "last_card.rules")


def run(*args):
    return CliRunner().invoke(cli, list(args))


def write_log(tmp_path, seed=3, rules=GAME, *extra):
    log = tmp_path / "game.jsonl"
    result = run(rules, "--seed", str(seed), "--log", str(log), "--quiet", *extra)
    assert result.exit_code == 0, result.output
    return log


def test_a_log_holds_the_game_and_replays_the_same(tmp_path):
    log = write_log(tmp_path)
    header, actions, end = read_log(log)
    assert header["seed"] == 3 and header["players"] == 2 and header["rules"] == GAME
    assert len(header["sha256"]) == 64 and header["bots"] == ["random", "random"]
    assert [seat for seat, _, _ in actions][:4] == [1, 2, 1, 2] and end["end"] is True
    result = run("replay", str(log))
    assert result.exit_code == 0 and "the same game" in result.output, result.output
    # the printed game and the log agree, action by action
    printed = run(GAME, "--seed", "3").output
    for k, (seat, text, _) in enumerate(actions, 1):
        assert f"{k:4d}  P{seat}: {text}" in printed


def test_parameters_are_logged_and_used(tmp_path):
    text = (ROOT / "examples" / "last_card.rules").read_text().replace(
        'game "Last Card"', 'game "Last Card"\nparam rounds: int in 1..9 = 4 "rounds"').replace(
        "repeat 4 times:", "repeat rounds times:")
    rules = tmp_path / "rounds.rules"
    rules.write_text(text)
    log = write_log(tmp_path, 5, str(rules), "--set", "rounds=2")
    header, actions, _ = read_log(log)
    assert header["params"] == {"rounds": "2"} and len(actions) <= 2 * 2
    assert run("replay", str(log)).exit_code == 0
    # replayed with a setting changed: a third round means the game does not end where the log does
    changed = run("replay", str(log), "--set", "rounds=3")
    assert changed.exit_code == 1 and "the log says it ended" in changed.output, changed.output
    assert run("replay", str(log), "--set", "nope=1").exit_code == 2


def test_changed_rules_are_reported_at_the_first_step_that_no_longer_fits(tmp_path):
    log = write_log(tmp_path)
    result = run("replay", str(log), "--rules", str(ROOT / "examples" / "last_card_stuck.rules"))  # no pass
    assert result.exit_code == 1 and "no longer fits these rules" in result.output, result.output
    assert "game.jsonl:" in result.output  # names the log's line


def test_a_corrupt_or_truncated_log_gets_a_clear_error(tmp_path):
    log = write_log(tmp_path)
    lines = log.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:3]) + "\n")
    result = run("replay", str(cut))
    assert result.exit_code == 0 and "cut short" in result.output
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines[:2] + ['{"step": 2, "seat"'] + lines[3:]) + "\n")
    result = run("replay", str(broken))
    assert result.exit_code == 2 and "broken.jsonl:3: not a line of a game log" in result.output
    skipped = tmp_path / "skipped.jsonl"
    skipped.write_text("\n".join(lines[:2] + lines[3:]) + "\n")
    result = run("replay", str(skipped))
    assert result.exit_code == 2 and "skipped.jsonl:3: expected step 2" in result.output
    bad_header = tmp_path / "header.jsonl"
    header = json.loads(lines[0])
    header["seed"] = "three"
    bad_header.write_text(json.dumps(header) + "\n")
    result = run("replay", str(bad_header))
    assert result.exit_code == 2 and "'seed' is missing or malformed" in result.output
    assert "Traceback" not in result.output


def test_a_result_that_differs_is_reported(tmp_path):
    log = write_log(tmp_path)
    lines = log.read_text().splitlines()
    end = json.loads(lines[-1])
    end["scores"] = [99, 99]
    log.write_text("\n".join(lines[:-1] + [json.dumps(end)]) + "\n")
    result = run("replay", str(log))
    assert result.exit_code == 1 and "not [99, 99]" in result.output


def test_read_log_refuses_what_is_not_a_log(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"hello": 1}\n')
    try:
        read_log(p)
    except LogError as e:
        assert "x.jsonl:1: not a rulelang game log" in str(e)
    else:  # pragma: no cover
        raise AssertionError("read_log accepted a file that is not a log")
