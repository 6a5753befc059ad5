"""interpreter: compile a checked rules file to a state machine and play it.

    from interpreter import load
    game = load("games/emu_ranchers.rules", pawns=True)
    state = game.new_state(seed=1)
    while not state.is_terminal:
        actions = state.legal_actions()
        state.apply(actions[0])
    state.returns()
"""

from .runtime import CHANCE, TERMINAL, IllegalAction, NoKnowledge, RuleError, State

__all__ = ["load", "Game", "State", "CHANCE", "TERMINAL", "RuleError", "IllegalAction", "NoKnowledge"]


def __getattr__(name):
    # load and Game bring in the parser and the compiler: imported on first
    # use, so that ``rulerun --help`` and the runtime alone start quickly
    if name in ("load", "Game"):
        from . import game
        return getattr(game, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
