"""Conformance: what every game in games/*.rules must do under the interpreter,
whatever its rules.

For each rules file and each player count it allows: random playouts end,
every live state offers actions with distinct texts, clones are equal and
independent, a recorded history replays to the same result, results and
observations have the right shape, and nothing depends on Python's string
hashing (PYTHONHASHSEED).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter import CHANCE, load

ROOT = Path(__file__).resolve().parents[2]
GAME_FILES = sorted((ROOT / "games").glob("*.rules"))
MAX_ACTIONS = 10_000
SEEDS = (0, 1, 2)


def _cases():
    cases = []
    for path in GAME_FILES:
        try:
            g = load(path)
        except Exception:  # the tests load it again and fail with the error
            cases.append(pytest.param(path, 2, id=f"{path.stem}-does-not-load"))
            continue
        for n in range(g.min_players, g.max_players + 1):
            cases.append(pytest.param(path, n, id=f"{path.stem}-{n}p"))
    return cases


CASES = _cases()
_GAMES = {}


def game(path, **params):
    key = (path, tuple(sorted(params.items())))
    if key not in _GAMES:
        _GAMES[key] = load(path, **params)
    return _GAMES[key]


def test_there_are_games():
    assert GAME_FILES, "no games/*.rules"
    assert any(p.stem == "emu_ranchers" for p in GAME_FILES)


def choose(st, rng):
    """A random action, or a random chance outcome at a chance node."""
    if st.current_player == CHANCE:
        outcomes = st.chance_outcomes()
        return rng.choice(outcomes)[0]
    return rng.choice(st.legal_actions())


def check_live_state(st):
    legal = st.legal_actions()
    assert legal, f"no legal action in a live state after {len(st.history)} actions"
    texts = [st.action_text(a) for a in legal]
    assert len(set(texts)) == len(texts), [t for t in texts if texts.count(t) > 1]
    assert all(isinstance(t, str) and t for t in texts)
    assert 0 <= st.current_player < st.num_players


def check_observations(st):
    for p in range(st.num_players):
        obs = st.observation(p)
        text = json.dumps(obs, sort_keys=True)
        assert json.loads(text) == obs, "the observation does not survive a JSON round trip"


def playout(g, seed, n, per_state=None):
    st = g.new_state(seed, n)
    rng = random.Random(seed * 7919 + n)
    steps = 0
    while not st.is_terminal:
        assert steps < MAX_ACTIONS, f"seed {seed}: not over after {MAX_ACTIONS} actions"
        if st.current_player != CHANCE:
            check_live_state(st)
        if per_state:
            per_state(st)
        st.apply(choose(st, rng))
        steps += 1
    return st


def check_results(st, n):
    r = st.returns()
    assert len(r) == n
    assert all(isinstance(x, (int, float)) for x in r)
    w = st.winners()
    assert w, "no winner"
    assert len(set(w)) == len(w) and set(w) <= set(range(n))
    # nobody outscores a winner
    assert max(r[p] for p in w) == max(r)


@pytest.mark.parametrize("path, n", CASES)
def test_random_playouts_end_with_sound_states(path, n):
    g = game(path)
    for seed in SEEDS:
        st = playout(g, seed, n, per_state=check_observations if seed == 0 else None)
        assert st.is_terminal
        assert st.legal_actions() == ()
        check_observations(st)
        check_results(st, n)


@pytest.mark.parametrize("path, n", CASES)
def test_random_playouts_with_explicit_chance(path, n):
    g = game(path, explicit_chance=True)
    seen_chance = False

    def probabilities(st):
        nonlocal seen_chance
        if st.current_player == CHANCE:
            seen_chance = True
            outs = st.chance_outcomes()
            assert outs and abs(sum(p for _, p in outs) - 1.0) < 1e-9
            assert st.legal_actions() == ()

    st = playout(g, 5, n, per_state=probabilities)
    check_results(st, n)
    # the same game, replayed from its history (chance outcomes included)
    again = g.new_state(5, n)
    for a in st.history:
        again.apply(a)
    assert again.is_terminal and again.returns() == st.returns()


def snapshot(st):
    return (st.current_player, st.is_terminal, list(st.history),
            [json.dumps(st.observation(p), sort_keys=True) for p in range(st.num_players)],
            [st.action_text(a) for a in st.legal_actions()])


@pytest.mark.parametrize("path, n", CASES)
def test_clone_is_equal_and_independent(path, n):
    g = game(path)
    st = g.new_state(11, n)
    rng = random.Random(11)
    step = 0
    checked = 0
    while not st.is_terminal:
        if step % 20 == 0:
            before = snapshot(st)
            twin = st.clone()
            assert snapshot(twin) == before
            # change the clone: the original does not move
            twin.apply(choose(twin, random.Random(step)))
            assert snapshot(st) == before
            # a clone plays on like the original would (its hidden state and
            # random generator included): compare with a replay from the seed
            a = st.clone()
            b = g.new_state(11, n)
            for x in st.history:
                b.apply(x)
            r1, r2 = random.Random(step), random.Random(step)
            while not a.is_terminal:
                a.apply(choose(a, r1))
                b.apply(choose(b, r2))
            assert b.is_terminal and a.returns() == b.returns() and a.history == b.history
            assert snapshot(st) == before
            checked += 1
        st.apply(choose(st, rng))
        step += 1
    assert checked >= 2


@pytest.mark.parametrize("path, n", CASES)
def test_history_replays_to_the_same_end(path, n):
    g = game(path)
    for seed in SEEDS:
        st = playout(g, seed, n)
        replay = load(path).new_state(seed, n)
        for a in st.history:
            assert not replay.is_terminal
            replay.apply(a)
        assert replay.is_terminal
        assert replay.history == st.history
        assert replay.returns() == st.returns()
        assert replay.winners() == st.winners()
        for p in range(n):
            assert replay.observation(p) == st.observation(p)


SCRIPT = r"""
import json, random, sys
from pathlib import Path
from interpreter import CHANCE, load
out = []
for path in sorted(Path(sys.argv[1]).glob("*.rules")):
    g = load(path)
    for n in range(g.min_players, g.max_players + 1):
        for seed in (3, 4):
            st = g.new_state(seed, n)
            rng = random.Random(seed)
            while not st.is_terminal:
                a = rng.choice(st.legal_actions())
                out.append(st.action_text(a))
                st.apply(a)
            out.append(json.dumps([path.name, n, seed, st.returns(), st.winners(),
                                   [st.observation(p) for p in range(n)]], sort_keys=True))
print("\n".join(out))
"""


def test_results_do_not_depend_on_the_hash_seed():
    outputs = []
    for hash_seed in ("0", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=str(ROOT))
        r = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT / "games")], env=env, cwd=str(ROOT),
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        outputs.append(r.stdout)
    assert outputs[0].count("\n") > 100
    assert outputs[0] == outputs[1]


def _twin_played(g, st, n, seed, rng, step, tables):
    """A clone of ``st`` that played one random action; ``st``'s ``tables``
    (their values) unchanged by it, and, every 10th step, the clone's equal
    to those of a replay of its actions from ``seed``."""
    before = [list(getattr(st, t)) for t in tables]
    twin = st.clone()
    a = choose(twin, rng)
    twin.apply(a)
    assert [list(getattr(st, t)) for t in tables] == before
    if step % 10 == 0:
        replay = g.new_state(seed, n)
        for x in st.history + [a]:
            replay.apply(x)
        assert [getattr(twin, t) for t in tables] == [getattr(replay, t) for t in tables]
    return twin


@pytest.mark.parametrize("path, n", CASES)
def test_a_clone_shares_cells_and_flags_until_one_is_written(path, n):
    """A clone shares each card's cell and face-down flag with its original
    until either state writes one: a game without grids then never copies
    the cells (each stays 0), nor one that lays nothing face down the flags
    (each stays False); whatever the clone writes, its original keeps its
    own, and the clone holds what a replay of its actions holds."""
    g = game(path)
    st = g.new_state(3, n)
    rng = random.Random(3)
    m = st.m
    cells, faces = list(st.P), list(st.F)
    step = 0
    while not st.is_terminal:
        assert st.clone().P is st.P and st.clone().F is st.F
        twin = _twin_played(g, st, n, 3, rng, step, ("P", "F"))
        if not m.grid_instances and not m.face_down:
            assert twin.P is st.P and twin.F is st.F  # nothing wrote either
        st.apply(choose(st, rng))
        step += 1
    if not m.grid_instances:
        assert st.P == cells == [0] * len(cells)
    if not m.face_down:
        assert st.F == faces == [False] * len(faces)


@pytest.mark.parametrize("path, n", CASES)
def test_a_shared_zone_takes_one_place_and_a_players_zone_one_per_seat(path, n):
    """The places of a state: one for each shared zone, one per seat (up to
    the most players) for each zone per player, in the zones' order; no
    place is kept that no seat can use.  A whole game keeps every card in
    one of them, and names each place by its zone and owner."""
    g = game(path)
    st = g.new_state(5, n)
    m = st.m
    expected, base = [], 0
    for z in m.zones:
        assert z.base == base
        expected += [(z.index, p) for p in range(m.stride if z.per_player else 1)]
        base += m.stride if z.per_player else 1
    assert len(st.Z) == base == len(expected)
    assert list(zip(m.inst_zone, m.inst_owner)) == expected
    for z in m.zones:
        owners = range(n) if z.per_player else (None,)
        for p in owners:
            inst = m.zone_instance(st, z.name, p)
            assert (m.inst_zone[inst], m.inst_owner[inst]) == (z.index, p or 0)
            assert m.value_text("pile", inst) == (f"player {p + 1}'s {z.name}" if z.per_player else f"the {z.name}")
    rng = random.Random(5)
    while not st.is_terminal:
        st.apply(choose(st, rng))
        for c in st.inplay:
            assert c in st.Z[st.loc[c]] or any(c in s for s in st.Z[st.loc[c]])


@pytest.mark.parametrize("path, n", CASES)
def test_a_clone_and_its_original_each_write_their_own_card_variables(path, n):
    """A clone shares its original's card variables until one of the two
    writes one: what either writes, by its rules or by ``set_card_var``,
    the other never sees, and each holds what a replay of its own actions
    holds."""
    g = game(path)
    st = g.new_state(7, n)
    rng = random.Random(7)
    names = [name for name, _, _ in st.m.cvar_names]
    step = 0
    while not st.is_terminal:
        twin = _twin_played(g, st, n, 7, rng, step, ("C",))
        if names and step % 7 == 0:
            before, twin_before = list(st.C), list(twin.C)
            card = st.inplay[step % len(st.inplay)]
            value = st.card_var(names[0], card)
            other = st.clone()
            other.set_card_var(names[0], card, not value if isinstance(value, bool) else value + 1)
            assert st.C == before and twin.C == twin_before
            st.set_card_var(names[0], card, value)  # (a write that changes nothing: the clone keeps its own)
            assert other.card_var(names[0], card) != value and st.C == before
        st.apply(choose(st, rng))
        step += 1


@pytest.mark.parametrize("path, n", CASES[:1] + CASES[-1:])
def test_copy_and_deepcopy_of_a_state_are_clones(path, n):
    # a copy made by the copy module plays on its own, as a clone does, and shares no place
    import copy
    st = game(path).new_state(2, n)
    rng = random.Random(2)
    for _ in range(5):
        st.apply(choose(st, rng))
    before = snapshot(st)
    for twin in (copy.copy(st), copy.deepcopy(st)):
        assert snapshot(twin) == before
        assert all(a is not b for a, b in zip(twin.Z, st.Z)) and twin.L is not st.L
        twin.apply(choose(twin, rng))
        assert snapshot(st) == before


@pytest.mark.parametrize("path, n", CASES)
def test_scratch_slots_hold_nothing_from_one_step_to_the_next(path, n):
    """A name bound inside an expression (``for c in ...``, a function's
    parameter) lives in the machine's scratch list, which every state of it
    shares and a clone does not copy: so nothing may read it before writing
    it.  A game whose scratch slots are spoilt before every step (and every
    check of its results) plays exactly as one left alone."""
    spoilt = game(path).new_state(5, n)
    plain = load(path).new_state(5, n)  # (a machine of its own: its scratch list is left alone)
    assert spoilt.S is spoilt.m.scratch and spoilt.S, "every game binds names in expressions"
    assert spoilt.S is not plain.S
    assert len(spoilt.L) == spoilt.m.nslots  # ... and a state holds only its own slots
    r1, r2 = random.Random(5), random.Random(5)
    while not plain.is_terminal:
        legal = [plain.action_text(a) for a in plain.legal_actions()] if not plain.is_chance_node else []
        spoilt.S[:] = [None] * len(spoilt.S)
        twin = spoilt.clone()
        assert twin.S is spoilt.S and twin.L is not spoilt.L and twin.L == spoilt.L
        assert legal == ([spoilt.action_text(a) for a in spoilt.legal_actions()] if not spoilt.is_chance_node else [])
        plain.apply(choose(plain, r1))
        spoilt.S[:] = [None] * len(spoilt.S)
        spoilt.apply(choose(spoilt, r2))
        assert spoilt.history == plain.history
    returns = plain.returns()
    spoilt.S[:] = [None] * len(spoilt.S)
    assert spoilt.returns() == returns and spoilt.winners() == plain.winners()


@pytest.mark.parametrize("path, n", CASES)
def test_apply_at_plays_what_apply_plays_with_the_action_at_that_index(path, n):
    # the same random indexes, one game through apply_at, the other through apply(legal[i]):
    # the same legal lists at every step, the same history and results; chance outcomes too
    g = game(path, explicit_chance=True)
    by_index, by_action = g.new_state(3, n), g.new_state(3, n)
    rng = random.Random(3)
    steps = 0
    while not by_index.is_terminal and steps < MAX_ACTIONS:
        legal = by_action.legal_actions()
        assert by_index.legal_actions() == legal
        count = len(legal) if legal else len(by_action.chance_outcomes())
        i = rng.randrange(count)
        by_index.apply_at(i)
        by_action.apply(legal[i] if legal else i)
        steps += 1
    assert by_action.is_terminal and by_index.history == by_action.history
    assert by_index.returns() == by_action.returns()


def test_apply_at_refuses_what_is_not_the_index_of_a_legal_action():
    from interpreter import IllegalAction

    class Zero:  # an integer of another kind (numpy's): taken by its __index__
        def __index__(self):
            return 0

    g = game(GAME_FILES[0])
    st = g.new_state(0, g.min_players)
    legal = st.legal_actions()
    for bad in (len(legal), -1, True, 0.0, "0", None, (0,)):
        with pytest.raises(IllegalAction):
            st.apply_at(bad)
    assert st.legal_actions() == legal and st.history == []  # nothing was played
    st.apply_at(Zero())
    assert st.history == [legal[0]]
    while not st.is_terminal:
        st.apply_at(len(st.legal_actions()) - 1)
    with pytest.raises(IllegalAction, match="over"):
        st.apply_at(0)
    # at a chance node the index is the outcome: another kind of integer is taken, a bool is not
    st = game(GAME_FILES[0], explicit_chance=True).new_state(0, g.min_players)
    assert st.current_player == CHANCE
    outcomes = len(st.chance_outcomes())
    for bad in (True, outcomes, -1, 0.0, None):
        with pytest.raises(IllegalAction, match="chance outcome"):
            st.apply_at(bad)
        with pytest.raises(IllegalAction, match="chance outcome"):
            st.apply(bad)
    assert st.history == []
    st.apply_at(Zero())
    assert st.history == [0] and type(st.history[0]) is int
