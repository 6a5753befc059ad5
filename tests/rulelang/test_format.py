"""The formatter (rulelang/format.py, ``rulerun fmt``): a canonical layout
that keeps every word and comment, is idempotent, and never changes what a
file means; the files of games/ and examples/ are kept in it."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulelang
from interpreter.game import load
from interpreter.runner import cli
from rulelang.format import format_text, same_words

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(p for p in ROOT.glob("**/*.rules") if ".git" not in p.parts and "regressions" not in p.parts)
KEPT = sorted([*ROOT.glob("games/*.rules"), *ROOT.glob("games/variants/*.rules"), *ROOT.glob("examples/*.rules")])


def ast(text, name="x.rules"):
    module, diags = rulelang.parse(text, name)
    assert module is not None, [d.render(text) for d in diags]
    return repr(module.items)  # spans are left out of a node's repr


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_formatting_keeps_the_words_and_the_meaning_and_is_idempotent(path):
    text = path.read_text(encoding="utf-8")
    once = format_text(text)
    assert format_text(once) == once
    assert same_words(text, once)
    for comment in re.findall(r"#[^\n]*", text):
        assert comment.rstrip() in once
    if rulelang.parse(text, "x")[0] is not None:
        assert ast(once) == ast(text)


@pytest.mark.parametrize("path", KEPT, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_project_s_rules_files_are_formatted(path):
    text = path.read_text(encoding="utf-8")
    assert format_text(text) == text, f"rulerun fmt --write {path.relative_to(ROOT)}"


def mess_up(text: str, rng) -> str:
    """The same file as someone else might type it: four spaces a level,
    words spaced anyhow, blank lines doubled, spaces at line ends (strings
    and comments untouched)."""
    out = []
    for line in text.split("\n"):
        indent = len(line) - len(line.lstrip(" "))
        body = line[indent:]
        parts = re.split(r'("[^"\n]*"|#.*$)', body)
        for k in range(0, len(parts), 2):  # outside strings and comments
            parts[k] = re.sub(r"(?<=\S) (?=\S)", lambda m: " " * rng.randint(1, 3), parts[k])
            parts[k] = re.sub(r"(?<=[(,\[])(?=\w)", lambda m: " " * rng.randint(0, 1), parts[k])
            parts[k] = re.sub(r"\b(player|card) +var\b", r"\1 var", parts[k])  # one keyword of two words
        out.append(" " * (2 * indent) + "".join(parts) + " " * rng.randint(0, 2))
        if not body and rng.random() < 0.5:
            out.append("")
    return "\n".join(out) + "\n\n"


@pytest.mark.parametrize("path", KEPT, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_messed_up_copy_formats_back_to_the_file(path):
    text = path.read_text(encoding="utf-8")
    messy = mess_up(text, random.Random(path.name))
    assert messy != text and ast(messy) == ast(text)
    assert format_text(messy) == text


def test_a_formatted_game_plays_the_same(tmp_path):
    original = ROOT / "games" / "emu_ranchers.rules"
    messy = tmp_path / "emu.rules"
    messy.write_text(mess_up(original.read_text(encoding="utf-8"), random.Random(1)), encoding="utf-8")
    a, b = load(original), load(messy)
    for seed in range(3):
        sa, sb = a.new_state(seed, 2), b.new_state(seed, 2)
        rng = random.Random(seed)
        while not sa.is_terminal:
            la, lb = sa.legal_actions(), sb.legal_actions()
            assert [sa.action_text(x) for x in la] == [sb.action_text(x) for x in lb]
            k = rng.randrange(len(la))
            sa.apply(la[k])
            sb.apply(lb[k])
        assert sa.scores() == sb.scores()


def run(*args):
    return CliRunner().invoke(cli, ["fmt", *args])


def test_fmt_prints_checks_and_writes(tmp_path):
    messy = tmp_path / "last.rules"
    canonical = (ROOT / "examples" / "last_card.rules").read_text(encoding="utf-8")
    messy.write_text(mess_up(canonical, random.Random(3)), encoding="utf-8")
    r = run(str(messy))
    assert r.exit_code == 0 and r.output == canonical
    r = run("--check", str(messy), str(ROOT / "examples" / "last_card.rules"))
    assert r.exit_code == 1 and f"{messy}: not formatted" in r.output and "last_card.rules: not" not in r.output
    r = run("--write", str(messy))
    assert r.exit_code == 0 and messy.read_text(encoding="utf-8") == canonical
    assert run("--check", str(messy)).exit_code == 0


def test_a_file_with_syntax_errors_is_left_alone(tmp_path):
    broken = tmp_path / "broken.rules"
    broken.write_text('game "x"\nzone hand pile\n', encoding="utf-8")
    r = run("--write", str(broken))
    assert r.exit_code == 1 and "broken.rules:2:" in r.output and "left alone" in r.output
    assert broken.read_text(encoding="utf-8") == 'game "x"\nzone hand pile\n'
