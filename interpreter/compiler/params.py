"""Parameter values: overrides checked against type and range, else defaults.

Compiled before anything else, with an expression compiler that knows no
layout (parameter expressions read only literals, earlier parameters and
``player_count``).
"""

from __future__ import annotations

import types

from rulelang import ast as A
from rulelang.checker import CheckedGame

from .expressions import Expressions, is_const
from .failures import guarded
from .tree import walk


class ParamError(Exception):
    """A bad ``--set NAME=VALUE`` or keyword parameter."""


def resolve_params(g: CheckedGame, overrides: dict, num_players: int | None = None, late=()) -> dict:
    """Parameter values, in declaration order: an override (checked against
    type and range) or else the default, which may read earlier parameters
    and ``player_count`` (the smallest allowed count when none is given).
    The parameters named in ``late`` are left out (read from the state, by
    a machine compiled from :func:`.late.late_checked`: no other parameter
    reads them)."""
    for name in overrides:
        if name not in g.params:
            from rulelang.diagnostics import did_you_mean
            known = ", ".join(sorted(g.params)) or "none"
            raise ParamError(f'unknown parameter "{name}"{did_you_mean(name, g.params)} (parameters: {known})')
    n = g.players[0] if num_players is None else num_players
    fake = types.SimpleNamespace(n=n)  # parameters may read the player count, nothing else
    values = {}
    exprs = Expressions(g, values, layout=None)  # sees each value as soon as it is resolved

    def value(e, what):  # a failed computation (1 / 0) is a RuleError at the expression
        f = exprs.fn(e)
        return f.const if is_const(f) else guarded(f, what, e.span)(fake)

    for name, p in g.params.items():
        if name in late:
            continue
        t = g.types[id(p)]
        if name in overrides:
            v = _coerce(name, t, overrides[name])
        else:
            v = value(p.default, f'the default of parameter "{name}"')
        if t == "int" and p.low is not None:
            lo = value(p.low, f'the range of parameter "{name}"')
            hi = value(p.high, f'the range of parameter "{name}"')
            if not lo <= v <= hi:
                raise ParamError(f'parameter "{name}" must be in {lo}..{hi}, not {v}')
        values[name] = v
    return values


def params_depend_on_players(g: CheckedGame, names=None) -> bool:
    """Does any parameter's default or range (of those ``names``, if given) read ``player_count``?"""
    for name, p in g.params.items():
        if names is not None and name not in names:
            continue
        for e in (p.default, p.low, p.high):
            if e is None:
                continue
            for x in walk(e):
                if isinstance(x, A.Name) and g.res.get(id(x)) == ("player_count",):
                    return True
    return False


def _coerce(name, t, raw):
    if t == "bool":
        if isinstance(raw, bool):
            return raw
        s = str(raw).strip().lower()
        if s in ("true", "yes", "on", "1"):
            return True
        if s in ("false", "no", "off", "0"):
            return False
        raise ParamError(f'parameter "{name}" is true or false, not {raw!r}')
    if isinstance(raw, bool):
        raise ParamError(f'parameter "{name}" is a number, not {raw!r}')
    if isinstance(raw, int):
        return raw
    try:
        return int(str(raw).strip())
    except ValueError:
        raise ParamError(f'parameter "{name}" is a number, not {raw!r}') from None
