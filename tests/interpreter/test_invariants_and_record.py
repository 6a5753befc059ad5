"""Invariants checked between decisions and ``always`` invariants checked
after every statement; the game's record (record vars, achievements) in
``interpreter.record`` and on the ``rulerun`` command line (run and
simulate)."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from interpreter import load
from interpreter.fuzz import fuzz
from interpreter.kept import Kept
from interpreter.machine import InvariantBroken
from interpreter.record import game_record
from interpreter.runner import cli


def write(tmp_path, text, name="t.rules"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, needle: str) -> int:
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(hits) == 1, f"{needle!r} is on lines {hits}"
    return hits[0]


# ================================================================ invariants
INV = '''game "inv"
players 2
cards:
  "A"
  "B"
zone left: pile, public
zone right: pile, public
zone tmp: pile, public{cap}
{inv}
action trade "swap":
  move left to tmp
  move right to left
  move tmp to right
action park "park":
  move left to tmp
action crowd "crowd":
  move left to tmp
  move right to tmp
  move top(tmp) to right
  move tmp to left
setup:
  move "B" to right
play:
  turn 0:
    choose {choices}
  turn 1:
    choose trade
outcome(p):
  score 0
'''


def inv_text(inv="", cap="", choices="trade"):
    return INV.replace("{inv}", inv).replace("{cap}", cap).replace("{choices}", choices)


def declared_broken(state):
    return [msg for msg, _ in state.m.broken_invariants(state, declared_only=True)]


def test_plain_invariant_false_only_mid_turn_plays_clean(tmp_path):
    text = inv_text('invariant size(tmp) == 0 "tmp is empty between decisions"')
    game = load(write(tmp_path, text), check_invariants=True)
    state = game.new_state(1)
    assert declared_broken(state) == []
    state.apply_text("swap")  # tmp holds a card in the middle of it
    assert (state.zone_cards("left"), state.zone_cards("right")) == (["B"], ["A"])
    assert declared_broken(state) == []
    state.apply_text("swap")
    assert state.is_terminal
    assert (state.zone_cards("left"), state.zone_cards("right")) == (["A"], ["B"])
    assert state.m.broken_invariants(state) == []


def test_plain_invariant_is_reported_at_the_next_decision(tmp_path):
    text = inv_text('invariant size(tmp) == 0 "tmp is empty between decisions"', choices="park")
    game = load(write(tmp_path, text), check_invariants=True)
    state = game.new_state(1)
    state.apply_text("park")  # no exception: plain invariants are not checked per statement
    assert declared_broken(state) == ["tmp is empty between decisions"]


def test_fuzzer_finds_a_plain_invariant_broken_between_decisions(tmp_path):
    good = write(tmp_path, inv_text('invariant size(tmp) == 0 "tmp empty"'), "good.rules")
    bad = write(tmp_path, inv_text('invariant size(tmp) == 0 "tmp empty"', choices="park"), "bad.rules")
    assert fuzz(good, players=2, examples=5, kinds=("invariant",)).ok
    report = fuzz(bad, players=2, examples=5, kinds=("invariant",))
    assert [f.kind for f in report.findings] == ["invariant"]
    assert "tmp empty" in report.findings[0].message


def test_always_invariant_is_checked_after_every_statement(tmp_path):
    text = inv_text('always invariant size(tmp) == 0 "never anything in tmp"')
    game = load(write(tmp_path, text), check_invariants=True)
    state = game.new_state(1)
    with pytest.raises(InvariantBroken) as info:
        state.apply_text("swap")
    assert "never anything in tmp" in str(info.value)
    assert info.value.span.line == line_of(text, "always invariant")


def test_always_invariant_is_not_checked_without_check_invariants(tmp_path):
    text = inv_text('always invariant size(tmp) == 0 "never anything in tmp"')
    state = load(write(tmp_path, text)).new_state(1)
    state.apply_text("swap")
    state.apply_text("swap")
    assert state.is_terminal


def test_capacity_is_still_checked_after_every_statement(tmp_path):
    text = inv_text(cap=", capacity 1", choices="crowd")
    game = load(write(tmp_path, text), check_invariants=True)
    state = game.new_state(1)
    with pytest.raises(InvariantBroken) as info:
        state.apply_text("crowd")  # tmp holds 2 cards for two statements
    assert "capacity" in str(info.value)
    # the same with the card limit respected: no error
    state = load(write(tmp_path, inv_text(cap=", capacity 1"), "ok.rules"), check_invariants=True).new_state(1)
    state.apply_text("swap")
    state.apply_text("swap")
    assert state.is_terminal


CAPS = '''game "caps"
players 2
cards:
  "A"
  "B"
  "C"
zone deck: pile, public
zone left: pile, public, capacity 1
zone right: pile, public
action to_right(c in deck) "right {c}":
  move c to right
action to_left(c in deck) "left {c}":
  move c to left
action to_either(c in deck) "either {c}":
  move c to (if size(deck) > 10 then left else right)
play:
  turn 0:
    choose to_right, to_left, to_either
outcome(p):
  score 0
'''


@pytest.mark.parametrize("text, broken", [("right C", None), ("left C", 3), ("either C", 2)])
def test_a_move_checks_the_capacity_of_where_it_can_put_cards(tmp_path, text, broken):
    """A move is followed by a check of its destination's capacity only; a
    destination not known before play has every capacity checked."""
    state = load(write(tmp_path, CAPS), check_invariants=True).new_state(1)
    state.put(["A", "B"], "left")  # over its capacity, but not by a move of the rules
    if broken is None:
        state.apply_text(text)  # a move to the right cannot fill the left
        assert state.zone_cards("right") == ["C"]
        return
    with pytest.raises(InvariantBroken) as info:
        state.apply_text(text)
    assert f"left holds {broken} cards, over its capacity of 1" in str(info.value)


def test_the_first_zone_over_its_capacity_at_the_start_is_found(tmp_path):
    """The cards start in the first zone by no statement of the rules: the
    game's first check looks at every capacity."""
    text = CAPS.replace("zone deck: pile, public", "zone deck: pile, public, capacity 2")
    state = load(write(tmp_path, text), check_invariants=True).new_state(1)
    assert not state.m.invariants_hold(state, Kept())
    report = fuzz(write(tmp_path, text, "start.rules"), players=2, examples=3, kinds=("invariant",))
    assert [f.message for f in report.findings] == ["deck holds 3 cards, over its capacity of 2"]


def test_a_capacity_is_checked_before_the_triggers_of_the_move(tmp_path):
    """Two cards enter a hand of capacity 1; a trigger moves each away
    again: the hand held two for a moment, which is over its capacity."""
    text = CAPS.replace("zone right: pile, public", "zone right: pile, public\nzone hand: pile, per player, public, capacity 1")
    text = text.replace("play:", "when c enters hand(p):\n  move c to right\naction grab \"grab two\":\n"
                        "  move [deck[0], deck[1]] to hand(me)\nplay:").replace("to_either\n", "to_either, grab\n")
    state = load(write(tmp_path, text), check_invariants=True).new_state(1)
    with pytest.raises(InvariantBroken) as info:
        state.apply_text("grab two")
    assert "hand of player 1 holds 2 cards, over its capacity of 1" in str(info.value)


# ================================================================ every card in one place
def _positions(path, players, games=3):
    """Every decision's position of a few random games (a clone of each)."""
    import random

    game = load(path, check_invariants=True, knowledge=False)
    out = []
    for seed in range(games):
        state, pick = game.new_state(seed, players), random.Random(seed)
        while not state.is_terminal and len(out) < 400 * (seed + 1):
            legal = state.legal_actions()
            if legal:
                out.append(state.clone())
                state.apply_at(pick.randrange(len(legal)))
            else:
                state.apply(0)  # a chance node
    return out


@pytest.mark.parametrize("use_bytes", [True, False])
@pytest.mark.parametrize("path,players", [("games/emu_ranchers.rules", 2), ("games/fox_in_the_henhouse.rules", 4)])
def test_the_fuzzer_finds_a_card_out_of_place(monkeypatch, path, players, use_bytes):
    """The engine's own check of a position (every CHECK_EVERY steps of the fuzzer): each card in
    play lies in one place, the one the engine records for it.  It holds at every position of
    random games, and fails, with what misplaced_cards says, for a card moved without its record,
    one copied over another, and a record past the last place's index or none; with the places written as
    bytes and, past 256 places, as lists (forced here by a table of two bytes)."""
    import interpreter.checks as checks

    if not use_bytes:
        monkeypatch.setattr(checks, "_BYTE", checks._BYTE[:2])
    positions = _positions(path, players)
    m = positions[0].m
    assert all(m.cards_in_place(st) for st in positions) and not m.misplaced_cards(positions[-1])
    stacks = set(m.stack_instances)

    def flat(st, i):
        return [c for s in st.Z[i] for c in s] if i in stacks else st.Z[i]

    moved = copied = 0
    for st in positions[::7]:
        full = [i for i in range(len(st.Z)) if flat(st, i)]
        if len(full) >= 2:  # a card taken to another place, its record left as it was
            bad = st.clone()
            a, b = full[0], full[-1]
            card = (bad.Z[a][0].pop() if a in stacks and bad.Z[a][0] else None) if a in stacks else bad.Z[a].pop()
            if card is not None:
                (bad.Z[b][-1] if b in stacks else bad.Z[b]).append(card)
                assert not m.cards_in_place(bad)
                assert any("is not where the engine thinks" in msg for msg, _ in m.misplaced_cards(bad))
                moved += 1
        cards = [c for i in range(len(st.Z)) for c in flat(st, i)]
        if len(cards) >= 2:  # one card written over another in its place: two at once, one lost
            bad = st.clone()
            i = next(i for i in range(len(st.Z)) if flat(st, i))
            if i not in stacks and len(bad.Z[i]) >= 2:
                bad.Z[i][1] = bad.Z[i][0]
                assert not m.cards_in_place(bad)
                said = [msg for msg, _ in m.misplaced_cards(bad)]
                assert any("lies in two places" in msg for msg in said) and any("cards lost" in msg for msg in said)
                copied += 1
            far = st.clone()
            far.loc[cards[0]] = 300  # no place has that index
            assert not m.cards_in_place(far)
            far.loc[cards[0]] = -1
            assert not m.cards_in_place(far)
            far.loc[cards[0]] = None  # no index at all
            assert not m.cards_in_place(far)
    assert moved and copied


# ================================================================ records and achievements
REC = '''game "rec"
players 2
cards:
  "A" *4
zone deck: pile, public
zone hand: pile, per player, public
player var pts: int = 0
record player var draws: int = 0 "cards drawn"
record var bumped: bool = false "the bump happened"
record var never: bool = false "never set"
action draw "draw":
  move top(deck) to hand(me)
  set draws(me) += 1
action bump "bump":
  set bumped = true
play:
  while not empty(deck):
    turn 0:
      choose draw, bump
    if not empty(deck):
      turn 1:
        choose draw
  end game with winners [p for p in players if p == 1]
outcome(p):
  score pts(p)
achievements(p):
  "Drew two": draws(p) >= 2
  "Won": is_winner(p)
  "Bumped and lost": bumped and not is_winner(p)
  "Nobody": false
'''


def test_game_record_values(tmp_path):
    game = load(write(tmp_path, REC))
    state = game.new_state(1)
    state.apply_text("bump")
    for _ in range(4):
        state.apply_text("draw")
    assert state.is_terminal
    rec = game_record(state)
    assert rec["counters"] == {"draws": [2, 2], "bumped": True, "never": False}
    assert rec["achievements"] == {"Drew two": [0, 1], "Won": [1], "Bumped and lost": [0], "Nobody": []}
    assert list(rec["achievements"]) == ["Drew two", "Won", "Bumped and lost", "Nobody"]  # in order


def test_game_record_of_a_game_without_a_record(tmp_path):
    text = REC.split("achievements(p):")[0].replace("record ", "")
    state = load(write(tmp_path, text)).new_state(1)
    assert game_record(state) == {"counters": {}, "achievements": {}}


def make_runner():
    try:
        return CliRunner(mix_stderr=False)  # click 8.1
    except TypeError:
        return CliRunner()  # click >= 8.2 keeps stderr apart


def invoke(*args):
    return make_runner().invoke(cli, [str(a) for a in args], prog_name="rulerun")


def test_rulerun_prints_the_record(tmp_path):
    path = write(tmp_path, REC)
    r = invoke(path, "--seed", 3)
    assert r.exit_code == 0, (r.stdout, r.stderr)
    out = r.stdout.splitlines()
    i = out.index("record:")
    section = [ln.strip() for ln in out[i + 1:]]
    assert all(ln.startswith("  ") for ln in out[i + 1:])
    # the docs label the counters, one value per seat for a player var (the
    # table's counters are listed before the players'); then the achievements
    # in the order declared
    counters = {ln.split(": ", 1)[0]: ln.split(": ", 1)[1] for ln in section[:3]}
    assert set(counters) == {"cards drawn", "the bump happened", "never set"}
    m = re.fullmatch(r"P1 (\d+), P2 (\d+)", counters["cards drawn"])
    assert m, counters
    drawn = [int(m.group(1)), int(m.group(2))]
    assert sum(drawn) == 4
    assert counters["the bump happened"] in ("yes", "no")
    assert counters["never set"] == "no"
    two = ", ".join(f"P{p + 1}" for p in (0, 1) if drawn[p] >= 2) or "nobody"
    assert section[3] == f'achievement "Drew two": {two}'
    assert section[4] == 'achievement "Won": P2'
    assert section[5] == ('achievement "Bumped and lost": P1' if counters["the bump happened"] == "yes"
                          else 'achievement "Bumped and lost": nobody')
    assert section[6] == 'achievement "Nobody": nobody'
    assert "winner: P2" in r.stdout


def test_rulerun_prints_no_record_section_without_one(tmp_path):
    text = REC.split("achievements(p):")[0].replace("record ", "")
    r = invoke(write(tmp_path, text), "--seed", 3)
    assert r.exit_code == 0, r.stderr
    assert "record:" not in r.stdout


# A game that ends only when the coin says so: the others never end.
COIN = '''game "coin"
players 2
cards:
  "A"
zone deck: pile, public
var coin: bool = false
record player var moves: int = 0 "moves made"
action go "go":
  set moves(me) += 1
setup:
  set coin = random [true, false]
play:
  while true:
    turn 0:
      choose go
    if coin:
      end game with winners [p for p in players if p == 0]
    turn 1:
      choose go
outcome(p):
  score moves(p)
achievements(p):
  "Moved": moves(p) >= 1
  "Won": is_winner(p)
'''


def test_simulate_json_counts_capped_games_and_achievements(tmp_path):
    path = write(tmp_path, COIN)
    game = load(path)
    seeds = range(10, 30)
    ending = sum(1 for s in seeds if game.new_state(s, 2).get_var("coin"))
    assert 0 < ending < len(seeds), "pick other seeds: the coin must fall both ways"
    r = invoke("simulate", path, "-n", len(seeds), "--seed", seeds[0], "--json", "--max-actions", 7)
    assert r.exit_code == 0, (r.stdout, r.stderr)
    data = json.loads(r.stdout)
    assert data["games"] == len(seeds)
    assert data["capped"] == len(seeds) - ending
    assert data["achievements"] == {
        "Moved": {"games": ending, "per_seat": [ending, 0]},  # a coin game ends after seat 1's first move
        "Won": {"games": ending, "per_seat": [ending, 0]},
    }
    assert data["wins_per_seat"] == [ending, 0]


def test_simulate_text_mentions_the_capped_games(tmp_path):
    r = invoke("simulate", write(tmp_path, COIN), "-n", 20, "--seed", 10, "--max-actions", 7)
    assert r.exit_code == 0, r.stderr
    assert "still going after 7 actions" in r.stdout
    assert "Moved" in r.stdout and "Won" in r.stdout


def test_simulate_fails_when_no_game_ends(tmp_path):
    path = write(tmp_path, COIN.replace("set coin = random [true, false]", "set coin = false"))
    r = invoke("simulate", path, "-n", 4, "--seed", 1, "--json", "--max-actions", 9)
    assert r.exit_code == 1
    assert "none of the 4 games ended within 9 actions" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout
