"""Text -> AST.

The grammar (``grammar.lark``) is loaded once, LALR with the contextual lexer
and an indentation post-lexer.  A separate transformer step turns the Lark
tree into frozen AST nodes with spans; no Lark type leaves this module.
Syntax errors become :class:`~rulelang.diagnostics.Diagnostic` objects.
"""

from __future__ import annotations

import functools
from pathlib import Path

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.indenter import DedentError, Indenter

from . import ast as A
from .diagnostics import Diagnostic, Span, source_lines

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")


class _RulesIndenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

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


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
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


def _expected_words(expected) -> str:
    names = []
    for t in sorted(expected):
        pattern = _lark().get_terminal(t).pattern if t in _terminal_names() else None
        if pattern is not None and pattern.type == "str":
            names.append(f'"{pattern.value}"')
        else:
            names.append(_word(t))
    names = sorted(set(names))
    if len(names) > 8:
        names = names[:8] + ["..."]
    return ", ".join(names)


@functools.lru_cache(maxsize=1)
def _terminal_names():
    return frozenset(t.name for t in _lark().terminals)


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
    return f'"{tok.value}"'


def _syntax_diagnostic(file: str, text: str, err: Exception) -> Diagnostic:
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
        expected = _expected_words(err.accepts or err.expected)
        msg = f"unexpected {_describe_token(tok)}"
        code = "RL001"
        if tok.type == "_INDENT":
            # the token borrows the start of the newline before it: point at the indented line
            msg, code = "unexpected indentation", "RL002"
            span = Span(file, tok.end_line, tok.end_column, tok.end_line, tok.end_column + 1)
        if expected:
            msg += f"; expected {expected}"
        return Diagnostic(code, msg, span)
    span = Span(file, 1, 1, 1, 2)
    return Diagnostic("RL001", f"syntax error: {err}", span)


def parse(text: str, file: str = "<rules>") -> tuple[A.Module | None, list[Diagnostic]]:
    """Parse rules text; returns (module, diagnostics).  Never raises on bad input."""
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = _lark().parse(text, start="start")
    except DedentError as err:
        line, col = getattr(err, "rules_pos", None) or (_dedent_line(text, err), 1)
        return None, [Diagnostic("RL002", "unindent does not match any outer indentation level",
                                 Span(file, line, col, line, col + 1))]
    except UnexpectedInput as err:
        return None, [_syntax_diagnostic(file, text, err)]
    except RecursionError:
        return None, [Diagnostic("RL001", "expression nested too deeply", Span(file, 1, 1, 1, 2))]
    deep = _too_deep(file, tree)
    if deep is not None:
        return None, [deep]
    try:
        module = _Builder(file).transform(tree)
    except VisitError as err:
        inner = err.orig_exc
        if isinstance(inner, _BuildError):
            return None, [inner.diagnostic]
        if isinstance(inner, RecursionError):
            return None, [Diagnostic("RL001", "expression nested too deeply", Span(file, 1, 1, 1, 2))]
        raise
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


class _BuildError(Exception):
    def __init__(self, diagnostic):
        self.diagnostic = diagnostic


def _strip(s: str) -> str:
    return s[1:-1]


# Numbers are checked against their limits (10**12 for values) by the checker;
# one this long is refused here, before int() (which refuses strings of more
# than 4300 digits with a ValueError, and is slow on long ones).
MAX_DIGITS = 50


def _int(tok, file) -> int:
    digits = str(tok).lstrip("0")
    if len(digits) > MAX_DIGITS:
        raise _BuildError(Diagnostic("RL116", "number too large (the limit is 10**12)", _tok_span(file, tok)))
    return int(digits or "0")


class _Builder(Transformer):
    """Lark tree -> AST.  Each method receives children and the node's meta."""

    def __init__(self, file):
        super().__init__(visit_tokens=False)
        self.file = file

    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.file, 1, 1, 1, 2)
        return Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tspan(self, tok) -> Span:
        return _tok_span(self.file, tok)

    def __default__(self, data, children, meta):  # pragma: no cover - grammar guard
        raise AssertionError(f"no builder for {data}")

    # ---- top level
    @v_args(meta=True)
    def start(self, meta, items):
        return A.Module(self.file, tuple(i for i in items if i is not None), span=self._span(meta))

    @v_args(meta=True)
    def game_decl(self, meta, c):
        return A.Game(_strip(c[0]), span=self._span(meta))

    @v_args(meta=True)
    def players_decl(self, meta, c):
        lo = _int(c[0], self.file)
        hi = _int(c[1], self.file) if c[1] is not None else lo
        return A.Players(lo, hi, span=self._span(meta))

    @v_args(meta=True)
    def param_decl(self, meta, c):
        kw, name, typ, lo, hi, default, doc = c
        return A.Param(str(kw), str(name), typ, default, lo, hi,
                       _strip(doc) if doc is not None else None, span=self._tspan(name))

    @v_args(meta=True)
    def enum_decl(self, meta, c):
        return A.Enum(str(c[0]), tuple(A.Name(str(t), span=self._tspan(t)) for t in c[1:]),
                      span=self._tspan(c[0]))

    @v_args(meta=True)
    def attrs_decl(self, meta, c):
        return A.Attrs(tuple(c), span=self._span(meta))

    @v_args(meta=True)
    def attr_def(self, meta, c):
        return A.AttrDef(str(c[0]), c[1], span=self._tspan(c[0]))

    @v_args(meta=True)
    def cards_decl(self, meta, c):
        return A.Cards(tuple(c), span=self._span(meta))

    @v_args(meta=True)
    def card_row(self, meta, c):
        name = c[0]
        values = list(c[1:-1])
        copies = c[-1][1] if c[-1] is not None else 1
        return A.CardRow(_strip(name), tuple(values), copies, span=self._span(meta))

    def copies(self, c):
        return ("copies", _int(c[0], self.file))

    @v_args(meta=True)
    def value_int(self, meta, c):
        return A.CardValue("int", _int(c[0], self.file), span=self._span(meta))

    @v_args(meta=True)
    def value_neg(self, meta, c):
        return A.CardValue("int", -_int(c[0], self.file), span=self._span(meta))

    @v_args(meta=True)
    def value_name(self, meta, c):
        return A.CardValue("name", str(c[0]), span=self._span(meta))

    @v_args(meta=True)
    def value_set(self, meta, c):
        return A.CardValue("set", tuple(str(t) for t in c if t is not None), span=self._span(meta))

    @v_args(meta=True)
    def deck_decl(self, meta, c):
        return A.Deck(tuple(c), span=self._span(meta))

    @v_args(meta=True)
    def deck_where(self, meta, c):
        return A.DeckWhere(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def deck_named(self, meta, c):
        return A.DeckNamed(_strip(c[0]), c[1], span=self._tspan(c[0]))

    @v_args(meta=True)
    def zone_decl(self, meta, c):
        return A.Zone(str(c[0]), tuple(c[1:]), span=self._tspan(c[0]))

    @v_args(meta=True)
    def zone_opt(self, meta, c):
        return A.ZoneOpt(tuple(str(t) for t in c), span=self._span(meta))

    @v_args(meta=True)
    def var_decl(self, meta, c):
        return A.Var(" ".join(str(c[0]).split()), str(c[1]), c[2], c[3], span=self._tspan(c[1]))

    @v_args(meta=True)
    def type_name(self, meta, c):
        return A.TypeName(str(c[0]), span=self._span(meta))

    @v_args(meta=True)
    def type_set(self, meta, c):
        return A.TypeSet(str(c[0]), span=self._span(meta))

    @v_args(meta=True)
    def type_list(self, meta, c):
        return A.TypeList(str(c[0]), span=self._span(meta))

    @v_args(meta=True)
    def function_expr(self, meta, c):
        name, *rest = c
        body = rest[-1]
        params = tuple(p for p in rest[:-1] if p is not None)
        return A.Function(str(name), params, (), body, span=self._tspan(name))

    @v_args(meta=True)
    def function_block(self, meta, c):
        name, *rest = c
        params = tuple(p for p in rest if isinstance(p, A.TypedParam))
        lets = tuple(p for p in rest if isinstance(p, A.Let))
        body = [p for p in rest if isinstance(p, tuple) and p and p[0] == "return"][0][1]
        return A.Function(str(name), params, lets, body, span=self._tspan(name))

    @v_args(meta=True)
    def typed_param(self, meta, c):
        return A.TypedParam(str(c[0]), c[1], span=self._tspan(c[0]))

    @v_args(meta=True)
    def let_line(self, meta, c):
        return A.Let(str(c[0]), c[1], span=self._span(meta))

    def return_line(self, c):
        return ("return", c[0])

    @v_args(meta=True)
    def action_decl(self, meta, c):
        name, params, template, body = c
        return A.Action(str(name), tuple(params or ()), _strip(template) if template is not None else None,
                        body, span=self._tspan(name))

    def action_params(self, c):
        return tuple(c)

    @v_args(meta=True)
    def param_in(self, meta, c):
        return A.ActionParam(str(c[0]), c[1], None, span=self._tspan(c[0]))

    @v_args(meta=True)
    def param_range(self, meta, c):
        return A.ActionParam(str(c[0]), c[1], c[2], span=self._tspan(c[0]))

    @v_args(meta=True)
    def invariant_decl(self, meta, c):
        return A.Invariant(c[0], _strip(c[1]) if c[1] is not None else None, span=self._span(meta))

    @v_args(meta=True)
    def setup_decl(self, meta, c):
        return A.Setup(c[0], span=self._span(meta))

    @v_args(meta=True)
    def play_decl(self, meta, c):
        return A.Play(c[0], span=self._span(meta))

    @v_args(meta=True)
    def outcome_decl(self, meta, c):
        var = str(c[0])
        score = None
        ties = []
        for kind, a, b in c[1:]:
            if kind == "score":
                if score is not None:
                    raise _BuildError(Diagnostic("RL102", "the outcome has two score lines", a.span))
                score = a
            else:
                ties.append((a, b))
        if score is None:
            raise _BuildError(Diagnostic("RL108", "the outcome needs a score line", self._span(meta)))
        return A.Outcome(var, score, tuple(ties), span=self._span(meta))

    def outcome_score(self, c):
        return ("score", c[0], None)

    def outcome_then_high(self, c):
        return ("then", "highest", c[0])

    def outcome_then_low(self, c):
        return ("then", "lowest", c[0])

    def block(self, c):
        return tuple(c)

    # ---- statements
    @v_args(meta=True)
    def let_stmt(self, meta, c):
        return A.Let(str(c[0]), c[1], span=self._span(meta))

    @v_args(meta=True)
    def set_stmt(self, meta, c):
        return A.Set(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def aug_stmt(self, meta, c):
        return A.AugSet(c[0], str(c[1]), c[2], span=self._span(meta))

    @v_args(meta=True)
    def random_stmt(self, meta, c):
        return A.SetRandom(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def require_stmt(self, meta, c):
        return A.Require(c[0], span=self._span(meta))

    @v_args(meta=True)
    def move_stmt(self, meta, c):
        where, dest = c[1]
        return A.Move(c[0], where, dest, span=self._span(meta))

    def dest_top(self, c):
        return ("top", c[0])

    def dest_bottom(self, c):
        return ("bottom", c[0])

    def dest_new_stack(self, c):
        return ("new_stack", c[0])

    @v_args(meta=True)
    def shuffle_stmt(self, meta, c):
        return A.Shuffle(c[0], span=self._span(meta))

    @v_args(meta=True)
    def swap_stmt(self, meta, c):
        return A.Swap(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def reveal_stmt(self, meta, c):
        return A.Reveal(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def list_lit(self, meta, c):
        return A.ListLit(tuple(x for x in c if x is not None), span=self._span(meta))

    @v_args(meta=True)
    def deal_stmt(self, meta, c):
        return A.Deal(c[0], c[1], c[2], span=self._span(meta))

    @v_args(meta=True)
    def choose_stmt(self, meta, c):
        return A.Choose(tuple(A.Name(str(t), span=self._tspan(t)) for t in c), span=self._span(meta))

    @v_args(meta=True)
    def end_stmt(self, meta, c):
        return A.EndGame(span=self._span(meta))

    @v_args(meta=True)
    def pass_stmt(self, meta, c):
        return A.Pass(span=self._span(meta))

    @v_args(meta=True)
    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])]
        else_body = None
        for extra in c[2:]:
            if extra is None:
                continue
            if extra[0] == "elif":
                branches.append((extra[1], extra[2]))
            else:
                else_body = extra[1]
        return A.If(tuple(branches), else_body, span=self._span(meta))

    def elif_clause(self, c):
        return ("elif", c[0], c[1])

    def else_clause(self, c):
        return ("else", c[0])

    @v_args(meta=True)
    def while_stmt(self, meta, c):
        return A.While(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def repeat_stmt(self, meta, c):
        return A.Repeat(c[0], str(c[1]) if c[1] is not None else None, c[2], span=self._span(meta))

    @v_args(meta=True)
    def for_stmt(self, meta, c):
        return A.For(str(c[0]), c[1], c[2], c[3], span=self._span(meta))

    @v_args(meta=True)
    def turn_stmt(self, meta, c):
        return A.Turn(c[0], c[1], span=self._span(meta))

    # ---- expressions
    @v_args(meta=True)
    def if_expr(self, meta, c):
        return A.IfExpr(c[0], c[1], c[2], span=self._span(meta))

    @v_args(meta=True)
    def or_op(self, meta, c):
        return self._boolop("or", c, meta)

    @v_args(meta=True)
    def and_op(self, meta, c):
        return self._boolop("and", c, meta)

    def _boolop(self, op, c, meta):
        items = []
        for x in c:
            if isinstance(x, A.BoolOp) and x.op == op:
                items.extend(x.items)
            else:
                items.append(x)
        return A.BoolOp(op, tuple(items), span=self._span(meta))

    @v_args(meta=True)
    def not_op(self, meta, c):
        return A.Not(c[0], span=self._span(meta))

    @v_args(meta=True)
    def compare(self, meta, c):
        return A.BinOp(str(c[1]), c[0], c[2], span=self._span(meta))

    @v_args(meta=True)
    def in_op(self, meta, c):
        return A.BinOp("in", c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def not_in(self, meta, c):
        return A.BinOp("not in", c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def union_op(self, meta, c):
        return A.BinOp("|", c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def inter_op(self, meta, c):
        return A.BinOp("&", c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def binop(self, meta, c):
        return A.BinOp(str(c[1]), c[0], c[2], span=self._span(meta))

    @v_args(meta=True)
    def neg(self, meta, c):
        if isinstance(c[0], A.IntLit):
            return A.IntLit(-c[0].value, span=self._span(meta))
        return A.Neg(c[0], span=self._span(meta))

    @v_args(meta=True)
    def attr(self, meta, c):
        return A.Attr(c[0], str(c[1]), span=self._span(meta))

    @v_args(meta=True)
    def index(self, meta, c):
        return A.Index(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def call(self, meta, c):
        return A.Call(str(c[0]), tuple(x for x in c[1:] if x is not None), span=self._span(meta))

    @v_args(meta=True)
    def call_gen(self, meta, c):
        return A.CallGen(str(c[0]), c[1], str(c[2]), c[3], c[4], span=self._span(meta))

    @v_args(meta=True)
    def int_lit(self, meta, c):
        return A.IntLit(_int(c[0], self.file), span=self._span(meta))

    @v_args(meta=True)
    def str_lit(self, meta, c):
        return A.StrLit(_strip(c[0]), span=self._span(meta))

    @v_args(meta=True)
    def true_lit(self, meta, c):
        return A.BoolLit(True, span=self._span(meta))

    @v_args(meta=True)
    def false_lit(self, meta, c):
        return A.BoolLit(False, span=self._span(meta))

    @v_args(meta=True)
    def name(self, meta, c):
        return A.Name(str(c[0]), span=self._span(meta))

    @v_args(meta=True)
    def set_lit(self, meta, c):
        return A.SetLit(tuple(x for x in c if x is not None), span=self._span(meta))

    @v_args(meta=True)
    def list_comp(self, meta, c):
        return A.ListComp(c[0], str(c[1]), c[2], c[3], span=self._span(meta))


def parse_expression(text: str, file: str = "<expression>"):
    """Parse one expression (for tools and tests); returns (expr, diagnostics)."""
    text = " ".join(text.split("\n"))
    too_deep = [Diagnostic("RL001", "expression nested too deeply", Span(file, 1, 1, 1, 2))]
    try:
        tree = _lark().parse(text, start="expr")
    except UnexpectedInput as err:
        return None, [_syntax_diagnostic(file, text, err)]
    except RecursionError:
        return None, too_deep
    # as in parse(): refuse a tree the recursive transformer (and the checker) cannot walk
    deep = _too_deep(file, tree)
    if deep is not None:
        return None, [deep]
    try:
        return _Builder(file).transform(tree), []
    except VisitError as err:
        if isinstance(err.orig_exc, _BuildError):
            return None, [err.orig_exc.diagnostic]
        if isinstance(err.orig_exc, RecursionError):
            return None, too_deep
        raise
    except RecursionError:
        return None, too_deep


def parse_file(path) -> tuple[A.Module | None, list[Diagnostic], str]:
    """Read and parse a file; returns (module, diagnostics, text)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a leading byte-order mark is not text
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
