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
    return (st.Z, st.V, st.C, st.L, st.pc, st.me, st.is_terminal, st.chance_n, st.loc, st.P, st.F, st.rng)


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


# ---------------------------------------------------------------- a search's samples
def test_a_sample_without_knowledge_plays_as_one_with_it():
    game = load(ROOT / "games" / "fox_in_the_henhouse.rules")
    state = game.new_state(2, 3)
    rnd = random.Random(2)
    for _ in range(9):
        legal = state.legal_actions()
        state.apply(legal[rnd.randrange(len(legal))])
    keeping, blind = state.resample(1, 5), state.resample(1, 5, knowledge=False)
    assert not blind.m.knowledge and blind.m is game.machine_for(3).without_knowledge()
    assert state.resample(1, 6, knowledge=False).m is blind.m  # compiled once
    assert blind.S is blind.m.scratch and keeping.S is state.S  # each machine's own scratch slots
    with pytest.raises(NoKnowledge):
        blind.observation(1)
    while not keeping.is_terminal:
        assert parts(keeping) == parts(blind)
        legal = keeping.legal_actions()
        assert blind.legal_actions() == legal
        action = legal[rnd.randrange(len(legal))]
        keeping.apply(action)
        blind = blind.clone()
        blind.apply(action)
    assert blind.is_terminal and blind.scores() == keeping.scores()


def test_search_bots_count_only_the_real_games_in_the_coverage(monkeypatch):
    """simulate's report of the rules that ran and of the turns counts the
    games played, not the searches of a bot, which play many more on its
    samples; and the bot chooses as it did with samples keeping knowledge."""
    from interpreter.bots import MCTSAgent
    from interpreter.cli.common import make_agents, play
    from interpreter.usage import turn_count

    path = ROOT / "games" / "emu_ranchers.rules"

    def one_game(samples_keep):
        monkeypatch.setattr(MCTSAgent, "samples_need_knowledge", samples_keep)
        game = load(path, coverage=True)
        state = game.new_state(3, 2)
        play(state, make_agents(3, 2, {1: "mcts:8"}))
        return game.machine, state.history

    m, history = one_game(False)
    _, history_keeping = one_game(True)
    assert history == history_keeping  # the same choices
    replayed = load(path, coverage=True)  # the same game, replayed without a bot
    state = replayed.new_state(3, 2)
    for action in history:
        state.apply(action)
    assert m.coverage_counts == replayed.machine.coverage_counts
    assert turn_count(m) == turn_count(replayed.machine)


def test_a_parameter_named_like_an_option_of_load(tmp_path):
    """A parameter may be named knowledge (or coverage...): given in a dict,
    it is the parameter, not the option."""
    text = (ROOT / "games" / "emu_ranchers.rules").read_text()
    assert "param years:" in text
    path = tmp_path / "renamed.rules"
    path.write_text(text.replace("years", "knowledge"))
    game = load(path, {"knowledge": 1})
    assert game.knowledge and game.params["knowledge"] == 1
    blind = load(path, {"knowledge": 2}, knowledge=False)
    assert not blind.knowledge and blind.params["knowledge"] == 2


def test_the_play_screen_does_not_read_a_record_that_was_not_kept(tmp_path):
    from interpreter.play_view import knowledge

    path = tmp_path / "moves.rules"
    path.write_text(MOVES)  # (face-down moves: the screen reads the record itself)
    state = load(path, knowledge=False).new_state(0)
    with pytest.raises(NoKnowledge):
        knowledge(state, [0, 1])


def test_a_machine_the_compiler_did_not_build_is_its_own_sample_machine():
    """Without the compiler's recipe to build it again, a search's samples
    stay on the machine itself (keeping the record: slower, not wrong)."""
    from interpreter.machine import Machine

    m = Machine()
    assert m.knowledge and m.recompile is None and m.without_knowledge() is m
