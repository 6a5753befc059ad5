"""Source spans and diagnostics.

Every AST node carries a :class:`Span`; every problem the front end finds is a
:class:`Diagnostic` with a stable code (``RL101``), a severity, a message, a
span and optional notes.  Only the CLI turns diagnostics into exit codes.
"""

from __future__ import annotations

import difflib
import functools

import attrs


@attrs.frozen
class Span:
    """A region of a source file: 1-based lines and columns, end exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NO_SPAN = Span("<builtin>", 1, 1, 1, 1)


def source_lines(text: str) -> list[str]:
    """The lines of a source text as the parser numbers them: only "\\n" ends
    a line.  (``str.splitlines`` also splits at form feeds, "\\x85", "\\u2028"
    and others, which may stand in comments and strings; counting those would
    show the wrong line under a diagnostic.)  A "\\r" before the "\\n" is dropped."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


@functools.lru_cache(maxsize=1)
def _lines_of(text: str) -> tuple:
    """:func:`source_lines`, remembered for the last text: rendering the
    diagnostics of one file one by one splits it once, not once each."""
    return tuple(source_lines(text))


# What is shown of a file with many problems: the first MAX_SHOWN_DIAGNOSTICS,
# then "... and N more errors"; a source line longer than SHOWN_LINE_WIDTH
# characters is cut to that many around the caret, with "…" where it was cut;
# a message or note longer than MAX_MESSAGE is cut in its middle.
MAX_SHOWN_DIAGNOSTICS = 50
SHOWN_LINE_WIDTH = 100
MAX_MESSAGE = 400
ELLIPSIS = "\u2026"


def _shorten(text: str, limit: int = MAX_MESSAGE) -> str:
    if len(text) <= limit:
        return text
    tail = limit // 4
    return text[: limit - tail] + ELLIPSIS + text[-tail:]


def _window(text: str, col: int, width: int) -> tuple[str, int]:
    """(what to show of ``text``, the index in it of 0-based column ``col``):
    ``text`` itself if it is at most ``width`` long, else ``width`` characters
    around the column, with an ellipsis on each side that was cut."""
    if len(text) <= width:
        return text, col
    start = max(0, min(col - width // 2, len(text) - width))
    end = start + width
    shown = (ELLIPSIS if start else "") + text[start:end] + (ELLIPSIS if end < len(text) else "")
    return shown, col - start + (1 if start else 0)


@attrs.frozen
class Diagnostic:
    code: str
    message: str
    span: Span
    severity: str = "error"  # "error" | "warning"
    notes: tuple = ()

    def render(self, source: str | None = None, *, width: int | None = None) -> str:
        """``FILE:LINE:COL: error: message [CODE]``, the source line, a caret.
        With ``width``, a longer source line is shown cut to about that many
        characters around the caret, and a very long message or note is cut
        (as :func:`render_diagnostics` does); without, they are shown whole."""
        cut = _shorten if width is not None else (lambda text: text)
        out = [f"{self.span}: {self.severity}: {cut(self.message)} [{self.code}]"]
        of = getattr(source, "of", None)  # a variant's text holds its bases' too (rulelang.variants.RulesText)
        if of is not None:
            source = of(self.span.file)
        if source is not None:
            lines = _lines_of(source)
            if 1 <= self.span.line <= len(lines):
                text = lines[self.span.line - 1].expandtabs(1)
                col = self.span.column - 1
                carets = 1
                if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
                    carets = self.span.end_column - self.span.column
                if width is not None:
                    full = len(text)
                    text, shown_col = _window(text, col, width)
                    if shown_col != col or len(text) != full:  # cut: the carets end where the text does
                        carets = max(1, min(carets, len(text) - shown_col))
                    col = shown_col
                out.append("    " + text)
                out.append("    " + " " * col + "^" * max(1, carets))
        for note in self.notes:
            out.append(f"    note: {cut(note)}")
        return "\n".join(out)


def render_diagnostics(diagnostics, source: str | None = None, *, limit: int | None = MAX_SHOWN_DIAGNOSTICS,
                       width: int | None = SHOWN_LINE_WIDTH) -> str:
    """The first ``limit`` diagnostics rendered (the source split once), long
    lines cut to ``width``; then "... and N more errors" for the rest."""
    diagnostics = list(diagnostics)
    shown = diagnostics if limit is None else diagnostics[:limit]
    out = [d.render(source, width=width) for d in shown]
    rest = diagnostics[len(shown):]
    if rest:
        errors = sum(1 for d in rest if d.severity == "error")
        more = [f"{n} more {word}{'' if n == 1 else 's'}"
                for n, word in ((errors, "error"), (len(rest) - errors, "warning")) if n]
        out.append("... and " + " and ".join(more))
    return "\n".join(out)


class RulesError(Exception):
    """Raised by :func:`rulelang.load_checked` when a rules file has errors.
    Its text shows the first :data:`MAX_SHOWN_DIAGNOSTICS` of them (all are in
    ``diagnostics``)."""

    def __init__(self, diagnostics, source=None):
        self.diagnostics = list(diagnostics)
        self.source = source
        super().__init__(self.render())

    def render(self, limit: int | None = MAX_SHOWN_DIAGNOSTICS, width: int | None = SHOWN_LINE_WIDTH) -> str:
        return render_diagnostics(self.diagnostics, self.source, limit=limit, width=width)


def did_you_mean(name: str, candidates) -> str:
    """' (did you mean "x"?)' or ''."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f'; did you mean "{close[0]}"?' if close else ""


# The catalogue of diagnostic codes (tests assert codes, not prose).
CODES = {
    "RL001": "syntax error",
    "RL002": "bad indentation",
    "RL003": "unreadable file",
    "RL004": "file too large",
    "RL005": "a keyword used as a name",
    "RL101": "unknown name",
    "RL102": "duplicate definition",
    "RL103": "type mismatch",
    "RL104": "wrong number of arguments",
    "RL105": "unknown attribute",
    "RL106": "bad card row",
    "RL107": "bad zone declaration",
    "RL108": "missing section",
    "RL109": "bad statement here",
    "RL110": "bad parameter",
    "RL111": "recursive function",
    "RL112": "unknown action",
    "RL113": "not assignable",
    "RL114": "unused action (unreachable)",
    "RL115": "bad text template",
    "RL116": "bad value",
    "RL117": "a hidden card chosen by name",
    "RL118": "bad variant (extends, override)",
    "RL119": "bad example (its players, parameters, statements or expectations)",
    # static checks of the compiled machine (warnings; interpreter/static.py)
    "RL201": "a choice that can never be reached",
    "RL205": "a variable that never changes decides a condition",
    "RL202": "a requirement that is always false",
    "RL203": "a choice with no way out",
    "RL204": "a loop that never ends",
}
