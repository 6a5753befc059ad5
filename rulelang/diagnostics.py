"""Source spans and diagnostics.

Every AST node carries a :class:`Span`; every problem the front end finds is a
:class:`Diagnostic` with a stable code (``RL101``), a severity, a message, a
span and optional notes.  Only the CLI turns diagnostics into exit codes.
"""

from __future__ import annotations

import difflib

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


@attrs.frozen
class Diagnostic:
    code: str
    message: str
    span: Span
    severity: str = "error"  # "error" | "warning"
    notes: tuple = ()

    def render(self, source: str | None = None) -> str:
        """``FILE:LINE:COL: error: message [CODE]``, the source line, a caret."""
        out = [f"{self.span}: {self.severity}: {self.message} [{self.code}]"]
        if source is not None:
            lines = source_lines(source)
            if 1 <= self.span.line <= len(lines):
                text = lines[self.span.line - 1].expandtabs(1)
                out.append("    " + text)
                width = 1
                if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
                    width = self.span.end_column - self.span.column
                out.append("    " + " " * (self.span.column - 1) + "^" * max(1, width))
        for note in self.notes:
            out.append(f"    note: {note}")
        return "\n".join(out)


class RulesError(Exception):
    """Raised by :func:`rulelang.load_checked` when a rules file has errors."""

    def __init__(self, diagnostics, source=None):
        self.diagnostics = list(diagnostics)
        self.source = source
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(d.render(self.source) for d in self.diagnostics)


def did_you_mean(name: str, candidates) -> str:
    """' (did you mean "x"?)' or ''."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f'; did you mean "{close[0]}"?' if close else ""


# The catalogue of diagnostic codes (tests assert codes, not prose).
CODES = {
    "RL001": "syntax error",
    "RL002": "bad indentation",
    "RL003": "unreadable file",
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
    # static checks of the compiled machine (warnings; interpreter/static.py)
    "RL201": "a choice that can never be reached",
    "RL202": "a requirement that is always false",
    "RL203": "a choice with no way out",
    "RL204": "a loop that never ends",
}
