"""The fuzzer's repeated-position check reads positions as bytes
(Machine.position_bytes): the same positions as the state key, no more,
no fewer, on every game."""

from __future__ import annotations

import random

import pytest

from interpreter import load

GAMES = [("emu_ranchers", 2), ("fox_in_the_henhouse", 3), ("desplumados", 4), ("hens", 2), ("hens", 1)]


def positions(stem, players):
    """The positions of three random games (their first 150 steps), one by one."""
    game = load(f"games/{stem}.rules")
    for seed in range(3):
        state = game.new_state(seed, players)
        rnd = random.Random(seed)
        while not state.is_terminal and len(state.history) < 150:
            yield state
            legal = state.legal_actions()
            state.apply(legal[rnd.randrange(len(legal))])


@pytest.mark.parametrize("stem,players", GAMES)
def test_bytes_tell_positions_apart_as_the_key_does(stem, players):
    keys, blobs = [], []
    for state in positions(stem, players):
        keys.append(state.key())
        blobs.append(state.m.position_bytes(state))
        assert state.m.position_bytes(state.clone()) == blobs[-1]
    by_key, by_bytes = {}, {}
    for i, (k, b) in enumerate(zip(keys, blobs)):
        by_key.setdefault(k, []).append(i)
        by_bytes.setdefault(b, []).append(i)
    assert sorted(by_key.values()) == sorted(by_bytes.values())
    assert len(by_key) > 10


@pytest.mark.parametrize("stem,players", GAMES)
def test_equal_positions_have_one_small_key(stem, players):
    # the small key (Machine.small_key_for) may give two positions one key, never one position two
    small = None
    by_key = {}
    for state in positions(stem, players):
        small = small or state.m.small_key_for(players)
        key = small(state)
        assert small(state.clone()) == key
        assert by_key.setdefault(state.key(), key) == key
    assert len(set(by_key.values())) > len(by_key) // 2  # and it tells most apart


def test_a_let_that_holds_a_list_is_hashed_as_a_tuple(monkeypatch):
    # ¡Desplumados! keeps a list in a let: its small key reads it as a tuple, not as bytes (slower)
    from interpreter.machine import Machine

    as_bytes = []
    monkeypatch.setattr(Machine, "_small_key_of_lists", staticmethod(lambda key: as_bytes.append(key) or 0))
    small, held = None, 0
    for state in positions("desplumados", 4):
        small = small or state.m.small_key_for(4)
        small(state)
        held += any(isinstance(state.L[k], list) for k in state.m.list_lets)
    assert held and not as_bytes


def test_a_small_key_holds_a_list_kept_in_a_variable(tmp_path):
    path = tmp_path / "order.rules"
    path.write_text('''game "Order"
players 2
cards:
  "A"
  "B"
zone pile: pile, public
var order: list of int = [0]
action go "go":
  set order = order + [1]
play:
  repeat 3 times:
    turn 0:
      choose go
outcome(p):
  score 0
''')
    game = load(path)
    state = game.new_state(0, 2)
    small = state.m.small_key_for(2)
    keys = []
    while not state.is_terminal:
        keys.append(small(state))
        assert small(state.clone()) == keys[-1]
        state.apply(state.legal_actions()[0])
    assert len(set(keys)) == 3


def test_the_small_key_is_written_once_per_player_count():
    """The fuzzer asks for it at every game: written (and compiled) at the first."""
    m = load("games/emu_ranchers.rules").new_state(0, 2).m
    assert m.small_key_for(2) is m.small_key_for(2)
    state = load("games/fox_in_the_henhouse.rules").new_state(0, 3)
    three, four = state.m.small_key_for(3), state.m.small_key_for(4)
    assert three is not four and three(state) == three(state.clone())


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


@pytest.mark.parametrize("stem,players,unique", [("fox_in_the_henhouse", 3, True), ("hens", 2, True),
                                                 ("emu_ranchers", 2, True), ("desplumados", 4, False)])
def test_without_a_while_loop_no_position_comes_back(stem, players, unique):
    """Machine.positions_unique: no while loop, so where the flow stands
    (pc and the loops' counts) differs at every decision of a game, and no
    position (not even its key) comes back; nor with Emu Ranchers's while
    loops, each round of which draws from the pile or grows a bird
    (compiler.progress).  ¡Desplumados!'s turns loop while a condition
    holds, and a turn may leave the cards where they were."""
    game = load(f"games/{stem}.rules")
    assert game.new_state(0, players).m.positions_unique is unique
    if not unique:
        return
    for seed in range(4):
        state = game.new_state(seed, players)
        rnd = random.Random(seed)
        seen = set()
        while not state.is_terminal:
            key = state.key()
            assert key not in seen
            seen.add(key)
            legal = state.legal_actions()
            state.apply(legal[rnd.randrange(len(legal))])
        assert len(seen) > 20


def test_one_while_loop_makes_positions_possibly_repeat(tmp_path):
    path = tmp_path / "loop.rules"
    path.write_text('''game "Loop"
players 2
cards:
  "A"
  "B"
zone deck: pile, public
action pass_turn "pass":
  pass
play:
  while true:
    for p in players:
      turn p:
        choose pass_turn
outcome(p):
  score 0
''')
    state = load(path).new_state(0)
    assert state.m.positions_unique is False
    first = state.key()
    state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])
    assert state.key() == first  # a position came back
