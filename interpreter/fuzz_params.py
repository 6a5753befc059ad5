"""Which parameters a fuzz run draws, and how; and which rules ran only
under some setting of them.

A fault behind an option that is off, or a parameter at another value
than its default, is found only by games played with that setting.  So by
default the fuzzer draws, for each example, every option and every
parameter whose declared range has at most :data:`SMALL_RANGE` values:
half the time at its default (the game as written), half the time anywhere
in its range.  Hypothesis shrinks a drawn value toward the low end of the
range: a fault that needs a year's end comes back with the fewest years
that show it.  A parameter named with ``vary`` is always drawn in its range;
one named with ``fixed`` (or given a value) is never drawn.
"""

from __future__ import annotations

SMALL_RANGE = 21  # a parameter with this many values or fewer is drawn by default


def _range(game, name):
    """(low, high) of an int parameter's declared range, or None."""
    from .compiler.expressions import NOT_CONST, Expressions

    p = game.checked.params[name]
    if p.low is None:
        return None
    exprs = Expressions(game.checked, game.params, layout=None)
    lo, hi = exprs.constant(p.low), exprs.constant(p.high)
    if lo is NOT_CONST or hi is NOT_CONST:
        return None
    return lo, hi


def small_parameters(game) -> list:
    """The options and the parameters with a small declared range, in the file's order."""
    out = []
    for name, _kind, t, _value, _doc in game.param_info():
        if t == "bool":
            out.append(name)
        elif t == "int":
            r = _range(game, name)
            if r is not None and r[1] - r[0] + 1 <= SMALL_RANGE:
                out.append(name)
    return out


def strategies(game, explicit, small) -> tuple:
    """(names, strategy): the strategy draws a tuple of values for ``names``,
    None meaning "its default".  The ``explicit`` names are drawn anywhere
    in their range; the ``small`` ones either all stay at their defaults
    (half the examples: the game as written) or each is drawn among a few
    values: its range's ends and its default's neighbours, a lower one
    first, so that shrinking lowers it."""
    from hypothesis import strategies as st

    info = {name: t for name, _, t, _, _ in game.param_info()}
    defaults = game.params
    names, draws = [], []
    for name in explicit:
        if name not in info:
            raise ValueError(f'--vary: unknown parameter "{name}" (parameters: {", ".join(info) or "none"})')
        names.append(name)
        draws.append(_drawn(game, name, info[name], st))
    small = [n for n in small if n not in explicit]
    around = []
    for name in small:
        low, high = _few(game, name, info[name], defaults[name])
        branches = ([st.sampled_from(low)] if low else []) + [st.none()] + ([st.sampled_from(high)] if high else [])
        around.append(st.one_of(*branches))
    names += small
    if not small:
        return names, st.tuples(*draws)
    return names, st.tuples(st.tuples(*draws), st.one_of(st.tuples(*around), st.just((None,) * len(small)))).map(
        lambda t: t[0] + t[1])


def _few(game, name, t, default) -> tuple:
    """(lower values, higher values) tried for a small parameter: its
    range's ends and its default's neighbours."""
    if t == "bool":
        return [], [not default]  # after the default: a finding shrinks back to the game as written
    lo, hi = _range(game, name)
    if not isinstance(default, int) or isinstance(default, bool):
        return sorted({lo, hi}), []
    low = sorted(v for v in {lo, lo + 1, default - 1} if lo <= v < default)
    high = sorted(v for v in {default + 1, hi} if default < v <= hi)
    return low, high


def _drawn(game, name, t, st):
    if t == "bool":
        return st.booleans()
    if t != "int":
        raise ValueError(f'--vary {name}: only options and whole-number parameters can be drawn')
    r = _range(game, name)
    if r is None:
        if game.checked.params[name].low is None:
            raise ValueError(f'--vary {name}: the parameter declares no range to draw from')
        raise ValueError(f'--vary {name}: its range must be plain numbers')
    return st.integers(*r)


def only_under_a_setting(points: dict, defaults: dict) -> list:
    """``points``: {(kind, what, where): {settings tuple: count}}, a settings
    tuple holding the drawn (name, value) pairs.  For each point that ran,
    but never with some parameter at its default, a line saying under which
    values it ran."""
    out = []
    for (kind, what, where), by_setting in points.items():
        ran = [dict(s) for s, n in by_setting.items() if n]
        if not ran:
            continue
        for name in sorted({k for s in ran for k in s}):
            values = [s.get(name) for s in ran]
            if all(v is not None and v != defaults.get(name) for v in values):
                shown = ", ".join(_text(v) for v in sorted(set(values), key=repr))
                out.append(f"{where}: {what} only with {name} = {shown}")
                break
    return out


def _text(v) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


__all__ = ["SMALL_RANGE", "small_parameters", "strategies", "only_under_a_setting"]
