"""Text -> AST: the front end's entry points and its limits.

:func:`parse` and :func:`parse_expression` check the size of the text and
hand it to :mod:`rulelang.lalr`, which loads the grammar (``grammar.lark``:
LALR, the contextual lexer, an indentation post-lexer) and builds frozen AST
nodes with spans (:mod:`rulelang.builder`); syntax errors come back as
:class:`~rulelang.diagnostics.Diagnostic` objects, worded by
:mod:`rulelang.syntax_errors`.  No Lark type leaves the front end.

:func:`parse_file` first looks in the parse cache (:mod:`rulelang.ast_cache`):
a file parsed before, unchanged, is read back without loading Lark.  The
keywords are read from the grammar's text, also without Lark.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import ast as A
from . import ast_cache
from .checker.model import RESERVED as BUILTIN_NAMES
from .diagnostics import Diagnostic, Span

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")

# The size of a rules file is limited: the front end and the compiler cost
# some 30 microseconds a token, and more on dense expressions.  The largest
# game in games/ has 11,600 characters and 2,400 tokens; a bigger file is
# refused with RL004 (docs/language.md, section 2).
MAX_SOURCE_CHARS = 500_000
MAX_TOKENS = 100_000


def _grammar_keywords() -> frozenset:
    """The keywords: the quoted strings of the grammar that are spelt like a
    name ("zone", "if", "var", "enters", ...; not "player var")."""
    grammar = re.sub(r"//[^\n]*", "", GRAMMAR_PATH.read_text(encoding="utf-8"))
    return frozenset(w for w in re.findall(r'"([^"\n]*)"', grammar) if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", w))


KEYWORDS = _grammar_keywords()
# Keywords that may still be declared as names: the games in games/ name
# things so (hens, fox_in_the_henhouse: zone deck; emu_ranchers: player var
# score; fox_in_the_henhouse: the card attribute from; desplumados: let
# order).  The grammar reads each as a keyword only in its own place.
# The words of examples are soft too: keywords only at the head of an
# example's line (a function may be named scores, a variable legal).
SOFT_KEYWORDS = frozenset({"deck", "from", "order", "score", "example", "expect", "legal", "illegal", "scores",
                           "by", "do"})
# The keywords a declaration may not name (RL005).  Those that are built-in
# names too ("players", "card", "bottom") are left to the checker, which
# refuses to redefine a built-in name (RL102).
RESERVED_KEYWORDS = KEYWORDS - SOFT_KEYWORDS - BUILTIN_NAMES

# Deeper trees are refused with a diagnostic: the transformer, the checker and
# the compiler all recurse over the tree (real rules nest about 15 deep).
MAX_NESTING = 100


def parse(text: str, file: str = "<rules>") -> tuple[A.Module | None, list[Diagnostic]]:
    """Parse rules text; returns (module, diagnostics).  Never raises on bad input."""
    if len(text) > MAX_SOURCE_CHARS:
        return None, [_too_large(file)]
    if not text.endswith("\n"):
        text += "\n"
    from .lalr import parse_text
    return parse_text(text, file, "start")


def parse_expression(text: str, file: str = "<expression>"):
    """Parse one expression (for tools and tests); returns (expr, diagnostics)."""
    text = " ".join(text.split("\n"))
    if len(text) > MAX_SOURCE_CHARS:
        return None, [_too_large(file)]
    from .lalr import parse_text
    return parse_text(text, file, "expr")


def _too_large(file: str) -> Diagnostic:
    return Diagnostic("RL004", f"the file is too large: a rules file may have at most {MAX_SOURCE_CHARS:,} "
                      "characters", Span(file, 1, 1, 1, 2))


def parse_file(path) -> tuple[A.Module | None, list[Diagnostic], str]:
    """Read and parse a file; returns (module, diagnostics, text).  Reads no
    more than it may parse (:data:`MAX_SOURCE_CHARS`)."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8-sig") as f:  # a leading byte-order mark is not text
            text = f.read(MAX_SOURCE_CHARS + 1)
        if len(text) > MAX_SOURCE_CHARS:
            return None, [_too_large(str(path))], ""
    except UnicodeDecodeError as err:
        return None, [Diagnostic("RL003", f"the file is not UTF-8 text ({err.reason})",
                                 Span(str(path), 1, 1, 1, 2))], ""
    except IsADirectoryError:
        return None, [Diagnostic("RL003", "this is a directory, not a rules file", Span(str(path), 1, 1, 1, 2))], ""
    except OSError as err:
        return None, [Diagnostic("RL003", f"cannot read the file: {err.strerror or err}",
                                 Span(str(path), 1, 1, 1, 2))], ""
    name = str(path)
    limits = (MAX_SOURCE_CHARS, MAX_TOKENS, MAX_NESTING)
    module = ast_cache.load(name, text, limits)
    if module is not None:
        return module, [], text
    module, diags = parse(text, name)
    if module is not None and not diags:
        ast_cache.store(name, text, limits, module)
    return module, diags, text


__all__ = ["parse", "parse_file", "parse_expression", "KEYWORDS", "SOFT_KEYWORDS", "RESERVED_KEYWORDS"]
