"""Any rules file as a PettingZoo AEC environment (the optional extra
``pettingzoo``).

    from interpreter.adapters.pettingzoo import rules_env
    env = rules_env("games/emu_ranchers.rules", players=2, render_mode="ansi")
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

- **Agents** ``player_1`` ... ``player_N``; the one to move is the engine's
  player to move (chance is the engine's own, seeded by ``reset(seed)``).
- **Actions**: ``Discrete(max_legal_actions)``; action i is the i-th legal
  action in the engine's stable order; ``observation["action_mask"]`` marks
  the legal ones (all zero for an agent not to move).  ``info["actions"]``
  gives the texts of the legal actions of the agent to move.
- **Observations**: ``{"observation": the numbers of what that seat may see
  (see :mod:`.encoding`), "action_mask": ...}``.
- **Rewards**: at the end, the win share (1/k to each of k winners) or,
  with ``utility="score"``, the scores; 0 before.  A game past
  ``max_actions`` actions is truncated.
- **Render**: ``"ansi"`` returns the table as the player to move sees it
  (the whole table once the game is over), ``"human"`` prints it.
"""

from __future__ import annotations

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as err:  # pragma: no cover - the extra is missing
    raise ImportError("the PettingZoo adapter needs pettingzoo: pip install 'rulelang[pettingzoo]'") from err

from ..game import load
from .encoding import DEFAULT_MAX_LEGAL, TensorLayout, legal_actions

DEFAULT_MAX_ACTIONS = 5000


class RulesEnv(AECEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "rulelang", "is_parallelizable": False}

    def __init__(self, path, players: int | None = None, render_mode: str | None = None, utility: str = "win",
                 max_legal_actions: int = DEFAULT_MAX_LEGAL, max_actions: int = DEFAULT_MAX_ACTIONS, **params):
        super().__init__()
        if utility not in ("win", "score"):
            raise ValueError('utility is "win" (the win share) or "score"')
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.game = load(path, params)
        n = self.game.min_players if players is None else players
        if not self.game.min_players <= n <= self.game.max_players:
            raise ValueError(f"{self.game.title} is for {self.game.min_players} to {self.game.max_players} "
                             f"players, not {n}")
        self.n = n
        self.metadata = dict(self.metadata, name=f"rulelang_{self.game.title}")
        self.render_mode = render_mode
        self.utility = utility
        self.limit = max_legal_actions
        self.max_actions = max_actions
        self.layout = TensorLayout(self.game, n)
        self.possible_agents = [f"player_{p + 1}" for p in range(n)]
        self.seat = {a: p for p, a in enumerate(self.possible_agents)}
        size = self.layout.size
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(max_legal_actions,), dtype=np.int8)})
            for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(max_legal_actions) for a in self.possible_agents}
        self.state = None

    # ---- spaces
    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    # ---- the game
    def reset(self, seed=None, options=None):
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0] >> 1)
        self.state = self.game.new_state(int(seed), self.n)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.moves = 0
        self._next()

    def _next(self) -> None:
        """Choose the agent to act: the seat to move, or (game over) each in turn to be told."""
        st = self.state
        if st.is_terminal or self.moves >= self.max_actions:
            done = st.is_terminal
            for a in self.agents:
                self.terminations[a] = done
                self.truncations[a] = not done
            self.agent_selection = next((a for a in self.agents), None)
            for a in self.agents:
                self.infos[a] = {}
            return
        self.agent_selection = self.possible_agents[st.current_player]
        texts = [st.action_text(a) for a in legal_actions(st, self.limit)]
        for a in self.agents:
            self.infos[a] = {"actions": texts} if a == self.agent_selection else {}

    def observe(self, agent):
        p = self.seat[agent]
        obs = np.zeros(self.layout.size, np.float32)
        self.layout.fill(self.layout.views(obs), self.state.observation(p), p)
        mask = np.zeros(self.limit, np.int8)
        st = self.state
        if not st.is_terminal and agent == self.agent_selection and self.moves < self.max_actions:
            mask[:len(legal_actions(st, self.limit))] = 1
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.state
        legal = legal_actions(st, self.limit)
        if action is None or not 0 <= int(action) < len(legal):
            raise ValueError(f"{agent}: action {action!r} is not one of the {len(legal)} legal actions "
                             "(see the observation's action_mask)")
        self._cumulative_rewards[agent] = 0.0
        st.apply_at(int(action))
        self.moves += 1
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if st.is_terminal:
            if self.utility == "score":
                result = [float(x) for x in st.scores()]
            else:
                winners = st.winners()
                result = [1.0 / len(winners) if p in winners else 0.0 for p in range(self.n)]
            self.rewards = {a: result[self.seat[a]] for a in self.agents}
        self._next()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # ---- output
    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        st = self.state
        if st is None:
            text = f"{self.game.title}: not started (call reset)"
        elif st.is_terminal:
            text = st.debug_text() + f"\ngame over: scores {st.scores()}, winners {[w + 1 for w in st.winners()]}"
        else:
            p = st.current_player
            text = f"P{p + 1} to move\n" + st.observation_text(p)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self):
        pass


def rules_env(path, players: int | None = None, **kwargs) -> RulesEnv:
    """A PettingZoo AEC environment for the rules file (see :class:`RulesEnv`)."""
    return RulesEnv(path, players, **kwargs)


__all__ = ["RulesEnv", "rules_env"]
