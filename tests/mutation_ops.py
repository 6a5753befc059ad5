"""Mutation operators on rules text, shared by the fuzz tests and the bench.

Each operator takes ``(ch, text)`` and returns a damaged text; ``ch`` is a
*chooser*, the source of every random choice, with five methods::

    ch.integer(lo, hi, label)   # an int in lo..hi (both ends included)
    ch.choice(seq, label)       # one element of a non-empty sequence
    ch.char(label)              # one character (or a short sequence), often an odd one
    ch.junk(label)              # a short string of such characters
    ch.binary(max_size, label)  # bytes, at most max_size of them

:class:`RandomChooser` draws from a seeded ``random.Random`` (the bench and
the pipeline mutation test); ``tests/rulelang/test_frontend_fuzz.py`` wraps
Hypothesis's ``draw`` in a chooser of its own, so that Hypothesis shrinks
the same operators.

``MUTATORS`` are the front end's operators (lines deleted, duplicated,
swapped or cut; characters inserted, deleted or replaced; tokens swapped;
odd Unicode; tabs; deep nesting; huge numbers; very long lines and names);
``GENTLE`` names those that often leave a file that still checks;
``SEMANTIC`` adds operators meant to keep a file checking while changing
what it does (small numbers, names of the same file, statements copied
elsewhere, the ``players`` line, integer variables that grow).
"""

from __future__ import annotations

import functools
import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAMES_DIR = ROOT / "games"
FUZZ_TARGETS_DIR = ROOT / "tests" / "fuzz_targets"
GRAMMAR = ROOT / "rulelang" / "grammar.lark"
MAX_TEXT = 300_000  # characters: long lines and names, not a stress test of the lexer


# ------------------------------------------------------------------ material from the real files
@functools.lru_cache(maxsize=1)
def game_texts() -> tuple[str, ...]:
    texts = tuple(p.read_text(encoding="utf-8") for p in sorted(GAMES_DIR.glob("*.rules")))
    assert texts, f"no games in {GAMES_DIR}"
    return texts


@functools.lru_cache(maxsize=1)
def base_files() -> tuple[tuple[str, str], ...]:
    """(name, text) of the games and of the fuzz targets: the texts to mutate."""
    paths = sorted(GAMES_DIR.glob("*.rules")) + sorted(FUZZ_TARGETS_DIR.glob("*.rules"))
    assert paths, f"no rules files in {GAMES_DIR} or {FUZZ_TARGETS_DIR}"
    return tuple((p.stem, p.read_text(encoding="utf-8")) for p in paths)


TOKEN_RE = re.compile(r'"[^"\n]*"|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\.\.|[+\-]=|[=!<>]=|#[^\n]*|\S')
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
INT_RE = re.compile(r"(?<![A-Za-z0-9_])[0-9]+")


@functools.lru_cache(maxsize=1)
def token_pool() -> tuple[str, ...]:
    """Every distinct token of the games, and every keyword and symbol of the grammar."""
    tokens = set()
    for text in game_texts():
        tokens.update(m.group() for m in TOKEN_RE.finditer(text))
    grammar = GRAMMAR.read_text(encoding="utf-8")
    tokens.update(w for w in re.findall(r'"([^"\\\s]+)"', grammar))
    return tuple(sorted(tokens))


@functools.lru_cache(maxsize=1)
def name_pool() -> tuple[str, ...]:
    return tuple(t for t in token_pool() if NAME_RE.fullmatch(t))


INTERESTING_CHARS = [
    "\x00", "\ufeff", "\u200f", "\u200e", "\u202e", "\u2066", "\u0301", "\u0308", "\U0001f600", "\U0001f1eb\U0001f1f7",
    "\ud800", "\udfff", "\udc80", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1e", "\r", "\n", "\t", " ",
    "\\", '"', "#", ":", "(", ")", "[", "]", "{", "}", ",", ".", "..", "-", "=", "*", "|", "&", "\u00a0", "\u3000",
    "\uff11", "\u0663", "\u017f", "\u212a", "\u0130", "\uffff", "\U0010ffff", "é", "e\u0301", "\u05d0",
]
NEST_DEPTHS = [1, 2, 10, 50, 98, 99, 100, 101, 150, 500, 2000]
HUGE_NUMBERS = ["0", "00", "1000000000000", "1000000000001", "999999999999", "4000", "4001", "32", "33",
                "9" * 30, "1" + "0" * 400, "9" * 5000]


class RandomChooser:
    """The chooser of a seeded ``random.Random``: the same seed, the same choices."""

    def __init__(self, rng: random.Random | int):
        self.rng = rng if isinstance(rng, random.Random) else random.Random(rng)

    def integer(self, lo: int, hi: int, label: str = "") -> int:
        return self.rng.randint(lo, hi)

    def choice(self, seq, label: str = ""):
        return seq[self.rng.randrange(len(seq))]

    def char(self, label: str = "") -> str:
        r = self.rng
        if r.random() < 0.5:
            return r.choice(INTERESTING_CHARS)
        return chr(r.choice([r.randrange(0x80), r.randrange(0x800), r.randrange(0x110000)]))

    def junk(self, label: str = "") -> str:
        return "".join(self.char() for _ in range(self.rng.randint(0, 12)))

    def binary(self, max_size: int, label: str = "") -> bytes:
        return self.rng.randbytes(self.rng.randint(0, max_size))


# ------------------------------------------------------------------ helpers
def _index(ch, seq, label):
    return ch.integer(0, max(0, len(seq) - 1), label)


def _pos(ch, text):
    return ch.integer(0, len(text), "position")


def _lines(text):
    return text.split("\n")


def _with_line(ch, text, fn):
    lines = _lines(text)
    i = _index(ch, lines, "line")
    lines = fn(lines, i)
    return "\n".join(lines)


def _token_spans(text, regex=TOKEN_RE):
    return [(m.start(), m.end()) for m in regex.finditer(text)]


def _replace_span(ch, text, regex, make):
    spans = _token_spans(text, regex)
    if not spans:
        return text
    a, b = spans[_index(ch, spans, "token")]
    return text[:a] + make(text[a:b]) + text[b:]


# ------------------------------------------------------------------ the front end's operators
def m_delete_line(ch, text):
    return _with_line(ch, text, lambda ls, i: ls[:i] + ls[i + 1:])


def m_duplicate_line(ch, text):
    return _with_line(ch, text, lambda ls, i: ls[:i + 1] + ls[i:])


def m_swap_lines(ch, text):
    lines = _lines(text)
    i, j = _index(ch, lines, "line"), _index(ch, lines, "other line")
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def m_swap_adjacent_lines(ch, text):
    lines = _lines(text)
    i = _index(ch, lines[:-1], "line")
    if i + 1 < len(lines):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return "\n".join(lines)


def m_cut_line(ch, text):
    lines = _lines(text)
    i = _index(ch, lines, "line")
    lines[i] = lines[i][: ch.integer(0, len(lines[i]), "cut")]
    return "\n".join(lines)


def m_split_line(ch, text):
    lines = _lines(text)
    i = _index(ch, lines, "line")
    k = ch.integer(0, len(lines[i]), "split")
    lines[i: i + 1] = [lines[i][:k], lines[i][k:]]
    return "\n".join(lines)


def m_join_lines(ch, text):
    newlines = [m.start() for m in re.finditer("\n", text)]
    if not newlines:
        return text
    k = newlines[_index(ch, newlines, "newline")]
    return text[:k] + ch.choice(["", " ", "\\"], "joint") + text[k + 1:]


def m_truncate(ch, text):
    return text[: _pos(ch, text)]


def m_insert_char(ch, text):
    k = _pos(ch, text)
    return text[:k] + ch.char("char") + text[k:]


def m_delete_chars(ch, text):
    k = _pos(ch, text)
    return text[:k] + text[k + ch.integer(1, 4, "deleted"):]


def m_replace_char(ch, text):
    k = _pos(ch, text)
    return text[:k] + ch.char("char") + text[k + 1:]


def m_insert_junk(ch, text):
    k = _pos(ch, text)
    return text[:k] + ch.junk("junk") + text[k:]


def m_replace_token(ch, text):
    pool = token_pool()
    return _replace_span(ch, text, TOKEN_RE, lambda _: ch.choice(pool, "new token"))


def m_insert_token(ch, text):
    spans = _token_spans(text)
    k = spans[_index(ch, spans, "token")][0] if spans else 0
    tok = ch.choice(token_pool(), "new token")
    return text[:k] + tok + ch.choice([" ", "", "\n", "\n  "], "separator") + text[k:]


def m_delete_token(ch, text):
    return _replace_span(ch, text, TOKEN_RE, lambda _: "")


def m_replace_name(ch, text):
    pool = name_pool()
    return _replace_span(ch, text, NAME_RE, lambda _: ch.choice(pool, "new name"))


def m_replace_int(ch, text):
    return _replace_span(ch, text, INT_RE, lambda _: ch.choice(HUGE_NUMBERS + ["0", "1", "2", "3"], "number"))


def m_long_name(ch, text):
    n = ch.choice([100, 5000, 100_000], "length")
    return _replace_span(ch, text, NAME_RE, lambda name: (name * (n // len(name) + 1))[:n])


def m_long_line(ch, text):
    lines = _lines(text)
    i = _index(ch, lines, "line")
    piece = ch.choice([" ", "x", "# ", "1 + ", "a, ", "(", ")", '"', "\t", "\u0301"], "piece")
    lines[i] = lines[i] + piece * ch.choice([100, 1000, 5000], "repeat")
    return "\n".join(lines)


NESTERS = {
    "parentheses": lambda e, n: "(" * n + e + ")" * n,
    "if-expressions": lambda e, n: "if true then " * n + e + " else 0" * n,
    "lists": lambda e, n: "[" * n + e + "]" * n,
    "sets": lambda e, n: "{" * n + e + "}" * n,
    "negations": lambda e, n: "-" * n + e,
    "nots": lambda e, n: "not " * n + e,
    "calls": lambda e, n: "abs(" * n + e + ")" * n,
    "indexes": lambda e, n: e + "[0]" * n,
    "attributes": lambda e, n: e + ".rank" * n,
    "sums": lambda e, n: "(1 + " * n + e + ")" * n,
    "ands": lambda e, n: (e + " and ") * n + e,
    "unbalanced": lambda e, n: "(" * n + e,
}


def m_deep_expression(ch, text):
    kind = ch.choice(sorted(NESTERS), "nesting")
    n = ch.choice(NEST_DEPTHS, "depth")
    return _replace_span(ch, text, re.compile(r"(?<![A-Za-z0-9_.])(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+)"),
                         lambda e: NESTERS[kind](e, n))


def m_deep_blocks(ch, text):
    """Wrap an indented line in n nested ``if``/``while``/``repeat`` blocks."""
    lines = _lines(text)
    inside = [i for i, line in enumerate(lines) if line.startswith("  ") and line.strip()]
    if not inside:
        return text
    i = inside[_index(ch, inside, "line")]
    n = ch.choice(NEST_DEPTHS[:8], "depth")
    head = ch.choice(["if true:", "if false:", "repeat 2 times:", "while false:", "for p in players:"], "head")
    body = lines[i]
    ind = len(body) - len(body.lstrip(" "))
    step = ch.choice([" ", "  ", "\t"], "indent")
    wrapped = [" " * ind + step * k + head for k in range(n)] + [" " * ind + step * n + body.lstrip(" ")]
    lines[i: i + 1] = wrapped
    return "\n".join(lines)


def m_tabs(ch, text):
    """Indentation in tabs: everywhere, on one line, or mixed with spaces."""
    how = ch.choice(["all", "one", "mixed", "tab-after-spaces"], "tabs")
    lines = _lines(text)

    def tabbed(line, prefix=""):
        body = line.lstrip(" ")
        depth = (len(line) - len(body)) // 2
        return prefix + "\t" * depth + body if body else line

    if how == "all":
        lines = [tabbed(line) for line in lines]
    else:
        i = _index(ch, lines, "line")
        if how == "one":
            lines[i] = tabbed(lines[i])
        elif how == "mixed":
            lines[i] = tabbed(lines[i], " ")
        else:
            lines[i] = "  \t" + lines[i].lstrip(" ")
    return "\n".join(lines)


def m_reindent(ch, text):
    lines = _lines(text)
    i = _index(ch, lines, "line")
    body = lines[i].lstrip(" \t")
    ind = ch.choice(["", " ", "   ", "    ", "      ", "\t", " \t", "\t "], "indent")
    lines[i] = ind + body
    return "\n".join(lines)


def m_line_endings(ch, text):
    how = ch.choice(["\r\n", "\r", "\u2028", "\x85", "\x0c\n", "\n\n", "\n\r\n"], "line end")
    return text.replace("\n", how)


def m_bom(ch, text):
    return ch.choice(["\ufeff", "\ufeff\ufeff", "\x00", "\u202e", " "], "prefix") + text


def m_random_bytes(ch, text):
    k = _pos(ch, text)
    junk = ch.binary(40, "bytes").decode("utf-8", errors="surrogateescape")
    return text[:k] + junk + text[k:]


def m_operator(ch, text):
    ops = ["==", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "and", "or", "in", "not in", "|", "&"]
    return _replace_span(ch, text, re.compile(r"(?<=\s)(?:==|!=|<=|>=|<|>|\+|-|\*|/|%|and|or|in|\||&)(?=\s)"),
                         lambda _: ch.choice(ops, "operator"))


MUTATORS = {f.__name__[2:]: f for f in [
    m_delete_line, m_duplicate_line, m_swap_lines, m_swap_adjacent_lines, m_cut_line, m_split_line, m_join_lines,
    m_truncate, m_insert_char, m_delete_chars, m_replace_char, m_insert_junk, m_replace_token, m_insert_token,
    m_delete_token, m_replace_name, m_replace_int, m_long_name, m_long_line, m_deep_expression, m_deep_blocks,
    m_tabs, m_reindent, m_line_endings, m_bom, m_random_bytes, m_operator,
]}
# mutations that often leave a file that still checks: these reach the compiler and the playout
GENTLE = ["delete_line", "duplicate_line", "swap_adjacent_lines", "replace_int", "replace_name", "operator",
          "deep_expression", "deep_blocks", "tabs"]


# ------------------------------------------------------------------ operators that keep a file checking
SMALL_NUMBERS = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "10", "12", "13", "20", "32", "33", "64", "100",
                 "1000", "4095", "4096", "1000000"]


def m_small_int(ch, text):
    """A number replaced by a small (or edge) one: counts, ranges, indexes, seats."""
    return _replace_span(ch, text, INT_RE, lambda _: ch.choice(SMALL_NUMBERS, "number"))


def m_local_name(ch, text):
    """A name in the code (not in a comment or a string) replaced by another name of the same file's code."""
    spans = [(m.start(), m.end()) for m in TOKEN_RE.finditer(text) if NAME_RE.fullmatch(m.group())]
    if not spans:
        return text
    names = sorted({text[a:b] for a, b in spans})
    a, b = spans[_index(ch, spans, "token")]
    return text[:a] + ch.choice(names, "new name") + text[b:]


def _statement_lines(text):
    lines = _lines(text)
    return lines, [i for i, line in enumerate(lines)
                   if line.startswith(" ") and line.strip() and not line.lstrip().startswith("#")]


def m_copy_statement(ch, text):
    """An indented line copied after another indented line near it, at that line's indentation."""
    lines, inside = _statement_lines(text)
    if not inside:
        return text
    k = _index(ch, inside, "source line")
    src = lines[inside[k]].strip()
    near = inside[max(0, k - 8): k + 8]  # in the same block, often: the names it reads are bound there
    i = near[_index(ch, near, "target line")]
    target = lines[i]
    ind = target[: len(target) - len(target.lstrip(" "))]
    if target.rstrip().endswith(":"):
        ind += "  "
    lines.insert(i + 1, ind + src)
    return "\n".join(lines)


def m_players(ch, text):
    """The ``players`` line set to another count or range (odd ones included)."""
    new = "players " + ch.choice(["1", "2", "3", "4", "8", "1..8", "2..6", "2..32", "1..64", "0", "0..2", "5..3",
                                  "100", "1000000000000", "2..1000000000000"], "players")
    lines = _lines(text)
    at = [i for i, line in enumerate(lines) if re.match(r"players\b", line)]
    if not at:
        return text
    lines[at[0]] = new
    return "\n".join(lines)


GROWTH = ["set {v} = {v} * {v} + 2", "set {v} += 1000000000000", "set {v} = {v} * 1000000000000 + 7",
          "set {v} = -{v} - 1000000000000", "set {v} = {v} * {v} * {v} + 3"]


def m_grow_int(ch, text):
    """A statement that makes an integer variable grow fast, after an indented statement."""
    names = [m.group(1) for m in re.finditer(r"^\s*(?:player\s+)?var\s+([A-Za-z_]\w*)\s*:\s*int\b", text, re.M)]
    lines, inside = _statement_lines(text)
    if not names or not inside:
        return text
    v = ch.choice(names, "variable")
    if re.search(r"^\s*player\s+var\s+" + re.escape(v) + r"\b", text, re.M):
        v += "(" + ch.choice(["me", "0", "1", "p"], "seat") + ")"
    i = inside[_index(ch, inside, "line")]
    target = lines[i]
    ind = target[: len(target) - len(target.lstrip(" "))]
    if target.rstrip().endswith(":"):
        ind += "  "
    lines.insert(i + 1, ind + ch.choice(GROWTH, "growth").format(v=v))
    return "\n".join(lines)


SEATS = ["0", "1", "2", "3", "5", "7", "31", "32", "-1", "player_count", "player_count - 1", "next(me)",
         "previous(me, 5)", "next(me, 1000000000000)", "me + 1"]


SEAT_RE = re.compile(r"\bturn\s+([^:\n]+):|(?<![\w.])(me)\b")


def m_seat(ch, text):
    """A seat (``me``, or the seat of a ``turn``) replaced by a number or another seat expression."""
    spans = [m.span(1) if m.group(1) else m.span(2) for m in SEAT_RE.finditer(text)]
    if not spans:
        return text
    a, b = spans[_index(ch, spans, "seat")]
    return text[:a] + ch.choice(SEATS, "new seat") + text[b:]


RANGES = ["0..0", "1..0", "0..1000", "1..1000000", "1..1000000000000", "-1000000000000..1000000000000",
          "0..player_count", "player_count..1", "-5..-1"]


def m_range(ch, text):
    """A range ``a..b`` (of an action parameter, a parameter, a subset size) replaced by an odd one."""
    return _replace_span(ch, text, re.compile(r"(?<![\w-])[\w-]++\.\.[\w-]+"), lambda _: ch.choice(RANGES, "range"))


def m_can(ch, text):
    """``require can(a)`` or ``if can(a):`` added to an action (the same action, often)."""
    actions = re.findall(r"^action\s+(\w+)", text, re.M)
    lines = _lines(text)
    heads = [i for i, line in enumerate(lines) if re.match(r"action\s+\w", line)]
    if not actions or not heads:
        return text
    i = heads[_index(ch, heads, "action")]
    own = re.match(r"action\s+(\w+)", lines[i]).group(1)
    name = own if ch.integer(0, 1, "own") else ch.choice(actions, "other action")
    stmt = ch.choice(["require can({a})", "require not can({a})", "if can({a}):\n    pass",
                      "require can({a}) or can({a})"], "can").format(a=name)
    lines[i + 1: i + 1] = ["  " + x.strip() if not x.startswith("    ") else x for x in stmt.split("\n")]
    return "\n".join(lines)


SEMANTIC = {f.__name__[2:]: f for f in [m_small_int, m_local_name, m_copy_statement, m_players, m_grow_int,
                                        m_seat, m_range, m_can]}


def mutate(text: str, ch, names, max_mutations: int = 5) -> tuple[str, list]:
    """Apply 1..max_mutations operators drawn from ``names`` (keys of MUTATORS or
    SEMANTIC); returns the text and the operators applied, in order."""
    ops = {**MUTATORS, **SEMANTIC}
    applied = []
    for _ in range(ch.integer(1, max_mutations, "mutations")):
        name = ch.choice(names, "mutation")
        text = ops[name](ch, text)[:MAX_TEXT]
        applied.append(name)
    return text, applied
