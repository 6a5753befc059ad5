"""A move of one card is written inline in the generated flow
(``effects.one_card_source``) and is also a closure for the VM: both must
move the card to the same place, and leave the same knowledge of it (who
saw it land, whether it lies face down), for every kind of destination:
the top or bottom of a pile, the top or bottom of a stack, a new stack,
face up or face down; from a pile or from a stack (which goes away when
its last card leaves)."""

import random

import pytest

from interpreter import load
from interpreter.compiler import effects

MOVES = '''game "Moves"
players 2
card attributes: n: int
cards:
  "A" 1
  "B" 2
  "C" 3
  "D" 4
  "E" 5
  "F" 6
  "G" 7
  "H" 8
  "I" 9
  "J" 10
zone deck: pile, hidden
zone hand: pile, per player, owner
zone row: stacks, per player, public
zone pot: pile, public
zone under: pile, public
action pile_on(c in hand(me), b in row(me)) "pile {c} on {b}":
  move c to b
action slip(c in hand(me), b in row(me)) "slip {c} under {b}":
  move c to bottom of b
action start(c in hand(me)) "start a stack with {c}":
  move c to new stack in row(me)
action sink(c in hand(me)) "sink {c}":
  move c to bottom of under
action pull(b in row(me)) "pull from {b}":
  move b[size(b) - 1] to hand(me)
action hop(b in row(me)) "hop from {b}":
  move b[0] to under
action bury(c in hand(me)) "bury {c}":
  move c face down to pot
action hide(c in hand(me), b in row(me)) "hide {c} in {b}":
  move c face down to b
action lift "lift":
  require size(pot) > 0
  move pot[size(pot) - 1] to hand(me)
action draw "draw":
  require size(deck) > 0
  move deck[size(deck) - 1] to hand(me)
action wait "wait":
  pass
setup:
  shuffle deck
  for p in players:
    deal 3 from deck to hand(p)
play:
  repeat 30 times:
    for p in players:
      turn p:
        choose pile_on, slip, start, sink, pull, hop, bury, hide, lift, draw, wait
outcome(p):
  score size(hand(p))
'''
# the same game where no card is ever laid face down (no face flag is kept)
FACE_UP = MOVES.replace("move c face down to", "move c to")


def playout(game, seed):
    """Each step's legal actions, where every card lies, who knows it and
    whether it lies face down, over one random game."""
    state = game.new_state(seed)
    rnd = random.Random(seed)
    seen = []
    while not state.is_terminal:
        legal = state.legal_actions()
        seen.append((legal, repr(state.Z), state.loc[:], state.K[:], state.F[:]))
        state.apply(legal[rnd.randrange(len(legal))])
    seen.append((repr(state.Z), state.loc[:], state.K[:], state.F[:], state.scores()))
    return seen


def closures_only(monkeypatch):
    """Moves are called as closures, never written inline."""
    monkeypatch.setattr(effects, "with_source", lambda f, exprs, lines, span: f)


@pytest.mark.parametrize("text", [MOVES, FACE_UP], ids=["face-down-kept", "face-up-only"])
def test_a_move_written_inline_does_what_its_closure_does(tmp_path, monkeypatch, text):
    path = tmp_path / "moves.rules"
    path.write_text(text, encoding="utf-8")
    inline = load(path)
    with monkeypatch.context() as m:
        closures_only(m)
        called = load(path)
    kinds = set()
    for seed in range(12):
        ours = playout(inline, seed)
        assert ours == playout(called, seed)
        kinds.update(a[0] for legal, *_ in ours[:-1] for a in legal)
    source = inline.generated_source()
    assert "_p.insert(0, _c)" in source and "append([_c])" in source  # stack bottom, new stack
    assert "st.Z[_d].insert(0, _c)" in source  # pile bottom
    assert ("st.F[_c] = True" in source) == (text is MOVES)
    assert "insert(0, _c)" not in called.generated_source()
    assert len(kinds) == 11  # every action was offered somewhere


def test_a_move_that_fails_names_its_line_inline_too(tmp_path):
    text = MOVES.replace("  move b[0] to under\n", "  move b[size(b)] to under\n")
    path = tmp_path / "moves.rules"
    path.write_text(text, encoding="utf-8")
    game = load(path)
    line = text.splitlines().index("  move b[size(b)] to under") + 1
    for seed in range(20):
        state = game.new_state(seed)
        while not state.is_terminal:
            hops = [a for a in state.legal_actions() if state.action_text(a).startswith("hop")]
            if hops:
                with pytest.raises(Exception) as info:
                    state.apply(hops[0])
                assert info.value.span.line == line
                return
            state.apply(state.legal_actions()[-1] if seed % 2 else state.legal_actions()[0])
    raise AssertionError("no game offered a hop")
