"""Syntax errors: turning Lark's parse errors into
:class:`~rulelang.diagnostics.Diagnostic` objects (where, and in words what
was found and what was expected), and finding the line of a bad unindent.

The parser passes its :class:`~lark.Lark` instance in, to name the expected
terminals; this module does not load the grammar itself.
"""

from __future__ import annotations

import re

import functools

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

from .diagnostics import Diagnostic, Span, source_lines

_TOKEN_WORDS = {
    "_NL": "end of line", "_INDENT": "an indented block", "_DEDENT": "end of block",
    "NAME": "a name", "INT": "a number", "STRING": "a quoted string", "COLON": '":"',
    "LPAR": '"("', "RPAR": '")"', "LSQB": '"["', "RSQB": '"]"', "LBRACE": '"{"',
    "RBRACE": '"}"', "COMMA": '","', "EQUAL": '"="', "DOT": '"."', "$END": "end of file",
    "COMPOP": "a comparison", "ADDOP": '"+" or "-"', "MULOP": '"*", "/" or "%"',
    "AUGOP": '"+=" or "-="', "PARAMKW": '"param" or "option"', "VARKIND": '"var"',
}


def _word(tok_type: str) -> str:
    if tok_type in _TOKEN_WORDS:
        return _TOKEN_WORDS[tok_type]
    if tok_type.startswith("__ANON") or tok_type.isupper():
        return tok_type.lower()
    return tok_type


def _expected_words(expected, lark: Lark) -> str:
    names = []
    for t in sorted(expected):
        pattern = lark.get_terminal(t).pattern if t in _terminal_names(lark) else None
        if pattern is not None and pattern.type == "str":
            names.append(f'"{pattern.value}"')
        else:
            names.append(_word(t))
    names = sorted(set(names))
    if len(names) > 8:
        names = names[:8] + ["..."]
    return ", ".join(names)


@functools.lru_cache(maxsize=1)
def _terminal_names(lark: Lark):
    return frozenset(t.name for t in lark.terminals)


def _tok_span(file, tok) -> Span:
    line = getattr(tok, "line", None) or 1
    col = getattr(tok, "column", None) or 1
    end_line = getattr(tok, "end_line", None) or line
    end_col = getattr(tok, "end_column", None) or col + 1
    return Span(file, line, col, end_line, end_col)


def _describe_token(tok) -> str:
    if tok.type == "$END":
        return "end of file"
    if tok.type == "_NL":
        return "end of line"
    if tok.type == "_INDENT":
        return "an indented block"
    if tok.type == "_DEDENT":
        return "end of block"
    return f'"{_shown(str(tok.value))}"'  # a 10 MB string literal is not repeated in the message


_SHOWN_TOKEN = 40


def _syntax_diagnostic(file: str, text: str, err: Exception, lark: Lark) -> Diagnostic:
    lines = source_lines(text)
    last_line = max(1, len(lines))
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else "?"
        span = Span(file, err.line, err.column, err.line, err.column + 1)
        return Diagnostic("RL001", f"unexpected character {ch!r}", span)
    if isinstance(err, UnexpectedEOF):
        span = Span(file, last_line, 1, last_line, 2)
        return Diagnostic("RL001", "unexpected end of file; a block or line is unfinished", span)
    if isinstance(err, UnexpectedToken):
        tok = err.token
        line, col = tok.line, tok.column
        if line is None or line < 1:  # end of file / synthetic tokens
            line, col = last_line, max(1, len(lines[-1]))
        span = _tok_span(file, tok) if tok.line and tok.line > 0 else Span(file, line, col, line, col + 1)
        expected = _expected_words(err.accepts or err.expected, lark)
        msg = f"unexpected {_describe_token(tok)}"
        code = "RL001"
        if tok.type == "_INDENT":
            # the token borrows the start of the newline before it: point at the indented line
            msg, code = "unexpected indentation", "RL002"
            span = Span(file, tok.end_line, tok.end_column, tok.end_line, tok.end_column + 1)
        if code == "RL001" and _after_random(lines, tok):
            msg += ("; `random` may only start the value of a `let` or a `set` "
                    "(`let x = random LIST`, `set x = random order of LIST`), not stand inside an expression")
        elif expected:
            msg += _space_hint(tok, err.accepts or err.expected, lark) + f"; expected {expected}"
        return Diagnostic(code, msg, span)
    span = Span(file, 1, 1, 1, 2)
    return Diagnostic("RL001", f"syntax error: {err}", span)


def _glued_diagnostic(file: str, prev, tok) -> Diagnostic:
    """A word right after another, with no space, that the lexer split: a
    number and a word (``3times``), or a keyword written as a pattern in the
    grammar and a word (``variable`` read as "var" and then "iable")."""
    span = Span(file, prev.line, prev.column, tok.end_line, tok.end_column)
    return Diagnostic("RL001", _glued_message(str(prev), str(tok)), span)


def _glued_message(first: str, second: str) -> str:
    what = "a number" if first[:1].isdigit() else f'the keyword "{_shown(first)}"'
    return f'unexpected "{_shown(first + second)}": {what} needs a space after it'


def _shown(value: str) -> str:
    return value if len(value) <= _SHOWN_TOKEN else value[:_SHOWN_TOKEN] + "\u2026"


def _space_hint(tok, expected, lark: Lark) -> str:
    """For a name that starts with a keyword expected here ("zonelot",
    "setbid"): say the keyword needs a space after it."""
    if tok.type != "NAME":
        return ""
    words = [lark.get_terminal(t).pattern.value for t in expected if t in _terminal_names(lark)]
    words = [w for w in words if isinstance(w, str) and w.isidentifier() and tok.startswith(w) and len(tok) > len(w)]
    if not words:
        return ""
    word = max(words, key=len)
    return f' ("{word}" needs a space after it)'


def _after_random(lines, tok) -> bool:
    """Does the unexpected token come right after the word ``random``?"""
    if not tok.line or tok.line < 1 or tok.line > len(lines):
        return False
    before = lines[tok.line - 1][: max(0, tok.column - 1)]
    if re.search(r"\brandom\b", before) is None:
        return False
    return re.match(r"\s*(let|set)\b[^=]*=\s*random\b", before) is None


def _dedent_line(text: str, err) -> int:
    msg = str(err)
    # Lark does not say where; find the first line whose indentation is odd.
    stack = [0]
    for i, raw in enumerate(source_lines(text), 1):
        stripped = raw.lstrip(" \t")
        if not stripped or stripped.startswith("#"):
            continue
        prefix = raw[: len(raw) - len(stripped)]
        ind = prefix.count(" ") + prefix.count("\t") * 8  # as lark's Indenter counts
        if ind > stack[-1]:
            stack.append(ind)
        else:
            while ind < stack[-1]:
                stack.pop()
            if ind != stack[-1]:
                return i
    del msg
    return 1
