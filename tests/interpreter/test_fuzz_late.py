"""The fuzzer's drawn settings share machines that read the drawn parameters
from the state (interpreter/compiler/late.py, interpreter/fuzz_late.py):
each setting plays as the game compiled for it does, counts what ran for
itself, and a parameter the compiler needs before a state exists is left
folded in."""

import random
from pathlib import Path

import pytest

from interpreter.compiler import ParamError
from interpreter.runtime import RuleError
from interpreter.compiler.late import late_checked, late_names
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
        error = _raised(sa.legal_actions)
        assert _raised(sb.legal_actions) == error, steps
        if error is not None:  # (a fault of the rules, met while listing: the same one)
            return steps
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
    assert len({fixed for fixed, _ in shared.machines}) <= 1 + (len(names) - len(shared.late)) * 4


def test_the_four_games_read_their_drawn_parameters_late_but_a_zones_capacity():
    late = {}
    for name in GAMES:
        base = load(ROOT / "games" / f"{name}.rules", knowledge=False)
        late[name] = late_names(base.checked, small_parameters(base))
    assert late["emu_ranchers"] == ["excuse", "pawns", "courts", "years", "hand_size"]
    assert late["hens"] == ["rounds", "rooster_round", "hand_size", "draws"]
    # a henhouse's capacity is the parameter "capacity", read when the zones are laid out
    assert late["desplumados"] == ["win_hens", "hand_size", "empty_draw"]


HEADER = """game "Probe"
players 2..3
card attributes: n: int
cards:
  "A" 1
  "B" 2
  "C" 3
  "D" 4
zone pile: pile, public
"""


RULES = HEADER + '''option bonus: bool = false "a bonus round"
param rounds: int in 1..9 = 3 "rounds"
param room: int in 1..5 = 4 "the table's room"
param start: int in 0..9 = 2 "ticks at the start"
param twice: int in 0..20 = rounds * 2 "a default that reads rounds"
param wide: int in 1..9 = if player_count == 2 then 3 else 2 "a default that reads the player count"
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
    # {}, rounds 2, room 1, start 0 (whatever bonus, twice and wide)
    assert len({fixed for fixed, _ in shared.machines}) == 4
    # a combination the rules refuse is no game, as when compiled for it
    assert shared.game(str(late_rules), {"rounds": 12}) is None
    # nothing drawn that can be read late: a compile per setting, as before
    folded = Shared(base, ["room", "start"])
    assert folded.late == []
    for setting in ({"room": 1}, {"start": 0, "room": 1}, {}):
        compiled = load(late_rules, setting, coverage=True, check_invariants=True, knowledge=False)
        same_play(compiled, folded.game(str(late_rules), setting), 2, 1)
    assert len(folded.machines) == 3  # (wide's default reads the player count: a machine per count, 2 here)


@pytest.mark.parametrize("extra", [0, 20])
def test_the_small_key_of_a_shared_machine_leaves_the_parameters_out(tmp_path, extra):
    """The fuzzer's small key (a position's hash, for its cycle search within one
    game) reads no parameter kept in the state, which never changes in a game;
    it reads the variables that do change (a few, or many: read by a slice)."""
    late_rules = tmp_path / "late.rules"
    late_rules.write_text(RULES.replace("var ticks", "".join(f"var v{i}: int = 0\n" for i in range(extra)) + "var ticks"))
    base = load(late_rules, coverage=True, check_invariants=True, knowledge=False)
    shared = Shared(base, ["bonus", "wide"])
    st = shared.game(str(late_rules), {"bonus": True, "wide": 1}).new_state(1, 2)
    m = st.m
    key = m.small_key_for(2)
    assert len(m.late_indices) == 2
    before = key(st)
    for i in m.late_indices:
        st.V[i] = 7
    assert key(st) == before
    ticks = next(i for i in range(len(st.V)) if i not in m.late_indices and st.V[i] == 2)  # start's value
    st.V[ticks] += 1
    assert key(st) != before


def test_each_setting_counts_what_ran_for_itself(late_rules):
    """Two settings on one machine, played in turns: each one's coverage counts are
    those of the game compiled for it and played alone."""
    base = load(late_rules, coverage=True, check_invariants=True, knowledge=False)
    shared = Shared(base, ["bonus", "wide"])
    on, off = {"bonus": True, "wide": 1}, {}
    games = {k: shared.game(str(late_rules), s) for k, s in (("on", on), ("off", off))}
    alone = {k: load(late_rules, s, coverage=True, check_invariants=True, knowledge=False)
             for k, s in (("on", on), ("off", off))}
    assert len(shared.machines) == 1
    for seed in range(6):
        for k in ("on", "off", "off", "on"):
            same_play(alone[k], games[k], 2 + seed % 2, seed)
    for k in ("on", "off"):
        mine, want = coverage_counts(games[k]), coverage_counts(alone[k])
        assert {key: c for key, c in mine.items() if c} == {key: c for key, c in want.items() if c}, k
    bonus = [key for key in coverage_counts(games["on"]) if key[1] == "if branch taken"]
    assert bonus and all(coverage_counts(games["off"])[key] == 0 for key in bonus)
    assert all(coverage_counts(games["on"])[key] > 0 for key in bonus)


def write(tmp_path, name, text):
    p = tmp_path / f"{name}.rules"
    p.write_text(text)
    return p


def compare(path, names, plays, counts=(2,), seeds=range(4)):
    """Each setting of ``plays`` on its own compile and on the shared machine, side by side."""
    base = load(path, coverage=True, check_invariants=True, knowledge=False)
    shared = Shared(base, names)
    for setting in plays:
        compiled = load(path, setting, coverage=True, check_invariants=True, knowledge=False)
        game = shared.game(str(path), setting)
        for players in counts:
            for seed in seeds:
                same_play(compiled, game, players, seed)
    return shared




def test_listings_and_kept_conditions_follow_a_deck_that_reads_a_parameter(tmp_path):
    """The cards in play follow from the player count and, on a shared machine, the
    parameters it reads: a choice's listings kept by what its searches read
    (site_cache), and a flow condition's values kept by the piles it reads
    (kept_condition), are kept by those too (the review's case: all_cards() listed
    the cards of the first setting played)."""
    deck = write(tmp_path, "deck", HEADER.replace("zone pile", """option extra: bool = false "two more cards"
param lvl: int in 1..4 = if player_count == 2 then 4 else 3 "the highest card in play"
deck:
  cards where card.n <= 2 and card.n <= lvl
  cards where card.n > 2 and card.n <= lvl if extra
zone pile""") + """zone probe: pile, public
var named: int = 0
var hits: int = 0
action name(c in all_cards()) "name {c}":
  set named = c.n
play:
  move "A" to probe
  repeat 2 times:
    for p in players:
      turn p:
        choose name
      if any(count(d.n > c.n for d in all_cards()) >= 2 for c in probe):
        set hits += 1
outcome(p):
  score named + 10 * hits
""")
    shared = compare(deck, ["extra", "lvl"], [{}, {"extra": True}, {"extra": True, "lvl": 3}, {"lvl": 1},
                                              {"extra": True}, {}], counts=(2, 3))
    assert len(shared.machines) == 1  # (lvl's default reads the player count: read from the state, at each)


def test_what_a_late_parameters_default_would_refuse_or_fail_on_is_not_worked_out(tmp_path):
    """A shared machine is compiled with the folded parameters' values alone: a late
    one's default, out of its range or failing for another setting's values or at
    another player count, stops no game of a setting that gives its own value; a
    setting's own values are checked when its game starts, at its player count."""
    reads = write(tmp_path, "reads", HEADER + """param a: int in 1..5 = 1 "read by b's default: folded"
param b: int in 1..5 = a + 1 "late"
param d: int in 0..9 = 6 / (3 - player_count) "late: its default fails at 3 players"
param w: int in 1..3 = player_count + 1 "late: its default is out of range at 3 players"
param room: int in 1..9 = player_count - 1 "a capacity: folded, a machine per count"
zone table: pile, public, capacity room
var ticks: int = 0
action tick "tick":
  set ticks += b + d + w
action lay(c in pile) "lay {c}":
  move c to table
play:
  repeat 3 times:
    for p in players:
      turn p:
        choose tick, lay
outcome(p):
  score ticks + size(table)
""")
    plays = [{"a": 5, "b": 1, "d": 1, "w": 1}, {"d": 2, "w": 2}, {"d": 0, "w": 3, "room": 2}, {"a": 2, "d": 1, "w": 1}]
    shared = compare(reads, ["a", "b", "d", "w", "room"], plays, counts=(2, 3))
    assert shared.late == ["b", "d", "w"] and shared.per_players
    # a setting that gives no value of its own to w: at 3 players its default is out of
    # range, and the game is refused there as the game compiled for it is
    base = load(reads, knowledge=False)
    game = Shared(base, ["b", "d", "w"]).game(str(reads), {"d": 1})
    game.new_state(0, 2)
    with pytest.raises(ParamError, match="must be in 1..3, not 4"):
        game.new_state(0, 3)
    with pytest.raises(ParamError, match="must be in 1..3, not 4"):
        load(reads, {"d": 1}).new_state(0, 3)
    # each count's machine counts for the setting: the same coverage as its own compile's
    setting = {"d": 2, "w": 2}
    game = Shared(load(reads, coverage=True, check_invariants=True, knowledge=False), ["b", "d", "w", "room"]) \
        .game(str(reads), setting)
    compiled = load(reads, setting, coverage=True, check_invariants=True, knowledge=False)
    for players in (2, 3, 3, 2):
        same_play(compiled, game, players, players)
    assert {k: c for k, c in coverage_counts(game).items() if c} == \
        {k: c for k, c in coverage_counts(compiled).items() if c}


def test_a_parameter_read_by_a_player_or_card_variables_initial_value_stays_folded(tmp_path):
    rules = write(tmp_path, "initial", HEADER + """param s: int in 0..9 = 1 "a player variable's initial value"
param c: int in 0..9 = 2 "a card variable's initial value"
param v: int in 0..9 = 3 "a variable's initial value"
param free: int in 0..9 = 4 "read during play only"
option on: bool = false "read during play only"
param lo: int in 0..3 = 1 "read by hi's range"
param hi: int in lo..9 = 5 "its range reads lo"
player var score: int = s
card var worth: int = c
var total: int = v
action tick "tick":
  set total += free
play:
  turn 0:
    choose tick
outcome(p):
  score score(p) + total
""")
    base = load(rules, knowledge=False)
    assert late_names(base.checked, ["s", "c", "v", "free", "on", "lo", "hi"]) == ["free", "on", "hi"]
    late = late_checked(base.checked, ["free", "on"])
    assert late.derived is not base.checked.derived  # (its facts are its own: free reads the state)
    assert list(late.vars)[:2] == ["param free", "param on"] and late.res != base.checked.res
    compare(rules, ["s", "c", "v", "free", "on"], [{"free": 0, "s": 2}, {"on": True, "free": 9}, {"c": 0}])


def test_a_settings_game_refuses_to_evaluate_expressions(late_rules):
    base = load(late_rules, knowledge=False)
    game = Shared(base, ["bonus"]).game(str(late_rules), {"bonus": True})
    with pytest.raises(NotImplementedError, match="reads some parameters from the state"):
        game.evaluate(game.new_state(0, 2), "ticks")


def test_a_product_is_checked_against_the_bound_as_the_game_compiled_for_the_setting_checks_it(tmp_path):
    """A product is checked against the bound on numbers (10^15) unless a factor is at
    most 1000 either way, whatever the state; the game compiled for a setting works a
    factor of parameters out first (k + 1 is 2), so the shared machine decides by the
    factor's value too, not by its reading the state.  Each product alone in a game,
    at the values either side of 1000 and -1000."""
    products = ["big * (k + 1)", "(k + 1) * big", "(j + 0) * big", "big * (j - 0)", "(ticks + 1) * big",
                "max(k, 1) * big", "big * abs(j - 1)", "(if on then 2000 else 2) * big", "big * k"]
    plays = [{"k": 1}, {"k": 2000}, {"on": True}, {"k": 999}, {"k": 1000}, {"j": -1000}, {"j": -1001},
             {"j": -999, "k": 999}, {"k": 0, "on": True}]
    for i, product in enumerate(products):
        rules = write(tmp_path, f"mul{i}", HEADER + f"""param k: int in 0..3000 = 1 "a factor"
param j: int in -3000..0 = -1 "a negative factor"
option on: bool = false "another"
var big: int = 0
var ticks: int = 5
action grow "grow":
  set big = 999999999999 * 1000
action test "test":
  require {product} != 0
  set big = 0
play:
  turn 0:
    choose grow
  turn 0:
    choose test, grow
outcome(p):
  score 0
""")
        compare(rules, ["k", "on", "j"], plays, seeds=range(2))


def test_a_finding_is_shrunk_and_written_out_on_the_game_compiled_for_its_setting(tmp_path):
    """Where the shared machine and a setting's compile can still differ (which rule
    error comes first: here a product whose factor, through a function, the compile
    folds small and leaves unchecked), a finding met on the shared machine is
    played again on the setting's own compile: not met there, it is no finding, and
    every setting plays its own compile from then on."""
    from interpreter.fuzz import fuzz

    rules = write(tmp_path, "fold", HEADER + """param k: int in 0..3 = 1 "a factor, through a function"
var big: int = 0
function f() = k + 1
action grow "grow":
  set big = 999999999999 * 1000
action test "test":
  require big * f() > 0
play:
  repeat 2 times:
    turn 0:
      choose grow, test
outcome(p):
  score 0
""")
    base = load(rules, coverage=True, check_invariants=True, knowledge=False)
    shared = Shared(base, ["k"])
    game = shared.game(str(rules), {"k": 2})
    state = game.new_state(0, 2)
    state.apply_text("grow")
    with pytest.raises(RuleError, match="beyond the bound"):  # the shared machine checks the product
        state.legal_actions()
    compiled = game.compiled()
    state = compiled.new_state(0, 2)
    state.apply_text("grow")
    assert [state.action_text(a) for a in state.legal_actions()] == ["grow", "test"]
    game.play_compiled()
    assert shared.disagreed and game.new_state(0, 2).m is compiled.machine
    assert shared.game(str(rules), {"k": 3}).new_state(0, 2).m is not compiled.machine  # (its own)
    report = fuzz(rules, players=2, examples=60, seed=1, kinds=("rule_error",))
    assert report.findings == [], report.findings
    assert any(s["params"] for s in report.settings)


def _crash_on_bonus(monkeypatch, shared_alone):
    """Make State.apply_at fail, as an engine bug would, at the second action of a game
    with the option bonus on: on the machines shared by settings alone, or on the game
    compiled for such a setting too."""
    from interpreter.runtime import State

    real = State.apply_at

    def apply_at(self, index):
        m = self.m
        late = {name: i for name, _, i in m.var_names if i in m.late_indices}  # ("param bonus": see .late)
        on = self.V[late["param bonus"]] if "param bonus" in late else (not shared_alone and m.params.get("bonus"))
        if on and self._played is not None:
            raise RuntimeError("an engine bug")
        return real(self, index)

    monkeypatch.setattr(State, "apply_at", apply_at)


def test_a_crash_of_the_shared_machine_alone_is_reported_as_met_and_says_so(late_rules, monkeypatch, tmp_path):
    """A crash (an engine bug) met on a shared machine that the setting's own compile
    does not meet is reported as met, not dropped; its message says where it was met,
    and replay, which loads the compiled game, shows that message."""
    from click.testing import CliRunner

    from interpreter.cli import cli
    from interpreter.fuzz import fuzz, save_replay

    _crash_on_bonus(monkeypatch, shared_alone=True)
    report = fuzz(late_rules, players=2, examples=60, seed=1, kinds=("crash",))
    monkeypatch.undo()
    [f] = report.findings
    assert (f.kind, f.params.get("bonus")) == ("crash", True)
    assert f.message.startswith("RuntimeError: an engine bug (an engine bug met on the machine the fuzzer shares")
    out = CliRunner().invoke(cli, ["replay", str(save_replay(f, str(late_rules), tmp_path)), "-q"]).output
    assert "not reproduced" in out and "(recorded: RuntimeError: an engine bug (an engine bug met on" in out, out


def test_a_crash_the_settings_own_compile_meets_too_is_written_out_on_it(late_rules, monkeypatch):
    from interpreter.fuzz import fuzz

    _crash_on_bonus(monkeypatch, shared_alone=False)
    report = fuzz(late_rules, players=2, examples=60, seed=1, kinds=("crash",))
    [f] = report.findings
    assert (f.kind, f.message, f.params.get("bonus")) == ("crash", "RuntimeError: an engine bug", True)
    assert len(f.actions) == 2  # (the second action's apply failed: its text is written first)


def test_a_game_that_replays_otherwise_on_a_shared_machine_is_reported_as_met(late_rules, monkeypatch):
    """Found by a replay of its own, a nondeterminism finding is not confirmed by playing
    its actions again on the setting's compile (which could never meet it): reported."""
    import interpreter.fuzz as fuzz_module
    from interpreter.fuzz_late import SettingGame

    real = fuzz_module.replay

    def replay(game, players, seed, actions):
        state, index = real(game, players, seed, actions)
        if isinstance(game, SettingGame) and game.overrides.get("bonus") and not game.owner.disagreed:
            return state, 0  # "the replay went otherwise"
        return state, index

    monkeypatch.setattr(fuzz_module, "replay", replay)
    monkeypatch.setattr(fuzz_module, "REPLAY_EVERY", 2)
    report = fuzz_module.fuzz(late_rules, players=2, examples=60, seed=1, kinds=("nondeterminism",))
    assert [(f.kind, f.params.get("bonus")) for f in report.findings] == [("nondeterminism", True)]
    assert "met on the machine the fuzzer shares" in report.findings[0].message


def test_once_every_setting_plays_its_own_compile_a_finding_is_not_confirmed_again(late_rules, monkeypatch):
    """A finding the search meets but playing its choices again does not (the search's
    games alone raise it): dropped once, which sends every setting to its own compile;
    met again there, it is reported, and the run ends."""
    import interpreter.fuzz as fuzz_module
    from interpreter.fuzz_game import _Found
    from interpreter.fuzz_late import SettingGame

    real = fuzz_module.play_game

    def search_only(game, *args, **kwargs):
        if isinstance(game, SettingGame) and game.overrides.get("bonus"):
            raise _Found("rule_error", "met by the search alone")
        return real(game, *args, **kwargs)

    monkeypatch.setattr(fuzz_module, "play_game", search_only)
    report = fuzz_module.fuzz(late_rules, players=2, examples=60, seed=1, kinds=("rule_error",), time_limit=20)
    assert not report.out_of_time
    assert [(f.kind, f.message) for f in report.findings] == [("rule_error", "met by the search alone")]
