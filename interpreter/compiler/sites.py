"""A choice's listing of its legal actions, as generated Python.

``_site{site}`` (generated the first time play stands at the choice: see
:func:`.flowgen.install`) refills the budgets of a listing, then runs each
offered action's search in turn, in the order the ``choose`` names them:
the search's lines, as :mod:`.searches` wrote its function, written in
place rather than called (:func:`site_body`), with the budget of the
searches in one local; a pile that several of them range over is told
apart once (:func:`shared_domains`).  An error is placed at the choice's
line, as the VM places it.  Like every generated source, it is built from
generated names and ints only (:mod:`.source`).
"""

from __future__ import annotations

import re

from ..checks import EVAL_ERRORS, _explain
from ..runtime import MAX_SEARCH, MAX_WORK, RuleError


def generate_site(m, ns, site, span):
    """``legal(st)`` for one choice: each offered action's search in turn,
    written in (see :meth:`Machine.enumerate_site`)."""
    name = f"_site{int(site)}"
    mach = ns.ref(m)
    # the actions of one choice often range over the same pile: its copies are told apart
    # once (nothing moves while the choice is searched), as are a grid's open cells
    shared = m.shares_domains
    lines = [f"def {name}(st):", "    out = []"] + ([f"    {mach}.domain_cache = dict()"] if shared else []) + [
             f"    {mach}.search_left = {int(MAX_SEARCH)}",
             f"    {mach}.work_left = {int(MAX_WORK)}",
             "    try:"]
    lines.append(f"        _left = {int(MAX_SEARCH)}")
    bodies = [site_body(ns, sa) for sa in m.sites[site]]
    lines += shared_domains(bodies)
    lines += skipped_by_table(ns, bodies)
    for body in bodies:
        lines += body
    lines.append(f"        {mach}.search_left = _left")  # (what the searches left, as each writes it back)
    rule, where = ns.ref(RuleError), ns.ref(span, "_s")
    lines += [f"    except {ns.ref(EVAL_ERRORS)} as err:",
              f"        raise {rule}({ns.ref(_explain)}(err), {where}) from None",
              f"    except {rule} as err:",
              "        if err.span is None:",
              f"            raise {rule}(err.message, {where}) from None",
              "        raise"] + (
             ["    finally:", f"        {mach}.domain_cache = None"] if shared else []) + ["    return tuple(out)"]
    return ns.define("\n".join(lines) + "\n", name)


# a place's cards, copies told apart, as a search ranges over them: the same in every search of a
# listing that reads it (nothing moves meanwhile, and the mover is the same)
_DOMAIN = re.compile(r"_dedupe\(st, st\.Z\[(?:\(\d+ \+ st\.me\)|\d+)\]\)")


def shared_domains(bodies) -> list:
    """Lines that work out, once, a place's cards told apart
    (``_dedupe``) that two searches of a listing or more range over, and
    have the searches (``bodies``, rewritten here) read it from a local.
    Worked out first: it cannot fail, and telling copies apart costs no
    budget."""
    counts = {}
    for body in bodies:
        for src in set(_DOMAIN.findall("\n".join(body))):
            counts[src] = counts.get(src, 0) + 1
    lines = []
    for k, src in enumerate(sorted(src for src, n in counts.items() if n > 1)):
        local = f"_dd{k}"
        lines.append(f"        {local} = {src}")
        for body in bodies:
            body[:] = [line.replace(src, local) for line in body]
    return lines


# lines a search begins with that cannot fail and read nothing but whether a place is empty:
# it may be skipped past them
_PLACE = r"st\.Z\[(?:\(\d+ \+ st\.me\)|\d+)\]"  # a place of the mover's, or a fixed one
_QUIET = re.compile(rf"^ *(?:uid = \d+|while True:|\w+ = (?:None|\[\]|dict\(\))|break"
                    rf"|if (?:not |\()*{_PLACE}\)*:)$")
# a search's first loop, over a place (a mover's, or a fixed one) or its copies told apart ...
_LOOP = re.compile(rf"^ *for (v\d+) in (_dd\d+|{_PLACE}):$")
# ... whose every card must first pass a table of what is printed on it (.card_tables)
_TABLE = re.compile(r"^ *if (_p\d+)\[(v\d+)\](?::| and )")


def skipped_by_table(ns, bodies) -> list:
    """Lines that look once at the cards of a place that two searches of a
    listing or more begin by going through, each card tested first by a
    table of what is printed on it (one kind of card, say) that few cards
    pass (a quarter of them at most): each table's bit in one int per
    card, or-ed over the place's cards.  A search whose table no card
    passes offers nothing, and is skipped (``bodies``, rewritten here: each
    such search under an ``if`` on its bit); before its loop it did
    nothing that could fail or that the skip leaves out (:data:`_QUIET`: at
    most, it asked whether a place is empty).
    The look costs a read per card; each search skipped saves its own
    pass.  A table most cards pass would seldom skip its search."""
    found = {}  # the place's source -> [(body, its table's name)]
    for body in bodies:
        k = 0
        while k < len(body) and _QUIET.match(body[k]):
            k += 1
        loop = _LOOP.match(body[k]) if k + 1 < len(body) else None
        test = loop and _TABLE.match(body[k + 1])
        if test and test.group(2) == loop.group(1) and sum(ns.ns[test.group(1)]) * 4 <= len(ns.ns[test.group(1)]):
            found.setdefault(loop.group(2), []).append((body, test.group(1)))
    lines = []
    for place, searches in sorted(found.items()):
        if len(searches) < 2:  # (one search: its own pass is the look)
            continue
        tables = sorted({name for _, name in searches}, key=lambda name: int(name[2:]))
        ncards = len(ns.ns[tables[0]])
        bits = [sum(ns.ns[name][c] << j for j, name in enumerate(tables)) for c in range(ncards)]
        seen, ref = ns.fresh("_seen"), ns.ref(bits, "_b")
        lines += [f"        {seen} = 0", f"        for _c in {place}:", f"            {seen} |= {ref}[_c]"]
        for body, name in searches:
            body[:] = [f"        if {seen} & {1 << tables.index(name)}:"] + ["    " + line for line in body]
    return lines


def site_body(ns, sa) -> list:
    """The lines of a choice's listing that search one offered action: the
    action's search written in place (its lines, as :mod:`.searches` wrote
    its function), not called.  The listing keeps the budget of its
    searches in its local ``_left``, as each search does in its own: a
    search that hands the budget on to a can() (on the machine) is given
    it there and gives it back after.  A search that stops early runs in a
    ``while`` it breaks out of (:func:`returns_left`).  A search that is
    not generated source, or one whose ``return`` is in a loop, is called."""
    f = sa.action.enumerate
    lines = list(getattr(f, "lines", ()))
    pad = " " * 8
    uid = f"{pad}uid = {int(sa.uid)}"
    if lines[1:2] == ["    _left = st.m.search_left"] and lines[2] != "    try:":
        del lines[1]
        if lines[-1] == "    st.m.search_left = _left":
            del lines[-1]
    body = lines[1:]
    left = returns_left(body, lambda value: ["break"])
    if not lines or left is None:
        machine_left = ["st.m.search_left = _left", f"{ns.ref(f)}(st, out, {int(sa.uid)})", "_left = st.m.search_left"]
        return [pad + line for line in machine_left]
    handed = any("st.m.search_left" in line for line in body)
    out = [uid] + ([f"{pad}st.m.search_left = _left"] if handed else [])
    if left != body:  # (it stops early somewhere)
        out += [f"{pad}while True:", *(pad + "    " + line[4:] for line in left), f"{pad}    break"]
    else:
        out += [pad + line[4:] for line in body]
    return out + ([f"{pad}_left = st.m.search_left"] if handed else [])


def returns_left(lines, leave, in_loop=None):
    """``lines`` (a function's body) to be written in another function,
    inside a ``while`` that each of its ``return`` lines leaves instead: a
    ``return VALUE`` becomes the lines ``leave(VALUE)``, ending in a
    ``break``.  A ``return`` inside a loop of the lines, which that
    ``break`` would leave instead, becomes the lines ``in_loop(VALUE)`` (a
    raise); the whole is None where ``in_loop`` is not given or gives None."""
    out, loops = [], []  # (the indentations of the loops around the line)
    for line in lines:
        if not loops and "return" not in line and "for " not in line and "while " not in line:
            out.append(line)  # (most lines: no loop to leave, none to enter, no return)
            continue
        text = line.lstrip()
        pad = len(line) - len(text)
        while loops and pad <= loops[-1]:
            loops.pop()
        if text.startswith(("for ", "while ")):
            loops.append(pad)
        if text == "return" or text.startswith("return "):
            instead = leave(text[7:]) if not loops else in_loop(text[7:]) if in_loop is not None else None
            if instead is None:
                return None
            out += [line[:pad] + x for x in instead]
        else:
            out.append(line)
    return out
