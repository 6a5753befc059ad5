"""Search bots (interpreter/bots.py): they play through samples of what
their seat may know, so they cannot peek; mcts beats random play."""

import random

import pytest
from click.testing import CliRunner

from interpreter import load
from interpreter.bots import GreedyAgent, MCTSAgent, make_bot
from interpreter.cli.common import make_agents, play
from interpreter.runner import cli
from snippets import draw_or_wait

FOX = "games/fox_in_the_henhouse.rules"


def decision(seed=3, steps=9):
    """A Fox position for 2 players, a few random steps in, and its seat to move."""
    state = load(FOX).new_state(seed, 2)
    rng = random.Random(seed)
    for _ in range(steps):
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    return state, state.current_player


def swap_unseen(state, seat):
    """The same position with two cards that ``seat`` does not know exchanged
    (each taking the other's place and what others knew of that place)."""
    s = state.clone()
    unknown = [(i, j, c) for i, z in enumerate(s.Z) if i not in s.m.stack_instances
               for j, c in enumerate(z) if not s.knows(seat, c)]
    (i1, j1, c1), (i2, j2, c2) = next((a, b) for a in unknown for b in unknown if a[0] != b[0])
    s.Z[i1][j1], s.Z[i2][j2] = c2, c1
    s.loc[c1], s.loc[c2] = i2, i1
    s.K[c1], s.K[c2] = s.K[c2], s.K[c1]
    s.F[c1], s.F[c2] = s.F[c2], s.F[c1]
    s._legal = None
    return s, (c1, c2)


@pytest.mark.parametrize("bot", [lambda: GreedyAgent(5), lambda: MCTSAgent(5, iterations=40)])
def test_cards_a_bot_cannot_see_never_change_its_move(bot):
    state, seat = decision()
    other, (c1, c2) = swap_unseen(state, seat)
    assert other.key() != state.key()  # the cards really moved
    assert state.legal_actions() == other.legal_actions()
    moves = []
    for s in (state, other):
        agent = bot()
        moves.append(agent.choose(s.legal_actions(), None, sampler=lambda rng, s=s: s.resample(seat, rng), seat=seat))
    assert moves[0] == moves[1]


def test_mcts_beats_random_play_at_fox():
    wins = 0.0
    for seed in range(6):
        state = load(FOX).new_state(seed, 2)
        agents = make_agents(seed, 2, {0: "mcts:40"})
        play(state, agents, 5000)
        winners = state.winners()
        wins += (0 in winners) / len(winners)
    assert wins >= 4, wins  # random against random wins about half


def test_make_bot_and_the_command_line():
    assert isinstance(make_bot("mcts:12", 1), MCTSAgent) and make_bot("mcts:12", 1).iterations == 12
    for bad in ("alphazero", "mcts:x", "random:3", "greedy:0"):
        with pytest.raises(ValueError):
            make_bot(bad, 1)
    r = CliRunner().invoke(cli, ["run", "examples/last_card.rules", "--seed", "1", "--bot", "2=greedy", "-q"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["run", "examples/last_card.rules", "--bot", "3=greedy"])
    assert r.exit_code == 2 and "this game has 2 seats" in r.output
    r = CliRunner().invoke(cli, ["simulate", "examples/last_card.rules", "-n", "5", "--bot", "1=wizard"])
    assert r.exit_code == 2 and "unknown bot" in r.output


def test_a_logged_game_with_bots_replays(tmp_path):
    log = tmp_path / "g.jsonl"
    r = CliRunner().invoke(cli, ["run", FOX, "--players", "2", "--seed", "2", "--bot", "1=greedy", "-q",
                                 "--log", str(log)])
    assert r.exit_code == 0, r.output
    assert '"bots": ["greedy", "random"]' in log.read_text().splitlines()[0]
    assert CliRunner().invoke(cli, ["replay", str(log)]).exit_code == 0


def test_play_takes_bots_for_the_seats_people_do_not_play():
    r = CliRunner().invoke(cli, ["play", FOX, "--players", "2", "--seed", "1", "--bot", "2=greedy"], input="1\n1\nquit\n")
    assert r.exit_code == 0, r.output
    assert "bots: P2 (greedy)" in r.output and "P2: " in r.output
    r = CliRunner().invoke(cli, ["play", FOX, "--players", "2", "--bot", "1=greedy"])
    assert r.exit_code == 2 and "played by a person" in r.output


@pytest.mark.parametrize("heuristic, wanted", [("size(hand(p))", "draw"), ("0 - size(hand(p))", "wait"),
                                               (None, None)])
def test_greedy_follows_the_rules_heuristic(tmp_path, heuristic, wanted):
    """The score is always 0, so only a declared heuristic tells the greedy bot anything."""
    path = tmp_path / "g.rules"
    path.write_text(draw_or_wait("0", rounds=2) + (f"heuristic(p): {heuristic}\n" if heuristic else ""))
    game = load(path)
    texts = set()
    for seed in range(4):
        state = game.new_state(seed, 2)
        agents = make_agents(seed, 2, {0: "greedy:2", 1: "greedy:2"})
        taken = []
        play(state, agents, 100, on_action=lambda number, seat, text: taken.append(text))
        texts.update(taken)
    if wanted is None:
        assert texts == {"draw", "wait"}  # no heuristic, a score of 0 everywhere: no preference
    else:
        assert texts == {wanted}


def test_heuristics_fall_back_to_the_scores():
    emu = load("games/emu_ranchers.rules")
    state = emu.new_state(2, 2)
    rng = random.Random(2)
    for _ in range(20):
        state.apply(rng.choice(state.legal_actions()))
    h = state.m.heuristics(state)
    expected = [emu.evaluate(state, f"score({p}) + sum(bird_value(b) for b in birds({p}))") for p in range(2)]
    assert h == expected
    fox = load(FOX).new_state(2, 2)
    assert fox.m.heuristic_fn is None and fox.m.heuristics(fox) == fox.m.scores(fox)


def test_a_heuristic_is_checked_like_a_score(tmp_path):
    from rulelang import check_file
    for extra, code in (("heuristic(p): size(hand(p)) > 0\n", "RL103"),
                        ("heuristic(p): 1\nheuristic(q): 2\n", "RL102"),
                        ("heuristic(p): sise(hand(p))\n", "RL101")):
        path = tmp_path / "h.rules"
        path.write_text(draw_or_wait("0", rounds=2) + extra)
        _, diags, _ = check_file(path)
        assert code in [d.code for d in diags if d.severity == "error"], (extra, diags)


def test_mcts_by_the_second():
    import time as _time
    bot = make_bot("mcts:0.05s", 1)
    assert bot.seconds == 0.05
    state, seat = decision()
    sampler = lambda rng: state.resample(seat, rng)  # noqa: E731
    start = _time.perf_counter()
    a = bot.choose(state.legal_actions(), sampler=sampler, seat=seat)
    took = _time.perf_counter() - start
    assert a in state.legal_actions() and took >= 0.05  # it thinks until its time is up
    for bad in ("mcts:0s", "mcts:xs", "mcts:-1s", "greedy:1s"):
        with pytest.raises(ValueError):
            make_bot(bad, 1)


def test_random_bots_asked_for_an_index_play_the_games_they_chose_by_action():
    # play() asks a random bot for the index of its pick and plays it with apply_at: the same
    # draws as its choose(), so the same games as a loop that asks for the action itself
    from interpreter.agents import RandomAgent, ask
    game = load(FOX, knowledge=False)
    for seed in range(3):
        fast = game.new_state(seed, 3)
        play(fast, make_agents(seed, 3))
        slow, agents = game.new_state(seed, 3), make_agents(seed, 3)
        assert all(isinstance(a, RandomAgent) for a in agents)
        while not slow.is_terminal:
            slow.apply(ask(agents[slow.current_player], slow, slow.current_player, slow.legal_actions()))
        assert fast.history == slow.history and fast.returns() == slow.returns()
