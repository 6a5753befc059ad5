"""Bots that play a game.

A bot sees only what a player at the table would: the list of legal actions
(opaque values from ``State.legal_actions()``) and, optionally, that player's
observation (``State.observation(seat)``, a JSON-ready dict).  It never gets
the :class:`~interpreter.runtime.State` itself, so it cannot peek at hidden
cards or the random generator.

    agent = RandomAgent(seed=7)
    action = agent.choose(state.legal_actions(), state.observation(seat))
"""

from __future__ import annotations

import random


class RandomAgent:
    """Picks uniformly among the legal actions, with its own seeded RNG
    (so a bot's choices do not depend on other bots or on the game's
    chance)."""

    #: The runner computes an observation only for bots that set this.
    needs_observation = False

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choose(self, legal_actions, observation=None):
        """One of ``legal_actions`` (a non-empty sequence), uniformly."""
        return legal_actions[self.choose_index(legal_actions)]

    def choose_index(self, legal_actions) -> int:
        """The index of :meth:`choose`'s pick, the same draw (a runner that
        has it plays it with ``State.apply_at``: no lookup of the action)."""
        if not legal_actions:
            raise ValueError("no legal action to choose from")
        return self.rng.randrange(len(legal_actions))


def ask(agent, state, seat: int, legal: tuple):
    """The agent's choice among ``legal`` for ``seat``: it gets the seat's
    observation if it wants one, and a search bot gets a sampler of states
    that agree with what the seat knows (``State.resample``), never the
    state itself: samples that keep no knowledge unless the bot says its
    samples need it (``samples_need_knowledge``, true when not said)."""
    obs = state.observation(seat) if getattr(agent, "needs_observation", True) else None
    if getattr(agent, "needs_sampler", False):
        # a bot that plays its samples without observing them gets them without knowledge
        keep = getattr(agent, "samples_need_knowledge", True)
        return agent.choose(legal, obs, sampler=lambda rng: state.resample(seat, rng, knowledge=keep), seat=seat)
    return agent.choose(legal, obs)


def needs_knowledge(agent) -> bool:
    """Does ``agent`` read its seat's observation or sample what its seat
    knows?  If no bot of a game does, the game need not keep who knows which
    card (``load(..., knowledge=False)``), and plays faster."""
    return bool(getattr(agent, "needs_observation", True) or getattr(agent, "needs_sampler", False))


__all__ = ["RandomAgent", "ask", "needs_knowledge"]
