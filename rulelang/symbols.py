"""What an editor asks of a rules file: the names it declares, where each is
declared and used, and the problems the checker finds (the language
server, :mod:`rulelang.lsp`, answers from this).

    index = SymbolIndex(text, "my_game.rules")
    index.diagnostics                       # the checker's, as `rulerun check` shows them
    index.name_at(line, column)             # 0-based, as editors count
    index.declaration("hand")               # a Declaration: kind, span, doc, first line
    index.uses("hand")                      # [(line, column, end column)] in this file
    index.declaration('"Ace"')              # a card written in quotes: its row of the card table

Declarations are the file's global names (parameters and options, enums
and their members, card attributes, zones, variables, functions,
actions); a variant's also those of the files it extends.  Uses are
found by word in the file's code (strings and comments left out): the
checker refuses a local name that hides a global one, so a word spelt
like a global name is that name.
"""

from __future__ import annotations

import attrs
from pygments.token import Comment, Name, Punctuation, String

from . import ast as A
from .checker import check
from .highlight import RulesLexer
from .variants import load_module


@attrs.frozen
class Declaration:
    name: str
    kind: str  # "param", "option", "enum", "member", "attribute", "zone", "var", "player var", "card var", ...
    span: object  # where its name is declared (file, line, column: 1-based)
    doc: str | None
    line: str  # the declaring line, as written


class SymbolIndex:
    def __init__(self, text: str, path: str):
        self.text = text
        self.path = str(path)
        module, diags, sources = load_module(path, text=text)
        self.sources = sources
        if module is not None:
            _, more = check(module)
            diags = list(diags) + list(more)
        self.diagnostics = diags
        self.module = module
        self.declarations = _declarations(module, sources) if module is not None else {}
        # the cards, by name: their row of the card table (for hover on "Name")
        self.cards = {}
        for it in (module.items if module is not None else ()):
            if isinstance(it, A.Cards):
                for row in it.rows:
                    lines = (sources.of(row.span.file) or "").split("\n")
                    text = lines[row.span.line - 1].strip() if 0 < row.span.line <= len(lines) else ""
                    self.cards.setdefault(row.name, Declaration(row.name, "card", row.span, None, text))
        self._words = None

    # ---- words of this file
    def words(self) -> list:
        """(line, column, text) of every name in the code (0-based), strings and comments left out."""
        if self._words is None:
            out = []
            line, col = 0, 0
            prev = None
            for ttype, value in RulesLexer().get_tokens(self.text):
                if ttype in Name or (ttype not in (String, Comment) and value.isidentifier()):
                    out.append((line, col, value, prev == "."))
                elif ttype in String and value[1:-1] in self.cards:
                    out.append((line, col, value, False))  # a card's name: hover shows its row
                if value.strip():
                    prev = value if ttype in Punctuation else None
                for ch in value:
                    if ch == "\n":
                        line, col = line + 1, 0
                    else:
                        col += 1
            self._words = out
        return self._words

    def name_at(self, line: int, column: int) -> str | None:
        for ln, col, word, _ in self.words():
            if ln == line and col <= column <= col + len(word):
                return word
        return None

    def declaration(self, name: str) -> Declaration | None:
        """A declared name's declaration; for a card's name written in quotes, its row."""
        if name.startswith('"'):
            return self.cards.get(name[1:-1])
        return self.declarations.get(name)

    def item_lines(self, line: int) -> tuple:
        """The lines (0-based, end excluded) of the top-level declaration of
        this file around ``line``: where a local name lives."""
        starts = sorted({it.span.line - 1 for it in (self.module.items if self.module is not None else ())
                         if getattr(it, "span", None) is not None and it.span.file == self.path})
        start = max((s for s in starts if s <= line), default=0)
        end = min((s for s in starts if s > line), default=self.text.count("\n") + 1)
        return start, end

    def locals_at(self, line: int) -> list:
        """The local names (parameters, lets, loop variables, ...) of the
        declaration around ``line``: the words there that name nothing global."""
        from .checker.model import RESERVED
        from .parser import KEYWORDS
        start, end = self.item_lines(line)
        out = []
        for ln, _, word, dotted in self.words():
            if start <= ln < end and not dotted and not word.startswith('"') and word not in self.declarations \
                    and word not in KEYWORDS and word not in RESERVED and word not in out:
                out.append(word)
        return out

    def local_uses(self, name: str, line: int) -> list:
        """(line, column, end column) of each use of the local ``name`` in the declaration around ``line``."""
        import re
        start, end = self.item_lines(line)
        out = [(ln, col, col + len(word)) for ln, col, word, dotted in self.words()
               if start <= ln < end and word == name and not dotted]
        # an action's text names its parameters: "grow bird {b} with {c}"
        lines = self.text.split("\n")
        for ln in range(start, min(end, len(lines))):
            for quoted in re.finditer(r'"[^"\n]*"', lines[ln].split("#", 1)[0]):
                for m in re.finditer(r"\{(" + re.escape(name) + r")(?=[}:!])", quoted.group()):
                    out.append((ln, quoted.start() + m.start(1), quoted.start() + m.end(1)))
        return sorted(out)

    def uses(self, name: str) -> list:
        """(line, column, end column) of each time ``name`` is written in this file, its declaration included."""
        decl = self.declarations.get(name)
        if decl is None:
            return []
        after_dot_ok = decl.kind in ("attribute", "card var")
        return [(ln, col, col + len(word)) for ln, col, word, dotted in self.words()
                if word == name and (after_dot_ok or not dotted)]


_VAR_KINDS = {"var": "var", "player var": "player var", "card var": "card var"}


def _declarations(module, sources) -> dict:
    out = {}

    def add(name, kind, span, doc=None):
        text = sources.of(span.file) or ""
        lines = text.split("\n")
        first = lines[span.line - 1].strip() if 0 < span.line <= len(lines) else ""
        out.setdefault(name, Declaration(name, kind, span, doc, first))

    for it in module.items:
        if isinstance(it, A.Param):
            add(it.name, it.kind, it.span, it.doc)
        elif isinstance(it, A.Enum):
            add(it.name, "enum", it.span)
            for m in it.members:
                add(m.id, f"member of {it.name}", m.span)
        elif isinstance(it, A.Attrs):
            for a in it.attrs:
                add(a.name, "attribute", a.span)
        elif isinstance(it, A.Zone):
            add(it.name, "zone", it.span)
        elif isinstance(it, A.Var):
            add(it.name, ("record " if it.record else "") + _VAR_KINDS.get(it.kind, it.kind), it.span, it.doc)
        elif isinstance(it, A.Function):
            add(it.name, "function", it.span)
        elif isinstance(it, A.Action):
            add(it.name, "action", it.span, it.template)
    return out


__all__ = ["SymbolIndex", "Declaration"]
