"""Every rulerun command shown in the README and in the commands' --help
runs on a fresh checkout and does what its comment says: the files exist,
the findings are found, the replay file is where the README says."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from interpreter.runner import cli

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list:
    text = (ROOT / "README.md").read_text()
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            if line.startswith("rulerun "):
                out.append(line)
    return out


def help_commands() -> list:
    out = []
    for name, cmd in sorted(cli.commands.items()):
        for line in (cmd.help or "").splitlines():
            line = line.strip()
            if line.startswith("rulerun ") and ".rules" in line:
                out.append(line)
    for line in (cli.help or "").splitlines():
        line = line.strip()
        if line.startswith("rulerun ") and ".rules" in line:
            out.append(line)
    return out


# What some commands promise, beyond running: (exit code, text in the output).
PROMISES = {
    "rulerun fuzz examples/last_card_stuck.rules --out findings/": (1, "dead_state"),
    "rulerun replay findings/last_card_stuck-dead_state-2p-0.json": (1, "reproduced"),
    "rulerun explore examples/last_card.rules": (0, "proved: none of the"),
    "rulerun diff examples/last_card.rules examples/last_card_high.rules": (1, "they differ"),
    "rulerun fuzz games/desplumados.rules": (1, "cycle"),
    "rulerun check games/emu_ranchers.rules": (0, "ok"),
    "rulerun replay last_card.jsonl": (0, "the same game"),
}


def run_in(tmp_path, monkeypatch, line):
    """Run ``line`` from a folder that holds the project's games and examples (so that
    --out findings/ writes there, not into the checkout)."""
    for name in ("games", "examples"):
        link = tmp_path / name
        if not link.exists():
            link.symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(cli, shlex.split(line)[1:], catch_exceptions=False)


def interactive(line) -> bool:
    return shlex.split(line)[1] == "play"


def test_the_readme_shows_the_example_commands():
    lines = readme_commands()
    assert set(PROMISES) <= set(lines), set(PROMISES) - set(lines)


def test_the_readme_commands_do_what_they_say(tmp_path, monkeypatch):
    for line in readme_commands():  # in order: the fuzz writes the replay file the next line reads
        if interactive(line):
            continue
        result = run_in(tmp_path, monkeypatch, line)
        code, text = PROMISES.get(line, (0, ""))
        assert result.exit_code == code, f"{line}\n{result.output}"
        assert text in result.output, f"{line}\n{result.output}"
        assert "Traceback" not in result.output


@pytest.mark.parametrize("line", [x for x in dict.fromkeys(help_commands()) if not interactive(x)])
def test_the_help_examples_run(tmp_path, monkeypatch, line):
    if "findings/" in line and " replay " in f" {line} ":
        run_in(tmp_path, monkeypatch, "rulerun fuzz examples/last_card_stuck.rules --out findings/")
    if line.endswith(".jsonl") and " replay " in f" {line} ":
        run_in(tmp_path, monkeypatch, "rulerun examples/last_card.rules --seed 3 --log last_card.jsonl")
    result = run_in(tmp_path, monkeypatch, line)
    assert result.exit_code in (0, 1), f"{line}\n{result.output}"  # 1: a finding, a difference
    assert result.output.strip() and "Traceback" not in result.output, line
    assert "error" not in result.output.splitlines()[0].lower() or "rule error" in result.output, result.output
