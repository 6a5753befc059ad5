"""Static checks on a compiled machine, without playing.

- a choice the flow can never reach (behind a condition that is always
  false with these parameters, or after the game has ended);
- an action whose precondition is always false (it can never be chosen);
- a choice none of whose actions can ever be chosen: reaching it is a dead
  state;
- a loop whose condition is always true and that offers no choice.

Conditions count as constant when they read only literals and parameters,
so the results are for the parameter values the machine was compiled with.
The checks are reported as warnings by ``rulerun check``.
"""

from __future__ import annotations

from rulelang.diagnostics import Diagnostic

from .machine import Machine
from .runtime import DECIDE, END, JF, JMP, RANDOM


def _const(f):
    return getattr(f, "const", _NOT_CONST)


_NOT_CONST = object()


def reachable(m: Machine) -> set:
    """The code positions the flow can reach from the start."""
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


def check_machine(m: Machine) -> list:
    """Warnings (Diagnostics with codes RL2xx) for a compiled machine."""
    out = []
    live = reachable(m)
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


__all__ = ["check_machine", "reachable"]
