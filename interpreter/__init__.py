"""interpreter: compile a checked rules file to a state machine and play it.

    from interpreter import load
    game = load("games/emu_ranchers.rules", pawns=True)
    state = game.new_state(seed=1)
    while not state.is_terminal:
        actions = state.legal_actions()
        state.apply(actions[0])
    state.returns()
"""

from .game import Game, load
from .runtime import CHANCE, TERMINAL, IllegalAction, RuleError, State

__all__ = ["load", "Game", "State", "CHANCE", "TERMINAL", "RuleError", "IllegalAction"]
