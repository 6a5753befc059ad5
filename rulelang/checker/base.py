"""The state every check shares, and how checks report.

:class:`CheckerBase` holds the module being checked, the checked game being
built, the diagnostics found so far and the slot counter.  Each concern
(declarations, actions, statements, expressions) is a mixin on top of it, and
:class:`~rulelang.checker.core.Checker` combines them; the mixins call one
another through ``self``.
"""

from __future__ import annotations

from .. import ast as A
from ..diagnostics import Diagnostic, Span
from .model import ERR, RESERVED, SCRATCH_BASE, CheckedGame, tname


class CheckerBase:
    """The state of one check and the helpers every concern uses."""

    def __init__(self, module: A.Module):
        self.m = module
        self.g = CheckedGame(module, module.file)
        self.diags: list[Diagnostic] = []
        self.global_names: dict[str, Span] = {}
        self.slot = 0
        self.scratch = 0
        self.used_actions: set[str] = set()
        self._func_state = {}  # function name -> "busy" or "done", while function bodies are checked

    # ------------------------------------------------------------ helpers
    def err(self, code, msg, span, notes=()):
        self.diags.append(Diagnostic(code, msg, span, "error", tuple(notes)))

    def warn(self, code, msg, span):
        self.diags.append(Diagnostic(code, msg, span, "warning"))

    def new_slot(self, scratch: bool = False):
        """A new slot: a state's own (a statement's name, an action's
        parameter, a loop's counter), or with ``scratch``, one that lives
        only while an expression is evaluated (see SCRATCH_BASE)."""
        if scratch:
            self.scratch += 1
            return SCRATCH_BASE + self.scratch - 1
        self.slot += 1
        return self.slot - 1

    def declare_global(self, name, span, what):
        if name in self.global_names:
            prev = self.global_names[name]
            self.err("RL102", f'"{name}" is defined twice', span, [f"first defined at {prev}"])
            return False
        if name in RESERVED:
            self.err("RL102", f'"{name}" is a built-in name and cannot be redefined as {what}', span)
            return False
        self.global_names[name] = span
        return True

    def seat_literal(self, node, what):
        """A number written where a player is wanted is a seat (0 is the first
        player).  A seat the game never has is an error; one that only larger
        tables have is checked when it is used (``g.seat_literals``)."""
        low, high = self.g.players
        if not 0 <= node.value < high:
            most = f"at most {high} players" if high > 1 else "one player"
            self.err("RL116", f"{what}: there is no seat {node.value} in this game ({most}, seats 0 to "
                     f"{high - 1}; seat 0 is the first player)", node.span)
        elif node.value >= low:
            self.g.seat_literals.add(id(node))

    def expect(self, got, want, node, what):
        """Report (RL103) when a type is not the one wanted; ``error`` on either side is silent."""
        if got == ERR or want == ERR:
            return
        if got == want:
            return
        if got.startswith("set:") and want == "set:?" or want.startswith("set:") and got == "set:?":
            return
        if want == "player" and got == "int" and isinstance(node, A.IntLit):
            self.seat_literal(node, what)
            return
        self.err("RL103", f"{what} should be {tname(want)}, not {tname(got)}", node.span)
