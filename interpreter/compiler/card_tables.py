"""Tests of a card's printed attributes alone, worked out for every card once.

``count(x.kind in {A, B} for x in Z)``, ``any(...)`` and ``all(...)``
whose test reads nothing of the card but what is printed on it (its
attributes, its name) and nothing of the state: the test's value for each
card is a table made when the game is compiled, and the generator becomes
that table (1 or 0 per card) mapped over the cards at C speed (``sum``,
``1 in``, ``0 not in``), with the same work charged (``_tick``).  A test that
fails for some card (a division by zero) is left to play time, as
written.  ``any(x.attr == K ...)`` and its kin look for K in the
attribute's own table (:func:`attr_test`).  Used by
:meth:`.expressions.Expressions.e_CallGen`; a generator's, a list
comprehension's or a ``groups``'s filter (``... for x in Z if TEST``) that
reads only what is printed is read from such a table too, whatever its
body reads (:func:`filter_table`, used by ``Expressions.comp_parts``); and by the
searches for a parameter's own tests (:func:`param_card_test`), whose
tables also tell an action no card in play can make legal
(``Machine.never_offered``).
"""

from __future__ import annotations

import re

from rulelang import ast as A

_STATE = re.compile(r"(?<![A-Za-z0-9_])st(?![A-Za-z0-9_])")
_VAR = "c"  # the card, in the source of a test worked out per card


def predicate_table(exprs, e, ctx) -> str | None:
    """The source of ``e`` (a count, any or all generator over cards) as a
    per-card table mapped over its cards, or None where it does not apply."""
    if e.func not in ("count", "any", "all") or exprs.t(e.iter) not in ("pile", "grid", "stack", "list:card") \
            or exprs.layout is None:
        return None
    inner = dict(ctx)
    inner["nodes"] = None  # (no value worked out by a search stands for a part of the test)
    inner[exprs.g.res[id(e)]] = _VAR
    parts = []
    if e.cond is not None:
        parts.append(exprs.expr(e.cond, inner))
    if e.func != "count" or exprs.t(e.expr) == "bool":
        parts.append(exprs.expr(e.expr, inner))
    if not parts:
        return None
    if e.func == "all" and e.cond is not None:  # every card that passes the filter passes the test
        test = f"(not ({parts[0]}) or ({parts[1]}))"
    else:
        test = " and ".join(f"({p})" for p in parts)
    table = _table(exprs, test)
    if table is None:
        return None
    values = f"map({table}.__getitem__, _tick(st, {exprs.seq(e.iter, ctx)}))"
    return {"count": f"sum({values})", "any": f"(1 in {values})", "all": f"(0 not in {values})"}[e.func]


def filter_table(exprs, e, test: str, var: str) -> str | None:
    """The name of a per-card table of ``test``, the source of the filter of
    ``e`` (``... for x in S if TEST``, S of cards) reading the card as
    ``var``, where it reads nothing but what is printed on the card: the
    generator reads the table (``_p[x]``) instead of working TEST out at
    each card; None where that does not apply."""
    if exprs.layout is None or exprs.t(e.iter) not in ("pile", "grid", "stack", "list:card"):
        return None
    return _table(exprs, f"({_as_card(test, var)})")


def attr_test(exprs, e, ctx) -> str | None:
    """``any(x.attr == K for x in S)``, ``all(x.attr != K ...)`` and
    ``count(x.attr == K ...)`` with K a constant: the attribute's table
    mapped over the cards and K looked for, at C speed; else None."""
    if e.cond is not None or e.func not in ("any", "all", "count") or not isinstance(e.expr, A.BinOp) \
            or (e.expr.op, e.func) not in (("==", "any"), ("!=", "all"), ("==", "count")):
        return None
    slot = exprs.g.res[id(e)]
    for attr, other in ((e.expr.left, e.expr.right), (e.expr.right, e.expr.left)):
        if isinstance(attr, A.Attr) and isinstance(attr.obj, A.Name) and attr.name in exprs.g.card_attrs \
                and exprs.g.res.get(id(attr.obj)) == ("slot", slot) and exprs.is_static(other) \
                and not isinstance(other, A.StrLit):
            table = exprs.ns.ref(exprs.layout.card_attrs[attr.name][0], "_t")
            values = f"map({table}.__getitem__, _tick(st, {exprs.seq(e.iter, ctx)}))"
            k = exprs.expr(other, ctx)
            return {"any": f"({k} in {values})", "all": f"({k} not in {values})",
                    "count": f"[*{values}].count({k})"}[e.func]
    return None


def card_test(exprs, src: str, var: str) -> str | None:
    """``src``, a search's test of one card parameter (the loop variable
    ``var``), as a read of a per-card table (``_p[var]``, 1 or 0), when it
    reads nothing of the state but what is printed on the card; None
    otherwise, or where the test cannot be worked out for some card."""
    if exprs.layout is None:
        return None
    table = _table(exprs, f"({_as_card(src, var)})")
    return None if table is None else f"{table}[{var}]"


def card_tests(exprs, tests: list, var: str) -> str:
    """The tests (sources, all to hold, in order) of one card parameter:
    those that read only what is printed on the card, from the first on,
    as one read of a table made once (:func:`card_test`), the others after
    it as written.  Only the leading ones: a test after one that reads the
    state is not moved before it, which could spare it an error.  Each
    leading test is worked out on its own for every card first (once each:
    tests that each hold or fail for every card without an error make a
    table together), so a test that fails for some card stops the run."""
    first = None  # the first test's table
    k = 0
    while exprs.layout is not None and k < len(tests):
        values = _values(exprs, f"({_as_card(tests[k], var)})")
        if values is None:
            break
        if not k:
            first = values
        k += 1
    if not k:
        return " and ".join(tests)
    table = f"{exprs.ns.ref(first, '_p')}[{var}]" if k == 1 else card_test(exprs, " and ".join(tests[:k]), var)
    return " and ".join([table] + [f"({t})" for t in tests[k:]])


def _leading_table(exprs, src: str, var: str) -> list:
    """[the table] that ``src`` (from :func:`card_tests`) reads first, for
    the card ``var``, or [] where it starts with another test."""
    m = re.match(rf"(_p\d+)\[{re.escape(var)}\]", src)
    return [exprs.ns.ns[m.group(1)]] if m else []


def param_card_test(exprs, param, tests: list, var: str, tables: list) -> str:
    """The tests (sources, in order) of one card parameter (over cards, not
    sets of them), its leading tests of what is printed on the card read
    from a table made once (see :func:`card_tests`), which is
    added to ``tables`` when the parameter's values lie in a place (cards
    in play; a list may name others): every value passes it."""
    kind = exprs.t(param[1])
    if param[3] is not None or kind not in ("pile", "stack", "list:card"):
        return " and ".join(tests)
    src = card_tests(exprs, tests, var)
    if kind != "list:card":
        tables += _leading_table(exprs, src, var)
    return src


def _as_card(src: str, var: str) -> str:
    """``src`` reading the card as ``c`` (see :func:`_table`) instead of ``var``."""
    return re.sub(rf"(?<![A-Za-z0-9_]){re.escape(var)}(?![A-Za-z0-9_])", _VAR, src)


def _table(exprs, test: str) -> str | None:
    """The name of a table of ``test`` (source reading the card as ``c``)
    for every card, 1 or 0, made now; None when the test reads the state, or
    cannot be worked out for some card (left to play time, as written)."""
    table = _values(exprs, test)
    return None if table is None else exprs.ns.ref(table, "_p")


def _values(exprs, test: str) -> list | None:
    """``test`` worked out for every card (1 or 0), or None (see :func:`_table`)."""
    if _STATE.search(test) or "_seat(" in test:
        return None
    ncards = len(exprs.layout.card_name_ids)
    try:
        return exprs.ns.value(f"[(1 if {test} else 0) for {_VAR} in range({int(ncards)})]")
    except Exception:  # noqa: BLE001 - a card the test cannot be worked out for: as written
        return None
