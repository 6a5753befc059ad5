"""Bots that search: greedy (one step ahead) and Monte Carlo tree search.

Neither gets the game's state.  The runner hands a search bot a *sampler*:
``sampler(rng)`` returns a full state that agrees with everything its seat
knows, the cards it cannot see dealt at random (``State.resample``), with
chance drawn from ``rng``.  A bot that searches such states cannot peek: the
cards it cannot see, wherever they really lie, give it the same samples.

- :class:`GreedyAgent` tries each legal action on a few samples and takes
  the one after which its standing leads the others' by most: the rules'
  ``heuristic(p)`` if they declare one, else the game's own score at that
  point of the game.
- :class:`MCTSAgent` is single-observer information-set MCTS: each
  iteration samples a state, walks a tree of actions shared by all samples
  (UCB1, counting a child only in the samples where it was legal), adds one
  node, plays on at random, and credits each player's share of the win.
"""

from __future__ import annotations

import math
import random
import time

from .runtime import RuleError


def _lead(state, seat) -> float:
    """How far ``seat``'s heuristic (the rules' ``heuristic(p)``, else the
    score) is ahead of the best other one (0 if it cannot be computed)."""
    try:
        scores = state.m.heuristics(state)
    except RuleError:
        return 0.0
    others = [s for p, s in enumerate(scores) if p != seat]
    return scores[seat] - (max(others) if others else 0)


class GreedyAgent:
    needs_observation = False
    needs_sampler = True
    samples_need_knowledge = False  # it plays its samples, never observes them

    def __init__(self, seed, samples: int = 4):
        self.rng = random.Random(seed)
        self.samples = samples

    def choose(self, legal_actions, observation=None, sampler=None, seat=None):
        if sampler is None or len(legal_actions) == 1:
            return legal_actions[self.rng.randrange(len(legal_actions))]
        totals = [0.0] * len(legal_actions)
        counts = [0] * len(legal_actions)
        for _ in range(self.samples):
            base = sampler(self.rng)
            there = {a: k for k, a in enumerate(base.legal_actions())}  # (each by its index in the sample's)
            for i, a in enumerate(legal_actions):
                if a not in there:
                    continue  # not legal in this sample: it tells nothing of a
                s = base.clone()
                try:
                    s.apply_at(there[a])
                except RuleError:
                    continue
                totals[i] += _lead(s, seat)
                counts[i] += 1
        values = [t / c if c else -math.inf for t, c in zip(totals, counts)]
        best = max(values)
        return self.rng.choice([a for a, v in zip(legal_actions, values) if v == best])


class _Node:
    __slots__ = ("mover", "visits", "total", "avail", "children")

    def __init__(self, mover=-1):
        self.mover = mover  # the seat whose action led here
        self.visits = 0
        self.total = 0.0
        self.avail = {}  # action -> samples in which it was legal here
        self.children = {}


class MCTSAgent:
    needs_observation = False
    needs_sampler = True
    samples_need_knowledge = False  # it plays its samples, never observes them

    def __init__(self, seed, iterations: int = 100, exploration: float = 0.7, rollout_cap: int = 2000,
                 seconds: float | None = None):
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds  # a time per move instead of a count of iterations (then not reproducible)
        self.c = exploration
        self.rollout_cap = rollout_cap

    def choose(self, legal_actions, observation=None, sampler=None, seat=None):
        rng = self.rng
        if sampler is None or len(legal_actions) == 1:
            return legal_actions[rng.randrange(len(legal_actions))]
        root = _Node()
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while (done < self.iterations) if deadline is None else (done == 0 or time.perf_counter() < deadline):
            done += 1
            s = sampler(rng)
            node, path = root, [root]
            try:
                while not s.is_terminal:  # selection, then one expansion
                    acts = s.legal_actions()
                    if not acts:
                        break
                    mover = s.current_player
                    for a in acts:
                        node.avail[a] = node.avail.get(a, 0) + 1
                    untried = [k for k, a in enumerate(acts) if a not in node.children]  # (by index)
                    if untried:
                        k = untried[rng.randrange(len(untried))]
                        a = acts[k]
                        s.apply_at(k)
                        node.children[a] = child = _Node(mover)
                        path.append(child)
                        break
                    k = max(range(len(acts)), key=lambda k: self._ucb(node.children[acts[k]], node.avail[acts[k]]))
                    a = acts[k]
                    s.apply_at(k)
                    node = node.children[a]
                    path.append(node)
                steps = 0
                while not s.is_terminal and steps < self.rollout_cap:  # play on at random
                    acts = s.legal_actions()
                    if not acts:
                        break
                    s.apply_at(rng.randrange(len(acts)))
                    steps += 1
                rewards = self._rewards(s)
            except RuleError:  # a sample the rules cannot carry through: it counts as a draw
                rewards = None
            for n in path[1:]:
                n.visits += 1
                n.total += 0.5 if rewards is None else rewards[n.mover]
        visits = [(root.children[a].visits if a in root.children else -1) for a in legal_actions]
        best = max(visits)
        return rng.choice([a for a, v in zip(legal_actions, visits) if v == best])

    def _ucb(self, child, avail) -> float:
        if child.visits == 0:
            return math.inf
        return child.total / child.visits + self.c * math.sqrt(math.log(max(avail, 1)) / child.visits)

    @staticmethod
    def _rewards(s) -> list:
        n = s.num_players
        if not s.is_terminal:
            return [1.0 / n] * n
        winners = s.winners()
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]


BOTS = {"random": None, "greedy": GreedyAgent, "mcts": MCTSAgent}


def make_bot(kind: str, seed):
    """A bot from its name: "random", "greedy", "greedy:SAMPLES", "mcts",
    "mcts:ITERATIONS" or "mcts:SECONDSs" (a time per move, such as
    "mcts:0.5s": stronger on a fast machine, and no longer the same game
    from the same seed).  ValueError for anything else."""
    from .agents import RandomAgent

    name, _, arg = kind.partition(":")
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r} (bots: {', '.join(BOTS)})")
    if name == "random":
        if arg:
            raise ValueError("the random bot takes no number")
        return RandomAgent(seed)
    if name == "mcts" and arg.endswith("s"):
        try:
            seconds = float(arg[:-1])
        except ValueError:
            seconds = 0.0
        if not 0 < seconds <= 3600:
            raise ValueError("mcts:Ts wants a time per move in seconds, such as mcts:0.5s")
        return MCTSAgent(seed, seconds=seconds)
    if arg:
        if not arg.isdigit() or int(arg) < 1:
            raise ValueError(f"{name}:N wants a whole number of {'samples' if name == 'greedy' else 'iterations'}")
        return BOTS[name](seed, int(arg))
    return BOTS[name](seed)


__all__ = ["GreedyAgent", "MCTSAgent", "make_bot", "BOTS"]
