"""``rulerun play`` with grid zones (interpreter.play_grid) and secret choices."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from test_play import ANSI, MOVE, PROMPT, Replay, check_no_leak, invoke, ok

from interpreter import load
from interpreter.play import render_view
from interpreter.play_grid import enum_style, grid_table
from interpreter.runtime import State

# Two players place three cards each into their own yard (face up or face
# down) or into the shared pond (which sets a card variable).
GRID_RULES = '''game "Tiny Yard"
players 2

enum Breed: Hen, Duck, Goose
card attributes: number: int, breed: Breed
cards:
  "Red Hen"             1  Hen
  "Speckled Sussex Hen" 2  Hen
  "Mallard"             3  Duck
  "Teal"                4  Duck
  "Grey Goose"          5  Goose
  "Snow Goose"          6  Goose
  "Brown Hen"           7  Hen
  "Pekin"               8  Duck

deck:
  cards where card.number > 0

zone draw_pile: pile, hidden
zone hand: pile, per player, owner
zone yard: grid 3 by 2 either way, per player, public
zone pond: grid 2 by 2, public

card var fed: bool = false

action place(c in hand(me), x in open_cells(yard(me))) "place {c} at {x}":
  move c to yard(me) at x

action hide(c in hand(me), x in open_cells(yard(me))) "hide {c} at {x}":
  move c face down to yard(me) at x

action pool(c in hand(me), x in open_cells(pond)) "pool {c} at {x}":
  set c.fed = true
  move c to pond at x

play:
  shuffle draw_pile
  for p in players:
    deal 3 from draw_pile to hand(p)
  repeat 3 times:
    for p in players:
      turn p:
        choose place, hide, pool

outcome(p):
  score 0
'''


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    path = tmp_path_factory.mktemp("grid") / "yard.rules"
    path.write_text(GRID_RULES, encoding="utf-8")
    return str(path)


class GridReplay(Replay):
    """Replay, knowing what the observations show: a card laid face down in
    a public grid is known only to who knew it (``state.knows`` counts the
    zone's visibility; ``observation`` does not)."""

    def _known(self):
        st = self.state
        return [{st.card_name(c) for c in st.inplay if st.K[c] >> p & 1} for p in range(st.num_players)]


def hide_place_pool(state, legal):
    """The human hides a card, then places one, then pools one."""
    verb = ["hide ", "place ", "pool "][len(state.history) // 2 % 3]
    return next(i for i, a in enumerate(legal) if state.action_text(a).startswith(verb))


def _plain(renderable, width=100):
    buf = io.StringIO()
    Console(file=buf, width=width, no_color=True, color_system=None, highlight=False,
            legacy_windows=False).print(renderable)
    return buf.getvalue()


def parse_grid(text):
    """An ASCII grid as drawn by grid_table: {(x, y): cell text}, the lines
    of a cell joined by spaces."""
    rows = [[f.strip() for f in line.strip().split("|")[1:-1]] for line in text.splitlines()
            if line.strip().startswith("|") and not re.fullmatch(r"[|+\-\s]*", line)]
    header, body = rows[0], rows[1:]
    assert header[0] == "y\\x"
    xs = [int(x) for x in header[1:]]
    cells, y = {}, None
    for fields in body:
        if fields[0]:
            y = int(fields[0])
        for x, f in zip(xs, fields[1:]):
            cells[(x, y)] = (cells.get((x, y), "") + " " + f).strip()
    return cells


def _final_state(rules, seed):
    return GridReplay(rules, seed, 2, [0], hide_place_pool).state


def _hidden_by_bot(state):
    return [e for e in state.observation(0)["zones"]["yard"][1] if e["card"] is None]


def test_grid_table_rows_columns_and_faces():
    content = [{"cell": [0, 0], "card": "Red Hen", "face_down": False},
               {"cell": [1, -1], "card": None, "face_down": True},
               {"cell": [2, 0], "card": "Speckled Sussex Hen", "face_down": True},
               {"cell": [1, 0], "card": {"card": "Teal", "fed": True}, "face_down": False}]
    text = _plain(grid_table(content, color=False))
    cells = parse_grid(text)
    assert cells == {(0, -1): "·", (1, -1): "[face down]", (2, -1): "·",
                     (0, 0): "Red Hen", (1, 0): "Teal (fed yes)",
                     (2, 0): "Speckled Sussex Hen (face down)"}
    # rows by y top to bottom, columns by x: y -1 is drawn above y 0
    assert text.index("[face down]") < text.index("Red Hen") < text.index("Speckled")
    assert all(len(line) == len(text.splitlines()[0]) for line in text.splitlines())  # aligned
    # one line per row when no cell needs two
    short = _plain(grid_table([e for e in content if e["cell"] != [2, 0] and e["cell"] != [1, 0]],
                              color=False))
    assert len(short.splitlines()) == 6  # border, header, rule, 2 rows, border
    assert _plain(grid_table([], color=False)).strip() == "-"
    # in colour, an unknown face-down card is shaded
    assert "▒ face down" in _plain(grid_table(content, color=True))


def test_colour_by_the_first_enum_attribute(rules):
    state = load(rules).new_state(1, 2)
    style = enum_style(state)
    assert style("Red Hen") == style("Brown Hen") == style("Speckled Sussex Hen")
    assert len({style("Red Hen"), style("Teal"), style("Grey Goose")}) == 3
    # without an enum attribute: by the name, as before
    assert enum_style(object())("Red Hen") == enum_style(object())("Red Fox")


def test_render_view_draws_each_grid_in_its_cell(rules):
    seed = next(s for s in range(1, 60) if _hidden_by_bot(_final_state(rules, s)))
    state = _final_state(rules, seed)
    obs = state.observation(0)
    view = render_view(state, 0, 100, title="Tiny Yard")
    assert view.count("y\\x") == 3  # the two yards and the pond
    assert not ANSI.search(view) and all(line == line.rstrip() for line in view.splitlines())
    # the human's own face-down card is named, with its marker; the bot's is not
    mine = [e for e in obs["zones"]["yard"][0] if e["face_down"]]
    assert mine and mine[0]["card"]
    assert re.search(rf"\| +{re.escape(mine[0]['card'].split()[0])}\b", view)
    assert "(face down)" in view and "[face down]" in view
    hidden = {state.card_name(c) for c in state.inplay if not state.K[c] & 1}
    assert hidden and not any(name in view for name in hidden)
    # the pond, in the Table section, shows its card's changed variable
    pond = view[view.index("\nTable"):]
    assert "y\\x" in pond and "(fed yes)" in pond
    coloured = render_view(state, 0, 100, title="Tiny Yard", color=True)
    assert ANSI.search(coloured) and "▒ face down" in coloured
    # narrower consoles stay within the width
    for width in (60, 80):
        assert max(len(line) for line in render_view(state, 0, width).splitlines()) <= width


def test_whole_grid_game_hides_the_bots_face_down_cards(rules):
    seeds = [s for s in range(1, 60) if _hidden_by_bot(_final_state(rules, s))][:2]
    for seed in seeds:
        replay = GridReplay(rules, seed, 2, [0], hide_place_pool)
        out = ok(invoke("play", rules, "--seed", str(seed), input=replay.script))
        assert "Game over after 6 actions." in out
        assert check_no_leak(out, replay, [0]) == 3
        final = out[out.rindex("game over"):]
        # each yard drawn as a grid: the cells as the human saw them at the end
        yards = re.findall(r"^\| P[12].*?(?=^\|-|^\+)", final, re.M | re.S)
        assert len(yards) == 2
        for seat, drawn in enumerate(yards):
            inner = "\n".join(line.split("|", 3)[3].rsplit("|", 2)[0] for line in drawn.splitlines())
            cells = parse_grid(inner)
            yard = replay.state.observation(0)["zones"]["yard"][seat]
            for e in yard:
                want = "[face down]" if e["card"] is None else e["card"]
                assert cells[tuple(e["cell"])] == want + (" (face down)" if e["card"] and e["face_down"] else "")
            assert len([c for c in cells.values() if c != "·"]) == len(yard)
        # the bot's face-down placements are announced without the card
        assert re.search(r"^P2: hide a hidden card at \(-?\d+, -?\d+\)$", out, re.M)
        assert re.search(r"^P1 \(you\): hide \w", out, re.M)


def test_a_secret_choice_is_announced_as_such(rules, monkeypatch):
    monkeypatch.setattr(State, "is_secret", lambda self, action: self.action_text(action).startswith("hide"),
                        raising=False)
    seed = next(s for s in range(1, 60) if _hidden_by_bot(_final_state(rules, s)))
    replay = GridReplay(rules, seed, 2, [0], hide_place_pool)
    out = ok(invoke("play", rules, "--seed", str(seed), input=replay.script.replace("\n", "\nlog\n", 2)))
    assert re.search(r"^P2 chose in secret$", out, re.M)
    assert not re.search(r"^P2: hide", out, re.M)
    assert re.search(r"^P1 \(you\): hide \w", out, re.M)  # one's own choice is shown in full
    assert re.search(r"^\s+\d+  P2 chose in secret$", out, re.M)  # in the log too
    assert re.search(r"^\s+\d+  P1 \(you\): hide \w", out, re.M)
    lines = out.splitlines()
    assert sum(1 for ln in lines if MOVE.match(ln)) == len(replay.state.history)
    assert sum(1 for ln in lines if PROMPT.match(ln)) == 3 + 2  # two answers were "log"
