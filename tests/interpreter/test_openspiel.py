"""Rules files as OpenSpiel games (interpreter/adapters/openspiel.py): the
four games pass OpenSpiel's own random simulation test with serialisation,
a small game's whole tree keeps the API's promises, and OpenSpiel's Python
MCTS and ISMCTS (with the engine's resampler) play each game to the end.
Skipped without open_spiel (the optional extra "openspiel")."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")
np = pytest.importorskip("numpy")

from interpreter.adapters.openspiel import load_openspiel, register_openspiel  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = [("fox_in_the_henhouse", 2, {}), ("emu_ranchers", 2, {"years": 1}), ("desplumados", 3, {"max_turns": 60}),
         ("hens", 2, {"rounds": 4})]


def game(name, players, params):
    return load_openspiel(ROOT / "games" / f"{name}.rules", players, **params)


@pytest.mark.parametrize("name, players, params", GAMES, ids=[g[0] for g in GAMES])
def test_openspiel_random_simulation_with_serialisation(name, players, params):
    g = game(name, players, params)
    assert g.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert g.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert g.num_players() == players
    pyspiel.random_sim_test(g, num_sims=2, serialize=True, verbose=False)


def test_the_game_is_registered_under_a_name():
    name = register_openspiel(ROOT / "examples" / "last_card.rules", 2)
    assert name.startswith("rulelang_last_card_2p_") and name in pyspiel.registered_names()
    g = pyspiel.load_game(name)
    state = g.new_initial_state()
    assert state.is_chance_node()
    with pytest.raises(ValueError, match="2 players"):
        register_openspiel(ROOT / "examples" / "last_card.rules", 3)


def all_states():
    from open_spiel.python.algorithms.get_all_states import get_all_states
    g = load_openspiel(ROOT / "examples" / "last_card.rules", 2)
    return g, get_all_states(g, depth_limit=-1, include_terminals=True, include_chance_states=True,
                             to_string=lambda s: str(s.history()))


def test_the_whole_tree_of_a_small_game_keeps_the_api_s_promises():
    """examples/last_card.rules (five cards): every state of its tree."""
    g, states = all_states()
    assert len(states) > 10_000
    by_infostate = {}
    size = None
    for state in states.values():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9 and len(outcomes) <= g.max_chance_outcomes()
            continue
        if state.is_terminal():
            returns = state.returns()
            assert all(r in (0.0, 0.5, 1.0) for r in returns) and sum(returns) in (0.0, 1.0)
            continue
        legal = state.legal_actions()
        assert legal == sorted(set(legal)) and all(0 <= a < g.num_distinct_actions() for a in legal)
        texts = [state.action_to_string(state.current_player(), a) for a in legal]
        assert len(set(texts)) == len(texts)
        clone = state.clone()
        assert str(clone) == str(state) and clone.history() == state.history()
        tensor = state.observation_tensor(state.current_player())
        size = size or len(tensor)
        assert len(tensor) == size
        # states a player cannot tell apart offer that player the same actions
        key = state.information_state_string()
        assert by_infostate.setdefault(key, texts) == texts


# (game, players, parameters, decisions taken every way before one is drawn:
# None for all of them).  An Emu Ranchers year is some sixty decisions deep,
# and no parameter makes it shorter: its first three are taken every way.
SMALL = [("fox_in_the_henhouse", 2, {"seasons": 1, "days": 1}, None),
         ("hens", 2, {"rounds": 1, "hand_size": 2, "draws": 1}, None),
         ("desplumados", 3, {"max_turns": 1}, None), ("emu_ranchers", 2, {"years": 1, "hand_size": 2}, 3)]


def walk(state, rng, seen, visit, every_way=None, depth=0):
    """Every state below ``state`` where each decision takes every legal
    action (the first ``every_way`` decisions of a branch, then one drawn
    by ``rng``) and each chance node with more than two outcomes takes one,
    drawn by ``rng`` (a real deck's every shuffle is far too many)."""
    visit(state)
    seen.append(state)
    if state.is_terminal():
        return
    if state.is_chance_node():
        outcomes = [a for a, _ in state.chance_outcomes()]
        branches = outcomes if len(outcomes) <= 2 else [rng.choice(outcomes)]
    else:
        branches = state.legal_actions()
        if every_way is not None and depth >= every_way:
            branches = [rng.choice(branches)]
        depth += 1
    for a in branches:
        walk(state.child(a), rng, seen, visit, every_way, depth)


@pytest.mark.parametrize("name, players, params, every_way", SMALL, ids=[g[0] for g in SMALL])
def test_every_decision_of_a_game_made_small_keeps_the_api_s_promises(name, players, params, every_way):
    """OpenSpiel's whole-tree API checks (as in its api_test) on a real game
    made small through its parameters: every decision of every branch,
    under sampled deals."""
    g = game(name, players, params)
    info_shape, obs_shape = g.information_state_tensor_shape(), g.observation_tensor_shape()
    by_infostate = {}

    def visit(state):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9 and len(outcomes) <= g.max_chance_outcomes()
            assert all(o >= 0 for o, _ in outcomes) and len({o for o, _ in outcomes}) == len(outcomes)
            return
        for p in range(players):
            assert len(state.information_state_tensor(p)) == info_shape[0]
            assert len(state.observation_tensor(p)) == obs_shape[0]
            assert state.observation_string(p) and state.information_state_string(p)
        if state.is_terminal():
            returns = state.returns()
            assert len(returns) == players and all(0 <= r <= 1 for r in returns) and sum(returns) in (0.0, 1.0)
            assert state.legal_actions() == []
            return
        mover = state.current_player()
        legal = state.legal_actions()
        assert legal and legal == sorted(set(legal)) and all(0 <= a < g.num_distinct_actions() for a in legal)
        mask = state.legal_actions_mask()
        assert [i for i, m in enumerate(mask) if m] == legal
        texts = [state.action_to_string(mover, a) for a in legal]
        assert len(set(texts)) == len(texts)
        clone = state.clone()
        assert str(clone) == str(state) and clone.history() == state.history()
        assert clone.information_state_tensor(mover) == state.information_state_tensor(mover)
        # states a player cannot tell apart offer that player the same actions
        assert by_infostate.setdefault(state.information_state_string(mover), texts) == texts

    seen = []
    for seed in range(2):
        walk(g.new_initial_state(), random.Random(seed), seen, visit, every_way)
    decisions = [s for s in seen if not s.is_chance_node() and not s.is_terminal()]
    assert len(decisions) > 20 and any(s.is_terminal() for s in seen)
    # a serialised state comes back the same (a sample: each one replays its history)
    for state in seen[::max(1, len(seen) // 25)]:
        again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(g, state))[1]
        assert again.history() == state.history() and str(again) == str(state)


def test_the_information_state_tensor_remembers_what_the_observation_forgets():
    """A card a seat once saw in a public place stays in its memory after it
    leaves; the observation tensor keeps only what is seen now."""
    g = game("emu_ranchers", 2, {})
    from open_spiel.python.observation import make_observation
    info = make_observation(g, pyspiel.IIGObservationType(perfect_recall=True))
    rng = random.Random(3)
    state = g.new_initial_state()
    forgotten = None
    while not state.is_terminal() and forgotten is None:
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
            continue
        before = {p: state.s.observation(p) for p in range(2)}
        mover = state.current_player()
        state.apply_action(rng.choice(state.legal_actions()))
        info.set_from(state, 1 - mover)
        layout = g.info_layout
        now = set(layout.cells(state.s.observation(1 - mover)))
        for cell in set(layout.cells(before[1 - mover])) - now:
            if cell[1] < len(layout.names):
                forgotten = cell
                assert info.dict["seen"][cell] == 1  # seen once, remembered
        assert info.dict["moves"].sum() == sum(state.acted)
    assert forgotten is not None
    assert len(state.information_state_tensor(0)) == g.information_state_tensor_shape()[0] > \
        g.observation_tensor_shape()[0]


def test_resampling_keeps_what_the_player_knows():
    g = game("fox_in_the_henhouse", 2, {})
    rng = random.Random(4)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    state = g.new_initial_state()
    while not state.is_terminal() and checked < 40:
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
            continue
        p = state.current_player()
        other = state.resample_from_infostate(p, sampler)
        assert other.information_state_string(p) == state.information_state_string(p)
        assert other.observation_string(p) == state.observation_string(p)
        assert other.legal_actions() == state.legal_actions()
        checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked == 40


def test_the_observation_tensor_counts_the_cards():
    g = game("emu_ranchers", 2, {})
    state = g.new_initial_state()
    rng = random.Random(1)
    while state.is_chance_node() or state.move_number() < 200 and not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        elif state.move_number() > 150:
            break
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    from open_spiel.python.observation import make_observation
    obs = make_observation(g)
    for p in range(2):
        obs.set_from(state, p)
        cards = obs.dict["cards"]
        assert cards.sum() == len(state.s.inplay)  # every card in play somewhere, seen or not
        assert obs.dict["player"][p] == 1 and obs.dict["player"].sum() == 1
        hand = state.s.observation(p)["zones"]["hand"][p]
        layout = g.layout
        row = layout.places.index(("hand", p))
        assert cards[row, :-1].sum() == len(hand) and cards[row, -1] == 0  # one's own hand is known


@pytest.mark.parametrize("name, players, params", GAMES, ids=[g[0] for g in GAMES])
def test_openspiel_mcts_and_ismcts_play_to_the_end(name, players, params):
    from open_spiel.python.algorithms import ismcts, mcts
    g = game(name, players, params)
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    bots = [ismcts.ISMCTSBot(g, evaluator, 2.0, 3, random_state=np.random.RandomState(p)) if p == 0 else
            mcts.MCTSBot(g, 2.0, 3, evaluator, random_state=np.random.RandomState(p)) for p in range(players)]
    state = g.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randint(len(outcomes))][0])
        else:
            state.apply_action(bots[state.current_player()].step(state))
    returns = state.returns()
    assert len(returns) == players and all(0 <= r <= 1 for r in returns)


def test_score_utility_and_the_length_bound():
    g = load_openspiel(ROOT / "examples" / "last_card.rules", 2, utility="score", max_game_length=3)
    rng = random.Random(2)
    state = g.new_initial_state()
    while not state.is_terminal():
        options = state.chance_outcomes() if state.is_chance_node() else [(a, 0) for a in state.legal_actions()]
        state.apply_action(rng.choice(options)[0])
    assert state.returns() == [0.0, 0.0]  # cut off after three moves: no result
    assert g.max_game_length() == 3 and g.min_utility() < 0
    with pytest.raises(ValueError, match="utility"):
        register_openspiel(ROOT / "examples" / "last_card.rules", 2, utility="elo")


def test_an_action_id_outside_the_legal_ones_is_refused_not_read_from_the_end():
    from interpreter import IllegalAction
    state = game("fox_in_the_henhouse", 2, {}).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    legal = state.legal_actions()
    before = state.history()
    for bad in (-2, len(legal)):
        with pytest.raises(IllegalAction, match="not the index of a legal action"):
            state.action_to_string(state.current_player(), bad)
        with pytest.raises(IllegalAction, match="not the index of a legal action"):
            state.apply_action(bad)
    assert state.history() == before and state.legal_actions() == legal
