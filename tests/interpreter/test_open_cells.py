"""``open_cells`` (interpreter.compiler.grids) against the rule written
out plainly, cell by cell: a free cell next to a card (orthogonally) is
open when the grid's bounding box with it still fits W by H (or H by W, for
a grid "either way").  Layouts are drawn at random, a box already too wide
for one way included (a grid "either way" can be wider than W).  A grid grown a card at a time,
and one that loses a card, are checked at every step: ``open_cells`` works
out a layout from the one before it where it has seen that one."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.compiler import grids
from interpreter.compiler.grids import open_cells
from interpreter.runtime import CELL_ORIGIN, CELL_ROW, ORIGIN_CELL


def plain_open_cells(cells, w, h, either):
    """(x, y) pairs -> the open (x, y) pairs, sorted by x then y."""
    if not cells:
        return [(0, 0)]
    out = set()
    for x, y in cells:
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if n in cells:
                continue
            xs = [c[0] for c in cells] + [n[0]]
            ys = [c[1] for c in cells] + [n[1]]
            bw, bh = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
            if (bw <= w and bh <= h) or (either and bw <= h and bh <= w):
                out.add(n)
    return sorted(out)


def _state(cells, w, h, either):
    cards = list(range(len(cells)))
    P = [(x + CELL_ORIGIN) * CELL_ROW + (y + CELL_ORIGIN) for x, y in cells]
    m = SimpleNamespace(domain_cache=None, grid_boxes={0: (w, h, either)})
    return SimpleNamespace(Z=[cards], P=P, m=m)


def _pairs(out):
    return [(c // CELL_ROW - CELL_ORIGIN, c % CELL_ROW - CELL_ORIGIN) for c in out]


@settings(max_examples=300, deadline=None)
@given(cells=st.sets(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), max_size=14),
       w=st.integers(1, 6), h=st.integers(1, 6), either=st.booleans())
def test_open_cells_follow_the_rule_written_plainly(cells, w, h, either):
    state = _state(sorted(cells), w, h, either)
    assert _pairs(open_cells(state, 0)) == plain_open_cells(cells, w, h, either)


def test_a_lone_card_in_a_four_by_three_box_opens_its_four_sides():
    state = _state([(0, 0)], 4, 3, False)
    assert _pairs(open_cells(state, 0)) == [(-1, 0), (0, -1), (0, 1), (1, 0)]


def test_a_full_row_opens_no_cell_beyond_its_ends_unless_it_may_turn():
    row = [(0, 0), (1, 0), (2, 0), (3, 0)]  # four wide: full for 4 by 3
    assert (-1, 0) not in _pairs(open_cells(_state(row, 4, 3, False), 0))
    assert _pairs(open_cells(_state(row, 4, 3, False), 0)) == plain_open_cells(set(row), 4, 3, False)
    assert (4, 0) not in _pairs(open_cells(_state(row, 3, 4, True), 0))  # turned: 4 wide is the most
    assert (0, 1) in _pairs(open_cells(_state(row, 3, 4, True), 0))


def test_an_empty_grid_opens_the_origin():
    assert open_cells(_state([], 4, 3, True), 0) == [ORIGIN_CELL]


@settings(max_examples=150, deadline=None)
@given(cells=st.lists(st.tuples(st.integers(-4, 4), st.integers(-4, 4)), unique=True, min_size=1, max_size=12),
       drop=st.integers(0, 11), w=st.integers(1, 5), h=st.integers(1, 5), either=st.booleans())
def test_a_grid_grown_card_by_card_and_losing_one_opens_the_cells_of_the_rule(cells, drop, w, h, either):
    grids._FRONTIERS.clear()
    for k in range(1, len(cells) + 1):  # each layout one card more than the one before
        assert _pairs(open_cells(_state(cells[:k], w, h, either), 0)) == plain_open_cells(set(cells[:k]), w, h, either)
    rest = cells[:drop % len(cells)] + cells[drop % len(cells) + 1:]  # a card leaves, anywhere in the order
    assert _pairs(open_cells(_state(rest, w, h, either), 0)) == plain_open_cells(set(rest), w, h, either)
    moved = rest + [(9, 9)]  # and comes back elsewhere (its own box, apart)
    assert _pairs(open_cells(_state(moved, w, h, either), 0)) == plain_open_cells(set(moved), w, h, either)
