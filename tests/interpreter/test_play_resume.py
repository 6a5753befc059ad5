"""``rulerun play`` saves every game as it goes, and ``--resume`` goes on
with it: a game stopped by quit, the end of input or a closed terminal
loses no move."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from interpreter.gamelog import read_log
from interpreter.runner import cli

ROOT = Path(__file__).resolve().parents[2]
LAST_CARD = str(ROOT / "examples" / "last_card.rules")
FOX = str(ROOT / "games" / "fox_in_the_henhouse.rules")


def invoke(*args, input=""):
    try:
        runner = CliRunner(mix_stderr=False)  # click 8.1
    except TypeError:
        runner = CliRunner()
    return runner.invoke(cli, list(args), input=input, prog_name="rulerun")


def steps(path):
    header, actions, end = read_log(path)
    return header, [text for _, text, _ in actions], end


def test_a_game_stopped_halfway_goes_on_where_it_stopped(tmp_path):
    save = tmp_path / "game.jsonl"
    first = invoke("play", FOX, "--players", "3", "--seed", "5", "--save", str(save), input="1\n1\nquit\n")
    assert first.exit_code == 0, first.stdout + first.stderr
    assert f"saving to {save}" in first.stdout and f"--resume {save}" in first.stdout
    header, before, end = steps(save)
    assert end is None and header["humans"] == [1] and header["bots"] == ["human", "random", "random"]
    assert header["seed"] == 5 and len(before) >= 2  # the two moves of P1, and the bots' between them

    second = invoke("play", "--resume", str(save), input="1\n" * 400)
    assert second.exit_code == 0, second.stdout + second.stderr
    assert f"resumed after {len(before)} actions" in second.stdout and "Game over" in second.stdout
    header2, after, end = steps(save)
    assert header2 == header and after[:len(before)] == before and len(after) > len(before)
    assert end is not None and end["winners"]
    # the saved game is one whole game: replaying it checks every step
    replayed = invoke("replay", str(save))
    assert replayed.exit_code == 0 and "the same game" in replayed.stdout, replayed.stdout


def test_the_default_save_is_in_the_state_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    r = invoke("play", LAST_CARD, "--seed", "1", input="quit\n")
    assert r.exit_code == 0
    saved = list((tmp_path / "rulelang" / "saves").glob("last_card-*.jsonl"))
    assert len(saved) == 1 and f"saving to {saved[0]}" in r.stdout
    r = invoke("play", LAST_CARD, "--seed", "1", "--no-save", input="quit\n")
    assert "saving" not in r.stdout and len(list((tmp_path / "rulelang" / "saves").iterdir())) == 1


def test_a_save_cut_off_mid_line_resumes_from_its_last_whole_move(tmp_path):
    save = tmp_path / "cut.jsonl"
    invoke("play", LAST_CARD, "--seed", "3", "--save", str(save), input="1\n1\nquit\n")
    header, before, _ = steps(save)
    with open(save, "a", encoding="utf-8") as f:
        f.write('{"step": %d, "seat": 1, "act' % (len(before) + 1))  # the terminal closed while writing
    r = invoke("play", "--resume", str(save), input="1\n" * 50)
    assert r.exit_code == 0, r.stdout + r.stderr
    header, after, end = steps(save)  # read strictly: no cut-off line is left
    assert after[:len(before)] == before and end is not None


def test_what_resume_refuses(tmp_path):
    save = tmp_path / "g.jsonl"
    invoke("play", LAST_CARD, "--seed", "2", "--save", str(save), input="1\n" * 50)
    assert steps(save)[2] is not None
    r = invoke("play", "--resume", str(save))
    assert r.exit_code == 2 and "is over" in r.stderr and "rulerun replay" in r.stderr
    r = invoke("play", "--resume", str(save), "--seed", "3")
    assert r.exit_code == 2 and "--resume takes" in r.stderr
    r = invoke("play")
    assert r.exit_code == 2 and "--resume" in r.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a log\n", encoding="utf-8")
    r = invoke("play", "--resume", str(bad))
    assert r.exit_code == 2 and "bad.jsonl:1" in r.stderr and "Traceback" not in r.stderr


def test_a_save_the_rules_no_longer_fit_says_where(tmp_path):
    rules = tmp_path / "last_card.rules"
    rules.write_text(Path(LAST_CARD).read_text(encoding="utf-8"), encoding="utf-8")
    save = tmp_path / "g.jsonl"
    invoke("play", str(rules), "--seed", "2", "--save", str(save), input="1\n1\nquit\n")
    _, before, _ = steps(save)
    assert "draw" in before
    rules.write_text(rules.read_text(encoding="utf-8").replace('action draw "draw"', 'action draw "take a card"'),
                     encoding="utf-8")
    r = invoke("play", "--resume", str(save))
    assert r.exit_code == 1 and "no longer fits the rules" in r.stderr and "'draw'" in r.stderr
    assert "has changed since the game was saved" in r.stderr


def test_a_save_names_its_seats_in_the_header(tmp_path):
    save = tmp_path / "g.jsonl"
    invoke("play", FOX, "--players", "3", "--human", "2", "--bot", "3=greedy:2", "--seed", "1",
           "--save", str(save), input="quit\n")
    header = json.loads(save.read_text(encoding="utf-8").splitlines()[0])
    assert header["bots"] == ["random", "human", "greedy:2"] and header["humans"] == [2]
    assert os.path.basename(header["rules"]) == "fox_in_the_henhouse.rules"
