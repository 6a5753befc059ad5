"""Highlighting (rulelang/highlight.py): the Pygments lexer reads every rules
file of the project without an error token, finds the keywords, names and
strings where they are, is registered for pygmentize, and the TextMate
grammar in editors/ is the one it generates."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Error, Keyword, Name, String

from rulelang.highlight import RulesLexer, textmate_grammar
from rulelang.parser import KEYWORDS

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(p for p in ROOT.glob("**/*.rules") if ".git" not in p.parts and "regressions" not in p.parts)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_rules_file_lexes_without_an_error_token(path):
    tokens = list(RulesLexer().get_tokens(path.read_text(encoding="utf-8")))
    assert [v for t, v in tokens if t in Error] == []
    assert "".join(v for _, v in tokens).rstrip("\n") == path.read_text(encoding="utf-8").rstrip("\n")


def test_what_the_tokens_are():
    text = 'zone hand: pile, per player, owner\nplayer var score: int = 0\n' \
           'action draw "draw":\n  require not empty(deck)  # a comment\n  move top(deck) to hand(me)\n'
    tokens = [(t, v) for t, v in RulesLexer().get_tokens(text) if v.strip()]
    kinds = {}
    for t, v in tokens:  # each word's first token
        kinds.setdefault(v, t)
    assert kinds["zone"] in Keyword and kinds["hand"] in Name.Function
    assert kinds["score"] in Name.Variable and kinds["action"] in Keyword and kinds['"draw"'] in String
    assert kinds["empty"] in Name.Builtin and kinds["me"] in Name.Builtin
    assert kinds["require"] in Keyword and kinds["deck"] in Keyword  # a soft keyword, read as one


def test_the_lexer_is_registered():
    assert isinstance(get_lexer_by_name("rulelang"), RulesLexer)
    assert isinstance(get_lexer_for_filename("hens.rules"), RulesLexer)
    out = subprocess.run([sys.executable, "-m", "pygments", "-l", "rulelang", "-f", "html",
                          str(ROOT / "examples" / "last_card.rules")], capture_output=True, text=True)
    assert out.returncode == 0 and 'class="k"' in out.stdout and 'class="err"' not in out.stdout


def test_the_textmate_grammar_is_the_generated_one():
    kept = json.loads((ROOT / "editors" / "rulelang.tmLanguage.json").read_text(encoding="utf-8"))
    assert kept == textmate_grammar(), "regenerate: python3 -m rulelang.highlight > editors/rulelang.tmLanguage.json"
    words = set(re.findall(r"\w+", kept["repository"]["keyword"]["match"] + kept["repository"]["constant"]["match"]))
    assert set(KEYWORDS) <= words
    for part in kept["repository"].values():  # every pattern compiles (Python's syntax is a subset here)
        re.compile(part["match"])


def test_the_readme_s_rules_examples_lex_cleanly():
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for block in re.findall(r"```rulelang\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
            assert [v for t, v in RulesLexer().get_tokens(block) if t in Error] == [], (path, block[:80])
