"""Text -> AST.

The grammar (``grammar.lark``) is loaded once, LALR with the contextual lexer
and an indentation post-lexer.  A separate transformer step turns the Lark
tree into frozen AST nodes with spans; no Lark type leaves this module.
Syntax errors become :class:`~rulelang.diagnostics.Diagnostic` objects.

This module loads the grammar (with Lark's table cache) and drives a parse;
the transformer is :mod:`rulelang.builder`, the wording of syntax errors
:mod:`rulelang.syntax_errors`.
"""

from __future__ import annotations

import functools
import operator
import re
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput
from lark.indenter import DedentError, Indenter

from . import ast as A
from .builder import _Builder, _BuildError
from .checker.model import RESERVED as BUILTIN_NAMES
from .diagnostics import Diagnostic, Span
from .syntax_errors import _dedent_line, _glued_diagnostic, _syntax_diagnostic

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

_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


class _LexError(Exception):
    """A problem the post-lexer finds: too many tokens, or (with ``prev``) a
    word glued to the one before it (``3times``, ``variable``)."""

    def __init__(self, token, prev=None):
        self.token = token
        self.prev = prev


class _RulesIndenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8
    # A name is lexed wherever a keyword may come: the contextual lexer tries
    # the longest word, then takes it for the keyword only if it is one
    # ("zonelot" is one unexpected word, not "zone" and "lot").
    always_accept = ("_NL", "NAME")

    def process(self, stream):
        return super().process(self._words_apart(stream))

    @staticmethod
    def _words_apart(stream):
        """The tokens, counted and checked: a word (keyword, name or number)
        right after another, with no space, is an error.  A name takes every
        letter and digit after it, but a number does not ("3times"), and nor
        do the keywords the grammar writes as patterns ("var", "param",
        "enters", "winners"), tried before names: "variable: int" would be
        read as "var iable: int"."""
        count, prev, prev_end = 0, None, -1
        for tok in stream:
            count += 1
            if count > MAX_TOKENS:
                raise _LexError(tok)
            if tok.start_pos == prev_end and tok[:1] in _WORD_CHARS and prev[-1:] in _WORD_CHARS:
                raise _LexError(tok, prev)
            yield tok
            prev, prev_end = tok, tok.end_pos

    def handle_NL(self, token):
        # Lark's DedentError does not say where: remember the badly indented line.
        try:
            yield from super().handle_NL(token)
        except DedentError as err:
            err.rules_pos = (token.end_line, token.end_column)
            raise


# Deeper trees are refused with a diagnostic: the transformer, the checker and
# the compiler all recurse over the tree (real rules nest about 15 deep).
MAX_NESTING = 100


def _new_lark() -> Lark:
    return Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        postlex=_RulesIndenter(),
        propagate_positions=True,
        maybe_placeholders=True,
        start=["start", "expr"],
        cache=_cache_path(),
    )


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
    lark = _new_lark()
    _pass_chains_through(lark)
    return lark


def _pass_chains_through(lark: Lark) -> None:
    """Make the reductions of the precedence chain (``?or_expr: and_expr``,
    ``?and_expr: not_expr``, ... eleven of them under every atom) hand their
    one child up as it is.  Lark's own callback for them builds nothing
    either, but goes through three wrappers and recomputes the child's
    positions: a third of the parse time.  The tree is the same (a test
    compares it with Lark's)."""
    callbacks = getattr(getattr(getattr(lark.parser, "parser", None), "parser", None), "callbacks", None)
    if not isinstance(callbacks, dict):  # another Lark: keep its callbacks
        return
    first = operator.itemgetter(0)
    for rule in list(callbacks):
        expansion = getattr(rule, "expansion", ())
        if (getattr(rule.options, "expand1", False) and not rule.alias and len(expansion) == 1
                and not expansion[0].is_term and not expansion[0].name.startswith("_")):
            callbacks[rule] = first


def _cache_path():
    """Where Lark keeps the built parser tables between runs (they take most
    of a second to build); False (no cache) if the folder is not writable."""
    import hashlib
    import os
    import tempfile

    import lark

    digest = hashlib.sha256(GRAMMAR_PATH.read_bytes() + lark.__version__.encode()).hexdigest()[:16]
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rulelang"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=folder, delete=True)
        probe.close()
    except OSError:
        return False
    return str(folder / f"grammar-{digest}.lark-cache")


def parse(text: str, file: str = "<rules>") -> tuple[A.Module | None, list[Diagnostic]]:
    """Parse rules text; returns (module, diagnostics).  Never raises on bad input."""
    if len(text) > MAX_SOURCE_CHARS:
        return None, [_too_large(file)]
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = _lark().parse(text, start="start")
    except _LexError as err:
        return None, [_lex_diagnostic(file, err)]
    except DedentError as err:
        line, col = getattr(err, "rules_pos", None) or (_dedent_line(text, err), 1)
        return None, [Diagnostic("RL002", "unindent does not match any outer indentation level",
                                 Span(file, line, col, line, col + 1))]
    except UnexpectedInput as err:
        return None, [_syntax_diagnostic(file, text, err, _lark())]
    except RecursionError:
        return None, [Diagnostic("RL001", "expression nested too deeply", Span(file, 1, 1, 1, 2))]
    deep = _too_deep(file, tree)
    if deep is not None:
        return None, [deep]
    try:
        module = _Builder(file, RESERVED_KEYWORDS).transform(tree)
    except _BuildError as err:
        return None, [err.diagnostic]
    except RecursionError:
        return None, [Diagnostic("RL001", "expression nested too deeply", Span(file, 1, 1, 1, 2))]
    return module, []


def _too_deep(file: str, tree) -> Diagnostic | None:
    """A diagnostic if the tree nests deeper than MAX_NESTING (walked without recursion)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            meta = node.meta
            line, col = (1, 1) if getattr(meta, "empty", True) else (meta.line, meta.column)
            return Diagnostic("RL001", f"expression nested too deeply (more than {MAX_NESTING} levels)",
                              Span(file, line, col, line, col + 1))
        stack.extend((c, depth + 1) for c in node.children if isinstance(c, Tree))
    return None


def parse_expression(text: str, file: str = "<expression>"):
    """Parse one expression (for tools and tests); returns (expr, diagnostics)."""
    text = " ".join(text.split("\n"))
    too_deep = [Diagnostic("RL001", "expression nested too deeply", Span(file, 1, 1, 1, 2))]
    if len(text) > MAX_SOURCE_CHARS:
        return None, [_too_large(file)]
    try:
        tree = _lark().parse(text, start="expr")
    except _LexError as err:
        return None, [_lex_diagnostic(file, err)]
    except UnexpectedInput as err:
        return None, [_syntax_diagnostic(file, text, err, _lark())]
    except RecursionError:
        return None, too_deep
    # as in parse(): refuse a tree the recursive transformer (and the checker) cannot walk
    deep = _too_deep(file, tree)
    if deep is not None:
        return None, [deep]
    try:
        return _Builder(file, RESERVED_KEYWORDS).transform(tree), []
    except _BuildError as err:
        return None, [err.diagnostic]
    except RecursionError:
        return None, too_deep


def _too_large(file: str) -> Diagnostic:
    return Diagnostic("RL004", f"the file is too large: a rules file may have at most {MAX_SOURCE_CHARS:,} "
                      "characters", Span(file, 1, 1, 1, 2))


def _lex_diagnostic(file: str, err: _LexError) -> Diagnostic:
    tok, prev = err.token, err.prev
    if prev is None:
        return Diagnostic("RL004", f"the file is too large: a rules file may have at most {MAX_TOKENS:,} tokens "
                          "(words, numbers and symbols)", Span(file, tok.line, tok.column, tok.line, tok.column + 1))
    return _glued_diagnostic(file, prev, tok)


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
    module, diags = parse(text, str(path))
    return module, diags, text


__all__ = ["parse", "parse_file", "Token", "Tree"]
