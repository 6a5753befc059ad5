"""The fuzzer checks a declared invariant again only when the places it
reads have changed (compiler/reads.py, Machine.invariants_hold): what an
invariant reads, and that a skipped check never hides a breach."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rulelang
from interpreter import load
from interpreter.compiler.reads import nesting, seat_split, stack_split, variables_read, zone_reads
from interpreter.fuzz import fuzz
from interpreter.kept import Kept

ROOT = Path(__file__).resolve().parents[2]

GAME = """\
game "Reads"
players 2

card attributes: rank: int
cards:
  "One"    1
  "Two"    2
  "Three"  3

zone pile: pile, public
zone hand: pile, per player, public
zone far: pile, public
var turns: int = 0
player var points: int = 0
card var value: int = card.rank

function held(p: player) = size(hand(p))
function worth(p: player) = sum(c.value for c in hand(p))

invariant size(pile) + size(far) <= 3 "the pile and far hold the cards"
invariant all(held(p) <= 3 for p in players) "no hand holds more than three"
invariant all(worth(p) < 100 for p in players) "no hand is worth 100"
invariant turns < 1000 "a variable"
invariant all(held(p) < 5 for p in players) or turns > 0 "a place and a variable"
invariant all(points(p) < 1000 for p in players) "a player variable"

action take "take":
  require not empty(pile)
  move top(pile) to hand(me)
action bump "bump":
  require not empty(hand(me))
  set top(hand(me)).value = 200
action wait "wait":
  set turns += 1

play:
  move all_cards() to pile
  repeat 6 times:
    turn 0:
      choose take, wait
    turn 1:
      choose take, bump, wait

outcome(p):
  score size(hand(p))
"""


def invariants(tmp_path):
    path = tmp_path / "reads.rules"
    path.write_text(GAME)
    g = rulelang.load_checked(str(path))
    return path, g, [inv.cond for inv in g.invariants]


def test_what_an_invariant_reads(tmp_path):
    _, g, conds = invariants(tmp_path)
    zone = {name: z.index for name, z in g.zones.items()}
    reads = [zone_reads(g, e) for e in conds]
    assert reads[0] == (frozenset({zone["pile"], zone["far"]}), False, False)
    assert reads[1] == (frozenset({zone["hand"]}), False, False)  # through a function
    assert reads[2] == (frozenset({zone["hand"]}), True, False)   # and a card variable
    assert reads[3] is None  # a variable
    assert reads[4] is None  # a place and a variable
    assert reads[5] is None  # a player variable


def test_how_deep_generators_nest(tmp_path):
    _, g, conds = invariants(tmp_path)
    assert [nesting(g, e) for e in conds] == [0, 1, 2, 0, 1, 1]


def test_a_breach_is_found_though_the_places_were_the_same_before(tmp_path):
    """'bump' changes a card variable only: the invariant that reads it is
    checked again, and its breach is found."""
    path, _, _ = invariants(tmp_path)
    report = fuzz(path, examples=40, seed=1)
    assert [f.kind for f in report.findings] == ["invariant"]
    finding = report.findings[0]
    assert finding.message == "no hand is worth 100"
    assert finding.actions[-1].endswith("bump")


def counted(state, kept):
    """The kept invariants' functions, each wrapped to count its calls (a list of counts).
    The check is written to call them (not with their source inline, as it is
    by default: test_the_inline_check_agrees_with_the_calls shows the two agree)."""
    m = state.m
    m.namespace = None
    assert m.invariants_hold(state, kept)
    plan = m.holds_for(state.n).plan
    calls = [0] * len(plan.functions)

    def wrap(i, f):
        def g(st):
            calls[i] += 1
            return f(st)
        return g
    plan.functions[:] = [wrap(i, f) for i, f in enumerate(plan.functions)]  # the list the checks read
    return calls


def holding_after(path, texts):
    """(state, Kept) of a game of ``path`` after ``texts``, the kept invariants holding at each step."""
    state = load(path, check_invariants=True).new_state(0, 2)
    kept = Kept()
    for text in texts:
        state.apply_text(text)
        assert state.m.invariants_hold(state, kept)
    return state, kept


def test_kept_checks_follow_each_game(tmp_path):
    path, _, _ = invariants(tmp_path)
    state = load(path, check_invariants=True).new_state(0, 2)
    m, kept = state.m, Kept()
    # the invariants with a generator that read places and variables only are kept: the
    # three over every seat seat by seat (entries 0-1: held, 2-3: worth, 5-6: points), the
    # "or" with a variable whole (entry 4); the two without a generator cost less to evaluate
    # than to compare, and are evaluated each time
    calls = counted(state, kept)
    assert calls == [0] * 7
    state.apply_text("wait")  # a variable changes, no place does: only what reads it
    assert m.invariants_hold(state, kept) and calls == [0, 0, 0, 0, 1, 0, 0]
    state.apply_text("take")  # player 2's hand changes, not player 1's
    assert m.invariants_hold(state, kept) and calls == [0, 1, 0, 1, 2, 0, 0]
    state.apply_text("take")
    assert m.invariants_hold(state, kept) and calls == [1, 1, 1, 1, 3, 0, 0]
    # a new game's record starts again: every kept invariant is evaluated
    assert m.invariants_hold(state, Kept()) and calls == [2, 2, 2, 2, 4, 1, 1]


def test_the_variables_an_invariant_reads(tmp_path):
    _, g, conds = invariants(tmp_path)
    assert [variables_read(g, e) for e in conds] == [
        frozenset(), frozenset(), frozenset(), frozenset({("var", "turns")}),
        frozenset({("var", "turns")}), frozenset({("pvar", "points")})]


def test_a_variable_read_by_a_kept_invariant_is_watched(tmp_path):
    """Only 'wait' changes a variable; the invariant reading it still fails when it does."""
    path = tmp_path / "turns.rules"
    path.write_text(GAME.replace("or turns > 0", "and turns < 2"))
    state, kept = holding_after(path, ("wait", "take", "take"))
    state.apply_text("wait")  # turns is 2: nothing else changed
    assert not state.m.invariants_hold(state, kept)


def test_an_invariant_over_every_seat_is_split_by_seat(tmp_path):
    _, g, conds = invariants(tmp_path)
    hand = g.zones["hand"].index
    body, slot, shared, own, card_vars, cells = seat_split(g, conds[2])
    assert body is conds[2].expr and (shared, own, card_vars, cells) == (frozenset(), frozenset({hand}), True, False)
    assert seat_split(g, conds[0]) is None  # not over the seats
    assert seat_split(g, conds[4]) is None  # an "or" with a variable
    assert seat_split(g, conds[5]) is None  # a player variable
    # a place of another seat's than p's is read for every seat
    path = tmp_path / "next.rules"
    path.write_text(GAME.replace("sum(c.value for c in hand(p))", "sum(c.value for c in hand(next(p)))"))
    g = rulelang.load_checked(str(path))
    _, _, shared, own, _, _ = seat_split(g, g.invariants[2].cond)
    assert (shared, own) == (frozenset({hand}), frozenset())


def test_a_card_variable_that_changes_has_the_invariant_checked_again(tmp_path):
    path, _, _ = invariants(tmp_path)
    state, kept = holding_after(path, ("take", "take", "wait"))
    state.apply_text("bump")  # only a card variable changes: the places are as they were
    assert not state.m.invariants_hold(state, kept)


def test_an_invariant_on_a_grid_is_kept_with_its_cells_and_faces(tmp_path):
    """Hens's neighbour invariant reads cells (neighbours, cell_of) and faces: it is kept while
    the barnyards, their cells and the faces stay the same, and a placement that breaks the
    rule is still found (here with the placement's own requirement deleted)."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    text = (root / "games" / "hens.rules").read_text()
    game = load(root / "games" / "hens.rules")
    i = next(k for k, (_, msg, _) in enumerate(game.machine.invariants) if msg.startswith("next to a hen"))
    places, card_vars, cells = game.machine.invariant_reads[i]
    assert places and cells == 1 and not card_vars  # the cells and faces of its places' cards
    rule = "  require all(n.face_down or n.breed == c.breed or abs(n.number - c.number) == 1 " \
           "for n in neighbours(barnyard(me), x))\n"
    assert rule in text
    path = tmp_path / "hens_any_place.rules"
    path.write_text(text.replace(rule, ""))
    report = fuzz(path, players=2, examples=20, kinds=("invariant",))
    assert [f.message for f in report.findings] == \
        ["next to a hen, every hen shares its breed or is one number from it"], report.findings


FACES = """\
game "Faces"
players 2
cards:
  "A"
  "B"
zone deck: pile, public
zone yard: grid 3 by 3, per player, public
zone far: pile, public
invariant all(all(not x.face_down for x in far) for p in players) and not "A".face_down "A is never face down"
action hide "hide":
  move "A" face down to yard(me) at open_cells(yard(me))[0]
action wait "wait":
  move "B" to far
play:
  turn 0:
    choose wait
  turn 1:
    choose hide
outcome(p):
  score 0
"""


def test_a_card_named_in_an_invariant_has_its_face_compared_wherever_it_lies(tmp_path):
    """The invariant reads the pile far, and the face of "A", which is not
    in far: a move that lays "A" face down elsewhere has it checked again."""
    path = tmp_path / "faces.rules"
    path.write_text(FACES)
    g = rulelang.load_checked(str(path))
    assert zone_reads(g, g.invariants[0].cond) == (frozenset({g.zones["far"].index}), False, 2)
    state = load(path, check_invariants=True).new_state(0, 2)
    m, kept = state.m, Kept()
    assert m.invariants_hold(state, kept)
    state.apply_text("wait")
    assert m.invariants_hold(state, kept)
    state.apply_text("hide")
    assert not m.invariants_hold(state, kept)


# ---------------------------------------------------------------- what a kept check must not miss
def _kept_run(tmp_path, text, steps):
    """Whether the kept check holds after each step, beside whether the
    invariants really hold (broken_invariants): the two must agree."""
    path = tmp_path / "k.rules"
    path.write_text(text)
    state = load(path, check_invariants=True).new_state(0, 2)
    m, kept = state.m, Kept()
    out = []
    for step in (None, *steps):
        if step is not None:
            state.apply_text(step)
        out.append((m.invariants_hold(state, kept), not m.broken_invariants(state, declared_only=True)))
    return out


PLACE_VARS = """\
game "Place vars"
players 2
cards:
  "A"
  "B"
  "C"
zone deck: pile, public
zone far: pile, public
zone side: pile, public
card var buddy: card = card
card var home: pile = side
INVARIANT
action send "send":
  move top(deck) to far
action link "link":
  set top(far).buddy = top(deck)
action hide "hide":
  move top(deck) face down to side
action stash "stash":
  move top(deck) to side
play:
  repeat 3 times:
    turn 0:
      choose send, link, hide, stash
outcome(p):
  score 0
"""


@pytest.mark.parametrize("invariant, steps", [
    # a card kept in a card variable: its face is read where it lies, out of far
    ('invariant all(all(not c.buddy.face_down for c in far) for p in players) "buddies face up"',
     ("send", "link", "hide")),
    # a pile kept in a card variable: its cards are read, though the invariant names no zone but far
    ('invariant all(all(size(c.home) < 2 for c in far) for p in players) "homes hold one card"',
     ("send", "stash", "stash")),
])
def test_a_card_or_a_place_in_a_card_variable_is_read_wherever_it_lies(tmp_path, invariant, steps):
    checks = _kept_run(tmp_path, PLACE_VARS.replace("INVARIANT", invariant), steps)
    assert checks[-1] == (False, False) and all(kept == real for kept, real in checks), checks


def test_the_cell_of_a_named_card_that_leaves_its_grid_is_read_again(tmp_path):
    text = """\
game "Cell"
players 2
cards:
  "A"
  "B"
zone deck: pile, public
zone yard: grid 3 by 3, public
zone far: pile, public
invariant all(all(cell_of("A") == cell_of("A") for c in deck) for p in players) "A lies in the yard"
action leave "leave":
  move "A" to far
play:
  move "A" to yard at open_cells(yard)[0]
  turn 0:
    choose leave
outcome(p):
  score 0
"""
    path = tmp_path / "cell.rules"
    path.write_text(text)
    state = load(path, check_invariants=True).new_state(0, 2)
    m, kept = state.m, Kept()
    assert m.invariants_hold(state, kept)
    state.apply_text("leave")  # cell_of("A") is now a rule error: the invariant cannot be evaluated
    assert not m.invariants_hold(state, kept)
    assert [msg for msg, _ in m.broken_invariants(state, declared_only=True)] == \
        ["invariant could not be evaluated: A is not in a grid"]


DRIFT = """\
game "Drift"
players 2
cards:
  "A"
  "B"
zone deck: pile, public
zone yard: grid 5 by 5, per player, public
invariant all(all(not x.face_down and size(neighbours(yard(p), cell_of(x))) >= 1 for x in yard(p)) for p in players) "every card in a yard lies face up next to another"
action drift(x in open_cells(yard(me))) "move B to {x}":
  move "B" to yard(me) at x
action hide "hide B":
  move "B" face down to yard(me) at cell_of("B")
action stay "stay":
  pass
play:
  move "A" to yard(0) at open_cells(yard(0))[0]
  move "B" to yard(0) at open_cells(yard(0))[0]
  repeat 3 times:
    turn 0:
      choose drift, hide, stay
outcome(p):
  score 0
"""


def _step_checked(state, check, kept, action) -> bool:
    """Apply ``action`` to a state whose second zone keeps its cards in
    their order; assert that the kept check agrees with the invariants
    evaluated afresh, and return that verdict."""
    m = state.m
    place = state.Z[m.zones[1].base]
    before = [list(x) if isinstance(x, list) else x for x in place]
    state.apply(action)
    assert state.Z[m.zones[1].base] == before  # the same cards, in the same order
    fresh = not m.broken_invariants(state, declared_only=True)
    assert check(state, kept) == fresh, state.action_text(action)
    return fresh


def test_a_card_that_moves_or_turns_over_within_its_grid_has_the_invariant_checked_again(tmp_path):
    """B, the last card of the yard, moves to another cell of it, or turns
    face down where it lies: the yard holds the same cards in the same
    order, and only B's cell or face tells the step apart.  After each
    first action, the kept check agrees with the invariant evaluated
    afresh, and some of them break it."""
    path = tmp_path / "drift.rules"
    path.write_text(DRIFT)
    game = load(path, check_invariants=True)
    first = game.new_state(0, 2)
    verdicts = []
    for action in first.legal_actions():
        state = game.new_state(0, 2)
        kept, check = Kept(), state.m.holds_for(2)
        assert check(state, kept)
        verdicts.append((state.action_text(action), _step_checked(state, check, kept, action)))
    assert ("hide B", False) in verdicts and ("stay", True) in verdicts
    assert {ok for text, ok in verdicts if text.startswith("move B")} == {True, False}


ROW_FLIPS = """\
game "Row flips"
players 2
cards:
  "A"
  "B"
  "C"
  "D"
zone deck: pile, public
zone rows: stacks, public
invariant sum(count(c.face_down for c in s) for s in rows) <= 1 "at most one card lies face down"
action flip(s in rows) "flip the top of {s}":
  move top(s) face down to s
action stay "stay":
  pass
play:
  move all_cards() to deck
  move top(deck) to new stack in rows
  move top(deck) to rows[0]
  move top(deck) to new stack in rows
  move top(deck) to rows[1]
  repeat 2 times:
    turn 0:
      choose flip, stay
outcome(p):
  score 0
"""


def test_a_card_turned_over_within_its_stack_has_the_invariant_checked_again(tmp_path):
    """The same in a row of stacks: the top card of a stack goes face down
    on the same stack, the row's stacks hold the same cards in the same
    order, and a second such flip breaks the invariant."""
    path = tmp_path / "row_flips.rules"
    path.write_text(ROW_FLIPS)
    game = load(path, check_invariants=True)
    first = game.new_state(0, 2)
    broken = 0
    for one in range(len(first.legal_actions())):
        for two in range(len(first.legal_actions())):
            state = game.new_state(0, 2)
            kept, check = Kept(), state.m.holds_for(2)
            assert check(state, kept)
            for k in (one, two):
                broken += not _step_checked(state, check, kept, state.legal_actions()[k])
    assert broken == 2  # a flip of each stack, in either order


STACKS = """\
game "Rows"
players 2
card attributes: rank: int
cards:
  "One"    1
  "Two"    2
  "Three"  3
  "Four"   4
  "Five"   5
zone deck: pile, public
zone rows: stacks, per player, public
function short(b: stack) = size(b) <= LIMIT
invariant all(all(short(b) for b in rows(p)) for p in players) "no row is too long"
invariant all(all(all(x.rank != 9 for x in b) and size(b) >= size(deck) - 9 for b in rows(p)) for p in players) "a body that reads the deck"
action start "start":
  require not empty(deck)
  move top(deck) to new stack in rows(me)
action grow(b in rows(me)) "grow {b}":
  require not empty(deck)
  move top(deck) to b
play:
  move all_cards() to deck
  repeat 5 times:
    turn 0:
      choose start, grow
outcome(p):
  score 0
"""


STACKS_AND_FACES = r'''
game "mix"
players 2
card attributes: rank: int
cards:
  "One"    1
  "Two"    2
  "Three"  3
  "Four"   4
  "Five"   5
zone deck: pile, public
zone rows: stacks, public
zone yard: grid 3 by 3, public
invariant all(size(b) <= 4 for b in rows) "no row is too long"
invariant all(not x.face_down or x.rank > 0 for x in yard) "faces"
action start "start":
  require not empty(deck)
  move top(deck) to new stack in rows
action grow(b in rows) "grow {b}":
  require not empty(deck)
  move top(deck) to b
action lay "lay":
  require not empty(deck)
  move top(deck) face down to yard at open_cells(yard)[0]
play:
  move all_cards() to deck
  repeat 5 times:
    turn 0:
      choose start, grow, lay
outcome(p):
  score 0
'''


def test_a_stack_checked_before_a_grid_leaves_the_grid_check_whole(tmp_path):
    # the invariant over stacks, checked stack by stack, comes before the one over the
    # grid's faces: a step that changes a stack only must not disturb the grid's check
    # (the generated check once reused one name for both, and started over each time)
    path = tmp_path / "mix.rules"
    path.write_text(STACKS_AND_FACES)
    state, kept = holding_after(path, ["start", "grow 1", "lay", "start"])
    assert kept.places is not None  # every step was checked from the step before


def test_an_invariant_over_stacks_is_checked_stack_by_stack(tmp_path):
    """all(BODY for b in rows(p)) with a BODY that reads b alone is checked again only for
    the stacks that changed; a BODY that reads another place is not split."""
    path = tmp_path / "rows.rules"
    path.write_text(STACKS.replace("LIMIT", "3"))
    g = rulelang.load_checked(str(path))
    split = seat_split(g, g.invariants[0].cond)
    assert stack_split(g, split[0], split[1]) is not None
    split = seat_split(g, g.invariants[1].cond)
    assert stack_split(g, split[0], split[1]) is None  # reads the deck
    state = load(path, check_invariants=True).new_state(0, 2)
    m, kept = state.m, Kept()
    m.namespace = None  # the check calls each stack's body (not written inline, as by default)
    assert m.invariants_hold(state, kept)
    plan = m.holds_for(2).plan
    seen = []
    for i, at in list(plan.by_stack.items()):
        plan.by_stack[i] = (lambda at, i: lambda st, x: seen.append((i, x)) or at(st, x))(at, i)
    state.apply_text("start")
    state.apply_text("start")
    assert m.invariants_hold(state, kept) and seen == [(0, 0), (0, 1)]  # two new stacks of seat 1
    seen.clear()
    state.apply_text("grow 1")  # onto the first stack only
    assert m.invariants_hold(state, kept) and seen == [(0, 0)]


def test_a_stack_that_grows_too_long_is_found(tmp_path):
    path = tmp_path / "rows.rules"
    path.write_text(STACKS.replace("LIMIT", "2"))
    state, kept = holding_after(path, ("start", "start", "grow 1"))
    state.apply_text("grow 1")  # its third card
    assert not state.m.invariants_hold(state, kept)
    assert [msg for msg, _ in state.m.broken_invariants(state, declared_only=True)] == ["no row is too long"]


def test_a_row_whose_stacks_move_up_is_checked_stack_by_stack(tmp_path):
    """A stack that goes away moves the later ones up: each is compared with the
    copy kept at its new index, so a breach in the stack that moved is found,
    and the copies kept are copies (not the stacks themselves)."""
    path = tmp_path / "rows.rules"
    path.write_text(STACKS.replace("LIMIT", "2").replace("choose start, grow", "choose start, grow, drop")
                    .replace("play:", 'action drop(b in rows(me)) "drop {b}":\n  move b to deck\nplay:'))
    state, kept = holding_after(path, ("start", "start", "grow 2", "drop 1"))
    plan = state.m.holds_for(2).plan
    k = plan.deep.index(True)  # the row of seat 1's stacks, among the places watched
    watched, now = kept.places[k], state.Z[plan.watched[k]]
    assert [len(b) for b in watched] == [2]  # the second stack, moved up; the first gone
    assert watched == now and watched[0] is not now[0]
    state.apply_text("grow 1")  # the moved stack's third card
    assert not state.m.invariants_hold(state, kept)
    assert [msg for msg, _ in state.m.broken_invariants(state, declared_only=True)] == ["no row is too long"]


def test_the_inline_check_agrees_with_the_calls(tmp_path):
    """The fuzzer's check writes an invariant's source inline (each one's, and
    the body of one split by seat at each seat, with the seat and the number
    of players written in): at every step of random games, the same verdict
    as the check that calls their functions, invariants broken included."""
    import random

    path, plain = tmp_path / "reads.rules", tmp_path / "plain.rules"
    # a limit the games reach: some steps break it, the check starts again after them;
    # through a function (kept seat by seat), or a size alone (evaluated at every check)
    path.write_text(GAME.replace("held(p) <= 3 for p", "held(p) <= 1 for p"))
    plain.write_text("\n".join(  # (and nothing kept beside it)
        'invariant all(size(hand(p)) <= 1 for p in players) "no hand holds more than one"'
        if line.startswith("invariant all(held(p) <= 3") else line
        for line in GAME.splitlines() if not line.startswith(("invariant all(worth", "invariant all(held(p) < 5"))) + "\n")
    # rows of stacks checked stack by stack, per seat and shared, with a limit the games break
    rows, shared = tmp_path / "rows.rules", tmp_path / "shared_rows.rules"
    rows.write_text(STACKS.replace("LIMIT", "2"))
    shared.write_text("\n".join(
        'invariant all(short(b) for b in rows) "no row is too long"' if line.startswith("invariant all(all(short")
        else 'invariant all(size(b) >= size(deck) - 9 for b in rows) "a body that reads the deck"'
        if line.startswith("invariant") else line.replace("stacks, per player", "stacks").replace("rows(me)", "rows")
        for line in STACKS.replace("LIMIT", "2").splitlines()) + "\n")
    games = [path, plain, rows, shared] + sorted((ROOT / "games").glob("*.rules"))
    for game in games:
        inline, calls = (load(game, check_invariants=True) for _ in range(2))
        for n in range(inline.min_players, min(inline.max_players, 4) + 1):
            calls.machine.namespace = None
            checks = [g.machine.holds_for(n) for g in (inline, calls)]
            source = "\n".join(s for s in inline.machine.generated_sources if s.startswith("def _later"))
            seats = [i for i, e in enumerate(inline.machine.invariant_seats) if e is not None]
            if seats:  # a seat's body written out, not called (kept seat by seat, or at every check)
                # (the seat is a scratch slot, as every name bound in an expression: S, st.S)
                assert source and (re.search(r"\bS\[", source) or checks[0].plan.every)
            if checks[0].plan.by_stack:  # so is the body of one checked stack by stack
                assert checks[0].plan.stack_inline and "y0 = " in source
            verdicts = {True: 0, False: 0}
            for seed in range(3):
                states = [g.new_state(seed, n) for g in (inline, calls)]
                kept = [Kept(), Kept()]
                rng = random.Random(seed)
                steps = 0
                while not states[0].is_terminal and steps < 300:
                    got = [check(st, k) for check, st, k in zip(checks, states, kept)]
                    assert got[0] == got[1], (game.name, n, seed, steps)
                    verdicts[got[0]] += 1
                    legal = states[0].legal_actions()
                    a = legal[rng.randrange(len(legal))]
                    for st in states:
                        st.apply(a)
                    steps += 1
            if game in (path, plain, rows, shared):
                assert verdicts[False] and verdicts[True]  # both verdicts were compared
                # the hands' sizes are evaluated at every check in the plain game alone
                every = [w for _, ws in checks[0].plan.every for w in ws]
                assert any("len(st.Z[" in w for w in every) == (game == plain)


# STACKS with a card variable, and "bump" for "grow": it changes one card's, in place (no card moves)
MARKED = STACKS.split("function short")[0] + """\
card var mark: int = 0
invariant all(all(all(x.mark < 5 for x in b) for b in rows(p)) for p in players) "BODY"
""" + "action start" + STACKS.split("action start")[1].replace(
    'grow(b in rows(me)) "grow {b}":\n  require not empty(deck)\n  move top(deck) to b',
    'bump(b in rows(me)) "bump {b}":\n  set top(b).mark += 3').replace("choose start, grow", "choose start, bump").replace(
    "repeat 5 times", "repeat 8 times")


def test_a_card_variable_changed_in_a_stack_has_that_stack_alone_checked_again(tmp_path):
    """A body over each stack that reads its own cards' variables is not evaluated whole
    when a card variable changes: the stacks holding a card whose variables changed are
    checked again, those that changed too, and no other; a breach that way is found."""
    path = tmp_path / "marked.rules"
    path.write_text(MARKED)
    g = rulelang.load_checked(str(path))
    split = seat_split(g, g.invariants[0].cond)
    assert stack_split(g, split[0], split[1])[2]  # its own cards' variables alone
    state, kept = holding_after(path, ["start", "start", "start"])
    m = state.m
    plan = m.holds_for(2).plan
    assert plan.own_card_vars == set(plan.by_stack)
    m.namespace = None  # (the check calls each stack's body, to see which it checks)
    m._hold_plans.clear()
    kept = Kept()
    assert m.invariants_hold(state, kept)
    plan = m.holds_for(2).plan
    seen = []
    for i, at in list(plan.by_stack.items()):
        plan.by_stack[i] = (lambda at, i: lambda st, x: seen.append(x & 0xFFF) or at(st, x))(at, i)
    state.apply_text("bump 2")  # the second stack's card: its mark is 3, the stacks are as they were
    assert m.invariants_hold(state, kept) and seen == [1]
    seen.clear()
    state.apply_text("bump 2")  # 6: broken, though no card moved
    assert not m.invariants_hold(state, kept) and seen == [1]
    assert [msg for msg, _ in m.broken_invariants(state, declared_only=True)] == ["BODY"]


@pytest.mark.parametrize("body", ['(x.rank == 1 or "One".mark < 5)', '(x.rank == 1 or size(all_cards()) < 9)'])
def test_a_stack_body_that_reads_another_card_s_variable_is_checked_whole(tmp_path, body):
    # a card named, or all_cards(): the body may read the variables of a card in another
    # stack. Here "One" (in the fifth stack) is marked: only the other stacks break.
    path = tmp_path / "marked.rules"
    path.write_text(MARKED.replace("x.mark < 5", body))
    g = rulelang.load_checked(str(path))
    split = seat_split(g, g.invariants[0].cond)
    assert stack_split(g, split[0], split[1])[2] is False
    state, kept = holding_after(path, ["start"] * 5)
    assert not state.m.holds_for(2).plan.own_card_vars
    for _ in range(2):
        state.apply_text("bump 5")  # "One": its mark 6
    assert state.m.invariants_hold(state, kept) == ("One" not in body)


@pytest.mark.parametrize("body", ["x.mark < 5", '(x.rank == 1 or "One".mark < 5)'])
def test_the_kept_verdict_on_marked_stacks_is_the_whole_one_at_every_step(tmp_path, body):
    import random

    path = tmp_path / "marked.rules"
    path.write_text(MARKED.replace("x.mark < 5", body).replace("repeat 8 times", "repeat 30 times"))
    game = load(path, check_invariants=True)
    verdicts = set()
    for seed in range(20):
        state, kept, rng = game.new_state(seed, 2), Kept(), random.Random(seed)
        while not state.is_terminal:
            got = state.m.invariants_hold(state, kept)
            assert got == state.m.invariants_hold(state), (seed, state.history)
            verdicts.add(got)
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    assert verdicts == {True, False}
