"""The compiling stage: checked AST -> :class:`~interpreter.machine.Machine`.

A map, in the order the stages run (:mod:`.pipeline`), each module using
only those above it:

- :mod:`.tree`: walking the AST (children, nested blocks, slots read).
- :mod:`.helpers`: functions the compiled game calls at play time
  (``least_sum_at_least``, ``members_of``, ``can``, ``stack_of``...).
- :mod:`.source`: the namespace of all generated Python source, and the
  allowlist that keeps rules text out of it.
- :mod:`.failures`: an error of evaluation made a rule error naming its
  line of the rules (a value computed at load time, a generated function).
- :mod:`.chance`: chance steps (a random pick, a shuffle).
- :mod:`.layout`: where cards, zones and variables live in a state;
  variable defaults and the deck.
- :mod:`.expressions`: expressions -> generated source -> ``f(state)``;
  constant folding.
- :mod:`.functions`: user functions -> generated source (a mixin of the above).
- :mod:`.params`: parameter values (overrides and defaults), ``ParamError``.
- :mod:`.masks`: card-pair conditions of a search, tabulated as bit masks.
- :mod:`.searches`: an action's search written as nested loops.
- :mod:`.actions`: planning that search (requires and lets per loop level,
  hoisting, inlining).
- :mod:`.effects`: move, swap, reveal, deal as closures.
- :mod:`.fusion`: straight runs of flow steps fused into one generated function.
- :mod:`.flow`: statements -> the flat code list (jumps, choices, probes).
- :mod:`.flow_cards`: the statements that move cards, their triggers, and the checks after them.
- :mod:`.pipeline`: ``compile_game``, the stages in order.
- :mod:`.late`: a copy of the checked rules that reads some parameters from
  the state (one compile for the fuzzer's drawn settings).
"""

from __future__ import annotations

from .helpers import index, least_sum_at_least, members_of, strictly_decreasing, strictly_increasing
from .params import ParamError, params_depend_on_players, resolve_params
from .pipeline import compile_game, compile_machine, expression_function

__all__ = ["compile_game", "compile_machine", "resolve_params", "params_depend_on_players", "ParamError",
           "expression_function", "least_sum_at_least", "members_of", "index", "strictly_increasing",
           "strictly_decreasing"]
