"""turns_taken(p) counts the "turn" blocks a player has entered, and an
invariant may read it and "me" (the player to move): a rules author can
state that the players take turns in turn."""

from pathlib import Path

from interpreter import load
from interpreter.fuzz import fuzz
from rulelang import check_file

ROOT_GAMES = Path(__file__).resolve().parents[2] / "games"

GAME = '''game "Turns"
players 2..3
card attributes: n: int
cards:
  "A" 1
  "B" 2
  "C" 3
  "D" 4
zone deck: pile, hidden
zone hand: pile, per player, owner
zone table: pile, public
var lead: player = 0
action draw "draw":
  require not empty(deck)
  move top(deck) to hand(me)
action wait "wait":
  pass
invariant max(turns_taken(p) for p in players) - min(turns_taken(p) for p in players) <= 1 "turns go round"
invariant turns_taken(me) >= 0 "me is the player to move"
play:
  repeat 2 times:
    for p in players from lead:
      turn WHO:
        choose draw, wait
    set lead = next(lead)
outcome(p):
  score turns_taken(p)
'''


def write(tmp_path, who="p"):
    path = tmp_path / "turns.rules"
    path.write_text(GAME.replace("WHO", who))
    return path


def test_turns_taken_counts_each_players_turns(tmp_path):
    state = load(write(tmp_path)).new_state(0, 3)
    seen = []
    while not state.is_terminal:
        seen.append((state.current_player, [state.m.scores(state)[p] for p in range(3)]))
        state.apply_text("wait")
    # the player to move has already entered the turn: counted on entering
    assert seen[0] == (0, [1, 0, 0]) and seen[1] == (1, [1, 1, 0]) and seen[3] == (1, [1, 2, 1])  # round 2 starts with player 2
    assert state.scores() == [2, 2, 2]


def test_an_invariant_on_turns_catches_one_player_taking_every_turn(tmp_path):
    assert fuzz(write(tmp_path), players=2, examples=20).ok
    report = fuzz(write(tmp_path, who="lead"), players=2, examples=20)
    assert [f.kind for f in report.findings] == ["invariant"]
    assert report.findings[0].message == "turns go round"


def test_turns_taken_wants_a_player(tmp_path):
    path = tmp_path / "bad.rules"
    path.write_text(GAME.replace("turns_taken(me) >= 0", "turns_taken(3 > 2) >= 0").replace("WHO", "p"))
    _, diags, _ = check_file(path)
    assert any("turns_taken's argument" in d.message for d in diags), [d.message for d in diags]


def test_a_game_that_does_not_read_turns_keeps_no_counters(tmp_path):
    path = tmp_path / "plain.rules"
    lines = [line for line in GAME.replace("WHO", "p").splitlines() if not line.startswith("invariant")]
    path.write_text("\n".join(lines).replace("score turns_taken(p)", "score size(hand(p))") + "\n")
    game = load(path)
    assert game.machine.turns_base is None
    assert len(game.new_state(0, 2).V) == len(load(write(tmp_path)).new_state(0, 2).V) - 3  # stride 3


def test_evaluating_turns_taken_where_the_rules_never_read_it_is_a_rule_error():
    """The counters are kept only when the rules file reads them; asking a
    game that keeps none says so in the language's words."""
    import pytest

    from interpreter.runtime import RuleError
    game = load("examples/last_card.rules")
    with pytest.raises(RuleError, match="turns_taken"):
        game.evaluate(game.new_state(0, 2), "turns_taken(0)")


def test_what_the_rules_alone_decide_is_worked_out_once_per_checked_game(tmp_path):
    """Facts of the checked rules that no parameter changes (do they read
    turns_taken? which actions does a can() ask about?) are kept with the
    checked game: compiled again for other parameters (as the fuzzer does
    for each parameter set it draws), the machine is made from them without
    walking the whole tree again."""
    import rulelang
    from interpreter.compiler import compile_game

    g = rulelang.load_checked(write(tmp_path))
    assert compile_game(g, {}).turns_base is not None and compile_game(g, {}, num_players=3).turns_base is not None
    assert g.derived["reads_turns"] is True and g.derived["asked_anywhere"] == frozenset()
    plain = rulelang.load_checked(ROOT_GAMES / "fox_in_the_henhouse.rules")
    assert compile_game(plain, {}).turns_base is None and plain.derived["reads_turns"] is False
    plain.derived["reads_turns"] = True  # what a second compile reads: the kept fact, not the tree
    assert compile_game(plain, {"seasons": 2}, num_players=3).turns_base is not None
