"""The checker as a whole: the order of the passes, and the entry points
:func:`check` and :func:`check_expression`.

Every name is declared first (so that bodies may refer to names declared
further down), then the bodies are checked, then the actions as a whole.
"""

from __future__ import annotations

from .. import ast as A
from ..diagnostics import Diagnostic, Span
from .actions import ActionChecks
from .declarations import DeclarationChecks
from .examples import ExampleChecks
from .expressions import ExpressionChecks
from .model import CheckedGame
from .scope import Scope
from .statements import StatementChecks
from .triggers import TriggerChecks


class Checker(DeclarationChecks, ActionChecks, TriggerChecks, StatementChecks, ExpressionChecks, ExampleChecks):
    """One check of one module: the mixins, one per concern, combined."""

    # ------------------------------------------------------------ entry
    def run(self) -> tuple[CheckedGame, list[Diagnostic]]:
        """Check the whole module: the passes, in order.  Returns the checked game
        and every diagnostic, sorted by position (stably: diagnostics at one
        position stay in the order the passes found them)."""
        items = self.m.items
        for it in items:
            if isinstance(it, (A.Extends, A.Override)):  # resolved by rulelang.variants when a file is read
                self.err("RL118", "a variant is read from its file (rulelang.check_file, `rulerun check FILE`), "
                         "which reads the file it extends", it.span)
        by_type = {}
        for it in items:
            by_type.setdefault(type(it), []).append(it)
        self._singletons(by_type)
        for e in by_type.get(A.Enum, []):
            self.check_enum(e)
        for a in by_type.get(A.Attrs, []):
            self.check_attrs(a)
        for p in by_type.get(A.Param, []):
            self.check_param_decl(p)
        for c in by_type.get(A.Cards, []):
            self.check_cards(c)
        for z in by_type.get(A.Zone, []):
            self.check_zone(z)
        for v in by_type.get(A.Var, []):
            self.declare_var(v)
        for f in by_type.get(A.Function, []):
            if self.declare_global(f.name, f.span, "a function"):
                self.g.functions[f.name] = f
        for a in by_type.get(A.Action, []):
            if self.declare_global(a.name, a.span, "an action"):
                self.g.actions[a.name] = a
        # bodies, once every name is known
        for p in by_type.get(A.Param, []):
            self.check_param_values(p)
        for v in by_type.get(A.Var, []):
            self.check_var_default(v)
            self.check_record_var(v)
        for d in by_type.get(A.Deck, []):
            self.check_deck(d)
        self.check_functions()
        for a in self.g.actions.values():
            self.check_action(a)
        for s in by_type.get(A.Setup, []):
            self.g.setup = s.body
            self.check_block(s.body, Scope(), ctx={"turn": False, "action": None})
        for s in by_type.get(A.Play, []):
            self.g.play = s.body
            self.check_block(s.body, Scope(), ctx={"turn": False, "action": None})
        for t in by_type.get(A.Trigger, []):
            self.check_trigger(t)
        for o in by_type.get(A.Outcome, []):
            self.check_outcome(o)
        for h in by_type.get(A.Heuristic, [])[:1]:
            self.check_heuristic(h)
        for a in by_type.get(A.Achievements, []):
            self.check_achievements(a)
        for inv in by_type.get(A.Invariant, []):
            # "me" in an invariant: the player to move where it is checked
            self.expect(self.expr(inv.cond, Scope(), {"turn": True}), "bool", inv.cond, "an invariant")
            self.g.invariants.append(inv)
        self.g.nslots_play = self.slot  # (a game's machine leaves out the slots of its examples)
        for ex in by_type.get(A.Example, []):
            self.check_example(ex)
        self.check_action_cycles()
        self.check_can_cycles()
        for name, a in self.g.actions.items():
            if name not in self.used_actions:
                self.warn("RL114", f'action "{name}" is never offered by a choose', a.span)
        self.g.nslots = self.slot
        self.g.nscratch = self.scratch
        self.g.checker = self
        self.g.warnings = [d for d in self.diags if d.severity == "warning"]
        return self.g, sort_diagnostics(self.diags, self.m.file)


def sort_diagnostics(diags, file: str) -> list:
    """By position: the checked file's own first, then each file it extends
    (stably: diagnostics at one position stay in the order found)."""
    return sorted(diags, key=lambda d: (d.span.file != file, d.span.file, d.span.line, d.span.column))


def check(module: A.Module) -> tuple[CheckedGame, list[Diagnostic]]:
    """Check a parsed module; returns the checked game and every diagnostic (errors and warnings)."""
    checker = Checker(module)
    try:
        return checker.run()
    except RecursionError:  # a hand-built tree deeper than the parser allows
        checker.err("RL001", "expression nested too deeply", Span(module.file, 1, 1, 1, 2))
        return checker.g, sort_diagnostics(checker.diags, module.file)


def check_expression(g: CheckedGame, e) -> tuple[str, list[Diagnostic]]:
    """Type-check an extra expression against a checked game (as if inside a
    turn: ``me`` is the player to move).  Returns (type, diagnostics)."""
    ch = g.checker
    before = len(ch.diags)
    t = ch.expr(e, Scope(), {"turn": True})
    g.nslots = max(g.nslots, ch.slot)
    g.nscratch = max(g.nscratch, ch.scratch)
    new = ch.diags[before:]
    del ch.diags[before:]
    return t, new
