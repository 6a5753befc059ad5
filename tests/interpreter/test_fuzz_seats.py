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


NEVER = """game "Never"
players 2..3

param with_rare: bool = false
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

deck:
  cards where card.rank > 1
  cards where card.rank == 1 if with_rare

zone deck: pile, hidden
zone table: pile, public
zone hand: pile, per player, owner

action lay(c in hand(me)) "play {c}":
  move c to table

# a card parameter whose printed test only the rare card passes
action show(c in hand(me)) "show {c}":
  require c.rank == 1

# a list may name a card that is not in play: offered all the same
action name_it(c in ["Rare"]) "name {c}":
  require c.rank == 1

play:
  shuffle deck
  for p in players:
    deal 2 from deck to hand(p)
  repeat 2 times:
    for p in players:
      turn p:
        choose lay, show, name_it

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
        log.dealt(state.m, state.inplay)  # (as the fuzzer's games do)
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
                                         (None, [2, 3]), ("never", [2, 3]), ("never rare", [2, 3])])
def test_offered_and_taken_agree_with_a_plain_tally(path, counts, batch, monkeypatch, tmp_path):
    monkeypatch.setattr(fuzz_seats, "OFFER_BATCH", batch)
    if path is None:
        (tmp_path / "rare.rules").write_text(SMALL)
        game = load(tmp_path / "rare.rules")
    elif path.startswith("never"):  # an action no card in play can make legal, or one the deck allows
        (tmp_path / "never.rules").write_text(NEVER)
        game = load(tmp_path / "never.rules", {"with_rare": path.endswith("rare")})
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


def _never(tmp_path, **params):
    (tmp_path / "never.rules").write_text(NEVER)
    state = load(tmp_path / "never.rules", params).new_state(0, 2)
    return state, {sa.action.name: sa.uid for sa in state.m.site_actions}


def test_an_action_no_card_in_play_can_make_legal_is_never_offered(tmp_path):
    """A card parameter whose printed test no card in play passes: the action's
    search finds nothing, whatever the position (Machine.never_offered).  A
    card named by a list is not in a place: its action is offered anyway."""
    state, uid = _never(tmp_path)
    assert state.m.never_offered(state.inplay) == {uid["show"]}
    assert "name Rare" in state.legal_action_texts()  # (the list's card, not in play)
    rare, _ = _never(tmp_path, with_rare=True)
    assert rare.m.never_offered(rare.inplay) == frozenset()
    # and the seat log, told each game's cards, no longer looks for it in the lists offered
    log, _ = _tally(load(tmp_path / "never.rules"), [2, 3], 12, 5)
    assert log._not_offered and all(uid["show"] not in missing for left in log._not_offered.values()
                                    for missing in left.values())
    emu = load(ROOT / "games" / "emu_ranchers.rules").new_state(0, 2)
    assert {emu.m.site_actions[u].action.name for u in emu.m.never_offered(emu.inplay)} == {"grow_wild"}
    emu = load(ROOT / "games" / "emu_ranchers.rules", {"pawns": True}).new_state(0, 2)
    assert emu.m.never_offered(emu.inplay) == frozenset()


def test_an_action_a_later_game_s_cards_make_possible_is_looked_for_again(tmp_path):
    """The seat log leaves out of its look at the lists offered the actions no
    card of a game can make legal; a later game (of the same machine and count)
    dealt a card that can is looked at again, so what was offered stays exact."""
    state, uid = _never(tmp_path)
    m, rare = state.m, state.m.card_ids("Rare")[0]
    lay = (uid["lay"], state.inplay[0])
    log = SeatLog()
    # the later game: offered the rare card's action only after a first batch of steps without it
    for inplay, batches in ((state.inplay, [[lay]]), (state.inplay + (rare,), [[lay], [lay, (uid["show"], rare)]])):
        log.game(2)
        log.dealt(m, inplay)
        for offered in batches:
            log.steps(m, [lay] * 3, [0, 0, 0], [offered] * 3)
            log._note_offers()  # (each batch noted on its own, as OFFER_BATCH steps are)
    seat = {(r["players"], r["seat"]): r for r in log.report()}[(2, 1)]
    assert seat["offered"] == ["lay", "show"] and seat["took"] == {"lay": 9}


@pytest.mark.parametrize("path,counts,repeats", [("games/hens.rules", [2, 3], True), ("games/emu_ranchers.rules", [2], True),
                                                  ("games/fox_in_the_henhouse.rules", [3], False)])
def test_the_longest_run_of_one_seat_at_a_choice_agrees_with_a_plain_count(path, counts, repeats):
    """Per player count and choice, the most decisions one seat made there in
    a row (what "one player decides for everyone" is judged on), against the
    runs counted step by step; a choice reached with no repeat has a run of 1."""
    game = load(ROOT / path)
    log = SeatLog()
    plain = {}
    rnd = random.Random(3)
    for g in range(10):
        n = counts[g % len(counts)]
        state = game.new_state(g, n)
        log.game(n)
        log.dealt(state.m, state.inplay)
        last, run, actions, mes, legals = None, 0, [], [], []
        while not state.is_terminal:
            legal = state.legal_actions()
            a = legal[rnd.randrange(len(legal))]
            where = log._site(state.m, state.m.site_actions[a[0]].site)
            run = run + 1 if (where, state.me) == last else 1
            last = (where, state.me)
            plain[(n, where)] = max(plain.get((n, where), 0), run)
            actions.append(a)
            mes.append(state.me)
            legals.append(legal)
            if len(actions) == 7:
                log.steps(state.m, actions, mes, legals)
                actions, mes, legals = [], [], []
            state.apply(a)
        if actions:
            log.steps(state.m, actions, mes, legals)
    assert log.portable()["runs"] == plain
    assert any(v > 1 for v in plain.values()) == repeats  # (Hens draws twice, Emu grows on: runs of more than 1)
