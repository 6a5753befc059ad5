"""What the fuzzer's seat log says each seat was offered and took
(interpreter.fuzz_seats.SeatLog), against the same tally kept the plain way
while random games are played: every action of every legal list, every
action taken, per player count and seat."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter import fuzz_seats
from interpreter.fuzz_seats import SeatLog
from interpreter.game import load

ROOT = Path(__file__).resolve().parents[2]

SMALL = """game "Rare Offer"
players 2..3

card attributes: rank: int
cards:
  "Rare"  1
  "Two"   2
  "Three" 3
  "Four"  4
  "Five"  5
  "Six"   6
  "Seven" 7
  "Eight" 8

zone deck: pile, hidden
zone table: pile, public
zone hand: pile, per player, owner

action lay(c in hand(me)) "play {c}":
  move c to table

# legal only for the second seat, and only while the rare card is in its hand
action show "show the rare card":
  require me == 1 and any(c.rank == 1 for c in hand(me))

play:
  shuffle deck
  for p in players:
    deal 2 from deck to hand(p)
  repeat 2 times:
    for p in players:
      turn p:
        choose lay, show

outcome(p):
  score size(hand(p))
"""


def _tally(game, counts, games, seed):
    """Play random games, feeding a SeatLog as the fuzzer does; return it and
    the plain tally: (players, seat) -> [decisions, offered names, taken names]."""
    log, plain = SeatLog(), {}
    rnd = random.Random(seed)
    for g in range(games):
        n = counts[g % len(counts)]
        state = game.new_state(g, n)
        log.game(n)
        steps = 0
        actions, mes, legals = [], [], []
        while not state.is_terminal and steps < 400:
            legal = state.legal_actions()
            a = legal[rnd.randrange(len(legal))]
            entry = plain.setdefault((n, state.me), [0, set(), {}])
            entry[0] += 1
            entry[1].update(state.m.site_actions[x[0]].action.name for x in legal)
            name = state.m.site_actions[a[0]].action.name
            entry[2][name] = entry[2].get(name, 0) + 1
            actions.append(a)
            mes.append(state.me)
            legals.append(legal)
            if len(actions) == 5:  # told in parts, as the fuzzer's games tell it
                log.steps(state.m, actions, mes, legals)
                actions, mes, legals = [], [], []
            state.apply(a)
            steps += 1
        if actions:
            log.steps(state.m, actions, mes, legals)
    return log, plain


@pytest.mark.parametrize("batch", [3, fuzz_seats.OFFER_BATCH])  # a batch ends mid-game, or at a game's end
@pytest.mark.parametrize("path,counts", [("games/emu_ranchers.rules", [2]),
                                         ("games/fox_in_the_henhouse.rules", [2, 3, 4]),
                                         ("games/desplumados.rules", [3, 5]),
                                         ("games/hens.rules", [1, 4]),
                                         (None, [2, 3])])
def test_offered_and_taken_agree_with_a_plain_tally(path, counts, batch, monkeypatch, tmp_path):
    monkeypatch.setattr(fuzz_seats, "OFFER_BATCH", batch)
    if path is None:
        (tmp_path / "rare.rules").write_text(SMALL)
        game = load(tmp_path / "rare.rules")
    else:
        game = load(ROOT / path)
    log, plain = _tally(game, counts, 12, 5)
    report = {(r["players"], r["seat"] - 1): r for r in log.report()}
    assert set(report) == set(plain)
    for key, (decisions, offered, taken) in plain.items():
        assert report[key]["decisions"] == decisions
        assert report[key]["offered"] == sorted(offered), key
        assert report[key]["took"] == dict(sorted(taken.items()))


def test_an_action_one_seat_is_offered_rarely_is_listed_for_that_seat_alone(tmp_path):
    (tmp_path / "rare.rules").write_text(SMALL)
    log, plain = _tally(load(tmp_path / "rare.rules"), [2], 30, 1)
    report = {(r["players"], r["seat"]): r["offered"] for r in log.report()}
    assert report[(2, 1)] == ["lay"]
    assert "show" in report[(2, 2)]


def test_a_seat_out_of_the_game_s_range_is_refused_plainly():
    """A step is keyed by site * players + seat: a seat the game does not have
    (a caller's slip: the engine never makes one) is an error, not another site's step."""
    game = load(ROOT / "games" / "fox_in_the_henhouse.rules")
    state = game.new_state(0, 2)
    log = SeatLog()
    log.game(2)
    legal = state.legal_actions()
    log.steps(state.m, [legal[0]], [state.me], [legal])
    with pytest.raises(ValueError, match="seat out of 0..1"):
        log.steps(state.m, [legal[0]], [2], [legal])
