"""``rulerun``: check, play and simulate rules files from the command line.

The commands live in the package :mod:`interpreter.cli` (see its docstring
for the usage, exit codes and one module per concern); this module keeps the
old import path and ``python -m interpreter.runner`` working, and is the
console script's entry point (``rulerun = "interpreter.runner:main"``).
"""

from __future__ import annotations

from .cli import (CONTEXT_SETTINGS, DEFAULT_COMMAND, DEFAULT_MAX_ACTIONS, PROG, RULES_FILE,
                  DefaultCommandGroup, check_cmd, cli, explore_cmd, fuzz_cmd, game_options, main,
                  make_agents, max_actions_option, params_cmd, play, play_cmd, replay_cmd, run_cmd,
                  simulate_cmd)

__all__ = ["cli", "main", "make_agents", "play", "DefaultCommandGroup", "PROG", "DEFAULT_COMMAND",
           "DEFAULT_MAX_ACTIONS", "CONTEXT_SETTINGS", "RULES_FILE", "game_options", "max_actions_option",
           "check_cmd", "params_cmd", "run_cmd", "play_cmd", "simulate_cmd", "fuzz_cmd", "replay_cmd",
           "explore_cmd"]

if __name__ == "__main__":
    main()
