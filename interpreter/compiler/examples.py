"""An example's expectations as closures (see :mod:`interpreter.examples`,
which runs them).

Each expectation becomes ``(expect, parts)``, ``expect`` the AST node (for
its kind, its text and its line):

- ``true``: ``(whole, left, right)``; for a comparison the two sides are
  compiled too, so that a failure can say what each side was;
- ``scores`` / ``winners``: ``(value,)``;
- ``legal`` / ``illegal``: ``(player, action definition, [argument]...)``.
"""

from __future__ import annotations

from rulelang import ast as A

COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def compile_expectations(example: A.Example, exprs, action_defs: dict) -> list:
    out = []
    for e in example.expects:
        if e.kind == "true":
            v = e.value
            sides = (exprs.fn(v.left), exprs.fn(v.right)) if isinstance(v, A.BinOp) and v.op in COMPARISONS \
                else (None, None)
            out.append((e, (exprs.fn(v), *sides)))
        elif e.kind in ("scores", "winners"):
            out.append((e, (exprs.fn(e.value) if e.value is not None else (lambda st: []),)))
        else:
            out.append((e, (exprs.fn(e.value), action_defs[e.action], [exprs.fn(x) for x in e.args])))
    return out
