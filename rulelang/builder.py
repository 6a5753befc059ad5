"""The AST builder: turns Lark's parse tree into frozen :mod:`rulelang.ast`
nodes with spans, bottom up: the method named after each rule (or alias) gets
the node's meta and its children, built.  The few errors found
while building (a number too long, an outcome without or with two score
lines) are raised as :class:`_BuildError` carrying a diagnostic.
"""

from __future__ import annotations

from lark import Tree

from . import ast as A
from .builder_examples import ExampleBuilder
from .diagnostics import Diagnostic, Span
from .syntax_errors import _tok_span


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


class _Builder(ExampleBuilder):
    """Lark tree -> AST.  Each method receives the node's meta and its children.
    (Not a lark ``Transformer``: its per-node wrappers cost more than the
    building itself.)"""

    def __init__(self, file, reserved=frozenset()):
        self.file = file
        self.reserved = reserved

    def transform(self, tree):
        children = [self.transform(c) if isinstance(c, Tree) else c for c in tree.children]
        method = getattr(self, tree.data, None)
        if method is None:  # pragma: no cover - grammar guard
            raise AssertionError(f"no builder for {tree.data}")
        return method(tree.meta, children)

    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.file, 1, 1, 1, 2)
        return Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tspan(self, tok) -> Span:
        return _tok_span(self.file, tok)

    def _decl(self, tok) -> str:
        """A name being declared: not a reserved keyword."""
        if tok in self.reserved:
            raise _BuildError(Diagnostic("RL005", f"`{tok}` is a keyword of the language; choose another name",
                                         self._tspan(tok)))
        return str(tok)

    # ---- top level
    def start(self, meta, items):
        return A.Module(self.file, tuple(i for i in items if i is not None), span=self._span(meta))

    def extends_decl(self, meta, c):
        return A.Extends(_strip(c[0]), span=self._span(meta))

    def override_decl(self, meta, c):
        return A.Override(c[0], span=self._span(meta))

    def override_default(self, meta, c):
        kw, name, default, doc = c
        value = A.ParamDefault(str(kw), str(name), default, _strip(doc) if doc is not None else None,
                               span=self._tspan(name))
        return A.Override(value, span=self._span(meta))

    def heuristic_decl(self, meta, c):
        return A.Heuristic(self._decl(c[0]), c[1], span=self._span(meta))

    def game_decl(self, meta, c):
        return A.Game(_strip(c[0]), span=self._span(meta))

    def players_decl(self, meta, c):
        lo = _int(c[0], self.file)
        hi = _int(c[1], self.file) if c[1] is not None else lo
        return A.Players(lo, hi, span=self._span(meta))

    def param_decl(self, meta, c):
        kw, name, typ, lo, hi, default, doc = c
        return A.Param(str(kw), self._decl(name), typ, default, lo, hi,
                       _strip(doc) if doc is not None else None, span=self._tspan(name))

    def enum_decl(self, meta, c):
        return A.Enum(self._decl(c[0]), tuple(A.Name(self._decl(t), span=self._tspan(t)) for t in c[1:]),
                      span=self._tspan(c[0]))

    def attrs_decl(self, meta, c):
        return A.Attrs(tuple(c), span=self._span(meta))

    def attr_def(self, meta, c):
        return A.AttrDef(self._decl(c[0]), c[1], span=self._tspan(c[0]))

    def cards_decl(self, meta, c):
        return A.Cards(tuple(c), span=self._span(meta))

    def card_row(self, meta, c):
        name = c[0]
        values = list(c[1:-1])
        copies = c[-1][1] if c[-1] is not None else 1
        return A.CardRow(_strip(name), tuple(values), copies, span=self._span(meta))

    def copies(self, meta, c):
        return ("copies", _int(c[0], self.file))

    def value_int(self, meta, c):
        return A.CardValue("int", _int(c[0], self.file), span=self._span(meta))

    def value_neg(self, meta, c):
        return A.CardValue("int", -_int(c[0], self.file), span=self._span(meta))

    def value_name(self, meta, c):
        return A.CardValue("name", str(c[0]), span=self._span(meta))

    def value_set(self, meta, c):
        return A.CardValue("set", tuple(str(t) for t in c if t is not None), span=self._span(meta))

    def deck_decl(self, meta, c):
        return A.Deck(tuple(c), span=self._span(meta))

    def deck_where(self, meta, c):
        return A.DeckWhere(c[0], c[1], span=self._span(meta))

    def deck_named(self, meta, c):
        return A.DeckNamed(_strip(c[0]), c[1], span=self._tspan(c[0]))

    def zone_decl(self, meta, c):
        return A.Zone(self._decl(c[0]), tuple(c[1:]), span=self._tspan(c[0]))

    def zone_opt(self, meta, c):
        return A.ZoneOpt(tuple(str(t) for t in c), span=self._span(meta))

    def var_decl(self, meta, c):
        return self._var(c, False)

    def record_var_decl(self, meta, c):
        return self._var(c, True)

    def internal_var_decl(self, meta, c):
        return self._var(c, False, internal=True)

    def _var(self, c, record, internal=False):
        doc = _strip(c[4]) if c[4] is not None else None
        return A.Var(" ".join(str(c[0]).split()), self._decl(c[1]), c[2], c[3], record=record, doc=doc,
                     internal=internal, span=self._tspan(c[1]))

    def type_name(self, meta, c):
        return A.TypeName(str(c[0]), span=self._span(meta))

    def type_set(self, meta, c):
        return A.TypeSet(str(c[0]), span=self._span(meta))

    def type_list(self, meta, c):
        return A.TypeList(str(c[0]), span=self._span(meta))

    def function_expr(self, meta, c):
        name, *rest = c
        body = rest[-1]
        params = tuple(p for p in rest[:-1] if p is not None)
        return A.Function(self._decl(name), params, (), body, span=self._tspan(name))

    def function_block(self, meta, c):
        name, *rest = c
        params = tuple(p for p in rest if isinstance(p, A.TypedParam))
        lets = tuple(p for p in rest if isinstance(p, A.Let))
        body = [p for p in rest if isinstance(p, tuple) and p and p[0] == "return"][0][1]
        return A.Function(self._decl(name), params, lets, body, span=self._tspan(name))

    def typed_param(self, meta, c):
        return A.TypedParam(self._decl(c[0]), c[1], span=self._tspan(c[0]))

    def let_line(self, meta, c):
        return A.Let(self._decl(c[0]), c[1], span=self._span(meta))

    def return_line(self, meta, c):
        return ("return", c[0])

    def action_decl(self, meta, c):
        name, params, template, body = c
        return A.Action(self._decl(name), tuple(params or ()), _strip(template) if template is not None else None,
                        body, span=self._tspan(name))

    def action_params(self, meta, c):
        return tuple(c)

    def param_in(self, meta, c):
        return A.ActionParam(self._decl(c[0]), c[1], None, span=self._tspan(c[0]))

    def param_range(self, meta, c):
        return A.ActionParam(self._decl(c[0]), c[1], c[2], span=self._tspan(c[0]))

    def param_subsets(self, meta, c):
        return A.ActionParam(self._decl(c[0]), c[1], None, subsets=True, min_size=c[2], max_size=c[3],
                             span=self._tspan(c[0]))

    def invariant_decl(self, meta, c):
        return A.Invariant(c[0], _strip(c[1]) if c[1] is not None else None, span=self._span(meta))

    def always_invariant_decl(self, meta, c):
        return A.Invariant(c[0], _strip(c[1]) if c[1] is not None else None, always=True,
                           span=self._span(meta))

    def when_enter(self, meta, c):
        what, _enters, zone, owner, cond, body = c
        card = var = None
        if what.type == "STRING":
            card = A.StrLit(_strip(what), span=self._tspan(what))
        else:
            var = self._decl(what)
        return A.Trigger("enter", body, card=card, var=var, zone=str(zone),
                         owner=self._decl(owner) if owner is not None else None, cond=cond,
                         span=self._span(meta))

    def after_action(self, meta, c):
        return A.Trigger("action", c[0], span=self._span(meta))

    def before_turn(self, meta, c):
        return A.Trigger("turn", c[0], span=self._span(meta))

    def achievements_decl(self, meta, c):
        return A.Achievements(self._decl(c[0]), tuple(c[1:]), span=self._span(meta))

    def achievement_line(self, meta, c):
        return A.Achievement(_strip(c[0]), c[1], span=self._span(meta))

    def setup_decl(self, meta, c):
        return A.Setup(c[0], span=self._span(meta))

    def play_decl(self, meta, c):
        return A.Play(c[0], span=self._span(meta))

    def outcome_decl(self, meta, c):
        var = self._decl(c[0])
        score = None
        ties = []
        nobody = None
        for kind, a, b in c[1:]:
            if kind == "nobody":
                if nobody is not None:
                    raise _BuildError(Diagnostic("RL102", 'the outcome has two "nobody wins" lines', a.span))
                nobody = a
            elif kind == "score":
                if score is not None:
                    raise _BuildError(Diagnostic("RL102", "the outcome has two score lines", a.span))
                score = a
            else:
                ties.append((a, b))
        if score is None:
            raise _BuildError(Diagnostic("RL108", "the outcome needs a score line", self._span(meta)))
        return A.Outcome(var, score, tuple(ties), nobody, span=self._span(meta))

    def outcome_score(self, meta, c):
        return ("score", c[0], None)

    def outcome_then_high(self, meta, c):
        return ("then", "highest", c[0])

    def outcome_then_low(self, meta, c):
        return ("then", "lowest", c[0])

    def outcome_nobody(self, meta, c):
        return ("nobody", c[0], None)

    def block(self, meta, c):
        return tuple(c)

    # ---- statements
    def let_stmt(self, meta, c):
        return A.Let(self._decl(c[0]), c[1], span=self._span(meta))

    def set_stmt(self, meta, c):
        return A.Set(c[0], c[1], span=self._span(meta))

    def aug_stmt(self, meta, c):
        return A.AugSet(c[0], str(c[1]), c[2], span=self._span(meta))

    def random_stmt(self, meta, c):
        return A.SetRandom(c[0], c[1], span=self._span(meta))

    def random_order_stmt(self, meta, c):
        return A.SetRandom(c[0], c[1], order=True, span=self._span(meta))

    def let_random_stmt(self, meta, c):
        return A.LetRandom(self._decl(c[0]), c[1], span=self._span(meta))

    def let_random_order_stmt(self, meta, c):
        return A.LetRandom(self._decl(c[0]), c[1], order=True, span=self._span(meta))

    def require_stmt(self, meta, c):
        return A.Require(c[0], span=self._span(meta))

    def move_stmt(self, meta, c):
        return self._move(meta, c, False)

    def move_face_down_stmt(self, meta, c):
        return self._move(meta, c, True)

    def _move(self, meta, c, face_down):
        where, dest, *at = c[1]
        return A.Move(c[0], where, dest, at[0] if at else None, face_down, span=self._span(meta))

    def dest_top(self, meta, c):
        return ("top", c[0])

    def dest_bottom(self, meta, c):
        return ("bottom", c[0])

    def dest_new_stack(self, meta, c):
        return ("new_stack", c[0])

    def dest_at(self, meta, c):
        return ("at", c[0], c[1])

    def shuffle_stmt(self, meta, c):
        return A.Shuffle(c[0], span=self._span(meta))

    def swap_stmt(self, meta, c):
        return A.Swap(c[0], c[1], span=self._span(meta))

    def reveal_stmt(self, meta, c):
        return A.Reveal(c[0], c[1], span=self._span(meta))

    def list_lit(self, meta, c):
        return A.ListLit(tuple(x for x in c if x is not None), span=self._span(meta))

    def deal_stmt(self, meta, c):
        return A.Deal(c[0], c[1], c[2], span=self._span(meta))

    def choose_stmt(self, meta, c):
        return A.Choose(tuple(A.Name(str(t), span=self._tspan(t)) for t in c), span=self._span(meta))

    def end_stmt(self, meta, c):
        return A.EndGame(span=self._span(meta))

    def end_with_stmt(self, meta, c):
        return A.EndGame(c[1], span=self._span(meta))

    def pass_stmt(self, meta, c):
        return A.Pass(span=self._span(meta))

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

    def elif_clause(self, meta, c):
        return ("elif", c[0], c[1])

    def else_clause(self, meta, c):
        return ("else", c[0])

    def while_stmt(self, meta, c):
        return A.While(c[0], c[1], span=self._span(meta))

    def repeat_stmt(self, meta, c):
        return A.Repeat(c[0], self._decl(c[1]) if c[1] is not None else None, c[2], span=self._span(meta))

    def for_stmt(self, meta, c):
        return A.For(self._decl(c[0]), c[1], c[2], c[3], span=self._span(meta))

    def simultaneous_stmt(self, meta, c):
        return A.Simultaneous(self._decl(c[0]), c[1], c[2], c[3], c[4], span=self._span(meta))

    def turn_stmt(self, meta, c):
        return A.Turn(c[0], c[1], span=self._span(meta))

    # ---- expressions
    def if_expr(self, meta, c):
        return A.IfExpr(c[0], c[1], c[2], span=self._span(meta))

    def or_op(self, meta, c):
        return self._boolop("or", c, meta)

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

    def not_op(self, meta, c):
        return A.Not(c[0], span=self._span(meta))

    def compare(self, meta, c):
        return A.BinOp(str(c[1]), c[0], c[2], span=self._span(meta))

    def in_op(self, meta, c):
        return A.BinOp("in", c[0], c[1], span=self._span(meta))

    def not_in(self, meta, c):
        return A.BinOp("not in", c[0], c[1], span=self._span(meta))

    def union_op(self, meta, c):
        return A.BinOp("|", c[0], c[1], span=self._span(meta))

    def inter_op(self, meta, c):
        return A.BinOp("&", c[0], c[1], span=self._span(meta))

    def binop(self, meta, c):
        return A.BinOp(str(c[1]), c[0], c[2], span=self._span(meta))

    def neg(self, meta, c):
        if isinstance(c[0], A.IntLit):
            return A.IntLit(-c[0].value, span=self._span(meta))
        return A.Neg(c[0], span=self._span(meta))

    def attr(self, meta, c):
        return A.Attr(c[0], str(c[1]), span=self._span(meta))

    def index(self, meta, c):
        return A.Index(c[0], c[1], span=self._span(meta))

    def call(self, meta, c):
        return A.Call(str(c[0]), tuple(x for x in c[1:] if x is not None), span=self._span(meta))

    def call_gen(self, meta, c):
        return A.CallGen(str(c[0]), c[1], self._decl(c[2]), c[3], c[4], span=self._span(meta))

    def int_lit(self, meta, c):
        return A.IntLit(_int(c[0], self.file), span=self._span(meta))

    def str_lit(self, meta, c):
        return A.StrLit(_strip(c[0]), span=self._span(meta))

    def true_lit(self, meta, c):
        return A.BoolLit(True, span=self._span(meta))

    def false_lit(self, meta, c):
        return A.BoolLit(False, span=self._span(meta))

    def name(self, meta, c):
        return A.Name(str(c[0]), span=self._span(meta))

    def set_lit(self, meta, c):
        return A.SetLit(tuple(x for x in c if x is not None), span=self._span(meta))

    def list_comp(self, meta, c):
        return A.ListComp(c[0], self._decl(c[1]), c[2], c[3], span=self._span(meta))
