"""A listing skips the searches of kinds of card the mover does not hold.

When two searches of a choice or more begin by going through the same
place's cards, each card tested first by a table of what is printed on it
that few cards pass (one rare kind each), the listing looks at the place's
cards once (``sites.skipped_by_table``) and skips each search whose kind
is not there.  The listing must stay the same, action for action; a
search that does something before its loop that could fail is never
skipped (whether a place is empty is read safely), nor is one whose table
most cards pass."""

import random
import re

import pytest

from interpreter import load
from interpreter.compiler import sites

KINDS = '''game "kinds"
players 2
enum Kind: Plain, Gem, Key, Coin, Bomb
card attributes: kind: Kind
cards:
  "Plain" Plain * 20
  "Gem" Gem * 2
  "Key" Key * 2
  "Coin" Coin * 2
  "Bomb" Bomb * 2
zone deck: pile, hidden
zone hand: pile, per player, owner
zone pot: pile, public
var gems: int = 0
action show_gem(c in hand(me)) "show {c}":
  require c.kind == Gem
  set gems += 1
  move c to pot
action use_key(c in hand(me), q in players) "use {c} on {q}":
  require c.kind == Key
  require q != me
  move c to pot
action spend(c in hand(me)) "spend {c}":
  require c.kind == Coin
  require LATE
  move c to pot
action drop(c in hand(me)) "drop {c}":
  require c.kind == Plain
  move c to pot
action wait "wait":
  pass
setup:
  shuffle deck
  for p in players:
    deal 4 from deck to hand(p)
play:
  while size(pot) < 12:
    turn 0:
      choose show_gem, use_key, spend, drop, wait
      if not empty(deck):
        deal 1 from deck to hand(me)
    turn 1:
      choose show_gem, use_key, spend, drop, wait
      if not empty(deck):
        deal 1 from deck to hand(me)
outcome(p):
  score gems
'''


def load_kinds(tmp_path, late=None):
    """The game; ``late``: a test of the state that spend requires (none: spend requires only its kind)."""
    path = tmp_path / "kinds.rules"
    path.write_text(KINDS.replace("  require LATE\n", "" if late is None else f"  require {late}\n"), encoding="utf-8")
    return load(path)


def listings(game, seeds=range(20)):
    out = []
    for seed in seeds:
        state, rng = game.new_state(seed), random.Random(seed)
        while not state.is_terminal:
            legal = state.legal_actions()
            out.append([state.action_text(a) for a in legal])
            state.apply_at(rng.randrange(len(legal)))
    return out


def skipped(game) -> set:
    """The actions whose searches the listing may skip, read off its source
    (written when play first stands at the choice)."""
    listings(game, range(1))
    source, actions = game.generated_source(), game.machine_for(2).site_actions
    return {actions[int(m.group(1))].action.name for m in re.finditer(r"if _seen\d+ & \d+:\n\s+uid = (\d+)", source)}


def test_the_searches_of_rare_kinds_are_skipped_and_the_listings_stay_the_same(tmp_path, monkeypatch):
    game = load_kinds(tmp_path)
    assert skipped(game) == {"show_gem", "use_key", "spend"}  # (not drop: most cards are plain)
    kept = listings(game)
    rare = ("show", "use", "spend")
    assert any(not any(t.startswith(rare) for t in texts) for texts in kept)  # (hands with no rare card)
    for kind in rare:
        assert any(t.startswith(kind) for texts in kept for t in texts)
    monkeypatch.setattr(sites, "skipped_by_table", lambda ns, bodies: [])
    plain = load_kinds(tmp_path)
    assert skipped(plain) == set()
    assert listings(plain) == kept


@pytest.mark.parametrize("late, skips", [(test, False) for test in ("gems >= 0", "size(pot) < 100", "true")] +
                         [(test, True) for test in ("empty(pot)", "not empty(pot)", "not (not empty(pot))")])
def test_a_search_with_a_test_before_its_loop_is_skipped_only_if_that_test_asks_whether_a_place_is_empty(
        tmp_path, monkeypatch, late, skips):
    # spend's second require reads no parameter: it is tested before the loop over the hand.
    # A test of the state could fail there: spend is then searched as written.  Whether a
    # place is empty is read without fail: spend is then skipped with the others when no coin
    # is in hand.  Either way it is offered as before
    game = load_kinds(tmp_path, late)
    assert skipped(game) == {"show_gem", "use_key"} | ({"spend"} if skips else set())
    kept = listings(game, range(10))
    monkeypatch.setattr(sites, "skipped_by_table", lambda ns, bodies: [])
    assert listings(load_kinds(tmp_path, late), range(10)) == kept
    spends = [any(t.startswith("spend") for t in texts) for texts in kept]
    assert any(spends) and not all(spends)


def test_one_rare_kind_alone_is_searched_as_written(tmp_path):
    # a single search to skip: its own pass over the hand is the look, so none is made
    text = KINDS.replace("choose show_gem, use_key, spend, drop, wait", "choose show_gem, drop, wait")
    path = tmp_path / "one.rules"
    path.write_text(text.replace("  require LATE\n", ""), encoding="utf-8")
    assert skipped(load(path)) == set()
