"""Grid zones and face-down moves, parsed and checked: ``zone Z: grid W by H
[either way]``, ``move CARD to GRID at CELL``, ``move CARD face down to ...``,
``c.face_down`` and the grid built-ins (open_cells, neighbours, cell_of,
corners, lines, groups).

Diagnostics are asserted by code and line (the line found from a needle in
the text), never by prose.  Play-time behaviour: tests/interpreter/test_grids.py.
"""

from __future__ import annotations

import pytest

from rulelang import ast as A
from rulelang import check, parse

BASE = '''game "t"
players 2
enum breed: Red, White
card attributes: breed: breed, n: int
cards:
  "A" Red 1 *3
  "B" White 2 *2
zone deck: pile, hidden
zone pot: pile, public
zone hand: pile, per player, owner
zone row: stacks, public
zone yard: {grid}, per player, public
var n: int = 0
var flag: bool = false
{decls}
action go(c in hand(me), x in open_cells(yard(me))) "go {{c}} {{x}}":
  {body}
play:
  turn 0:
    choose go
outcome(p):
  score n
'''


def rules(grid: str = "grid 4 by 3", decls: str = "", body: str = "move c to yard(me) at x") -> str:
    return BASE.format(grid=grid, decls=decls, body=body)


def diagnose(text: str):
    module, diags = parse(text, "t.rules")
    if module is None:
        return diags
    _, diags = check(module)
    return diags


def errors(text: str) -> list:
    return [(d.code, d.span.line) for d in diagnose(text) if d.severity == "error"]


def line_of(text: str, needle: str) -> int:
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(hits) == 1, f"{needle!r} is on lines {hits}"
    return hits[0]


def assert_error(text: str, code: str, needle: str):
    """Exactly one error: ``code`` on the line holding ``needle``."""
    assert errors(text) == [(code, line_of(text, needle))], "\n".join(d.render(text) for d in diagnose(text))


def assert_clean(text: str):
    errs = [d for d in diagnose(text) if d.severity == "error"]
    assert not errs, "\n".join(d.render(text) for d in errs)


def moves(text: str) -> list:
    module, diags = parse(text, "t.rules")
    assert module is not None, diags
    out = []

    def walk(body):
        for st in body:
            if isinstance(st, A.Move):
                out.append(st)
    for item in module.items:
        if isinstance(item, A.Action):
            walk(item.body)
    return out


# ---------------------------------------------------------------- clean files
def test_base_file_is_clean():
    assert_clean(rules())


@pytest.mark.parametrize("grid", ["grid 4 by 3", "grid 4 by 3 either way", "grid 1 by 1", "grid 32 by 32",
                                  "grid 5 by 2, capacity 10"])
def test_good_grid_declarations(grid):
    assert_clean(rules(grid=grid))


@pytest.mark.parametrize("body", [
    "move c face down to yard(me) at x",
    "move c face down to pot",
    "move c face down to bottom of pot",
    "move c face down to new stack in row",
    "set flag = c.face_down",
    "require not c.face_down",
    "let y = cell_of(c)",
    "set n = size(neighbours(yard(me), x))",
    "set n = size(neighbours(yard(me), cell_of(c)))",
    "require x in corners(yard(me))",
    "require x == cell_of(c) or x != cell_of(c)",
    "set n = size(lines(yard(me)))",
    "set n = sum(h.n for h in lines(yard(me))[0])",
    "set n = size(groups(h.breed for h in yard(me)))",
    "set n = size(groups(h.breed for h in yard(me) if not h.face_down))",
    "set n = max(size(g) for g in groups(h.n for h in yard(me)))",
    "set n = size(groups(h.face_down for h in yard(me)))",
    "set n = size(yard(me))",
    "set n = yard(me)[0].n",
    "set n = sum(h.n for h in yard(me) if h.face_down)",
    "for h in yard(me):\n    set n += h.n",
])
def test_good_uses_are_clean(body):
    assert_clean(rules(body=body))


def test_cell_lists_and_grid_parameters_check():
    text = rules(decls='function biggest(p: player) = max(size(g) for g in groups(h.breed for h in yard(p)))\n'
                       'function free(p: player) = size(open_cells(yard(p)))\n'
                       'function spots(p: player) = [cell_of(h) for h in yard(p)]',
                 body="require x in spots(me)\n  set n = biggest(me) + free(me)")
    assert_clean(text)


def test_face_down_is_overridden_by_a_declared_attribute():
    # a game may still name its own attribute face_down: that one is meant
    text = rules().replace("card attributes: breed: breed, n: int",
                           "card attributes: breed: breed, n: int, face_down: int")
    text = text.replace('"A" Red 1 *3', '"A" Red 1 0 *3').replace('"B" White 2 *2', '"B" White 2 1 *2')
    assert_clean(text.replace("move c to yard(me) at x", "set n = c.face_down"))
    assert_error(text.replace("move c to yard(me) at x", "set flag = c.face_down"), "RL103", "set flag")


# ---------------------------------------------------------------- the AST
def test_moves_parse_to_their_forms():
    text = rules(body="move c to yard(me) at x\n  move c face down to yard(me) at x\n"
                      "  move c face down to pot\n  move c to pot")
    m = moves(text)
    assert [(s.where, s.face_down, s.at is not None) for s in m] == [
        ("at", False, True), ("at", True, True), ("top", True, False), ("top", False, False)]
    assert isinstance(m[0].at, A.Name) and m[0].at.id == "x"


# ---------------------------------------------------------------- declarations
@pytest.mark.parametrize("grid,code", [
    ("grid 4 3", "RL107"),
    ("grid 4 by", "RL107"),
    ("grid", "RL107"),
    ("grid W by 3", "RL107"),
    ("grid 4 by 3 sideways", "RL107"),
    ("grid 4 by 3 either", "RL107"),
    ("grid 4 x 3", "RL107"),
    ("grid 0 by 3", "RL116"),
    ("grid 3 by 0", "RL116"),
    ("grid 33 by 2", "RL116"),
    ("grid 2 by 40 either way", "RL116"),
])
def test_bad_grid_declarations(grid, code):
    text = rules(grid=grid)
    assert_error(text, code, "zone yard")


def test_misspelt_grid_option_is_an_unknown_option():
    text = rules(grid="gird 4 by 3")
    # the zone falls back to a pile: its uses as a grid are then RL103 as well
    assert errors(text)[0] == ("RL107", line_of(text, "zone yard"))


# ---------------------------------------------------------------- move ... at
@pytest.mark.parametrize("body", [
    "move c to yard(me)",                 # a grid needs "at"
    "move c face down to yard(me)",
    "move c to bottom of yard(me)",
    "move c to pot at x",                 # "at" is for grids
    "move c face down to pot at x",
    "move hand(me) to yard(me) at x",     # one card to one cell
    "move [c] to yard(me) at x",
    "move c to yard(me) at 3",            # the cell's type
    "move c to yard(me) at c",
    "move c face down to yard(me) at 3",
    "move yard(me) to pot",               # a whole grid is not moved
    "move c to row at x",
])
def test_bad_moves_are_rl103(body):
    text = rules(body=body)
    assert_error(text, "RL103", body.split("\n")[0])


# ---------------------------------------------------------------- built-ins
@pytest.mark.parametrize("body", [
    "let y = cell_of(3)",
    "let y = cell_of(pot)",
    "let y = cell_of(x)",
    "set n = size(neighbours(yard(me), 3))",
    "set n = size(neighbours(yard(me), c))",
    "set n = size(neighbours(pot, x))",
    "set n = size(open_cells(pot))",
    "set n = size(open_cells(row))",
    "set n = size(corners(hand(me)))",
    "set n = size(lines(pot))",
    "set n = size(groups(h.breed for h in pot))",
    "set n = size(groups(h.breed for h in hand(me)))",
    "set n = size(groups([h] for h in yard(me)))",
    "set n = x",
    "set n = open_cells(yard(me))",
    "set n = c.face_down",
    "set flag = x",
    "set n = top(yard(me)).n",
    "shuffle yard(me)",
    "deal 1 from yard(me) to pot",
    "deal 1 from pot to yard(me)",
    "require x == c",
])
def test_wrong_types_are_rl103(body):
    text = rules(body=body)
    assert_error(text, "RL103", body)


def test_attribute_of_a_grid_is_rl105():
    assert_error(rules(body="set flag = yard(me).face_down"), "RL105", "set flag")
    assert_error(rules(body="set flag = pot.face_down"), "RL105", "set flag")


@pytest.mark.parametrize("body", [
    "set n = size(groups(yard(me)))",          # groups needs the generator form
    "set n = size(neighbours(yard(me)))",
    "set n = size(open_cells(yard(me), x))",
    "let y = cell_of()",
    "set n = size(corners(yard(me), yard(me)))",
    "set n = size(lines())",
])
def test_wrong_arity_is_rl104(body):
    assert_error(rules(body=body), "RL104", body)


def test_groups_and_cells_before_the_game_starts_are_rl109():
    text = rules(decls="var spots: list of cell = [cell_of(c) for c in pot if false]")
    assert_error(text, "RL109", "var spots")


def test_cell_typed_vars_need_a_cell():
    assert_error(rules(decls="card var spot: cell = 0"), "RL103", "card var spot")


def test_grid_builtins_are_reserved_names():
    for name in ("open_cells", "neighbours", "cell_of", "corners", "lines", "groups"):
        text = rules(decls=f"var {name}: int = 0")
        assert_error(text, "RL102", f"var {name}")


def test_a_trigger_may_watch_a_grid():
    text = rules(decls="when h enters yard(p):\n  set n += h.n")
    assert_clean(text)


def test_several_errors_each_on_its_line():
    body = "move c to yard(me)\n  let y = cell_of(3)\n  set n = size(groups(h.n for h in pot))"
    text = rules(grid="grid 0 by 3", body=body)
    assert errors(text) == [("RL116", line_of(text, "zone yard")),
                            ("RL103", line_of(text, "move c to yard(me)")),
                            ("RL103", line_of(text, "cell_of(3)")),
                            ("RL103", line_of(text, "groups(h.n for h in pot)"))]
