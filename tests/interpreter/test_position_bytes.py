"""The fuzzer's repeated-position check reads positions as bytes
(Machine.position_bytes): the same positions as the state key, no more,
no fewer, on every game."""

from __future__ import annotations

import random

import pytest

from interpreter import load

GAMES = [("emu_ranchers", 2), ("fox_in_the_henhouse", 3), ("desplumados", 4), ("hens", 2), ("hens", 1)]


@pytest.mark.parametrize("stem,players", GAMES)
def test_bytes_tell_positions_apart_as_the_key_does(stem, players):
    game = load(f"games/{stem}.rules")
    keys, blobs = [], []
    for seed in range(3):
        state = game.new_state(seed, players)
        rnd = random.Random(seed)
        while not state.is_terminal and len(state.history) < 150:
            keys.append(state.key())
            blobs.append(state.m.position_bytes(state))
            assert state.m.position_bytes(state.clone()) == blobs[-1]
            legal = state.legal_actions()
            state.apply(legal[rnd.randrange(len(legal))])
    by_key, by_bytes = {}, {}
    for i, (k, b) in enumerate(zip(keys, blobs)):
        by_key.setdefault(k, []).append(i)
        by_bytes.setdefault(b, []).append(i)
    assert sorted(by_key.values()) == sorted(by_bytes.values())
    assert len(by_key) > 10


def test_a_position_that_comes_back_has_the_same_bytes(tmp_path):
    path = tmp_path / "back.rules"
    path.write_text('''game "Back"
players 2
cards:
  "A"
  "B"
zone pile: pile, public
zone hand: pile, per player, public
action take "take":
  move top(pile) to hand(me)
action give "give":
  move top(hand(me)) to pile
play:
  move all_cards() to pile
  while true:
    turn 0:
      choose take
    turn 0:
      choose give
outcome(p):
  score 0
''')
    state = load(path).new_state(0, 2)
    first = state.m.position_bytes(state)
    state.apply_text("take")
    assert state.m.position_bytes(state) != first
    state.apply_text("give")
    assert state.m.position_bytes(state) == first
