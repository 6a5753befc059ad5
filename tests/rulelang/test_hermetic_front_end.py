"""Issue 9, "Hermetic and bounded": the front end's costs and its lexer.

- many diagnostics: the source is split once, not once per diagnostic; the
  CLI shows the first few and says how many more; a long source line is shown
  cut around its caret;
- the size of a rules file is limited, with a diagnostic past the limit;
- keywords need a word boundary (``zonelot`` is not ``zone lot``), and a
  keyword is not a name (``var if: int``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import rulelang
from rulelang import check, diagnostics, parse
from rulelang.diagnostics import (ELLIPSIS, MAX_SHOWN_DIAGNOSTICS, SHOWN_LINE_WIDTH, Diagnostic, RulesError,
                                  Span, render_diagnostics)

ROOT = Path(__file__).resolve().parents[2]

MINIMAL = """\
game "t"
players 2
card attributes: rank: int
cards:
  "One" 1
zone pile: pile, public
play:
  pass
outcome(p):
  score 0
"""


def diagnose(text: str) -> list:
    module, diags = parse(text, "t.rules")
    if module is None:
        return diags
    return check(module)[1]


def errors(diags) -> list:
    return [d for d in diags if d.severity == "error"]


def invoke(*args):
    from interpreter.runner import cli
    try:
        runner = CliRunner(mix_stderr=False)  # click 8.1
    except TypeError:
        runner = CliRunner()  # click >= 8.2 keeps stderr apart
    return runner.invoke(cli, list(args), prog_name="rulerun")


@pytest.fixture
def count_splits(monkeypatch):
    """Counts the splits of a source text into lines made while rendering."""
    calls = []
    real = diagnostics.source_lines

    def counting(text):
        calls.append(len(text))
        return real(text)

    monkeypatch.setattr(diagnostics, "source_lines", counting)
    diagnostics._lines_of.cache_clear()
    yield calls
    diagnostics._lines_of.cache_clear()


# ================================================================ 5. many diagnostics
DUPLICATES = 8000


def duplicated_players() -> str:
    return MINIMAL + "players 2\n" * DUPLICATES


def test_rendering_many_diagnostics_splits_the_source_once(count_splits):
    text = duplicated_players()
    diags = errors(diagnose(text))
    assert len(diags) == DUPLICATES
    count_splits.clear()
    everything = render_diagnostics(diags, text, limit=None)
    assert everything.count("[RL102]") == DUPLICATES
    assert len(count_splits) == 1
    # one by one too (the last text's lines are remembered)
    for d in diags:
        d.render(text)
    assert len(count_splits) == 1
    # the error a bad file raises renders its first diagnostics only
    err = RulesError(diags, text)
    assert len(count_splits) == 1
    shown = str(err)
    assert shown.count("[RL102]") == MAX_SHOWN_DIAGNOSTICS
    assert shown.endswith(f"... and {DUPLICATES - MAX_SHOWN_DIAGNOSTICS} more errors")
    assert len(err.diagnostics) == DUPLICATES


def test_check_shows_the_first_errors_then_how_many_more(tmp_path):
    path = tmp_path / "dup.rules"
    path.write_text(duplicated_players(), encoding="utf-8")
    result = invoke("check", str(path))
    assert result.exit_code == 1
    err = result.stderr
    assert err.count(": error: a second \"players\" section [RL102]") == MAX_SHOWN_DIAGNOSTICS
    assert f"... and {DUPLICATES - MAX_SHOWN_DIAGNOSTICS} more errors\n" in err
    assert f"has {DUPLICATES} errors" in err
    # loading the file to run it says the same
    result = invoke(str(path))
    assert result.exit_code == 1
    assert result.stderr.count("error: a second \"players\" section") == MAX_SHOWN_DIAGNOSTICS
    assert f"... and {DUPLICATES - MAX_SHOWN_DIAGNOSTICS} more errors\n" in result.stderr


def test_more_warnings_are_counted_apart_from_errors():
    span = Span("f", 1, 1, 1, 2)
    diags = ([Diagnostic("RL114", "w", span, "warning")] * 3 + [Diagnostic("RL101", "e", span)] * 2)
    text = render_diagnostics(diags, "x\n", limit=2)
    assert text.endswith("... and 2 more errors and 1 more warning")
    assert render_diagnostics(diags, "x\n", limit=5).count("\n...") == 0


def caret_column(rendered: str) -> tuple[str, int]:
    """(the shown line, the index in it of the first caret)."""
    _, line, carets, *_ = rendered.split("\n")
    assert line.startswith("    ") and carets.startswith("    ")
    return line[4:], carets[4:].index("^")


@pytest.mark.parametrize("where", ["start", "middle", "end", "past the end"])
def test_a_long_line_is_shown_cut_around_the_caret(where):
    line = "var v: int = " + "1 + " * 50_000 + "x"
    at = {"start": 8, "middle": line.index("1 + 1", 100_000), "end": len(line), "past the end": len(line) + 1}[where]
    text = MINIMAL + line + "\n"
    d = Diagnostic("RL101", "unknown name", Span("t.rules", 11, at, 11, at + 1))
    rendered = render_diagnostics([d], text)
    shown, caret = caret_column(rendered)
    assert len(shown) <= SHOWN_LINE_WIDTH + 2
    assert len(rendered) < 3 * SHOWN_LINE_WIDTH
    if at <= len(line):
        assert shown[caret] == line[at - 1]
        # the same character as in the whole line, with what is around it
        piece = shown.strip(ELLIPSIS)
        assert piece in line
        offset = 1 if shown.startswith(ELLIPSIS) else 0
        assert line.index(piece) == at - 1 - (caret - offset) or line[at - 1 - (caret - offset):].startswith(piece)
    else:
        assert caret == len(shown)
    assert shown.startswith(ELLIPSIS) == (where != "start")
    assert shown.endswith(ELLIPSIS) == (where in ("start", "middle"))


def test_a_short_line_is_shown_whole_with_its_carets():
    text = MINIMAL + "var v: int = nope\n"
    (d,) = errors(diagnose(text))
    rendered = render_diagnostics([d], text)
    assert rendered.split("\n")[1:] == ["    var v: int = nope", "    " + " " * 13 + "^^^^"]
    assert rendered == d.render(text)  # cutting changes nothing on a short line


def test_a_syntax_error_at_a_huge_string_shows_a_short_message_and_line():
    text = MINIMAL + 'var v: int = 1 "doc" "' + "a" * 200_000 + '"\n'
    (d,) = diagnose(text)
    assert (d.code, d.span.line, d.span.column) == ("RL001", 11, 22)
    assert len(d.message) < 200
    rendered = render_diagnostics([d], text)
    assert len(rendered) < 1000
    shown, caret = caret_column(rendered)
    assert shown[caret - 6:caret + 3] == '"doc" "aa'


# ================================================================ 6. size
def test_the_size_limit_is_a_diagnostic(tmp_path):
    from rulelang.parser import MAX_SOURCE_CHARS
    text = MINIMAL + "#" * (MAX_SOURCE_CHARS - len(MINIMAL) - 1) + "\n"
    assert len(text) == MAX_SOURCE_CHARS
    assert errors(diagnose(text)) == []
    big = text + "\n"
    (d,) = diagnose(big)
    assert (d.code, d.span.line, d.span.column) == ("RL004", 1, 1)
    assert f"{MAX_SOURCE_CHARS:,}" in d.message
    # a file: read no further than the limit; check says so on one line and fails
    path = tmp_path / "big.rules"
    path.write_text(big, encoding="utf-8")
    game, diags, _ = rulelang.check_file(path)
    assert game is None and [x.code for x in diags] == ["RL004"]
    result = invoke("check", str(path))
    assert result.exit_code == 1 and "[RL004]" in result.stderr and "Traceback" not in result.stderr
    with pytest.raises(RulesError) as info:
        rulelang.load_checked(path)
    assert [x.code for x in info.value.diagnostics] == ["RL004"]


def test_a_file_of_endless_characters_is_not_read_whole(tmp_path, monkeypatch):
    from rulelang import parser
    monkeypatch.setattr(parser, "MAX_SOURCE_CHARS", 1000)
    path = tmp_path / "big.rules"
    path.write_text(MINIMAL + "#" * 5000 + "\n", encoding="utf-8")
    reads = []
    real_open = open

    class Counting:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def read(self, n=-1):
            reads.append(n)
            return self.f.read(n)

    monkeypatch.setattr(parser, "open", lambda *a, **k: Counting(real_open(*a, **k)), raising=False)
    _, diags, _ = parser.parse_file(path)
    assert [d.code for d in diags] == ["RL004"]
    assert reads == [1001]


def test_the_token_limit_is_a_diagnostic(monkeypatch):
    from rulelang import parser
    monkeypatch.setattr(parser, "MAX_TOKENS", 60)
    assert errors(diagnose(MINIMAL)) == []  # 44 tokens
    text = MINIMAL + "var v: int = " + "1 + " * 20 + "1\n"
    (d,) = diagnose(text)
    assert d.code == "RL004" and "at most 60 tokens" in d.message
    assert d.span.line == 11
    e, (d,) = parser.parse_expression("1 + " * 40 + "1")
    assert e is None and d.code == "RL004"


def test_the_parser_tree_is_lark_s_own():
    """The parser lets the precedence chain hand its child up unchanged
    (lalr._pass_chains_through): the tree, positions included, is the one
    Lark builds."""
    from lark import Tree

    from rulelang import lalr
    plain = lalr._new_lark()

    def dump(node):
        if isinstance(node, Tree):
            m = node.meta
            where = None if m.empty else (m.line, m.column, m.end_line, m.end_column, m.start_pos, m.end_pos)
            return (str(node.data), where, [dump(c) for c in node.children])
        if node is None:
            return None
        return (node.type, str(node), node.line, node.column, node.end_line, node.end_column)

    for game in sorted((ROOT / "games").glob("*.rules")):
        text = game.read_text(encoding="utf-8")
        assert dump(lalr._lark().parse(text, start="start")) == dump(plain.parse(text, start="start")), game
    expr = "if a then -b.c[1] * 2 + f(x) else [y for y in z if not (y in w or y == 3)]"
    assert dump(lalr._lark().parse(expr, start="expr")) == dump(plain.parse(expr, start="expr"))


# ================================================================ 8. keywords
GLUED = [
    ("zonelot: pile\n", 1, "zonelot", '"zone" needs a space after it'),
    ("players2\n", 1, "players2", '"players" needs a space after it'),
    ("action a:\n  setbid += 1\n", 3, "setbid", '"set" needs a space after it'),
    ('action a:\n  move "One" towon(previous(me))\n', 14, "towon", '"to" needs a space after it'),
    ("action a:\n  turnseat:\n    pass\n", 3, "turnseat", '"turn" needs a space after it'),
    ("action a:\n  repeat 3times:\n    pass\n", 10, "3times", "a number needs a space after it"),
    ("zone z: grid 4by 3, public\n", 14, "4by", "a number needs a space after it"),
    ("variable: int = 0\n", 1, "variable", 'the keyword "var" needs a space after it'),
    ("parameter: int = 0\n", 1, "parameter", 'the keyword "param" needs a space after it'),
    ("when c entersx pile:\n  pass\n", 8, "entersx", 'the keyword "enters" needs a space after it'),
    ("action a:\n  end game with winnersof players\n", 17, "winnersof", 'the keyword "winners" needs a space after it'),
    ("action a:\n  if true:\n    pass\n  elsewhere:\n    pass\n", 3, "elsewhere", '"else" needs a space after it'),
]


@pytest.mark.parametrize("extra, col, word, hint", GLUED, ids=[g[2] for g in GLUED])
def test_a_keyword_glued_to_the_next_word_is_a_syntax_error(extra, col, word, hint):
    text = MINIMAL + "var bid: int = 0\n" + extra
    diags = diagnose(text)
    assert len(diags) == 1, diags
    (d,) = diags
    line = next(i for i, ln in enumerate(text.split("\n"), 1) if word in ln)
    assert (d.code, d.span.line, d.span.column, d.span.end_column) == ("RL001", line, col, col + len(word))
    assert f'unexpected "{word}"' in d.message and hint in d.message, d.message
    shown, caret = caret_column(render_diagnostics([d], text))
    assert shown[caret:caret + len(word)] == word


def test_keywords_spaced_out_still_parse():
    text = (MINIMAL + "var bid: int = 0\nzone lot: pile, public\n"
            'action a:\n  set bid += 1\n  move "One" to lot\n  turn_count_is_a_name_not_turn: \n')
    # the last line is not a statement: "turn_count_is_a_name_not_turn" is one word, a name
    (d,) = diagnose(text)
    assert d.code == "RL001" and 'unexpected "turn_count_is_a_name_not_turn"' in d.message
    text = (MINIMAL + "var bid: int = 0\nzone lot: pile, public\n"
            'action a:\n  set bid += 1\n  move "One" to lot\n')
    assert errors(diagnose(text)) == []


def test_the_keywords_come_from_the_grammar():
    from rulelang.parser import KEYWORDS, RESERVED_KEYWORDS, SOFT_KEYWORDS
    grammar = (ROOT / "rulelang" / "grammar.lark").read_text(encoding="utf-8")
    for word in ("if", "zone", "var", "param", "option", "enters", "winners", "simultaneously", "true", "to"):
        assert word in KEYWORDS and f'"{word}"' in grammar
    assert "player" not in KEYWORDS  # only in "player var"
    assert "NAME" not in KEYWORDS and "lark" not in KEYWORDS
    assert SOFT_KEYWORDS <= KEYWORDS and not SOFT_KEYWORDS & RESERVED_KEYWORDS


# every kind of declared name, with a keyword in place of the name X
DECLARATIONS = [
    ("var", "var X: int = 0"),
    ("player var", "player var X: int = 0"),
    ("card var", "card var X: bool = false"),
    ("record var", "record var X: int = 0"),
    ("param", "param X: int = 1"),
    ("option", "option X: bool = false"),
    ("zone", "zone X: pile, public"),
    ("enum", "enum X: A, B"),
    ("enum member", "enum K: A, X"),
    ("card attribute", None),
    ("function", "function X(n: int) = n"),
    ("function param", "function f(X: int) = 1"),
    ("function let", "function f(n: int):\n  let X = n\n  return n"),
    ("action", "action X:\n  pass"),
    ("action param", "action a(X in players):\n  pass"),
    ("action range param", "action a(X in 1..3):\n  pass"),
    ("action subset param", "action a(X in subsets of pile):\n  pass"),
    ("let", "action a:\n  let X = 1"),
    ("let random", "action a:\n  let X = random players"),
    ("let random order", "action a:\n  let X = random order of players"),
    ("for", "action a:\n  for X in players:\n    pass"),
    ("repeat as", "action a:\n  repeat 2 times as X:\n    pass"),
    ("list comprehension", "action a:\n  let y = [1 for X in players]"),
    ("generator", "action a:\n  let y = sum(1 for X in players)"),
    ("simultaneously", "setup:\n  simultaneously for X in players:\n    pass"),
    ("trigger card", "when X enters pile:\n  pass"),
    ("trigger owner", "zone h: pile, per player, public\nwhen c enters h(X):\n  pass"),
    ("achievements", 'achievements(X):\n  "a": true'),
]


@pytest.mark.parametrize("keyword", ["if", "while", "to", "then", "true", "zone", "simultaneously", "option",
                                     "enters", "winner"])
@pytest.mark.parametrize("kind, decl", DECLARATIONS, ids=[d[0] for d in DECLARATIONS])
def test_a_keyword_is_not_a_name(kind, decl, keyword):
    if decl is None:  # the card attributes replace the minimal game's
        text = MINIMAL.replace("card attributes: rank: int", f"card attributes: rank: int, {keyword}: int")
        text = text.replace('"One" 1', '"One" 1 2')
    else:
        text = MINIMAL + decl.replace("X", keyword) + "\n"
    diags = diagnose(text)
    assert [d.code for d in diags] == ["RL005"], (kind, [d.message for d in diags])
    (d,) = diags
    assert d.message == f"`{keyword}` is a keyword of the language; choose another name"
    line = text.split("\n")[d.span.line - 1]
    assert line[d.span.column - 1:d.span.end_column - 1] == keyword


def test_outcome_player_may_not_be_a_keyword():
    text = MINIMAL.replace("outcome(p):\n  score 0", "outcome(if):\n  score 0")
    (d,) = diagnose(text)
    assert d.code == "RL005" and "`if`" in d.message


@pytest.mark.parametrize("decl", [
    "zone deck: pile, public",   # hens, fox_in_the_henhouse
    "player var score: int = 0",  # emu_ranchers
    "action a:\n  let order = random order of players",  # desplumados
])
def test_the_soft_keywords_the_games_use_are_names(decl):
    assert errors(diagnose(MINIMAL + decl + "\n")) == []


def test_the_card_attribute_from_is_a_name():  # fox_in_the_henhouse
    text = MINIMAL.replace("card attributes: rank: int", "card attributes: rank: int, from: int")
    text = text.replace('"One" 1', '"One" 1 2') + "var v: bool = all(c.from > 0 for c in pile)\n"
    assert errors(diagnose(text)) == []


def test_the_games_and_the_test_rules_parse():
    files = sorted((ROOT / "games").glob("*.rules")) + sorted((ROOT / "tests").rglob("*.rules"))
    assert len(files) > 20
    for path in files:
        _, diags, _ = rulelang.check_file(path)
        assert not [d for d in diags if d.code in ("RL004", "RL005")], path
        if path.parent.name == "games" or path.name.endswith("_ok.rules"):
            assert errors(diags) == [], (path, [d.render() for d in errors(diags)])


def test_the_documented_keywords_and_limits_are_the_parser_s():
    import re

    from rulelang.diagnostics import CODES
    from rulelang.parser import KEYWORDS, MAX_SOURCE_CHARS, MAX_TOKENS, SOFT_KEYWORDS
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    listed = doc.split("<!-- keywords -->")[1].split("<!-- /keywords -->")[0]
    assert set(re.findall(r"`(\w+)`", listed)) == KEYWORDS
    section2 = doc.split("## 2. The layout of a file")[1].split("### 2.1")[0]
    for word in SOFT_KEYWORDS:
        assert f"`{word}`" in section2.split("Some are allowed as names")[1]
    assert f"{MAX_SOURCE_CHARS:,} characters" in section2 and f"{MAX_TOKENS:,} tokens" in section2
    for code in ("RL004", "RL005"):
        assert code in CODES and f"| {code} |" in doc
