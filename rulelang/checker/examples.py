"""Checks of ``example`` declarations: a position built by statements from
the start of a game, then what must hold there (docs/language.md, 2.16).

An example has no players deciding: its statements may not offer a choice
(``turn``, ``simultaneously``, ``choose``; RL119).  Its ``with`` lines name
declared parameters and give them a plain value; its player count is one
the game allows.  Each expectation is checked like any expression, in the
scope of the example's ``let`` statements.
"""

from __future__ import annotations

from .. import ast as A
from ..diagnostics import did_you_mean
from ..visit import walk
from .base import CheckerBase
from .scope import Scope


def literal_value(e):
    """The value of a plain literal (a number, a negative number, true or
    false), or None when ``e`` is anything else."""
    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.Neg) and isinstance(e.operand, A.IntLit):
        return -e.operand.value
    if isinstance(e, A.BoolLit):
        return e.value
    return None


class ExampleChecks(CheckerBase):
    def check_example(self, ex: A.Example):
        low, high = self.g.players
        if ex.players is not None and not low <= ex.players <= high:
            self.err("RL119", f"this game is for {low} to {high} players, not {ex.players}", ex.span)
        seen = set()
        for setting in ex.params:
            name, value, span = setting.name, setting.value, setting.span
            p = self.g.params.get(name)
            if p is None:
                self.err("RL119", f'unknown parameter "{name}"' + did_you_mean(name, self.g.params), span)
                continue
            if name in seen:
                self.err("RL119", f'parameter "{name}" is set twice in this example', span)
            seen.add(name)
            t = self.expr(value, Scope(), {"const": True})
            self.expect(t, self.g.types[id(p)], value, f'the value of "{name}"')
            if literal_value(value) is None:
                self.err("RL119", "an example gives a parameter a plain value (a number, true or false)",
                         value.span)
        if not ex.expects:
            self.err("RL119", "an example says what must hold: add an `expect` line", ex.span)
        scope = Scope()
        for st in ex.body:
            if isinstance(st, A.Expect):
                self.check_expect(st, scope)
                continue
            if isinstance(st, A.Do):
                self.check_expect(st.check, scope)
                a = self.g.actions.get(st.check.action)
                if a is not None and any(isinstance(x, A.Choose) for x in walk(a.body)):
                    self.err("RL119", f'action "{a.name}" asks a follow-up choice, which an example cannot '
                             "answer: make the position with statements instead", st.span)
                continue
            for x in walk(st):
                if isinstance(x, (A.Turn, A.Simultaneous, A.Choose)):
                    self.err("RL119", "an example has no players to decide: build the position with "
                             "statements that need no choice (move, deal, set...)", x.span)
            self.stmt(st, scope, {"turn": False, "action": None})
        self.g.examples.append(ex)

    def check_expect(self, e: A.Expect, scope):
        ctx = {"turn": False}
        if e.kind == "true":
            self.expect(self.expr(e.value, scope, ctx), "bool", e.value, "an expectation")
        elif e.kind == "scores":
            self.expect(self.expr(e.value, scope, ctx), "list:int", e.value, "the expected scores")
        elif e.kind == "winners" and e.value is None:  # expect nobody wins
            return
        elif e.kind == "winners":
            t = self.expr(e.value, scope, ctx)
            seats = [e.value] if isinstance(e.value, A.IntLit) else list(e.value.items) \
                if isinstance(e.value, A.ListLit) and all(isinstance(x, A.IntLit) for x in e.value.items) else None
            if seats is not None:  # seats written as numbers: 0 is the first player
                for x in seats:
                    self.seat_literal(x, "the expected winners")
            elif t != "player":
                self.expect(t, "list:player", e.value, "the expected winners")
        else:  # legal / illegal ACTION(args) by PLAYER
            self.expect(self.expr(e.value, scope, ctx), "player", e.value, "the player who would take it")
            a = self.g.actions.get(e.action)
            types = [self.expr(x, scope, ctx) for x in e.args]
            if a is None:
                self.err("RL112", f'unknown action "{e.action}"' + did_you_mean(e.action, self.g.actions), e.span)
                return
            params = self.g.action_slots.get(e.action, [])
            if len(e.args) != len(params):
                self.err("RL104", f'action "{e.action}" takes {len(params)} parameter'
                         f'{"" if len(params) == 1 else "s"}, not {len(e.args)}', e.span)
                return
            for x, t, (_, want, name) in zip(e.args, types, params):
                self.expect(t, want, x, f'parameter "{name}"')
