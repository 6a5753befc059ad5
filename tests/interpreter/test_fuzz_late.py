"""The fuzzer's drawn settings share machines that read the drawn parameters
from the state (interpreter/compiler/late.py, interpreter/fuzz_late.py):
each setting plays as the game compiled for it does, counts what ran for
itself, and a parameter the compiler needs before a state exists is left
folded in."""

import random
from pathlib import Path

import pytest

from interpreter.compiler.late import late_names
from interpreter.fuzz_late import Shared
from interpreter.fuzz_params import _few, small_parameters
from interpreter.game import load
from interpreter.usage import coverage_counts

ROOT = Path(__file__).resolve().parents[2]
GAMES = ["emu_ranchers", "fox_in_the_henhouse", "hens", "desplumados"]


def settings(base, names, count, seed):
    """``count`` settings of the small parameters, each value among those the fuzzer draws."""
    info = {n: t for n, _, t, _, _ in base.param_info()}
    r = random.Random(seed)
    out = []
    for _ in range(count):
        s = {}
        for n in names:
            low, high = _few(base, n, info[n], base.params[n])
            if low + high and r.random() < 0.7:
                s[n] = r.choice(low + high)
        out.append(s)
    return out


def same_play(a, b, players, seed):
    """Play one random game on both; at every step the same cards where they are,
    the same legal actions (or chance outcomes), then the same results."""
    sa, sb = a.new_state(seed, players), b.new_state(seed, players)
    r = random.Random(seed)
    steps = 0
    while True:
        assert sa.Z == sb.Z and sa.me == sb.me and sa.is_terminal == sb.is_terminal, steps
        if sa.is_terminal:
            break
        assert sa.chance_n == sb.chance_n, steps
        if sa.chance_n:
            i = r.randrange(sa.chance_n)
            sa.apply(i)
            sb.apply(i)
            continue
        legal = sa.legal_actions()
        assert sb.legal_actions() == legal, steps
        i = r.randrange(len(legal))
        assert sa.action_text(legal[i]) == sb.action_text(legal[i])
        error = _raised(sa.apply_at, i)
        assert _raised(sb.apply_at, i) == error, steps
        steps += 1
        if error is not None:  # (a fault of the rules: the same one, at the same step)
            return steps
    assert sa.scores() == sb.scores() and sa.winners() == sb.winners()
    return steps


def _raised(f, *args):
    try:
        f(*args)
    except Exception as err:  # noqa: BLE001 - compared, not hidden
        return type(err).__name__, str(err)
    return None


@pytest.mark.parametrize("name", GAMES)
def test_each_setting_plays_as_the_game_compiled_for_it(name):
    path = ROOT / "games" / f"{name}.rules"
    base = load(path, coverage=True, check_invariants=True, knowledge=False)
    names = small_parameters(base)
    shared = Shared(base, names)
    assert shared.late, names
    played = 0
    for k, setting in enumerate(settings(base, names, 4, seed=len(name))):
        compiled = load(path, setting, coverage=True, check_invariants=True, knowledge=False)
        game = shared.game(str(path), setting)
        assert game.params == compiled.params
        for players in range(base.min_players, base.max_players + 1):
            played += same_play(compiled, game, players, seed=17 * k + players)
    assert played > 200
    # one machine for the settings that differ only in what is read late
    assert len(shared.games) <= 1 + (len(names) - len(shared.late)) * 4


def test_the_four_games_read_their_drawn_parameters_late_but_a_zones_capacity():
    late = {}
    for name in GAMES:
        base = load(ROOT / "games" / f"{name}.rules", knowledge=False)
        late[name] = late_names(base.checked, small_parameters(base))
    assert late["emu_ranchers"] == ["excuse", "pawns", "courts", "years", "hand_size"]
    assert late["hens"] == ["rounds", "rooster_round", "hand_size", "draws"]
    # a henhouse's capacity is the parameter "capacity", read when the zones are laid out
    assert late["desplumados"] == ["win_hens", "hand_size", "empty_draw"]


RULES = '''game "Late"
players 2..3
option bonus: bool = false "a bonus round"
param rounds: int in 1..9 = 3 "rounds"
param room: int in 1..5 = 4 "the table's room"
param start: int in 0..9 = 2 "ticks at the start"
param twice: int in 0..20 = rounds * 2 "a default that reads rounds"
param wide: int in 1..9 = if player_count == 2 then 3 else 2 "a default that reads the player count"
card attributes: n: int
cards:
  "A" 1
  "B" 2
  "C" 3
  "D" 4
zone pile: pile, public
zone table: pile, public, capacity room
zone hand: pile, per player, public
var ticks: int = start
action tick "tick":
  set ticks += 1
action lay(c in hand(me)) "lay {c}":
  require ticks >= wide
  move c to table
play:
  move all_cards() to pile
  for p in players:
    deal 1 from pile to hand(p)
  repeat rounds times:
    for p in players:
      turn p:
        choose tick, lay
  if bonus:
    turn 0:
      choose tick, lay
outcome(p):
  score ticks + size(hand(p)) + twice
'''


@pytest.fixture
def late_rules(tmp_path):
    p = tmp_path / "late.rules"
    p.write_text(RULES)
    return p


def test_what_the_compiler_needs_before_a_state_stays_folded(late_rules):
    base = load(late_rules, knowledge=False)
    names = ["bonus", "rounds", "room", "start", "twice", "wide"]
    # room: a capacity; start: a variable's initial value; rounds: read by twice's default
    assert late_names(base.checked, names) == ["bonus", "twice", "wide"]


def test_settings_share_a_machine_per_value_of_what_stays_folded(late_rules):
    base = load(late_rules, coverage=True, check_invariants=True, knowledge=False)
    shared = Shared(base, ["bonus", "rounds", "room", "start", "twice", "wide"])
    plays = [{"bonus": True}, {"twice": 7, "wide": 1}, {"rounds": 2}, {"rounds": 2, "bonus": True},
             {"room": 1, "wide": 2}, {"start": 0}, {}]
    for setting in plays:
        compiled = load(late_rules, setting, coverage=True, check_invariants=True, knowledge=False)
        game = shared.game(str(late_rules), setting)
        for players in (2, 3):  # wide's default is read at each count
            for seed in range(4):
                same_play(compiled, game, players, seed)
    assert len(shared.games) == 4  # {}, rounds 2, room 1, start 0 (whatever bonus, twice and wide)
    # a combination the rules refuse is no game, as when compiled for it
    assert shared.game(str(late_rules), {"rounds": 12}) is None
    # nothing drawn that can be read late: a compile per setting, as before
    folded = Shared(base, ["room", "start"])
    assert folded.late == []
    for setting in ({"room": 1}, {"start": 0, "room": 1}, {}):
        compiled = load(late_rules, setting, coverage=True, check_invariants=True, knowledge=False)
        same_play(compiled, folded.game(str(late_rules), setting), 2, 1)
    assert len(folded.games) == 3


def test_each_setting_counts_what_ran_for_itself(late_rules):
    """Two settings on one machine, played in turns: each one's coverage counts are
    those of the game compiled for it and played alone."""
    base = load(late_rules, coverage=True, check_invariants=True, knowledge=False)
    shared = Shared(base, ["bonus", "wide"])
    on, off = {"bonus": True, "wide": 1}, {}
    games = {k: shared.game(str(late_rules), s) for k, s in (("on", on), ("off", off))}
    alone = {k: load(late_rules, s, coverage=True, check_invariants=True, knowledge=False)
             for k, s in (("on", on), ("off", off))}
    assert len(shared.games) == 1
    for seed in range(6):
        for k in ("on", "off", "off", "on"):
            same_play(alone[k], games[k], 2 + seed % 2, seed)
    for k in ("on", "off"):
        mine, want = coverage_counts(games[k]), coverage_counts(alone[k])
        assert {key: c for key, c in mine.items() if c} == {key: c for key, c in want.items() if c}, k
    bonus = [key for key in coverage_counts(games["on"]) if key[1] == "if branch taken"]
    assert bonus and all(coverage_counts(games["off"])[key] == 0 for key in bonus)
    assert all(coverage_counts(games["on"])[key] > 0 for key in bonus)
