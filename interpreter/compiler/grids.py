"""Grids: the functions the generated source calls on a grid's cells
(``open_cells``, ``neighbours``, ``corners``, ``lines``, ``groups``).

A cell is one int (see ``runtime.CELL_ROW``); the cells of a grid's cards
are in ``st.P``.  During one choice's search nothing moves, so what a
search works out about a grid (its open cells) is kept in the machine's
``domain_cache`` while it lasts.
"""

from __future__ import annotations

from ..runtime import CELL_ROW, ORIGIN_CELL, RuleError


def _cells(st, inst) -> dict:
    """{cell: card} of a grid zone instance."""
    P = st.P
    return {P[c]: c for c in st.Z[inst]}


# The free cells next to the cards of a grid, by the cells its cards took in
# the order they came: (cells taken, free cells next to them, x0, x1, y0, y1).
# A grid grows by a card at a time, so a layout is mostly its previous one
# plus one cell, worked out from that one's entry.  Shared by every game of
# the process (the cells are all it depends on); emptied when it grows large.
_FRONTIERS = {}
MAX_FRONTIERS = 8192


def frontier(key: tuple) -> tuple:
    hit = _FRONTIERS.get(key)
    if hit is not None:
        return hit
    prev = _FRONTIERS.get(key[:-1]) if len(key) > 1 else None
    new = key[-1]
    if prev is not None and new not in prev[0]:
        taken0, free0, x0, x1, y0, y1 = prev
        taken = taken0 | {new}
        free = set(free0)
        free.discard(new)
        for n in (new + CELL_ROW, new - CELL_ROW, new + 1, new - 1):
            if n not in taken:
                free.add(n)
        nx, ny = new // CELL_ROW, new % CELL_ROW
        entry = (taken, frozenset(free), min(x0, nx), max(x1, nx), min(y0, ny), max(y1, ny))
    else:
        taken = frozenset(key)
        free = frozenset(n for x in taken for n in (x + CELL_ROW, x - CELL_ROW, x + 1, x - 1) if n not in taken)
        xs = [x // CELL_ROW for x in taken]
        ys = [x % CELL_ROW for x in taken]
        entry = (taken, free, min(xs), max(xs), min(ys), max(ys))
    if len(_FRONTIERS) >= MAX_FRONTIERS:
        _FRONTIERS.clear()
    _FRONTIERS[key] = entry
    return entry


def open_cells(st, inst) -> list:
    """The free cells next to a card of the grid (orthogonally) where a card
    keeps the grid within its box, in order (by x, then y); the first card's
    cell (0, 0) while the grid is empty."""
    cards = st.Z[inst]
    if not cards:
        return [ORIGIN_CELL]
    cache = st.m.domain_cache  # during one choice's search nothing moves: several actions share it
    if cache is not None:
        hit = cache.get(("open", inst))
        if hit is not None:
            return hit
    _, free, x0, x1, y0, y1 = frontier(tuple(map(st.P.__getitem__, cards)))
    bw, bh = x1 - x0 + 1, y1 - y0 + 1  # the box now; a free cell next to a card widens it by one at most
    w, h, either = st.m.grid_boxes[inst]

    def fits(bw, bh):
        return (bw <= w and bh <= h) or (either and bw <= h and bh <= w)
    inside, wider, taller = fits(bw, bh), fits(bw + 1, bh), fits(bw, bh + 1)
    if inside and wider and taller:
        out = sorted(free)
    else:
        out = []
        for n in free:
            nx = n // CELL_ROW
            if nx < x0 or nx > x1:
                ok = wider
            else:
                ny = n % CELL_ROW
                ok = taller if ny < y0 or ny > y1 else inside
            if ok:
                out.append(n)
        out.sort()
    if cache is not None:
        cache[("open", inst)] = out
    return out


# A cell and the cells next to it (what neighbours() looks at, and a
# card's value under an invariant checked card by card may depend on)
NEAR = (0, CELL_ROW, -CELL_ROW, 1, -1)


def neighbours(st, inst, cell) -> list:
    """The cards of the grid on the (up to four) cells orthogonally next to
    ``cell``, in the grid's order."""
    P = st.P
    near = {cell + CELL_ROW, cell - CELL_ROW, cell + 1, cell - 1}  # (a set: one lookup a card)
    return [c for c in st.Z[inst] if P[c] in near]


def cell_of(st, c) -> int:
    if st.loc[c] not in st.m.grid_instances:
        raise RuleError(f"{st.m.card_names[c]} is not in a grid")
    return st.P[c]


def _box(st, inst):
    P = st.P
    cells = [P[c] for c in st.Z[inst]]
    xs = [x // CELL_ROW for x in cells]
    ys = [x % CELL_ROW for x in cells]
    return min(xs), max(xs), min(ys), max(ys)


def corners(st, inst) -> list:
    """The cells at the corners of the box the grid's cards take up (none
    while it is empty)."""
    if not st.Z[inst]:
        return []
    x0, x1, y0, y1 = _box(st, inst)
    return list(dict.fromkeys((x0 * CELL_ROW + y0, x1 * CELL_ROW + y0, x0 * CELL_ROW + y1, x1 * CELL_ROW + y1)))


def lines(st, inst) -> list:
    """The full lines of the box the grid's cards take up: its rows (by y),
    then its columns (by x), each a list of cards in order."""
    if not st.Z[inst]:
        return []
    at = _cells(st, inst)
    x0, x1, y0, y1 = _box(st, inst)
    rows = [[at.get(x * CELL_ROW + y) for x in range(x0, x1 + 1)] for y in range(y0, y1 + 1)]
    cols = [[at.get(x * CELL_ROW + y) for y in range(y0, y1 + 1)] for x in range(x0, x1 + 1)]
    return [line for line in rows + cols if None not in line]


def groups(st, pairs) -> list:
    """``pairs``: (card, key) for the cards of one grid that count.  The
    groups of cards joined through orthogonal neighbours with equal keys,
    in the order of their first card; each in the grid's order."""
    P = st.P
    at = {P[c]: (c, k) for c, k in pairs}
    order = {c: i for i, (c, _) in enumerate(pairs)}
    seen = set()
    out = []
    for c, key in pairs:
        if c in seen:
            continue
        seen.add(c)
        group = []
        todo = [c]
        while todo:
            x = todo.pop()
            group.append(x)
            cx = P[x]
            for n in (cx + CELL_ROW, cx - CELL_ROW, cx + 1, cx - 1):
                hit = at.get(n)
                if hit is not None and hit[1] == key and hit[0] not in seen:
                    seen.add(hit[0])
                    todo.append(hit[0])
        group.sort(key=order.__getitem__)
        out.append(group)
    return out
