"""The Lark side of the parser: the grammar loaded once (LALR, the
contextual lexer, an indentation post-lexer, with Lark's table cache), a
parse driven, and its tree built into AST nodes by :mod:`rulelang.builder`.

:mod:`rulelang.parser` imports this module only when it must parse: a rules
file found in the parse cache (:mod:`rulelang.ast_cache`) is read without
loading Lark at all.  No Lark type leaves this module.
"""

from __future__ import annotations

import functools
import operator

from lark import Lark, Tree
from lark.exceptions import UnexpectedInput
from lark.indenter import DedentError, Indenter

from . import parser as front
from .ast_cache import cache_folder
from .builder import _Builder, _BuildError
from .diagnostics import Diagnostic, Span
from .parser import GRAMMAR_PATH, RESERVED_KEYWORDS
from .syntax_errors import _dedent_line, _glued_diagnostic, _syntax_diagnostic

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
        limit = front.MAX_TOKENS
        for tok in stream:
            count += 1
            if count > limit:
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
    of a second to build); False (no cache) without a cache folder
    (:func:`rulelang.ast_cache.cache_folder`: writable, the user's own)."""
    import hashlib

    import lark

    folder = cache_folder()
    if folder is None:
        return False
    digest = hashlib.sha256(GRAMMAR_PATH.read_bytes() + lark.__version__.encode()).hexdigest()[:16]
    return str(folder / f"grammar-{digest}.lark-cache")


def parse_text(text: str, file: str, start: str):
    """Parse ``text`` from the rule ``start`` ("start": a file, "expr": one
    expression) and build its AST: (node or None, diagnostics).  The size
    limits are the caller's (:func:`rulelang.parser.parse`)."""
    too_deep = [Diagnostic("RL001", "expression nested too deeply", Span(file, 1, 1, 1, 2))]
    try:
        tree = _lark().parse(text, start=start)
    except _LexError as err:
        return None, [_lex_diagnostic(file, err)]
    except DedentError as err:
        line, col = getattr(err, "rules_pos", None) or (_dedent_line(text, err), 1)
        return None, [Diagnostic("RL002", "unindent does not match any outer indentation level",
                                 Span(file, line, col, line, col + 1))]
    except UnexpectedInput as err:
        return None, [_syntax_diagnostic(file, text, err, _lark())]
    except RecursionError:
        return None, too_deep
    # refuse a tree the recursive transformer (and the checker) cannot walk
    deep = _too_deep(file, tree)
    if deep is not None:
        return None, [deep]
    try:
        return _Builder(file, RESERVED_KEYWORDS).transform(tree), []
    except _BuildError as err:
        return None, [err.diagnostic]
    except RecursionError:
        return None, too_deep


def _too_deep(file: str, tree) -> Diagnostic | None:
    """A diagnostic if the tree nests deeper than MAX_NESTING (walked without recursion)."""
    limit = front.MAX_NESTING
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            meta = node.meta
            line, col = (1, 1) if getattr(meta, "empty", True) else (meta.line, meta.column)
            return Diagnostic("RL001", f"expression nested too deeply (more than {limit} levels)",
                              Span(file, line, col, line, col + 1))
        stack.extend((c, depth + 1) for c in node.children if isinstance(c, Tree))
    return None


def _lex_diagnostic(file: str, err: _LexError) -> Diagnostic:
    tok, prev = err.token, err.prev
    if prev is None:
        return Diagnostic("RL004", f"the file is too large: a rules file may have at most {front.MAX_TOKENS:,} "
                          "tokens (words, numbers and symbols)", Span(file, tok.line, tok.column, tok.line,
                                                                      tok.column + 1))
    return _glued_diagnostic(file, prev, tok)
