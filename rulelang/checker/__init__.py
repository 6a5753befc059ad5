"""The checker: AST -> checked game, or a list of *all* diagnostics.

It resolves every name (locals get a slot number), infers and checks the type
of every expression, and checks the declarations (card rows against the card
attributes, zone options, duplicates, action templates, where statements may
stand).  The result, :class:`CheckedGame`, is what the compiler reads: the
declarations by name, plus two side tables keyed by ``id(node)``: ``types``
and ``res`` (what each name refers to).

Types are small strings: ``int bool player card stack pile stacks players
range set:E enum:E list:T none``; ``error`` silences follow-on diagnostics.

The checker is split by concern; :mod:`.core` holds the order of the passes:

- :mod:`.model`: the checked game, zone infos and the helpers on types;
- :mod:`.scope`: local scopes;
- :mod:`.base`: the shared state and how checks report;
- :mod:`.declarations`: sections, enums, parameters, cards, zones, vars, deck,
  functions, the outcome;
- :mod:`.actions`: actions, visible domains, action cycles;
- :mod:`.statements`: blocks, statements, assignable places;
- :mod:`.expressions`: expressions, names, operators, calls, builtins.
"""

from .actions import MAX_CHOICE_NESTING, MAX_LAID_OUT
from .core import Checker, check, check_expression
from .declarations import VISIBILITIES, ZONE_KINDS
from .model import (BUILTIN_TYPES, BUILTINS, COLLECTION_ELEM, ERR, GEN_FUNCS, RESERVED, SCRATCH_BASE, CheckedGame,
                    ZoneInfo, elem_type, tname)
from .scope import Scope

__all__ = [
    "BUILTIN_TYPES", "BUILTINS", "COLLECTION_ELEM", "ERR", "GEN_FUNCS", "MAX_CHOICE_NESTING", "MAX_LAID_OUT",
    "RESERVED", "SCRATCH_BASE", "VISIBILITIES", "ZONE_KINDS", "CheckedGame", "Checker", "Scope", "ZoneInfo", "check",
    "check_expression", "elem_type", "tname",
]
