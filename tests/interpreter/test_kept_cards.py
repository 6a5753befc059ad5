"""An invariant over every card of a grid that reads only each card and the
cards next to it (reads.card_split) is checked again, after a step, only at
the cards that came, left, moved or turned over and the cards next to where
they are or were (kept.KeptPlan.by_card): what it accepts, what it refuses,
and that the check never says otherwise than evaluating the invariants
whole."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

import rulelang
from interpreter import load
from interpreter.compiler.reads import card_split, seat_split
from interpreter.kept import Kept

ROOT = Path(__file__).resolve().parents[2]

YARD = """\
game "Yard"
players 2

card attributes: number: int
cards:
  "One"    1
  "Two"    2
  "Three"  3
  "Four"   4
  "Five"   5
  "Six"    6
  "Seven"  7
  "Eight"  8
  "Nine"   9
  "Ten"   10
  "Eleven" 11
  "Twelve" 12

zone deck: pile, public
zone hand: pile, per player, public
zone yard: grid 3 by 3, per player, public
zone common: grid 3 by 3, public
zone out: pile, public
card var mark: int = 0

function crowded(c: card, p: player) = count(true for n in neighbours(yard(p), cell_of(c))) > 2

INVARIANTS

action draw "draw":
  require not empty(deck)
  move top(deck) to hand(me)
action put(c in hand(me), x in open_cells(yard(me))) "put {c} at {x}":
  move c to yard(me) at x
action share(c in hand(me), x in open_cells(common)) "share {c} at {x}":
  move c to common at x
action shift(c in yard(me), x in open_cells(yard(me))) "shift {c} to {x}":
  move c to yard(me) at x
action hide(c in yard(me), x in open_cells(yard(me))) "hide {c} at {x}":
  move c face down to yard(me) at x
action cover(c in yard(me)) "cover {c}":
  move c face down to yard(me) at cell_of(c)
action bounce(c in yard(me)) "lay {c} again":
  move c to yard(me) at cell_of(c)
action pull(c in yard(me)) "pull {c}":
  move c to out
action unshare(c in common) "unshare {c}":
  move c to deck
action trade(c in hand(me), d in yard(me)) "trade {c} for {d}":
  swap c with d
action flag(c in yard(me)) "flag {c}":
  set c.mark = 1 - c.mark
action wait "wait":
  pass
# steps that do two things at once: a card variable and a move, moves in two grids
action flagshift(c in yard(me), x in open_cells(yard(me))) "flag {c} and shift it to {x}":
  set c.mark = 1 - c.mark
  move c to yard(me) at x
action flagcover(c in yard(me), d in yard(me)) "flag {d} and cover {c}":
  set d.mark = 1 - d.mark
  move c face down to yard(me) at cell_of(c)
action relay(c in yard(me), x in open_cells(yard(me))) "shift {c} to {x} as the others lay a card":
  move c to yard(me) at x
  for p in players:
    if p != me and not empty(hand(p)) and size(open_cells(yard(p))) > 0:
      move top(hand(p)) to yard(p) at top(open_cells(yard(p)))
action swapin(c in yard(me), d in common) "swap {c} with {d}":
  swap c with d

play:
  move all_cards() to deck
  shuffle deck
  repeat 40 times:
    for p in players:
      turn p:
        choose draw, put, share, shift, hide, cover, bounce, pull, unshare, trade, flag, wait, flagshift, flagcover, relay, swapin

outcome(p):
  score 0
"""

# Each reads a card and the cards next to it, and no more; some break when a card comes
# next to another (crowd), some when one moves or leaves (alone), some when a card
# variable changes (marks), one is on a shared grid (common).
LOCAL = {
    "crowd": 'invariant all(all(h.face_down or count(not n.face_down for n in neighbours(yard(p), cell_of(h))) '
             '<= 1 for h in yard(p)) for p in players) "crowd"',
    "alone": 'invariant all(all(h.face_down or h.number > 6 or any(true for n in neighbours(yard(p), cell_of(h))) '
             'for h in yard(p)) for p in players) "alone"',
    "marks": 'invariant all(all(h.mark == 0 or all(n.mark == 0 for n in neighbours(yard(p), cell_of(h))) '
             'for h in yard(p)) for p in players) "marks"',
    "common": 'invariant all(count(true for n in neighbours(common, cell_of(h))) <= 2 for h in common) "common"',
}


def _load(tmp_path, invariants):
    path = tmp_path / "yard.rules"
    path.write_text(YARD.replace("INVARIANTS", "\n".join(invariants)))
    return path


def _split(tmp_path, invariant):
    """card_split of the invariant (through its seat split, if it has one)."""
    g = rulelang.load_checked(str(_load(tmp_path, [invariant])))
    cond = g.invariants[0].cond
    split = seat_split(g, cond, variables=True)
    return card_split(g, cond) if split is None else card_split(g, split[0], split[1])


@pytest.mark.parametrize("name", sorted(LOCAL))
def test_an_invariant_reading_a_card_and_its_neighbours_is_split_card_by_card(tmp_path, name):
    assert _split(tmp_path, LOCAL[name]) is not None


@pytest.mark.parametrize("body", [
    # a place besides the cards next to h
    "size(hand(p)) < 9 and all(not n.face_down for n in neighbours(yard(p), cell_of(h)))",
    # the cell itself, beside the neighbours
    "cell_of(h) == cell_of(h)",
    # the neighbours in order: a list can be indexed
    "size([n for n in neighbours(yard(p), cell_of(h))]) <= 4",
    # the cards next to a neighbour: two steps away
    "all(count(true for m in neighbours(yard(p), cell_of(n))) <= 4 for n in neighbours(yard(p), cell_of(h)))",
    # the cards next to h's cell in another player's grid
    "all(not n.face_down for n in neighbours(yard(next(p)), cell_of(h)))",
    # a user function (which could read anything)
    "not crowded(h, p)",
])
def test_what_reads_more_than_a_card_and_its_neighbours_is_not_split(tmp_path, body):
    invariant = f'invariant all(all({body} for h in yard(p)) for p in players) "x"'
    assert _split(tmp_path, invariant) is None


def test_hens_neighbour_rule_is_checked_card_by_card():
    game = load(ROOT / "games" / "hens.rules", check_invariants=True)
    m = game.machine
    i = next(k for k, (_, msg, _) in enumerate(m.invariants) if msg.startswith("next to a hen"))
    assert m.invariant_cards[i] is not None
    assert len(m.holds_for(4).plan.by_card) == 4  # one per seat


def _holds(state, kept) -> bool:
    return state.m.holds_for(state.n)(state, kept)


def _really(state) -> bool:
    return not state.m.broken_invariants(state, declared_only=True)


def test_the_card_by_card_check_agrees_with_the_whole_invariants_after_every_action(tmp_path):
    """From each position where the invariants hold, every legal action is
    played on a clone, checked by the kept check (given a copy of what it
    kept) and by evaluating every invariant whole: the two agree, and each
    invariant is broken by some of those actions (so that a check that
    misses a change would be seen)."""
    path = _load(tmp_path, list(LOCAL.values()))
    game = load(path, check_invariants=True)
    plan = game.machine.holds_for(2).plan
    assert len(plan.by_card) == 3 * 2 + 1  # three over each player's yard, one over the shared grid
    broken, tried = set(), 0
    for seed in range(3):
        state, rng, kept = game.new_state(seed, 2), random.Random(seed), Kept()
        while not state.is_terminal:
            assert _holds(state, kept) == _really(state)
            legal = state.legal_actions()
            holding = []
            for i in range(len(legal)):
                after, kept_after = state.clone(), copy.deepcopy(kept)
                after.apply_at(i)
                really = _really(after)
                assert _holds(after, kept_after) == really, (seed, state.action_text(legal[i]))
                tried += 1
                if really:
                    holding.append(i)
                else:
                    broken.update(msg for msg, _ in after.m.broken_invariants(after, declared_only=True))
            # go on from a position where they hold, to check from there again
            state.apply_at(rng.choice(holding) if holding else rng.randrange(len(legal)))
            if not holding:
                break
    assert broken == set(LOCAL), broken
    assert tried > 1000, tried


ORDER = """\
game "Order"
players 2

card attributes: number: int
cards:
  "One"    1
  "Two"    2
  "Five"   5

zone deck: pile, public
zone yard: grid 3 by 3, per player, public

invariant all(all(h.number != 5 or any(n.number == 1 or 12 / (n.number - 2) > 0 for n in neighbours(yard(p), cell_of(h))) for h in yard(p)) for p in players) "order"

action put(c in deck, x in open_cells(yard(me))) "put {c} at {x}":
  move c to yard(me) at x
action bounce(c in yard(me)) "lay {c} again":
  move c to yard(me) at cell_of(c)

play:
  move all_cards() to deck
  repeat 4 times:
    turn 0:
      choose put, bounce

outcome(p):
  score 0
"""


def test_a_card_laid_again_on_its_own_cell_has_its_neighbours_checked_again(tmp_path):
    """Laid again on its own cell, a card goes last in the grid's order, and
    the neighbours of the card next to it come in another order: "any"
    stops at One before it divides by zero at Two, but no longer after One
    is laid again.  The card kept its cell and face; the check must still
    look at the Five next to it."""
    path = tmp_path / "order.rules"
    path.write_text(ORDER)
    game = load(path, check_invariants=True)
    assert game.machine.invariant_cards[0] is not None
    state, kept = game.new_state(0, 2), Kept()
    for text in ("put One at (0, 0)", "put Five at (1, 0)", "put Two at (1, 1)"):
        state.apply_text(text)
        assert _holds(state, kept) and _really(state)
    state.apply_text("lay One again")
    assert not _really(state)  # division by zero
    assert not _holds(state, kept)


MEMO = """\
game "Memo"
players 1

card attributes: number: int
cards:
  "One"    1
  "Two"    2
  "Three"  3

zone deck: pile, public
zone yard: grid 3 by 3, public
zone side: grid 3 by 3, public
card var mark: int = 0

invariant all(h.mark == 0 or all(n.mark == 0 for n in neighbours(yard, cell_of(h))) for h in yard) "marks"

action put(c in deck, x in open_cells(yard)) "put {c} at {x}":
  move c to yard at x
action aside(c in deck, x in open_cells(side)) "aside {c} at {x}":
  move c to side at x
action shift(c in yard, x in open_cells(yard)) "shift {c} to {x}":
  move c to yard at x
action flagshift(c in yard, x in open_cells(yard)) "flag {c} and shift it to {x}":
  set c.mark = 1
  move c to yard at x
action flag(c in yard) "flag {c}":
  set c.mark = 1

play:
  move all_cards() to deck
  repeat 10 times:
    turn 0:
      choose put, aside, shift, flagshift, flag

outcome(p):
  score 0
"""


def test_what_the_check_kept_of_a_grid_is_seen_again_after_a_card_variable_changed(tmp_path):
    """A step that changes a card variable has every card checked again; the
    cells and faces kept of a grid whose cards stayed must not outlive it: Two
    is shifted away (and flagged) in that step, then back next to One, flagged
    meanwhile, and the marks are next to each other."""
    path = tmp_path / "memo.rules"
    path.write_text(MEMO)
    state, kept = load(path, check_invariants=True).new_state(0, 1), Kept()
    for text in ("put One at (0, 0)", "put Two at (1, 0)", "aside Three at (0, 0)",
                 "flag Two and shift it to (2, 0)", "flag One"):
        state.apply_text(text)
        assert _holds(state, kept) and _really(state), text
    state.apply_text("shift Two to (1, 0)")
    assert not _really(state)
    assert not _holds(state, kept)
