"""Arithmetic worked out when a game is compiled, past what reads literals
and parameters alone (:meth:`.expressions.Expressions.fold` works those
out): a product by 0 of a value that cannot fail, and a sum, difference or
product of two parts that fold so."""

from __future__ import annotations

from rulelang import ast as A

from ..runtime import MAX_VALUE


def fold_arithmetic(exprs, e):
    """The value of ``e`` (a ``+``, ``-`` or ``*`` that reads the state) if
    it has one whatever the state, else None: a product by 0 of a value
    that cannot fail (a variable, a seat: ``round * max(0, draws - 2)``
    with 2 draws), or an operation on two parts that fold so
    (``hand_size + round * 0``)."""
    left, right = exprs.fold(e.left), exprs.fold(e.right)
    if e.op == "*" and ((type(left) is int and left == 0 and cannot_fail(exprs, e.right))
                        or (type(right) is int and right == 0 and cannot_fail(exprs, e.left))):
        return 0
    if type(left) is not int or type(right) is not int:
        return None
    v = left + right if e.op == "+" else left - right if e.op == "-" else left * right
    return v if -MAX_VALUE <= v <= MAX_VALUE else None


def cannot_fail(exprs, e) -> bool:
    """Is ``e`` a number read that cannot fail, whatever the state: a
    literal, a parameter, a variable, the seat to move, the player count?"""
    if isinstance(e, (A.IntLit, A.BoolLit)):
        return id(e) not in exprs.g.seat_literals  # (a seat a smaller table lacks fails)
    if isinstance(e, A.Name):
        r = exprs.g.res.get(id(e))
        return r is not None and r[0] in ("param", "var", "me", "player_count", "member")
    return False
