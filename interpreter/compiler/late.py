"""Parameters read from the state: one compile for many settings.

The compiler folds a parameter's value into the code it generates, as a
literal.  The fuzzer, drawing parameters, would then compile the game
again for each setting it draws: about fifty in a run of 100 examples,
each costing as much as a thousand actions of play.  Instead it compiles
once a copy of the rules (:func:`late_checked`) in which each drawn
parameter is read as a variable of the state: an internal variable, first
of all, that no statement writes and that a new state takes from its
setting (``Machine.new_state(..., late=...)``) before anything else is
worked out, the variables' initial values and the deck among them.  The
compiler treats it as it treats any variable (the searches that read it
keep their listings under its value, nothing folds it), so every setting
plays on one machine, and plays as the game compiled for that setting
does: the same legal actions, in the same order, with the same cards.

A parameter can be read late only where the compiler would otherwise need
its value before any state exists (:func:`late_names` leaves those out):
a zone's capacity, a variable's initial value, another parameter's
default or range.  What the compiler keeps from game to game by the
player count alone (a choice's listings, a flow condition's values: the
cards in play follow from the count) it keeps by the late parameters too
(``Layout.late_indices``); and a product it writes unchecked when a
factor folds to at most 1000 it decides by that factor's value
(``_mul_late``).  The variables are internal: an observation of such a
machine's state shows them (the fuzzer observes none).

What can still differ is which rule error a game meets first, where a
compile works out more than the rules say with the value at hand: a
table of card pairs made of a condition (which evaluates all of it, for
every card), a product left unchecked because a factor folds small
through a function, a memo filled at once.  The values, the legal
actions and the cards never differ.  So the fuzzer shrinks and writes out
a finding on the game compiled for its setting, and when that game does
not meet it, plays every setting on its own compile from then on
(``interpreter/fuzz_late.py``); a crash, the engine's, is reported where it
was met, and says so (``interpreter/fuzz_shrink.py``).
"""

from __future__ import annotations

import attrs

from rulelang import ast as A
from rulelang.checker import CheckedGame

from .layout import LATE_PREFIX
from .tree import walk

PREFIX = LATE_PREFIX  # the late variable of parameter x is "param x" (no rules file can name it: it has a space)


def late_names(g: CheckedGame, names) -> list:
    """Those of ``names`` (parameters, in the file's order) that can be read late."""
    refused = set()
    for z in g.zones.values():  # a capacity is a parameter's name, read when compiling
        if isinstance(getattr(z, "capacity", None), str):
            refused.add(z.capacity)
    early = [v.default for table in (g.vars, g.player_vars, g.card_vars) for v in table.values()]
    early += [e for p in g.params.values() for e in (p.default, p.low, p.high) if e is not None]
    for e in early:
        for x in walk(e):
            if isinstance(x, A.Name):
                r = g.res.get(id(x))
                if type(r) is tuple and r[0] == "param":
                    refused.add(r[1])
    return [n for n in g.params if n in set(names) and n not in refused
            and g.types.get(id(g.params[n])) in ("int", "bool")]


def late_checked(g: CheckedGame, names) -> CheckedGame:
    """A copy of ``g`` that reads each parameter of ``names`` (from
    :func:`late_names`) as an internal variable, declared before the others."""
    names = list(names)
    res, types = dict(g.res), dict(g.types)
    variables = {}
    for n in names:
        p = g.params[n]
        # (its initial value, written over by the setting's before anything reads it: a
        # literal, which cannot fail as the parameter's default might at some player count)
        t = g.types[id(p)]
        start = A.BoolLit(False, span=p.span) if t == "bool" else A.IntLit(0, span=p.span)
        v = A.Var("var", PREFIX + n, p.type, start, internal=True, span=p.span)
        types[id(v)] = g.types[id(p)]
        variables[v.name] = v
    late = set(names)
    for key, r in g.res.items():
        if type(r) is tuple and r[0] == "param" and r[1] in late:
            res[key] = ("var", PREFIX + r[1])
    variables.update(g.vars)
    # (derived: the facts kept of the rules are worked out again for these)
    return attrs.evolve(g, res=res, types=types, vars=variables, derived={})


def late_slots(m, names) -> list:
    """[(name, index in st.V)] of the late parameters in a machine compiled from
    :func:`late_checked`."""
    index = {name: i for name, _, i in m.var_names}
    return [(n, index[PREFIX + n]) for n in names]


__all__ = ["PREFIX", "late_names", "late_checked", "late_slots"]
