"""The formatter: a rules file in a canonical layout (``rulerun fmt``).

It changes only the white space between the words of the file, never the
words, so the file means what it meant (the tests compile both and replay
games on them), and formatting twice changes nothing more.  The layout:

- two spaces of indentation a block; a line continued inside brackets four
  more than the line it continues;
- one space between words, none inside brackets or before ``,``/``:``/``.``,
  none around ``..`` and after a unary minus;
- a comment after code two spaces after it, and the comments ending the
  lines of a run of lines aligned in one column (as gofmt does);
- the rows of a ``cards:`` block aligned in columns, and the texts ending a
  run of ``param``/``option``/``var`` lines aligned in one column;
- no white space at the end of a line, at most one empty line in a row, one
  newline at the end of the file.  Comments are kept, word for word.

Built on the highlighting lexer (:mod:`rulelang.highlight`), which gives
every character a token: comments included, which the parser drops.
"""

from __future__ import annotations

from pygments.token import Comment, Keyword, Name, String, Text, Whitespace

from .highlight import RulesLexer

INDENT = "  "
OPENERS, CLOSERS = "([{", ")]}"
# Words after which a minus is a sign, not a subtraction.
_SIGN_AFTER = {"(", "[", "{", ",", ":", "=", "==", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "|",
               "&", "+=", "-=", "..", "in", "and", "or", "not", "if", "then", "else", "return", "score", "to",
               "times", "at", "with", "highest", "lowest"}
_DECLARATIONS = ("param", "option", "var", "player var", "card var", "record var", "record player var",
                 "internal var", "internal player var", "internal card var")


class _Line:
    __slots__ = ("words", "comment", "width", "continued", "level", "blank", "head")

    def __init__(self):
        self.words = []  # (token type, text)
        self.comment = None
        self.width = 0  # the original indentation
        self.continued = False  # inside brackets, or after a backslash: part of the line before
        self.level = 0
        self.blank = False
        self.head = None  # the first line of the statement this one continues


def format_text(text: str) -> str:
    """``text`` in the canonical layout (see the module's docstring)."""
    lines = _lines(text)
    _levels(lines)
    out = [_render(line) for line in lines]
    _align_cards(lines, out)
    _align_docs(lines, out)
    _align_comments(lines, out)
    result, blank = [], True
    for line, rendered in zip(lines, out):
        if line.blank:
            if not blank:
                result.append("")
            blank = True
            continue
        result.append(rendered.rstrip())
        blank = False
    while result and not result[-1]:
        result.pop()
    return "\n".join(result) + "\n"


# ---------------------------------------------------------------- reading
def _lines(text: str) -> list:
    lines = [_Line()]
    depth = 0
    at_start = True
    glued = False  # no white space between this word and the one before, in the file
    for ttype, value in RulesLexer().get_tokens(text.expandtabs(8)):
        line = lines[-1]
        if value in ("\n", "\r\n") or (ttype in Whitespace and "\n" in value):
            nxt = _Line()
            nxt.continued = depth > 0
            lines.append(nxt)
            at_start, glued = True, False
            continue
        if ttype in Text and value.startswith("\\"):  # a backslash continuation
            nxt = _Line()
            nxt.continued = True
            lines.append(nxt)
            at_start, glued = True, False
            continue
        if ttype in Whitespace or (ttype in Text and not value.strip()):
            if at_start:
                line.width += len(value)
            glued = False
            continue
        at_start = False
        if ttype in Comment:
            line.comment = value.rstrip()
            continue
        if value in OPENERS:
            depth += 1
        elif value in CLOSERS:
            depth = max(0, depth - 1)
        line.words.append((ttype, value, glued))
        glued = True
    for line in lines:
        line.blank = not line.words and line.comment is None
    return lines


def _levels(lines: list) -> None:
    """Each line's block level, from the original indentation (as the parser
    reads it); a continued line belongs to the statement it continues."""
    stack = [0]
    head = None
    for line in lines:
        if line.blank:
            continue
        if line.continued and head is not None:
            line.head = head
            line.level = head.level
            continue
        if not line.words:  # a comment line: the level its indentation reaches, the stack untouched
            line.level = sum(1 for w in stack[1:] if w <= line.width) + (1 if line.width > stack[-1] else 0)
            continue
        if line.width > stack[-1]:
            stack.append(line.width)
        else:
            while len(stack) > 1 and line.width < stack[-1]:
                stack.pop()
        line.level = len(stack) - 1
        head = line


# ---------------------------------------------------------------- writing
def _render(line: _Line) -> str:
    indent = INDENT * line.level + ("    " if line.head is not None else "")
    code = _join(line.words)
    if line.comment is None:
        return indent + code
    return indent + (code + "  " + line.comment if code else line.comment)


def _join(words) -> str:
    out = []
    prev = None  # (type, text) of the word before
    for ttype, value, glued in words:
        if prev is not None and _space(prev, (ttype, value, glued), out):
            out.append(" ")
        out.append(value)
        prev = (ttype, value)
    return "".join(out)


def _space(prev, cur, out) -> bool:
    pt, pv = prev
    ct, cv, glued = cur
    if cv in (",", ":", ")", "]", "}", ".") or pv in ("(", "[", "{", "."):
        return False
    if cv == ".." or pv == "..":
        return False
    if cv in ("(", "[") and (pt in Name or pv in (")", "]")):
        return False  # a call or an index
    if cv == "(" and pt in Keyword:  # outcome(p), score(p) (a name spelt like a keyword), or not (a or b)
        return not glued
    if pv == "-" and _is_sign(out):
        return False
    return True


def _is_sign(out) -> bool:
    """Is the "-" just written a sign (what came before it cannot end a value)?"""
    words = [w for w in out if w != " "]
    before = words[-2] if len(words) >= 2 else None
    return before is None or before in _SIGN_AFTER


# ---------------------------------------------------------------- columns
def _runs(lines, wanted):
    """Runs of consecutive lines (no blank line, one level) for which ``wanted(line)`` holds."""
    run = []
    for i, line in enumerate(lines):
        if not line.blank and wanted(line) and (not run or lines[run[-1]].level == line.level) \
                and (not run or run[-1] == i - 1):
            run.append(i)
            continue
        if len(run) > 1:
            yield run
        run = [i] if (not line.blank and wanted(line)) else []
    if len(run) > 1:
        yield run


def _align_comments(lines, out) -> None:
    """The comments ending the lines of a run of code lines (one level, no
    empty line between), in one column: two spaces after the longest."""
    def wanted(line):
        return bool(line.words) and line.head is None
    for run in _runs(lines, wanted):
        commented = [i for i in run if lines[i].comment is not None]
        if len(commented) < 2:
            continue
        codes = {i: out[i][: len(out[i]) - len(lines[i].comment)].rstrip() for i in commented}
        column = max(len(c) for c in codes.values()) + 2
        for i, code in codes.items():
            out[i] = code.ljust(column) + lines[i].comment


def _is_card_row(line) -> bool:
    return bool(line.words) and line.words[0][0] in String and line.level > 0 and line.head is None


def _align_cards(lines, out) -> None:
    """The rows of a cards: block, in columns: the name, then each value."""
    for run in _runs(lines, _is_card_row):
        cells = [_cells(lines[i].words) for i in run]
        widths = [max(len(c[k]) for c in cells if k < len(c)) for k in range(max(len(c) for c in cells))]
        numeric = [all(k >= len(c) or c[k].lstrip("-").isdigit() for c in cells) for k in range(len(widths))]
        for i, row in zip(run, cells):
            text = "  ".join(cell.rjust(widths[k]) if numeric[k] else cell.ljust(widths[k])
                             for k, cell in enumerate(row)).rstrip()
            comment = lines[i].comment
            out[i] = INDENT * lines[i].level + text + ("  " + comment if comment else "")


def _cells(words) -> list:
    """A card row's cells: the name, each value (a set, a negative number
    and the copies "* N" are one cell each)."""
    cells, current, depth = [], [], 0
    for ttype, value, glued in words:
        current.append((ttype, value, glued))
        if value == "{":
            depth += 1
        elif value == "}":
            depth -= 1
        if depth == 0 and not (value in ("-", "*") and len(current) == 1):
            cells.append(_join(current))
            current = []
    if current:
        cells.append(_join(current))
    return cells


def _declaration(line) -> bool:
    words = [w[1] for w in line.words]
    if not words or line.head is not None or line.words[-1][0] not in String:
        return False
    return any(words[:len(d.split())] == d.split() for d in _DECLARATIONS)


def _align_docs(lines, out) -> None:
    """The texts ending a run of param/option/var lines, in one column."""
    for run in _runs(lines, _declaration):
        parts = []
        for i in run:
            words = lines[i].words
            parts.append((INDENT * lines[i].level + _join(words[:-1]), words[-1][1]))
        column = max(len(code) for code, _ in parts) + 2
        for i, (code, doc) in zip(run, parts):
            comment = lines[i].comment
            out[i] = code.ljust(column) + doc + ("  " + comment if comment else "")


def words(text: str) -> list:
    """The words of a rules text, comments included, without the white space between them."""
    return [v.rstrip() for t, v in RulesLexer().get_tokens(text.expandtabs(8))
            if not (t in Whitespace or (t in Text and (not v.strip() or v.startswith("\\"))))]


def same_words(a: str, b: str) -> bool:
    """Do two texts hold the same words in the same order (what the formatter keeps)?"""
    return words(a) == words(b)


__all__ = ["format_text", "words", "same_words"]
