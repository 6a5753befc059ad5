"""Block fusion: each run of straight-line EXEC steps becomes one generated function.

Fewer trips round the VM loop, and simple assignments (let, set, +=, -=)
written inline as source; any other step is called by its generated name.
A failing step still reports its own span.
"""

from __future__ import annotations

from rulelang import ast as A

from ..runtime import EXEC, JF, JMP, MAX_LIST, MAX_VALUE
from .expressions import Expressions
from .inline import inline_source
from .effects import statement_lines
from .source import lit
from .slots import slot_source


def fuse_blocks(code: list, site_actions, simple: dict, exprs: Expressions):
    """Merge, in place, each run of EXEC steps of ``code`` that no jump
    lands inside; ``simple`` maps a pc to its Let/Set/AugSet statement.
    Jump targets and the actions' ``body_pc`` are renumbered."""
    targets = {0}
    for op, a, b, _ in code:
        if op == JMP:
            targets.add(a)
        elif op == JF:
            targets.add(b)
    for sa in site_actions:
        targets.add(sa.body_pc)
    new, where = [], {}
    pc = 0
    while pc < len(code):
        op = code[pc][0]
        if op != EXEC:
            where[pc] = len(new)
            new.append(code[pc])
            pc += 1
            continue
        end = pc + 1
        while end < len(code) and code[end][0] == EXEC and end not in targets:
            end += 1
        where[pc] = len(new)
        if end - pc == 1 and pc not in simple:  # (a let or set alone is still written as source)
            new.append(code[pc])
        else:
            f = block_fn(exprs, [(code[i][1], code[i][3], simple.get(i)) for i in range(pc, end)])
            new.append((EXEC, f, None, code[pc][3]))
        pc = end
    where[len(code)] = len(new)
    for i, (op, a, b, span) in enumerate(new):
        if op == JMP:
            new[i] = (op, where[a], b, span)
        elif op == JF:
            new[i] = (op, a, where[b], span)
    for sa in site_actions:
        sa.body_pc = where[sa.body_pc]
    code[:] = new


def assign_target(exprs: Expressions, t) -> str | None:
    """Source of an assignable place, or None."""
    g, layout = exprs.g, exprs.layout
    if isinstance(t, A.Name):
        r = g.res[id(t)]
        if r[0] == "slot":
            return slot_source(r[1])
        if r[0] == "var":
            return f"st.V[{int(layout.var_index[r[1]])}]"
        return None
    if isinstance(t, A.Call) and t.func in layout.pvar_base:
        return f"st.V[{int(layout.pvar_base[t.func])} + {exprs.expr(t.args[0], {})}]"
    if isinstance(t, A.Attr) and t.name in layout.cvar_base:
        base = int(layout.cvar_base[t.name])
        return f"st.C[{exprs.expr(t.obj, {})}]" if base == 0 else f"st.C[{base} + {exprs.expr(t.obj, {})}]"
    return None


def simple_stmt(exprs: Expressions, s) -> list | None:
    """Source lines of a let, set, += or -= statement, or None.  A number
    or a list stored is checked against its bound (a number set to what is
    small whatever the state, a card's printed rank, say, need not be)."""
    if isinstance(s, A.Let):
        target, value = slot_source(exprs.g.res[id(s)]), exprs.expr(s.expr, {})
    else:
        target = assign_target(exprs, s.target)
        if target is None:
            return None
        value = exprs.expr(s.expr, {})
        if isinstance(s, A.AugSet):
            value = f"{target} {'+' if s.op == '+=' else '-'} {value}"
    # a card variable is written to the state's own list (a clone shares its original's)
    own = ["if st.cshared:", "    _own_cvars(st)"] if target.startswith("st.C[") else []
    t = exprs.t(s.expr)
    if t.startswith("list:"):
        return own + [f"_v = {value}", f"if len(_v) > {MAX_LIST}:", "    _long(_v)", f"{target} = _v"]
    if t != "int" or not isinstance(s, A.AugSet) and exprs.small(s.expr):
        return own + [f"{target} = {value}"]
    return own + [f"_v = {value}",
                  f"if not -{MAX_VALUE} <= _v <= {MAX_VALUE}:",
                  "    _big(_v)",
                  f"{target} = _v"]


SLOT_STEPS = ("inc", "leave", "put")  # the steps on a flow slot, which cannot fail


def slot_step(kind, slots: str = "st.L") -> str:
    """Source of a step on a flow slot (``slots`` names the state's list of
    them): a counter's ``inc``, a turn's ``leave`` (back to the seat before
    it), a constant ``put``."""
    slot = int(kind[1])
    if kind[0] == "inc":
        return f"{slots}[{slot}] += 1"
    if kind[0] == "leave":
        return f"st.me = {slots}[{slot}]"
    return f"{slots}[{slot}] = {lit(kind[2])}"


def block_fn(exprs: Expressions, steps):
    """One function for straight-line steps [(closure, span, simple
    statement or None)]; a failing step still reports its own span."""
    ns = exprs.ns
    name = ns.fresh("_b")
    body = []
    for f, span, s in steps:
        kind = getattr(f, "flow", None)
        if kind is not None and kind[0] == "count":  # a coverage probe: cannot fail
            body.append(f"{ns.ref(kind[1])}[{int(kind[2])}] += 1")
            continue
        if kind is not None and kind[0] in SLOT_STEPS:
            body.append(slot_step(kind))
            continue
        src = simple_stmt(exprs, s) if s is not None else getattr(f, "source", None)  # (a move's own)
        if src is None and kind is not None and kind[0] == "enter":  # a turn starts: whose is it?
            who = inline_source(kind[2])
            value = f"({who})" if who is not None else f"{ns.ref(kind[2])}(st)"
            src = [f"st.L[{int(kind[1])}] = st.me", f"st.me = {value}"]
        if src is None and kind is not None and kind[0] == "set":  # flow slots set (see .flowgen)
            src = [f"st.L[{int(slot)}] = {value}" for slot, value in kind[1]]
        if src is None:
            src = [f"{ns.ref(f)}(st)"]
        body += statement_lines(ns, src, span)
    where = {}
    lines = [f"def {name}(st):", "    try:", *(f"        {line}" for line in body),
             "    except BaseException as err:", f"        _failed(st, err, {ns.table_of(name, where)})", "        raise"]
    f = ns.define("\n".join(lines) + "\n", name, where)
    f.flow = ("block", tuple(body))  # its body, written inline by .flowgen
    return f
