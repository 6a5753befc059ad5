"""Statements that move or show cards: move, swap, reveal, deal.

Each becomes one closure ``f(state)`` (an EXEC step of the flow), built from
the expression functions of ``exprs``; a move (of a card, a list of
cards, a pile, a stack or a row of stacks; of a card also where it may fire
a trigger, noting whether it entered) and a deal also carry the same steps
as source (``f.source``, ``f.flow``), which the generated flow writes in
place of the call (see :func:`with_source`); a move to a grid's cell, its
card, cell and grid worked out there and the move itself called with them.  Every card that lands in a zone becomes known to
whoever sees that zone.
"""

from __future__ import annotations

from ..machine import Machine
from ..runtime import CELL_ROW, STACK_MASK, STACK_SHIFT, RuleError, cell_text, own_cells, take_card
from .expressions import Expressions
from .grids import frontier
from .inline import inline_source
from .source import lit


def set_face_source(down: bool) -> list:
    """Generated lines that lay card ``_c`` face down (or up): its flag is
    written only when it changes, to the state's own flags (a clone shares
    its original's until one of them writes one: see State.clone)."""
    return [f"if {'not ' if down else ''}st.F[_c]:", "    if st.pshared:", "        _own_cells(st)",
            f"    st.F[_c] = {lit(down)}"]


def set_face(st, c, down: bool) -> None:
    """Lay card ``c`` face down (or up) in the state's own flags: what
    :func:`set_face_source` writes, for the steps that are called; its
    callers call it only when the flag changes."""
    if st.pshared:
        own_cells(st)
    st.F[c] = down


def landing(st, d, is_stack: bool):
    """(zone instance, list of cards) where cards put on ``d`` (a pile, or
    an encoded stack) land."""
    if is_stack:
        inst = d >> STACK_SHIFT
        return inst, st.Z[inst][d & STACK_MASK]
    return d, st.Z[d]


def move(s, exprs: Expressions, m: Machine):
    wt = exprs.t(s.what)
    what = exprs.fn(s.what)
    dt = exprs.t(s.dest)
    dest = exprs.fn(s.dest)
    where = s.where
    stack_zone = set(m.stack_instances)

    # laid face down: who sees the place does not learn the card (nor does anyone
    # in a machine that keeps no knowledge)
    unseen = s.face_down or not m.knowledge
    face_down = s.face_down
    track = m.face_down  # the game lays cards face down somewhere: keep each card's flag

    def take(st, c):
        take_card(st, c, stack_zone)

    def land(st, cards, inst):
        K, seen = st.K, st.vis[inst]
        for c in cards:
            st.loc[c] = inst
            if not unseen:
                K[c] |= seen
            if track and st.F[c] != face_down:  # (written when it changes: see set_face_source)
                set_face(st, c, face_down)

    def put_all(st, cards):
        d = dest(st)
        if where == "new_stack":
            if cards:  # (no cards make no stack: a row of stacks never holds an empty one)
                st.Z[d].append(list(cards))
                land(st, cards, d)
            return
        inst, pile = landing(st, d, dt == "stack")
        if where == "top":
            pile.extend(cards)
        else:
            pile[0:0] = cards
        land(st, cards, inst)

    if where == "at":
        return move_to_cell(exprs, s, what, dest, take, land, m)

    if wt == "card":
        if where == "top" and dt == "pile" and not track and not face_down:  # the common case, for the VM
            knowledge = m.knowledge

            def move_card(st):
                c = what(st)
                take(st, c)
                d = dest(st)
                st.Z[d].append(c)
                st.loc[c] = d
                if knowledge:
                    st.K[c] |= st.vis[d]
        else:
            def move_card(st):
                c = what(st)
                take(st, c)
                put_all(st, (c,))
        return with_source(move_card, exprs, one_card_source(exprs, s, m), s.span)

    if wt == "stack":
        def move_stack(st):
            v = what(st)
            inst = v >> STACK_SHIFT
            cards = st.Z[inst].pop(v & STACK_MASK)
            put_all(st, cards)
        return with_source(move_stack, exprs, whole_source(exprs, s, m), s.span)
    if wt == "stacks":
        def move_stacks(st):
            inst = what(st)
            cards = [c for stck in st.Z[inst] for c in stck]
            st.Z[inst] = []
            put_all(st, cards)
        return with_source(move_stacks, exprs, whole_source(exprs, s, m), s.span)
    if wt == "pile":
        def move_pile(st):
            inst = what(st)
            cards = st.Z[inst]
            st.Z[inst] = []
            put_all(st, cards)
        return with_source(move_pile, exprs, whole_source(exprs, s, m), s.span)

    def move_list(st):  # list of cards, wherever each one lies
        cards = list(what(st))
        for c in cards:
            take(st, c)
        put_all(st, cards)
    return with_source(move_list, exprs, list_source(exprs, s, m), s.span)


def list_source(exprs: Expressions, s, m: Machine) -> list:
    """Source lines of ``move CARDS to ...`` (a list of cards, anywhere but
    a grid's cell), as move_list does it: take each card from where it
    lies, then work out the destination and land them all there, in order;
    ``_cs``, ``_c``, ``_i``, ``_d`` and ``_t`` are its locals."""
    return [f"_cs = list({exprs.expr(s.what, {})})", "for _c in _cs:",
            *("    " + line for line in take_source(exprs.ns, m))] + landing_all_source(exprs, s, m)


def whole_source(exprs: Expressions, s, m: Machine) -> list:
    """Source lines of ``move X to ...`` where X, a pile, a stack or a row of
    stacks, goes whole, as move_pile, move_stack and move_stacks do:
    X taken away (a stack out of its row, the others left empty), then its
    cards landed where they go, in order (its locals: as :func:`list_source`'s)."""
    taken = {"pile": ["_cs = st.Z[_i]", "st.Z[_i] = []"],
             "stack": [f"_cs = st.Z[_i >> {STACK_SHIFT}].pop(_i & {STACK_MASK})"],
             "stacks": ["_cs = [_c for _s in st.Z[_i] for _c in _s]", "st.Z[_i] = []"]}[exprs.t(s.what)]
    return [f"_i = {exprs.expr(s.what, {})}", *taken, *landing_all_source(exprs, s, m)]


def take_source(ns, m: Machine) -> list:
    """Source lines that take card ``_c`` out of the place where it lies,
    ``_i``, as take_card does (a stack it leaves empty goes away)."""
    if not m.stack_instances:
        return ["_i = st.loc[_c]", "st.Z[_i].remove(_c)"]
    stacks = ns.ref(m.stack_instances)  # (few: a tuple; named once, by flowgen.install)
    return ["_i = st.loc[_c]", f"if _i in {stacks}:", f"    {ns.ref(take_card)}(st, _c, {stacks})", "else:",
            "    st.Z[_i].remove(_c)"]


def landing_all_source(exprs: Expressions, s, m: Machine) -> list:
    """Source lines that land the cards ``_cs`` (taken from where they lay)
    where the move ``s`` puts them, as put_all does: the destination worked
    out (``_d``), the cards laid there in order, each one's place, and who
    sees it and its face, noted."""
    lines = [f"_d = {exprs.expr(s.dest, {})}"]
    if s.where == "new_stack":  # (no cards make no stack: a row of stacks never holds an empty one)
        lines += ["if _cs:", "    st.Z[_d].append(_cs.copy())"]
    else:
        lines += landing_source(exprs.t(s.dest)) + ["_t.extend(_cs)" if s.where == "top" else "_t[0:0] = _cs"]
    lines += ["for _c in _cs:", "    st.loc[_c] = _d"]
    if not s.face_down and m.knowledge:
        lines.append("    st.K[_c] |= st.vis[_d]")
    if m.face_down:
        lines += ["    " + line for line in set_face_source(s.face_down)]
    return lines


def one_card_source(exprs: Expressions, s, m: Machine) -> list:
    """Source lines of ``move CARD to ...`` (anywhere but a grid's cell), as
    move_card does it: take the card from where it lies, then work out the
    destination and land it there; ``_c``, ``_i`` (the place the card came
    from, still so at the end: see :func:`noting_source`), ``_d`` and ``_t``
    are its locals.  Who sees the destination learns the card, in a machine
    that keeps who knows what."""
    dt = exprs.t(s.dest)
    lines = [f"_c = {exprs.expr(s.what, {})}", *take_source(exprs.ns, m), f"_d = {exprs.expr(s.dest, {})}"]
    if s.where == "new_stack":
        lines.append("st.Z[_d].append([_c])")
    elif dt == "stack":  # an encoded stack: its cards, and its row's instance
        lines += landing_source(dt) + ["_t.append(_c)" if s.where == "top" else "_t.insert(0, _c)"]
    else:
        lines.append("st.Z[_d].append(_c)" if s.where == "top" else "st.Z[_d].insert(0, _c)")
    lines.append("st.loc[_c] = _d")
    if not s.face_down and m.knowledge:
        lines.append("st.K[_c] |= st.vis[_d]")
    if m.face_down:
        lines += set_face_source(s.face_down)
    return lines


def noting_source(exprs: Expressions, s, m: Machine, slot: int):
    """Source lines of a card's move that may fire a trigger (flow_cards'
    move_noting_cards): the move, then in slot ``slot`` the card if it
    entered a place it was not in (a tuple of it, or none); None where that
    move is not written as source (more than one card, or to a grid's cell)."""
    if exprs.t(s.what) != "card" or s.where == "at":
        return None
    return one_card_source(exprs, s, m) + [f"st.L[{int(slot)}] = (_c,) if st.loc[_c] != _i else ()"]


def with_source(f, exprs: Expressions, lines, span):
    """``f`` with the same steps as source ``lines``, to be written inline
    where the flow is generated (fusion, flowgen); a failure names ``span``."""
    f.source = lines
    f.flow = ("block", tuple(statement_lines(exprs.ns, lines, span)))
    return f


def statement_lines(ns, lines, span) -> list:
    """``lines`` marked as one statement's, whose error names ``span`` (see .source.marked)."""
    return [f"@span {ns.ref(span, '_s')}", *lines, "@end"]


def move_to_cell(exprs: Expressions, s, what, dest, take, land, m: Machine):
    """``move CARD to GRID at CELL``: the cell must be free, and the grid's
    cards must still fit its box.  Where the card, the cell and the grid
    have sources, the flow is written with them worked out in place, and
    the move (``move_at``) called with them: three calls fewer."""
    boxes = m.grid_boxes
    cell = exprs.fn(s.at)

    def move_to_cell(st):
        move_at(st, what(st), cell(st), dest(st))

    def move_at(st, c, x, inst):
        own_cells(st)  # (a cell is written below)
        P = st.P
        grid = st.Z[inst]
        w, h, either = boxes[inst]
        if grid and st.loc[c] != inst:  # a card joins the grid: its cells and box are known (see grids)
            taken, _, x0, x1, y0, y1 = frontier(tuple(map(P.__getitem__, grid)))
            if x in taken:
                raise RuleError(f"cell {cell_text(x)} already holds a card")
            nx, ny = x // CELL_ROW, x % CELL_ROW
            bw, bh = max(x1, nx) - min(x0, nx) + 1, max(y1, ny) - min(y0, ny) + 1
        else:
            for o in grid:
                if P[o] == x and o != c:
                    raise RuleError(f"cell {cell_text(x)} already holds a card")
            xs = [P[o] // CELL_ROW for o in grid if o != c] + [x // CELL_ROW]
            ys = [P[o] % CELL_ROW for o in grid if o != c] + [x % CELL_ROW]
            bw, bh = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
        if not ((bw <= w and bh <= h) or (either and bw <= h and bh <= w)):
            raise RuleError(f"a card at {cell_text(x)} would spread the grid over {bw} by {bh} cells, "
                            f"more than its {w} by {h}")
        take(st, c)
        grid.append(c)
        P[c] = x
        land(st, (c,), inst)
    sources = [inline_source(f) for f in (what, cell, dest)]
    if None in sources:
        return move_to_cell
    return with_source(move_to_cell, exprs, [f"{exprs.ns.ref(move_at)}(st, {', '.join(sources)})"], s.span)


def swap(s, exprs: Expressions, m: Machine):
    a, b = exprs.fn(s.a), exprs.fn(s.b)
    stacks = set(m.stack_instances)
    knowledge = m.knowledge
    grids = bool(m.grid_instances)  # (without grids every cell stays 0)

    def where(st, c):
        inst = st.loc[c]
        if inst in stacks:
            for stck in st.Z[inst]:
                if c in stck:
                    return inst, stck, stck.index(c)
        pile = st.Z[inst]
        return inst, pile, pile.index(c)

    def swap(st):
        x, y = a(st), b(st)
        if x == y:
            return
        ix, px, kx = where(st, x)
        iy, py, ky = where(st, y)
        px[kx], py[ky] = y, x
        st.loc[x], st.loc[y] = iy, ix
        if grids:  # in a grid, each takes the other's cell
            own_cells(st)
            P = st.P
            P[x], P[y] = P[y], P[x]
        if not knowledge:
            return
        F = st.F
        if not F[x]:  # a face-down card stays unseen where it goes
            st.K[x] |= st.vis[iy]
        if not F[y]:
            st.K[y] |= st.vis[ix]
    return swap


def reveal(s, exprs: Expressions, knowledge: bool = True):
    """``reveal WHAT to WHO``; without ``knowledge``, only what it
    evaluates (which may fail, as it would with it)."""
    what, to = exprs.fn(s.what), exprs.fn(s.to)
    wt, tt = exprs.t(s.what), exprs.t(s.to)
    cards = {"card": lambda st: (what(st),), "pile": lambda st: st.Z[what(st)],
             "stack": lambda st: st.Z[what(st) >> STACK_SHIFT][what(st) & STACK_MASK],
             "list:card": what}[wt]

    def reveal(st):
        mask = (1 << to(st)) if tt == "player" else sum(1 << p for p in to(st))
        shown = cards(st)
        if knowledge:
            K = st.K
            for c in shown:
                K[c] |= mask
    return reveal


def deal(s, exprs: Expressions, track: bool = True, knowledge: bool = True):
    """``deal N from PILE to PILE_OR_STACK``: the cards one at a time from
    the top of the one to the top of the other, face up; ``track``: the
    game keeps face-down flags (written inline only then); ``knowledge``:
    who sees the destination learns each card."""
    count, src, dst = exprs.fn(s.count), exprs.fn(s.source), exprs.fn(s.dest)
    dt = exprs.t(s.dest)

    def deal(st):
        k = count(st)
        pile = st.Z[src(st)]
        if k > len(pile):
            short_deal(k, pile)
        inst, target = landing(st, dst(st), dt == "stack")
        K, seen = st.K, st.vis[inst]
        for _ in range(k):
            c = pile.pop()
            target.append(c)
            st.loc[c] = inst
            if knowledge:
                K[c] |= seen
            if track and st.F[c]:  # dealt cards land face up
                set_face(st, c, False)
    lines = [f"_k = {exprs.expr(s.count, {})}", f"_p = st.Z[{exprs.expr(s.source, {})}]", "if _k > len(_p):",
             f"    {exprs.ns.ref(short_deal)}(_k, _p)", f"_d = {exprs.expr(s.dest, {})}", *landing_source(dt),
             *(["_s = st.vis[_d]"] if knowledge else []), "for _ in range(_k):", "    _c = _p.pop()",
             "    _t.append(_c)", "    st.loc[_c] = _d"] + (["    st.K[_c] |= _s"] if knowledge else []) + \
        ([f"    {line}" for line in set_face_source(False)] if track else [])
    return with_source(deal, exprs, lines, s.span)


def short_deal(k, pile):
    raise RuleError(f"cannot deal {k} cards from a pile of {len(pile)}")


def landing_source(dt: str) -> list:
    """Source lines that make ``_t`` the list where cards dealt to ``_d``
    (a pile, or an encoded stack when ``dt`` is "stack") land, and ``_d``
    the zone instance they land in (as :func:`landing`)."""
    if dt == "stack":
        return [f"_t = st.Z[_d >> {STACK_SHIFT}][_d & {STACK_MASK}]", f"_d >>= {STACK_SHIFT}"]
    return ["_t = st.Z[_d]"]


def deal_one_source(s, exprs: Expressions, track: bool, knowledge: bool = True) -> list:
    """Source lines of :func:`deal_one`, leaving the card in ``_c``, the
    source pile (not empty: the caller checked) in ``_p``."""
    return [f"_p = st.Z[{exprs.expr(s.source, {})}]", "_c = _p.pop()", f"_d = {exprs.expr(s.dest, {})}",
            *landing_source(exprs.t(s.dest)), "_t.append(_c)", "st.loc[_c] = _d"] + \
        (["st.K[_c] |= st.vis[_d]"] if knowledge else []) + (set_face_source(False) if track else [])


def deal_one(s, exprs: Expressions, track: bool = True, knowledge: bool = True):
    """One card of a ``deal``, from the top of the source to the destination;
    returns the card (the caller checked there are enough)."""
    src, dst = exprs.fn(s.source), exprs.fn(s.dest)
    dt = exprs.t(s.dest)

    def deal_one(st):
        c = st.Z[src(st)].pop()
        inst, target = landing(st, dst(st), dt == "stack")
        target.append(c)
        st.loc[c] = inst
        if knowledge:
            st.K[c] |= st.vis[inst]
        if track and st.F[c]:  # (a game that lays nothing face down keeps every flag False)
            set_face(st, c, False)
        return c
    return deal_one
