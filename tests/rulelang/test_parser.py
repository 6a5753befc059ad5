"""The parser: AST shape and spans of small snippets, and awkward input
(line endings, tabs, empty files, end-of-file errors, bad bytes, huge numbers,
deep nesting): parse and check must answer with diagnostics, never raise."""

from __future__ import annotations

import contextlib
import signal
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulelang import ast as A
from rulelang import check, check_file, parse
from rulelang.diagnostics import Span

GAME = Path(__file__).resolve().parents[2] / "games" / "emu_ranchers.rules"

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


def parsed(text: str, file: str = "t.rules") -> A.Module:
    module, diags = parse(text, file)
    assert not diags, [d.render(text) for d in diags]
    assert module is not None
    return module


def expr(source: str):
    """The AST of one expression (as a var's initial value)."""
    return parsed(f"var v: int = {source}\n").items[0].default


def diagnose(text: str, file: str = "t.rules"):
    """Parse and (if that worked) check; all diagnostics.  Any exception fails the test."""
    module, diags = parse(text, file)
    if module is None:
        assert diags, "no module and no diagnostic"
        return diags
    _, diags = check(module)
    return diags


def errors(diags):
    return [d for d in diags if d.severity == "error"]


@contextlib.contextmanager
def time_limit(seconds):
    """Fail (rather than hang) if the body takes longer than ``seconds`` (where SIGALRM exists)."""
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def timeout(signum, frame):
        raise TimeoutError(f"took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def N(name):
    return A.Name(name)


def I(value):
    return A.IntLit(value)


def assert_real_position(diags, text):
    """Every diagnostic points at a line of the text (1-based) and renders with it."""
    nlines = max(1, len(text.splitlines()))
    for d in diags:
        assert 1 <= d.span.line <= nlines, (d, nlines)
        assert d.span.column >= 1, d
        assert f":{d.span.line}:{d.span.column}: " in d.render(text)


# ------------------------------------------------------------------ spans
def test_name_node_carries_its_span():
    e = expr("1 +  abc")
    assert e == A.BinOp("+", I(1), N("abc"))
    assert e.right.span == Span("t.rules", 1, 19, 1, 22)
    assert (e.span.line, e.span.column, e.span.end_column) == (1, 14, 22)


def test_spans_on_later_lines():
    text = MINIMAL.replace("  pass\n", "  let x = 1\n  set   x = x + 2\n")
    module = parsed(text)
    play = next(i for i in module.items if isinstance(i, A.Play))
    let, st_set = play.body
    assert (let.span.line, let.span.column) == (8, 3)
    assert (st_set.span.line, st_set.span.column) == (9, 3)
    assert st_set.target == N("x")
    assert (st_set.target.span.line, st_set.target.span.column) == (9, 9)
    assert (st_set.expr.left.span.line, st_set.expr.left.span.column) == (9, 13)


# ------------------------------------------------------------------ precedence
@pytest.mark.parametrize(
    "source, tree",
    [
        ("a + b * c", A.BinOp("+", N("a"), A.BinOp("*", N("b"), N("c")))),
        ("a * b + c", A.BinOp("+", A.BinOp("*", N("a"), N("b")), N("c"))),
        ("a - b - c", A.BinOp("-", A.BinOp("-", N("a"), N("b")), N("c"))),
        ("(a - b) * c", A.BinOp("*", A.BinOp("-", N("a"), N("b")), N("c"))),
        ("a % b / c", A.BinOp("/", A.BinOp("%", N("a"), N("b")), N("c"))),
        # "not" binds looser than "in": not (x in y)
        ("not x in y", A.Not(A.BinOp("in", N("x"), N("y")))),
        ("x not in y", A.BinOp("not in", N("x"), N("y"))),
        ("not a == b", A.Not(A.BinOp("==", N("a"), N("b")))),
        ("not a and b", A.BoolOp("and", (A.Not(N("a")), N("b")))),
        ("a or b and c", A.BoolOp("or", (N("a"), A.BoolOp("and", (N("b"), N("c")))))),
        ("a and b and c", A.BoolOp("and", (N("a"), N("b"), N("c")))),
        ("a | b & c", A.BinOp("|", N("a"), A.BinOp("&", N("b"), N("c")))),
        ("a & b != c", A.BinOp("!=", A.BinOp("&", N("a"), N("b")), N("c"))),
        ("a + 1 < b * 2", A.BinOp("<", A.BinOp("+", N("a"), I(1)), A.BinOp("*", N("b"), I(2)))),
        ("-x * y", A.BinOp("*", A.Neg(N("x")), N("y"))),
        ("-3", I(-3)),
        ("- - 3", I(3)),
        ("2 * -3", A.BinOp("*", I(2), I(-3))),
        ("x.y[0].z", A.Attr(A.Index(A.Attr(N("x"), "y"), I(0)), "z")),
        ("f(a, b + 1)", A.Call("f", (N("a"), A.BinOp("+", N("b"), I(1))))),
        ("sum(x.v for x in p if x.v > 0)",
         A.CallGen("sum", A.Attr(N("x"), "v"), "x", N("p"), A.BinOp(">", A.Attr(N("x"), "v"), I(0)))),
        ("{A, B}", A.SetLit((N("A"), N("B")))),
        ("{}", A.SetLit(())),
    ],
)
def test_precedence(source, tree):
    assert expr(source) == tree


def test_if_expression_else_takes_the_rest():
    assert expr("if a then b else c + 1") == A.IfExpr(N("a"), N("b"), A.BinOp("+", N("c"), I(1)))
    assert expr("(if a then 1 else 2) + 3") == A.BinOp("+", A.IfExpr(N("a"), I(1), I(2)), I(3))
    assert expr("if a then b else if c then d else e") == A.IfExpr(N("a"), N("b"), A.IfExpr(N("c"), N("d"), N("e")))
    assert expr("if a or b then 1 else 2") == A.IfExpr(A.BoolOp("or", (N("a"), N("b"))), I(1), I(2))


@pytest.mark.parametrize("source", ["a == b == c", "a < b < c", "a in b in c", "1 + if a then 1 else 2"])
def test_non_associative_or_unparenthesised_forms_are_syntax_errors(source):
    text = f"var v: int = {source}\n"
    module, diags = parse(text, "t.rules")
    assert module is None
    assert [(d.code, d.span.line) for d in diags] == [("RL001", 1)]
    assert diags[0].span.column > len("var v: int = ")


def test_if_statement_with_elif_and_else():
    text = MINIMAL.replace("  pass\n", "  if a:\n    pass\n  elif b:\n    end game\n  else:\n    pass\n    pass\n")
    play = next(i for i in parsed(text).items if isinstance(i, A.Play))
    (stmt,) = play.body
    assert isinstance(stmt, A.If)
    assert [c for c, _ in stmt.branches] == [N("a"), N("b")]
    assert stmt.branches[0][1] == (A.Pass(),)
    assert stmt.branches[1][1] == (A.EndGame(),)
    assert stmt.else_body == (A.Pass(), A.Pass())
    assert (stmt.span.line, stmt.span.column) == (8, 3)


# ------------------------------------------------------------------ card rows
CARDS = MINIMAL.replace(
    'card attributes: rank: int\ncards:\n  "One" 1\n',
    'enum Suit: Red, Blue\n'
    "card attributes: rank: int, suit: Suit, marks: set of Suit\n"
    "cards:\n"
    '  "One"   1  Red  {Red, Blue} *2\n'
    '  "Minus" -3 Blue {}\n'
    '  "Three" 3  Red  {Blue}   *3\n',
)


def test_card_rows_with_copies():
    cards = next(i for i in parsed(CARDS).items if isinstance(i, A.Cards))
    one, minus, three = cards.rows
    assert (one.name, one.copies) == ("One", 2)
    assert one.values == (A.CardValue("int", 1), A.CardValue("name", "Red"), A.CardValue("set", ("Red", "Blue")))
    assert (minus.copies, minus.values[0], minus.values[2]) == (1, A.CardValue("int", -3), A.CardValue("set", ()))
    assert three.copies == 3
    assert (one.span.line, one.span.column) == (6, 3)
    assert (minus.values[1].span.line, minus.values[1].span.column) == (7, 14)


def test_checker_expands_card_copies():
    module = parsed(CARDS)
    game, diags = check(module)
    assert not errors(diags), [d.render(CARDS) for d in diags]
    names = [c[0] for c in game.cards]
    assert names == ["One", "One", "Minus", "Three", "Three", "Three"]
    assert game.cards[0][1] == game.cards[1][1] == (1, 0, 0b11)  # rank, Red, {Red, Blue}
    assert game.card_names == {"One": 0, "Minus": 2, "Three": 3}


@pytest.mark.parametrize("copies, code, message", [("*0", "RL106", "at least one copy"),
                                                   ("*99999999999999999999", "RL106", "at most 4000 cards")])
def test_bad_copy_counts(copies, code, message):
    # a huge count used to make the checker build that many cards (hang, then run out of memory)
    text = CARDS.replace("{Blue}   *3", "{Blue}   " + copies)
    with time_limit(10):
        diags = errors(diagnose(text))
    assert [d.code for d in diags] == [code]
    assert message in diags[0].message


# ------------------------------------------------------------------ layout
COMMENTED = """\
# a comment before anything

game "t"   # trailing comment
players 2
card attributes: rank: int

cards:
  # a comment inside a block
  "One" 1      # trailing

zone pile: pile, public
play:
  pass
        # a comment indented oddly is still only a comment
  
  pass
# a comment at the left margin inside the block
  pass
outcome(p):
  score 0
# the last line is a comment"""


def test_comments_and_blank_lines_are_ignored():
    plain = MINIMAL.replace("  pass\n", "  pass\n  pass\n  pass\n")
    with_comments = parsed(COMMENTED)
    assert with_comments == parsed(plain)
    play = next(i for i in with_comments.items if isinstance(i, A.Play))
    assert [s.span.line for s in play.body] == [13, 16, 18]
    assert check(with_comments)[1] == []


def test_crlf_line_endings():
    text = GAME.read_text(encoding="utf-8")
    lf, crlf = parsed(text), parsed(text.replace("\n", "\r\n"))
    assert lf == crlf
    assert [i.span for i in lf.items] == [i.span for i in crlf.items]
    assert errors(check(crlf)[1]) == []
    # a CRLF snippet with blank lines inside a block
    snippet = MINIMAL.replace("  pass\n", "  pass\n\n  pass\n").replace("\n", "\r\n")
    play = next(i for i in parsed(snippet).items if isinstance(i, A.Play))
    assert [s.span.line for s in play.body] == [8, 10]


def _tabbed(text: str) -> str:
    out = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        depth = (len(line) - len(body)) // 2
        out.append("\t" * depth + body if body else line)
    return "\n".join(out)


def test_tab_indentation():
    text = GAME.read_text(encoding="utf-8")
    tabbed = _tabbed(text)
    assert "\n\t\t" in tabbed
    assert parsed(tabbed) == parsed(text)
    assert errors(check(parsed(tabbed))[1]) == []


def test_tab_between_tokens_counts_one_column_and_the_caret_lines_up():
    text = MINIMAL + "var v: int =\tnope\n"
    (d,) = errors(diagnose(text))
    assert (d.code, d.span.line, d.span.column) == ("RL101", 11, 14)
    rendered = d.render(text).splitlines()
    assert rendered[1] == "    var v: int = nope"
    assert rendered[2] == "    " + " " * 13 + "^^^^"


def test_inconsistent_tabs_and_spaces_are_reported_on_their_line():
    # lark counts a tab as 8 columns after any spaces ("  \t" = 10), so "\t" (8)
    # matches no outer level; the old fallback search said line 1
    text = MINIMAL.replace("  pass\n", "  \tpass\n\tpass\n")
    module, diags = parse(text, "t.rules")
    assert module is None
    assert [(d.code, d.span.line, d.span.column) for d in diags] == [("RL002", 9, 2)]


def test_unexpected_indentation_points_at_the_indented_line():
    text = MINIMAL.replace("players 2", "  players 2")
    module, diags = parse(text, "t.rules")
    assert [(d.code, d.span.line, d.span.column) for d in diags] == [("RL002", 2, 3)]
    assert "unexpected indentation" in diags[0].message


# ------------------------------------------------------------------ empty input and end of file
@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "   \n\t\n"])
def test_empty_file_is_missing_sections(text):
    module, diags = parse(text, "t.rules")
    assert diags == [] and module is not None and module.items == ()
    _, diags = check(module)
    assert {d.code for d in diags} == {"RL108"}
    assert sorted(d.message.split('"')[1] for d in diags) == ["cards", "outcome", "play", "players"]
    assert all((d.span.line, d.span.column) == (1, 1) for d in diags)
    for d in diags:
        d.render(text)


@pytest.mark.parametrize(
    "text, line",
    [
        ('game "x"\nplayers 2\nplay:', 3),
        ('game "x"\nplayers 2\nplay:\n', 3),
        ('game "x"\nplayers 2\nplay:\n\n\n', 3),
        ('game "x"\nplayers 2\nplay:\n  set x = (1 +', 4),
        ('game "x"\nplayers 2\nplay:\n  set x = (1 +\n\n', 4),
        ('game "x"\nplayers 2\nplay:\n  if', 4),
        ('game "x"\nplayers 2\noutcome(p):\n  score score(', 4),
        ('game "x"\nplayers 2\nfunction f(a: int) = "abc', 3),
        ('game "x"\nplayers', 2),
        ('game', 1),
        ('cards:\n  "A" 1 {x,', 2),
    ],
)
def test_end_of_file_errors_are_on_a_real_line(text, line):
    module, diags = parse(text, "t.rules")
    assert module is None
    assert [(d.code, d.span.line) for d in diags] == [("RL001", line)]
    assert_real_position(diags, text)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut=st.floats(min_value=0.0, max_value=1.0))
def test_truncated_real_file_never_raises_and_points_at_real_lines(cut):
    text = GAME.read_text(encoding="utf-8")
    text = text[: int(len(text) * cut)]
    assert_real_position(diagnose(text), text)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_real_file_with_a_line_damaged_never_raises(data):
    lines = GAME.read_text(encoding="utf-8").split("\n")
    i = data.draw(st.integers(0, len(lines) - 1), label="line")
    junk = data.draw(st.sampled_from(["", ":", "(", ")", "{", "  ", "\t", "if", "not", "-", "*", '"', "\\", "..", "me"]))
    pos = data.draw(st.integers(0, len(lines[i])), label="pos")
    cut = data.draw(st.integers(0, 3), label="deleted")
    lines[i] = lines[i][:pos] + junk + lines[i][pos + cut:]
    text = "\n".join(lines)
    assert_real_position(diagnose(text), text)


# ------------------------------------------------------------------ files
def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin1.rules"
    path.write_bytes(GAME.read_text(encoding="utf-8").replace("Emu Ranchers", "Emu Ranch\xe9rs").encode("latin-1"))
    game, diags, text = check_file(path)
    assert game is None and text == ""
    assert [(d.code, d.span.line, d.span.column) for d in diags] == [("RL003", 1, 1)]
    assert "UTF-8" in diags[0].message
    assert str(path) in diags[0].render(text)


def test_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.rules"
    path.write_bytes(b"\xef\xbb\xbf" + GAME.read_bytes())
    game, diags, text = check_file(path)
    assert errors(diags) == [] and game is not None
    assert text.startswith("# Emu Ranchers")


def test_missing_file_is_a_diagnostic(tmp_path):
    game, diags, text = check_file(tmp_path / "nope.rules")
    assert game is None and [d.code for d in diags] == ["RL003"]
    game, diags, text = check_file(tmp_path)  # a directory
    assert game is None and [d.code for d in diags] == ["RL003"]


# ------------------------------------------------------------------ numbers
@pytest.mark.parametrize("literal, ok", [("1000000000000", True), ("-1000000000000", True),
                                         ("1000000000001", False), ("99999999999999999999999999", False),
                                         ("-99999999999999999999999999", False)])
def test_huge_integer_literal(literal, ok):
    text = MINIMAL + f"var v: int =  {literal}\n"
    diags = errors(diagnose(text))
    if ok:
        assert diags == []
    else:
        assert [(d.code, d.span.line, d.span.column) for d in diags] == [("RL116", 11, 15)]
        assert diags[0].render(text).splitlines()[2] == "    " + " " * 14 + "^" * len(literal)


# ------------------------------------------------------------------ deep nesting
DEEP = {
    "parentheses": lambda n: "(" * n + "1" + ")" * n,
    "if-expressions": lambda n: "if true then " * n + "1" + " else 2" * n,
    "negations": lambda n: "-" * n + "v",
    "nots": lambda n: "not " * n + "true",
    "a long sum": lambda n: " + ".join(["1"] * n),
    "calls": lambda n: "abs(" * n + "1" + ")" * n,
    "parenthesised sums": lambda n: "(1 + " * n + "1" + ")" * n,
    "indexing": lambda n: "v" + "[0]" * n,
    "set literals": lambda n: "{" * n + "}" * n,
}


@pytest.mark.parametrize("n", [30, 150, 500, 3000])
@pytest.mark.parametrize("kind", sorted(DEEP))
def test_deep_nesting_gives_a_diagnostic_or_parses(kind, n):
    text = MINIMAL + f"var w: int = {DEEP[kind](n)}\n"
    diags = diagnose(text)  # RecursionError or lark's VisitError would fail the test here
    assert_real_position(diags, text)
    nested = [d for d in diags if "nested too deeply" in d.message]
    if kind == "parentheses" or n <= 30:
        assert nested == []  # parentheses leave no node behind; 30 levels is ordinary
    elif n >= 500:
        assert [(d.code, d.span.line) for d in nested] == [("RL001", 11)]


def test_500_nested_parentheses_parse():
    module = parsed(MINIMAL + "var w: int = " + "(" * 500 + "1" + ")" * 500 + "\n")
    assert module.items[-1].default == I(1)
    assert errors(check(module)[1]) == []


@pytest.mark.parametrize("depth", [20, 80])
def test_deeply_nested_blocks(depth):
    body = "".join("  " * (k + 1) + "if true:\n" for k in range(depth)) + "  " * (depth + 1) + "pass\n"
    text = MINIMAL.replace("  pass\n", body)
    diags = diagnose(text)
    assert_real_position(diags, text)
    if depth == 20:
        assert errors(diags) == []
    else:
        assert [d.code for d in diags] == ["RL001"]


def test_check_survives_a_hand_built_deep_tree():
    module = parsed(MINIMAL + "var w: int = 1\n")
    deep = I(1)
    for _ in range(5000):
        deep = A.Neg(deep)
    var = module.items[-1]
    module = A.Module(module.file, module.items[:-1] + (A.Var(var.kind, var.name, var.type, deep, span=var.span),))
    _, diags = check(module)
    assert [d.code for d in errors(diags)] == ["RL001"]
