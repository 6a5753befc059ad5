"""Action searches -> generated Python: nested loops over parameter values.

An action's search for its legal parameter values is planned by
:mod:`.actions` and written here as one function
``enumerate(st, out, uid)`` of nested loops, one per parameter, with
each require, let and hoisted value at the loop level the plan gives it.
Loop variables live in Python locals.
"""

from __future__ import annotations

import re

from rulelang import ast as A

from ..runtime import MAX_SEARCH
from .card_tables import param_card_test
from .expressions import Alias, Expressions
from .masks import MaskPlan
from .search_first import first_source
from .search_rows import Rows, stack_cards
from .tree import of_rules, walk


def domain(exprs: Expressions, has_copies: bool, param, ctx, tagged: bool = False) -> str:
    """Source of the values a parameter ranges over (identical copies once);
    ``tagged``: a set choice's sets as the actions ``(uid, set)``."""
    slot, dom, _, sizes = param
    src = exprs.seq(dom, ctx)
    if sizes is not None:  # a set of cards: every subset, each once
        lo, hi = sizes
        lo_src = exprs.expr(lo, ctx) if lo is not None else "0"
        hi_src = exprs.expr(hi, ctx) if hi is not None else "None"
        return f"_subsets(st, {src}, {lo_src}, {hi_src}{', uid' if tagged else ''})"
    if has_copies and exprs.t(dom) in ("pile", "stack", "list:card"):
        return f"_dedupe(st, {src})"
    return src


def enumerator(exprs: Expressions, has_copies: bool, plan, action: str = "?"):
    """Nested loops for one action.  ``plan``: params [(slot, domain
    node, high node or None, (min, max) size nodes of a set choice or None)], levels [[(kind, slot, node)]] for 0..k
    (kind "req", "let", "hoist", "eager" or "memo"), prefilters [[node]] per parameter,
    inlines {id(call): [(function parameter slot, argument)]}, and fixed: the
    indices of inner parameters whose domain reads no other parameter.

    The function's ``lines`` are what a choice's listing writes in (see
    :func:`.sites.site_body`).  A listing goes through every action, so
    for an action some can() asks about (a search that stops at its first
    action), they are written again as for any other action: with the
    memos that :func:`_listed_memo` fills at once; its ``first`` is then the
    test can() runs (:mod:`.search_first`), else None."""
    f = _enumerator(exprs, has_copies, plan, action, False)
    f.first = None
    if action in _asked(exprs):
        src = first_source(f.lines, name := exprs.ns.fresh("_first"))
        f.first = exprs.ns.define(src, name) if src is not None else None
        f.lines = _enumerator(exprs, has_copies, plan, action, True)
    return f


def _plan_facts(g, params, levels, prefilters) -> tuple:
    """(does a search of this plan ask can()?, the ids of the nodes inside
    a generator's iterable in its levels and prefilters): facts of the
    plan's nodes alone, worked out once for the same nodes in the same
    places and kept with the rules (see :func:`.tree.of_rules`): the fuzzer
    compiles a game again for each parameter set it draws."""
    pinned = [x for slot, domain, high, sizes in params for x in (domain, high, *(sizes or ()))] + \
        [node for level in levels for _, _, node in level] + [node for pre in prefilters for node in pre]
    key = (tuple(slot for slot, _, _, _ in params), tuple(tuple((kind, slot) for kind, slot, _ in level)
                                                         for level in levels),
           tuple(map(len, prefilters)), tuple(map(id, pinned)))
    kept = of_rules(g, "plan_facts", dict)
    hit = kept.get(key)
    if hit is not None:
        return hit[1]
    asks = any(isinstance(x, A.Call) and x.func == "can" for x in walk([params, levels, prefilters]))
    in_iterable = frozenset(id(x) for e in walk([levels, prefilters]) if isinstance(e, (A.CallGen, A.ListComp))
                            for x in walk(e.iter))
    if not any(isinstance(x, MaskPlan) for x in pinned):  # (made anew by each compile: not kept)
        kept[key] = (pinned, (asks, in_iterable))  # (the nodes kept: no other node takes their ids)
    return asks, in_iterable


def _enumerator(exprs: Expressions, has_copies: bool, plan, action: str, whole: bool):
    """:func:`enumerator`'s function; ``whole``: only its lines, for a
    search that lists every action (never one that stops at the first)."""
    params, levels, prefilters, inlines, fixed = plan
    ns = exprs.ns
    expr = exprs.expr
    name = ns.fresh("_enum")
    lines = [f"def {name}(st, out, uid):"]
    tables = []  # the tables of printed tests every value of a card parameter passes
    ctx = {"nodes": {}, "inline": set(inlines), "search": True}
    # Every value tried counts against the budget of the search (MAX_SEARCH),
    # in a local; in the rare search that asks can(), on the machine itself,
    # which the inner searches share.
    asks, in_iterable = _plan_facts(exprs.g, params, levels, prefilters)
    left = "st.m.search_left" if asks else "_left"
    action_ref = ns.ref(action, "_n")
    if params and not asks:
        lines.append("    _left = st.m.search_left")
    params_index = {slot: i for i, (slot, _, _, _) in enumerate(params)}
    hoisted = {}  # (level, source) -> local: the same value hoisted twice is computed once
    lazies = {}  # id(hoisted node) -> (node, local, source, indent, line declaring it)
    memo_decl = {}  # memo local -> the index of the line that declares it
    memo_uses = {}  # memo local -> [(node, loop variable, source of the value)]
    # (in_iterable: Python refuses ``:=`` in a comprehension's iterable: a value hoisted there is kept in a list)
    for pairs in inlines.values():
        for slot, arg in pairs:
            ctx[slot] = Alias(arg)

    def emit_level(items, indent, exit_stmt):
        pad = " " * indent
        for kind, slot, node in items:
            if kind == "req":
                lines.append(f"{pad}if not {truth(expr(node, ctx))}:")
                lines.append(f"{pad}    {exit_stmt}")
            elif kind == "let":
                local = f"x{int(slot)}"
                lines.append(f"{pad}{local} = {expr(node, ctx)}")
                ctx[slot] = local
            elif kind == "eager":  # cannot fail, costs nothing: worked out here, read as a local
                src = source(node)
                local = hoisted.get(("eager", indent, src))
                if local is None:
                    local = hoisted[("eager", indent, src)] = ns.fresh("y")
                    lines.append(f"{pad}{local} = {src}")
                put(node, local)
            elif kind == "row":  # (see search_rows)
                continue
            elif kind == "memo":  # a value of one inner parameter alone: kept per value of it, when first needed
                var = f"v{params_index[slot]}"
                _, dom, high, _ = params[params_index[slot]]
                # (a stack's cards: read where the loop over it holds them, as the loop does)
                keys = [slot] + ([("cards", slot)] if exprs.t(dom) == "stacks" and high is None else [])
                saved = {k: ctx[k] for k in keys if k in ctx}
                ctx.update({k: var if k == slot else f"{var}_cards" for k in keys})
                src = source(node)
                for k in keys:
                    ctx.pop(k, None)
                ctx.update(saved)
                local = hoisted.get(("memo", src))
                if local is None:
                    local = ns.fresh("m")
                    hoisted[("memo", src)] = local
                    memo_decl[local] = len(lines)
                    lines.append(f"{pad}{local} = dict()")
                memo_uses.setdefault(local, []).append((node, var, src))
                put(node, f"({local}[{var}] if {var} in {local} else {local}.setdefault({var}, {src}))")
            else:  # hoist: computed at most once per value of this level, when first needed
                src = source(node)
                cell = id(node.e if isinstance(node, MaskPlan) else node) in in_iterable
                local = hoisted.get((indent, src, cell))
                first = local is None
                if first:
                    local = ns.fresh("h")
                    hoisted[(indent, src, cell)] = local
                    lines.append(f"{pad}{local} = {'[]' if cell else 'None'}")
                lazy = f"({local}[0] if {local} else ({local}.append({src}) or {local}[0]))" if cell else \
                    f"({local} if {local} is not None else ({local} := {src}))"
                put(node, lazy, first)
                if first and not cell:
                    lazies[_target(node)] = (node, local, src, indent, len(lines) - 1)

    def source(node) -> str:
        if isinstance(node, MaskPlan):
            return node.source(exprs, ctx)
        return exprs.quick_inline(node, ctx) or expr(node, ctx)

    def put(node, value, first=True) -> None:
        """Have the search's expressions read ``node`` as ``value`` (a mask: as its bit for the card)."""
        if isinstance(node, MaskPlan):
            target, value = id(node.e), node.value(exprs, value, f"v{params_index[node.vslot]}")
        else:
            target = id(node)
        ctx["nodes"][target] = value if first else ctx["nodes"].get(target) or value

    emit_level(levels[0], 4, "return")
    if len(params) == 1 and prefilters[0] and not levels[1] and 0 not in fixed:
        # one parameter, tested on its own: each value that passes is an action, at once
        lines.append(f"    for v0 in {domain(exprs, has_copies, params[0], ctx)}:")
        saved = ctx.get(params[0][0])
        ctx[params[0][0]] = "v0"
        lines.append(f"        if {param_card_test(exprs, params[0], [truth(expr(n, ctx)) for n in prefilters[0]], 'v0', tables)}:")
        if saved is None:
            del ctx[params[0][0]]
        lines += [f"            {left} -= 1", "            out.append((uid, v0))",
                  f"    if {left} < 0:", f"        _wide({action_ref})"]
        return _finish(exprs, lines, name, action, whole, tables)
    # prefiltered domains (they depend on no other parameter)
    filtered = {}
    for i, nodes in enumerate(prefilters):
        if not nodes:
            continue
        slot = params[i][0]
        d = f"d{i}"
        var = f"v{i}"
        lines.append(f"    {d} = []")
        lines.append(f"    for {var} in {domain(exprs, has_copies, params[i], ctx)}:")
        saved = ctx.get(slot)
        ctx[slot] = var
        conds = param_card_test(exprs, params[i], [truth(expr(n, ctx)) for n in nodes], var, tables)
        if saved is None:
            del ctx[slot]
        if re.search(rf"\b{var}_cards\b", conds):  # (a memo of a stack, written with its cards)
            lines.append(f"        {stack_cards(var)}")
        lines.append(f"        if {conds}:")
        lines.append(f"            {d}.append({var})")
        lines.append(f"    if not {d}:")
        lines.append("        return")
        filtered[i] = d
    for i in sorted(fixed):  # domains that depend on no parameter: computed once
        d = f"d{i}"
        lines.append(f"    {d} = list({domain(exprs, has_copies, params[i], ctx)})")
        lines.append(f"    if not {d}:")
        lines.append("        return")
        filtered[i] = d
    rows = Rows.plan(exprs, lines, params, levels, filtered, ctx, source)
    if len(params) == 2 and not levels[1] and not levels[2] and 1 in filtered and params[0][2] is None:
        # nothing to test past the first level (not a range of numbers: see below), the
        # inner domain fixed: every pair is an
        # action, listed by comprehensions; the budget charged as the loops would, and the
        # first round apart (the search for can() stops at its first action, as the loops do)
        outer = domain(exprs, has_copies, params[0], ctx) if 0 not in filtered else filtered[0]
        inner = filtered[1]
        lines += [f"    v0_d = {outer}",
                  f"    {left} -= len(v0_d)", f"    if {left} < 0:", f"        _wide({action_ref})",
                  "    if v0_d:",
                  f"        {left} -= len({inner})", f"        if {left} < 0:", f"            _wide({action_ref})",
                  f"        out += [(uid, v0, v1) for v0 in v0_d[:1] for v1 in {inner}]",
                  f"        {left} -= (len(v0_d) - 1) * len({inner})", f"        if {left} < 0:",
                  f"            _wide({action_ref})",
                  f"        out += [(uid, v0, v1) for v0 in v0_d[1:] for v1 in {inner}]"]
        return _finish(exprs, lines, name, action, whole, tables)
    indent = 4
    values = []
    for i, (slot, dom, high, _) in enumerate(params):
        pad = " " * indent
        var = f"v{i}"
        fixed_range = None
        tagged = False
        if i in filtered:
            it = filtered[i]
        elif high is not None and _literal(exprs, dom) and _literal(exprs, high) and \
                0 <= exprs.literal(high) - exprs.literal(dom) < MAX_SEARCH:  # made once, here
            fixed_range = range(exprs.literal(dom), exprs.literal(high) + 1)
            it = ns.ref(fixed_range, "_r")
        elif high is not None:
            it = f"range({expr(dom, ctx)}, {expr(high, ctx)} + 1)"
        else:
            # an action whose one parameter is a set, tested by nothing: its listing is the
            # sets, each made into its action as it is made
            tagged = len(params) == 1 and params[0][3] is not None and not levels[1]
            it = domain(exprs, has_copies, params[i], ctx, tagged)
        # the loop runs over the whole domain: its size is charged on entry
        if i in filtered:  # a list made before the loops, never empty here: read as it is
            d = it
        else:
            d = f"{var}_d"
            lines.append(f"{pad}{d} = {it}")  # a domain is a list, a tuple or a range
        size = str(len(fixed_range)) if fixed_range is not None else f"len({d})"
        lines.append(f"{pad}{left} -= {size}")
        lines.append(f"{pad}if {left} < 0:")
        lines.append(f"{pad}    _wide({action_ref})")
        values.append(var)
        if i == len(params) - 1 and not levels[i + 1]:  # the innermost loop, with nothing to test
            if tagged:
                lines.append(f"{pad}out += {d}")
                break
            # (a loop, not a comprehension: quicker for the few values a decision offers)
            lines.append(f"{pad}for {var} in {d}:")
            lines.append(f"{pad}    out.append((uid, {', '.join(values)}))")
            break
        memo = _listed_memo(exprs, lines, memo_decl, memo_uses, levels[i + 1], var, action in _asked(exprs) and not whole) \
            if i == len(params) - 1 and i in filtered else None
        if memo is not None:
            # the innermost test starts with a value of this parameter alone, over a
            # domain fixed before the loops: its values are worked out once, in the first
            # round of the outer loops (where the memo would have computed each of them
            # first, in this order; a kept function's table read in place), and read by value
            local, node, src = memo
            lines[memo_decl[local]] = lines[memo_decl[local]].replace("dict()", "None")
            stacks = exprs.t(dom) == "stacks" and high is None
            rows = Rows.for_memo(rows, var, d, f"{var}_cards" if stacks else None)
            inner = dict(ctx, **{"nodes": {}})
            inner[slot] = var
            read = None
            if stacks and not isinstance(node, MaskPlan):
                inner[("cards", slot)] = f"{var}_cards"
                read = exprs.kept_read(node, inner, f"{local}_x", pad + " " * 8)
            value = rows.fill_memo(lines, pad, local, read, src)
            rows.header(lines, pad)
            for node, _, _ in memo_uses[local]:
                put(node, value)
        else:
            if i == len(params) - 1:
                _eager_hoist(exprs, lines, lazies, levels[i + 1], indent, d, i in filtered, put, ctx)
            if rows is not None and i == len(params) - 1:
                rows.header(lines, pad)
            else:
                lines.append(f"{pad}for {var} in {d}:")
        ctx[slot] = var
        cards_at = None
        if rows is not None and i == len(params) - 1:  # through the rows: the value and what was worked out of it
            rows.read_by(ctx, slot)
        elif exprs.t(dom) == "stacks" and high is None:
            cards_at = len(lines)
            lines.append(f"{pad}    {stack_cards(var)}")
            ctx[("cards", slot)] = f"{var}_cards"
        indent += 4
        emit_level(levels[i + 1], indent, "continue")
        if cards_at is not None and i == len(params) - 1:
            _cards_where_read(lines, cards_at, f"{var}_cards", " " * indent)
    else:
        pad = " " * indent
        lines.append(f"{pad}out.append((uid, {', '.join(values)}))" if values else f"{pad}out.append((uid,))")
    if rows is not None:
        rows.finish(lines)
    return _finish(exprs, lines, name, action, whole, tables)


def _listed_memo(exprs, lines, memo_decl, memo_uses, items, var, exact):
    """(memo local, its node, source of its value) when the first test of the
    innermost loop (``items``, over ``var``) starts by reading a memo kept per
    value of ``var`` (see :func:`_leads_with`; ``exact``: is that memo), and
    nothing written so far reads that memo: the memo can be filled for every
    value at once.  None otherwise.  Filled at once, the memo's values are
    worked out before the first round's other tests: where one of those and a
    later memo value would both fail, the memo's error is the one told.  An
    action some can() asks about (a search that stops at its first action)
    has it filled only where its first test is the memo itself, as before."""
    if not items or items[0][0] != "req":
        return None
    first = items[0][2]
    for local, uses in memo_uses.items():
        if not any(_target(node) == id(first) if exact else _leads_with(exprs, first, _target(node))
                   for node, _, _ in uses):
            continue
        if any(v != var for _, v, _ in uses) or len({src for _, _, src in uses}) != 1:
            return None
        word = re.compile(rf"\b{local}\b")
        if any(word.search(line) for k, line in enumerate(lines) if k != memo_decl[local]):
            return None  # read already (a prefilter): it stays a table
        return local, uses[0][0], uses[0][2]
    return None


def _eager_hoist(exprs, lines, lazies, items, indent, d, filled, put, ctx) -> None:
    """A value hoisted out of the innermost loop is computed at its first
    round, where its first test starts by reading it (see
    :func:`_leads_with`): it is computed just before the loop instead, if
    the loop (over the domain ``d``) has a round, and the tests read it as
    it is (no test per round of whether it has been computed yet).  The
    same evaluations, in the same order; a function that keeps its values
    has its table read there (see :meth:`.functions.Functions.kept_read`).
    Over a domain ``filled`` (made before the loops, never empty there),
    it is computed unconditionally, and not declared beforehand."""
    if not items or items[0][0] != "req":
        return
    first = items[0][2]
    for target, (node, local, src, at, decl) in lazies.items():
        if at != indent or not _leads_with(exprs, first, target):
            continue
        word = re.compile(rf"\b{local}\b")
        if any(word.search(line) for line in lines[decl + 1:]):
            return  # read already, before this loop: it stays lazy
        pad = " " * indent
        inner = pad if filled else pad + "    "
        read = exprs.kept_read(node, ctx, local, inner) if not isinstance(node, MaskPlan) else None
        if filled:
            lines[decl] = ""  # (set below before it is read: no declaration)
        else:
            lines.append(f"{pad}if {d}:")
        lines += read or [f"{inner}{local} = {src}"]  # (after the domain is charged)
        put(node, local)
        return


def _leads_with(exprs, e, target) -> bool:
    """Does evaluating ``e`` (as written in Python) evaluate the node
    ``target`` first, with nothing before it that could fail?  Arithmetic,
    comparisons, ``&`` and ``|`` evaluate their left side first; before the
    target, only numbers, names and printed attributes (table lookups) are
    read."""
    if id(e) == target:
        return True
    if isinstance(e, A.BinOp) and e.op not in ("in", "not in"):
        if any(id(x) == target for x in walk(e.left)):
            return _leads_with(exprs, e.left, target)
        return _safe(exprs, e.left) and _leads_with(exprs, e.right, target)
    return False


def _safe(exprs, e) -> bool:
    """Can ``e`` be read without failing: a number, a set written out, a name, a printed attribute of one?"""
    if isinstance(e, (A.IntLit, A.BoolLit)):
        return True
    if isinstance(e, A.SetLit):
        return all(isinstance(x, A.Name) for x in e.items)
    if isinstance(e, A.Name):
        return exprs.g.res.get(id(e), ("",))[0] in ("slot", "member", "param", "me")
    if isinstance(e, A.Attr):
        return e.name in exprs.g.card_attrs and isinstance(e.obj, A.Name) and _safe(exprs, e.obj)
    return False


def truth(src: str) -> str:
    """The source of a condition, as a test of its truth alone: a bit of a
    mask (``((m >> v) & 1 == 1)``) or a number against zero (``(x != 0)``)
    is tested as the number itself, one comparison fewer."""
    if src.endswith((" & 1 == 1)", " != 0)")) and src.startswith("(") and _closes_at_end(src):
        return src[:-6] + ")"
    return src


def _closes_at_end(src: str) -> bool:
    """Is ``src``'s first parenthesis closed by its last character alone?"""
    depth = 0
    for i, ch in enumerate(src):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i == len(src) - 1
    return False


def _cards_where_read(lines, at: int, local: str, pad: str) -> None:
    """The innermost loop's stack's cards (``lines[at]``) looked up just
    before the first test of that loop that reads them, not at every round
    (a test before it may skip the round); at the first line that reads
    them, if it is a test of that loop itself."""
    word = re.compile(rf"\b{local}\b")
    for j in range(at + 1, len(lines)):
        if word.search(lines[j]):
            line = lines[j]
            if line.startswith(pad) and not line[len(pad)].isspace() and j > at + 1:
                lines.insert(j - 1, lines.pop(at))  # (before the test: it moved up one as the line left)
            return


def _target(node) -> int:
    return id(node.e if isinstance(node, MaskPlan) else node)


def _finish(exprs, lines, name, action, whole, tables):
    """The search's function, its budget written back where it stops
    (``whole``: only its lines); ``tables`` (its ``card_tables``): for some card parameters,
    a table (1 or 0 per card) that each of its values passes."""
    lines[:] = [line for line in lines if line]  # (a line left blank where a value moved)
    if lines[1] == "    _left = st.m.search_left":
        if action in _asked_within_searches(exprs):
            # what the search went through is charged even when it stops early: a can() in
            # another action's search stops at the first legal choice (see helpers.can)
            lines[2:] = ["    try:", *("    " + line for line in lines[2:]), "    finally:",
                         "        st.m.search_left = _left"]
        else:
            lines.append("    st.m.search_left = _left")
    if whole:
        return tuple(lines)
    f = exprs.ns.define("\n".join(lines) + "\n", name)
    f.lines = tuple(lines)  # (a choice's listing writes the search in place: see sites.site_body)
    f.card_tables = tuple(tables)  # (see Machine.never_offered)
    return f


def _asked(exprs) -> frozenset:
    """The actions a can() of the rules asks about: in a search, the flow, a
    trigger or an example (wherever a turn gives it a player)."""
    g = exprs.g
    return of_rules(g, "asked_anywhere", lambda: _can_targets([list(g.actions.values()), g.setup, g.play,
                                                                g.triggers, g.examples]))


def _asked_within_searches(exprs) -> frozenset:
    """The actions some action asks can() about (in its parameters, requires or lets)."""
    return of_rules(exprs.g, "asked_within_searches", lambda: _can_targets(list(exprs.g.actions.values())))


def _can_targets(nodes) -> frozenset:
    return frozenset(a.id for x in walk(nodes) if isinstance(x, A.Call) and x.func == "can"
                     for a in x.args if isinstance(a, A.Name))


def _literal(exprs, e) -> bool:
    """Is ``e`` a number written out or a parameter (not a seat): known when the game is compiled?"""
    if isinstance(e, A.IntLit):
        return id(e) not in exprs.g.seat_literals
    return isinstance(e, A.Name) and exprs.g.res.get(id(e), ("",))[0] == "param"

