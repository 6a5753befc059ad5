"""Rules files as PettingZoo AEC environments (interpreter/adapters/pettingzoo.py):
PettingZoo's own API, seed and render tests on the four games, and what an
agent is given.  Skipped without pettingzoo (the optional extra "pettingzoo")."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from interpreter.adapters.pettingzoo import rules_env  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = [("fox_in_the_henhouse", 3), ("emu_ranchers", 2), ("desplumados", 4), ("hens", 2)]


@pytest.mark.parametrize("name, players", GAMES, ids=[g[0] for g in GAMES])
def test_pettingzoo_api_seed_and_render_tests(name, players):
    path = ROOT / "games" / f"{name}.rules"
    with warnings.catch_warnings():
        # PettingZoo's hints for a dict observation with an action mask (its own
        # card games get them too)
        warnings.filterwarnings("ignore", message="Observation (space for each agent probably|is not a NumPy)")
        api_test(rules_env(path, players), num_cycles=300, verbose_progress=False)
    seed_test(lambda **kw: rules_env(path, players, **kw), num_cycles=100)
    render_test(lambda render_mode=None: rules_env(path, players, render_mode=render_mode))


def play_out(env, seed, pick=lambda mask, rng: rng.choice(np.flatnonzero(mask))):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    finals = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            finals[agent] = reward
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.sum() == len(info["actions"]) and mask[:len(info["actions"])].all()
        env.step(int(pick(mask, rng)))
    return finals


def test_a_whole_game_ends_with_the_win_shares():
    env = rules_env(ROOT / "games" / "fox_in_the_henhouse.rules", 2)
    finals = play_out(env, 3)
    winners = env.state.winners()
    assert finals == {f"player_{p + 1}": (1.0 / len(winners) if p in winners else 0.0) for p in range(2)}
    env = rules_env(ROOT / "games" / "fox_in_the_henhouse.rules", 2, utility="score")
    finals = play_out(env, 3)
    assert [finals[f"player_{p + 1}"] for p in range(2)] == [float(s) for s in env.state.scores()]


def test_an_agent_sees_only_its_own_cards():
    """Two games from different seeds: an agent's observation tells the cards
    in its own hand, and the others' hands only as counts of unseen cards."""
    env = rules_env(ROOT / "games" / "emu_ranchers.rules", 2)
    env.reset(seed=5)
    layout = env.layout
    for agent, p in (("player_1", 0), ("player_2", 1)):
        cards = layout.views(env.observe(agent)["observation"])["cards"]
        own, other = layout.places.index(("hand", p)), layout.places.index(("hand", 1 - p))
        assert cards[own, -1] == 0 and cards[own, :-1].sum() == 6
        assert cards[other, :-1].sum() == 0 and cards[other, -1] == 6


def test_a_bad_action_is_refused_with_a_message():
    env = rules_env(ROOT / "examples" / "last_card.rules", 2)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="legal actions"):
        env.step(999)
    with pytest.raises(ValueError, match="2 players"):
        rules_env(ROOT / "examples" / "last_card.rules", 3)


def test_a_game_past_the_bound_is_truncated():
    env = rules_env(ROOT / "games" / "emu_ranchers.rules", 2, max_actions=10)
    env.reset(seed=2)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            assert truncated and not terminated and reward == 0
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 10
