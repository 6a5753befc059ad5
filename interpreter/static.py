"""Static checks on a compiled machine, without playing.

- a choice the flow can never reach (behind a condition that is always
  false with these parameters, or after the game has ended);
- an action whose precondition is always false (it can never be chosen);
- a choice none of whose actions can ever be chosen: reaching it is a dead
  state;
- a loop whose condition is always true and that offers no choice.

Conditions count as constant when they read only literals and parameters,
so the results are for the parameter values the machine was compiled with;
given the checked game as well, also when they read a variable that no
statement ever sets to anything but its initial value (a flag never set
true: RL205 names it, RL201 the choices it hides).  The checks are reported
as warnings by ``rulerun check``.
"""

from __future__ import annotations

from rulelang import ast as A
from rulelang.diagnostics import Diagnostic

from .machine import Machine
from .runtime import DECIDE, END, JF, JMP, RANDOM


def _const(f):
    return getattr(f, "const", _NOT_CONST)


_NOT_CONST = object()


def stuck_variables(g) -> dict:
    """{("var" or "pvar", name): value} for each variable and player variable
    whose initial value is a literal and that every statement setting it sets
    to that same literal (or none sets it): it holds that value all game."""
    from .compiler.tree import walk

    def literal(e):
        return e.value if isinstance(e, (A.BoolLit, A.IntLit)) else _NOT_CONST

    stuck = {}
    for kind, table in (("var", g.vars), ("pvar", g.player_vars)):
        for name, v in table.items():
            value = literal(v.default)
            if value is not _NOT_CONST:
                stuck[(kind, name)] = value
    for x in walk(g.module):
        if isinstance(x, (A.Set, A.AugSet, A.SetRandom)):
            key = g.res.get(id(x.target))
            if isinstance(x, A.Set) and key in stuck and literal(x.expr) == stuck[key] \
                    and type(literal(x.expr)) is type(stuck[key]):
                continue
            stuck.pop(key, None)
    return stuck


def _value(g, e, stuck):
    """The value of condition ``e`` if literals, parameters (already folded
    into ``.const`` elsewhere) and stuck variables decide it, else _NOT_CONST."""
    if isinstance(e, (A.BoolLit, A.IntLit)):
        return e.value
    if isinstance(e, (A.Name, A.Call)):
        return stuck.get(g.res.get(id(e)), _NOT_CONST)
    if isinstance(e, A.Not):
        v = _value(g, e.operand, stuck)
        return _NOT_CONST if v is _NOT_CONST else not v
    if isinstance(e, A.BoolOp):
        values = [_value(g, x, stuck) for x in e.items]
        if e.op == "and" and any(v is False for v in values):
            return False
        if e.op == "or" and any(v is True for v in values):
            return True
        if _NOT_CONST in values:
            return _NOT_CONST
        return all(values) if e.op == "and" else any(values)
    if isinstance(e, A.BinOp) and e.op in ("==", "!="):
        a, b = _value(g, e.left, stuck), _value(g, e.right, stuck)
        if _NOT_CONST in (a, b):
            return _NOT_CONST
        return (a == b) == (e.op == "==")
    return _NOT_CONST


def reachable(m: Machine, g=None) -> set:
    """The code positions the flow can reach from the start (``g``, the
    checked game: conditions on stuck variables count as constant too)."""
    stuck = stuck_variables(g) if g is not None else {}
    seen = set()
    todo = [0]
    code = m.code
    while todo:
        pc = todo.pop()
        if pc in seen or pc >= len(code):
            continue
        seen.add(pc)
        op, a, b, _ = code[pc]
        if op == JMP:
            todo.append(a)
        elif op == JF:
            v = _const(a)
            if v is _NOT_CONST and stuck and id(a) in m.branch_conds:
                v = _value(g, m.branch_conds[id(a)], stuck)
            if v is _NOT_CONST:
                todo += [pc + 1, b]
            else:
                todo.append(pc + 1 if v else b)
        elif op == DECIDE:
            todo += [sa.body_pc for sa in m.sites[a]]
        elif op == END:
            continue
        else:  # EXEC, RANDOM
            todo.append(pc + 1)
    return seen


def check_machine(m: Machine, g=None) -> list:
    """Warnings (Diagnostics with codes RL2xx) for a compiled machine (and,
    given ``g``, its checked game: variables that never change)."""
    out = []
    live = reachable(m, g)
    if g is not None:
        out += _stuck_warnings(m, g, live)
    never = {}
    for name, span in m.never_actions:
        never.setdefault(name, span)
        out.append(Diagnostic("RL202", f'this requirement is always false: action "{name}" can never be chosen',
                              span, "warning"))
    offered = set()
    for pc, (op, a, b, span) in enumerate(m.code):
        if op != DECIDE:
            continue
        names = [sa.action.name for sa in m.sites[a]]
        if pc not in live:
            out.append(Diagnostic("RL201", "this choice can never be reached: " + ", ".join(names), span, "warning"))
            continue
        offered.update(names)
        if all(n in never for n in names):
            out.append(Diagnostic("RL203", "no action of this choice can ever be chosen: reaching it is a dead state",
                                  span, "warning"))
    # loops that spin without a choice: a JF whose condition is always true, jumping back with no DECIDE between
    for pc, (op, a, b, span) in enumerate(m.code):
        if op == JF and _const(a) is True and pc in live:
            body = range(pc + 1, b if isinstance(b, int) else pc + 1)
            if not any(m.code[i][0] in (DECIDE, END, RANDOM) for i in body):
                out.append(Diagnostic("RL204", "this loop's condition is always true and it offers no choice: "
                                      "it never ends", span, "warning"))
    seen_actions = {sa.action.name: sa.action.span for sa in m.site_actions}
    for name, span in seen_actions.items():
        if name not in offered and name not in never:
            out.append(Diagnostic("RL201", f'action "{name}" is only offered by choices that are never reached',
                                  span, "warning"))

    return sorted(out, key=lambda d: (d.span.line, d.span.column, d.code))


def _stuck_warnings(m: Machine, g, live) -> list:
    """RL205 for each stuck variable that decides a condition of the flow."""
    stuck = stuck_variables(g)
    if not stuck:
        return []
    from .compiler.tree import walk
    deciding = set()
    for f, cond in m.branch_conds.items():
        if _value(g, cond, stuck) is not _NOT_CONST and _value(g, cond, {}) is _NOT_CONST:
            deciding.update(g.res.get(id(x)) for x in walk(cond) if g.res.get(id(x)) in stuck)
    out = []
    for kind, name in sorted(deciding):
        v = (g.vars if kind == "var" else g.player_vars)[name]
        value = stuck[(kind, name)]
        shown = ("true" if value else "false") if isinstance(value, bool) else str(value)
        out.append(Diagnostic("RL205", f'"{name}" is never set to anything but {shown}: every condition on it '
                              "always comes out the same", v.span, "warning"))
    return out


__all__ = ["check_machine", "reachable", "stuck_variables"]
