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


# ================================================================ 6. size and speed
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
    (parser._pass_chains_through): the tree, positions included, is the one
    Lark builds."""
    from rulelang import parser
    plain = parser._new_lark()

    def dump(node):
        if isinstance(node, parser.Tree):
            m = node.meta
            where = None if m.empty else (m.line, m.column, m.end_line, m.end_column, m.start_pos, m.end_pos)
            return (str(node.data), where, [dump(c) for c in node.children])
        if node is None:
            return None
        return (node.type, str(node), node.line, node.column, node.end_line, node.end_column)

    for game in sorted((ROOT / "games").glob("*.rules")):
        text = game.read_text(encoding="utf-8")
        assert dump(parser._lark().parse(text, start="start")) == dump(plain.parse(text, start="start")), game
    expr = "if a then -b.c[1] * 2 + f(x) else [y for y in z if not (y in w or y == 3)]"
    assert dump(parser._lark().parse(expr, start="expr")) == dump(plain.parse(expr, start="expr"))
