"""A game loaded with ``knowledge=False`` does not keep who has seen which
card.  Nothing in the rules reads that record, only observations, ``knows``
and ``resample``, so such a game must play exactly as the same game keeping
it: the same legal actions, the same places, variables, flow and random
generator, step after step, through clones.  Those three refuse with a clear
error instead of answering from a record that was not kept.  The runner and
the fuzzer pick this mode only where nothing reads the record."""

import random
from pathlib import Path

import pytest

from interpreter import NoKnowledge, load
from interpreter.agents import RandomAgent, needs_knowledge
from interpreter.bots import make_bot
from interpreter.cli.common import bots_need_knowledge
from interpreter.fuzz_deal import same_deal

from test_inline_steps import MOVES

ROOT = Path(__file__).resolve().parents[2]
GAMES = sorted((ROOT / "games").glob("*.rules"))
# a reveal, a swap, a card chosen by name from a hidden hand, a shuffle
TARGETS = [ROOT / "tests" / "fuzz_targets" / f"{name}.rules" for name in ("jester_trap_ok", "swap_meet_ok")]


def parts(st) -> tuple:
    """Everything of a state that decides the game from here on."""
    return (st.Z, st.V, st.C, st.L, st.pc, st.me, st.done, st.chance_n, st.loc, st.P, st.F, st.rng)


def play_both(keeping, blind, players, seed, steps=600):
    """Play one random game on both, comparing them at every step; the blind
    one continues from a clone every few steps.  Returns the steps played."""
    rnd = random.Random(seed)
    a, b = keeping.new_state(seed, players), blind.new_state(seed, players)
    for k in range(steps):
        assert parts(a) == parts(b), (players, seed, k)
        if a.is_terminal:
            return k
        legal = a.legal_actions()
        assert b.legal_actions() == legal, (players, seed, k)
        action = legal[rnd.randrange(len(legal))]
        a.apply(action)
        b.apply(action)
        if k % 5 == 4:
            b = b.clone()
    return steps


@pytest.mark.parametrize("path", GAMES + TARGETS, ids=lambda p: p.stem)
def test_a_game_without_knowledge_plays_as_with_it(path):
    keeping, blind = load(path), load(path, knowledge=False)
    assert keeping.knowledge and not blind.knowledge
    played = 0
    for players in range(blind.min_players, min(blind.max_players, blind.min_players + 2) + 1):
        for seed in range(8):
            played += play_both(keeping, blind, players, seed)
    assert played > 30


def test_every_kind_of_move_plays_the_same(tmp_path):
    """Piles and stacks, tops and bottoms, face up and face down, deals (the
    moves written inline and the VM's)."""
    path = tmp_path / "moves.rules"
    path.write_text(MOVES)
    keeping, blind = load(path), load(path, knowledge=False)
    for seed in range(8):
        assert play_both(keeping, blind, 2, seed) > 10


def test_nothing_is_written_to_the_record_it_does_not_keep():
    """The blind game's record stays as the deal left it, and its clones share it."""
    path = ROOT / "games" / "fox_in_the_henhouse.rules"
    keeping, blind = load(path), load(path, knowledge=False)
    a, b = keeping.new_state(4, 3), blind.new_state(4, 3)
    start = b.K[:]
    rnd = random.Random(4)
    while not b.is_terminal:
        legal = b.legal_actions()
        action = legal[rnd.randrange(len(legal))]
        a.apply(action)
        b.apply(action)
    assert b.K == start and b.clone().K is b.K
    assert a.K != start  # (the same game, keeping it, learned something)


def test_what_reads_the_record_says_it_was_not_kept():
    game = load(ROOT / "games" / "emu_ranchers.rules", knowledge=False)
    state = game.new_state(1)
    for ask in (lambda: state.observation(0), lambda: state.observation_text(1), lambda: state.knows(0, 0),
                lambda: state.resample(0, 1)):
        with pytest.raises(NoKnowledge, match="knowledge=False"):
            ask()
    state.apply(state.legal_actions()[0])  # play goes on
    knowing = game.with_knowledge()
    assert knowing.knowledge and knowing is game.with_knowledge()  # compiled once
    assert knowing.new_state(1).observation(0)["zones"]


def test_the_mode_follows_other_parameters_and_player_counts():
    game = load(ROOT / "games" / "desplumados.rules", knowledge=False)
    assert not game.with_params(hand_size=5).knowledge
    for n in (3, 7):
        assert not game.machine_for(n).knowledge
        with pytest.raises(NoKnowledge):
            game.new_state(0, n).observation(0)


def test_only_bots_that_read_nothing_of_it_go_without():
    assert not needs_knowledge(RandomAgent(0))
    assert needs_knowledge(make_bot("greedy", 0)) and needs_knowledge(make_bot("mcts:3", 0))

    class Watcher:  # a bot of the user's own, silent about what it reads: it gets its observation
        def choose(self, legal, observation=None):
            return legal[0]
    assert needs_knowledge(Watcher())
    assert not bots_need_knowledge() and not bots_need_knowledge({0: "random", 2: "random"})
    assert bots_need_knowledge({1: "greedy"}) and bots_need_knowledge({3: "mcts:2"})


def test_the_fuzzers_same_deal_check_reads_a_game_that_keeps_it():
    """The fuzzer plays without the record, but its same-deal check compares
    what each seat sees: it gets the same game keeping it."""
    blind = load(ROOT / "tests" / "fuzz_targets" / "fixed_deal.rules", knowledge=False)
    assert same_deal(blind, 2) is not None
    assert same_deal(load(ROOT / "tests" / "fuzz_targets" / "fixed_deal_ok.rules", knowledge=False), 2) is None
