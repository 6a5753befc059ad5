"""``rulerun``: check, play and simulate rules files from the command line.

    rulerun FILE [--players N] [--seed S] [--set NAME=VALUE ...] [--quiet]
    rulerun play FILE [--players N] [--human SEAT ...] [--seed S] [--set ...] [--save F]
    rulerun play --resume SAVED_GAME
    rulerun check FILE
    rulerun simulate FILE -n N [--players N] [--seed S] [--set ...] [--json]
    rulerun params FILE
    rulerun fuzz FILE [--players N|all] [--examples N] [--max-actions K] [--vary PARAM ...]
                      [--seed S] [--json] [--out DIR]
    rulerun replay REPLAY_FILE
    rulerun explore FILE [--players N] [--max-states N] [--set ...]
    rulerun diff A.rules B.rules [--players N|all] [--examples N] [--set ...] [--json]
    rulerun compare A.rules [B.rules] -n N [--set-a ...] [--set-b ...] [--json]

``rulerun FILE`` is short for ``rulerun run FILE``: when the first argument
is not a command name it is taken as the file of the default ``run``
command.  (A rules file literally named like a command can be given as
``./check`` or ``rulerun run check``.)

Exit codes: 0 success; 1 a rules file with errors, a rule error at play
time, a dead state or a game that does not end; 2 bad input (a missing or
unreadable file, a bad option or parameter, a player count the game does not
allow); 130 interrupted.  Errors are one line on stderr, ``rulerun: error:
...``; the diagnostics of a bad rules file are printed as ``check`` does.

Bots only see the legal actions and their own observation: see
:mod:`interpreter.agents`.  ``play`` (people against bots at the terminal)
is wired here; the session itself is :mod:`interpreter.play`.

The package, one module per concern:

- :mod:`.group`: the click group ``cli``, its default command and one-line
  error reporting, the failures commands raise, the shared options;
- :mod:`.common`: loading a game, setting up a state, playing with bots,
  text helpers;
- :mod:`.run`: ``run``;
- :mod:`.session`: ``play``, saved as it goes and resumed;
- :mod:`.simulate`: ``simulate``;
- :mod:`.check`: ``check``, ``params`` and ``test``;
- :mod:`.search`: ``fuzz``, ``replay`` and ``explore``;
- :mod:`.diff`: ``diff``;
- :mod:`.compare`: ``compare``.

Importing the command modules registers their commands on ``cli``.
:mod:`interpreter.runner` re-exports the public names.
"""

from __future__ import annotations

# importing the command modules registers their commands on cli
from .check import check_cmd, params_cmd, test_cmd
from .compare import compare_cmd
from .diff import diff_cmd
from .common import make_agents, play
from .group import (CONTEXT_SETTINGS, DEFAULT_COMMAND, DEFAULT_MAX_ACTIONS, PROG, RULES_FILE,
                    DefaultCommandGroup, cli, game_options, max_actions_option)
from .run import run_cmd
from .session import play_cmd
from .search import explore_cmd, fuzz_cmd, replay_cmd
from .simulate import simulate_cmd

__all__ = ["cli", "main", "make_agents", "play", "DefaultCommandGroup", "PROG", "DEFAULT_COMMAND",
           "DEFAULT_MAX_ACTIONS", "CONTEXT_SETTINGS", "RULES_FILE", "game_options", "max_actions_option",
           "check_cmd", "params_cmd", "run_cmd", "play_cmd", "simulate_cmd", "fuzz_cmd", "replay_cmd",
           "explore_cmd", "diff_cmd", "compare_cmd", "test_cmd"]


def main(argv=None):
    """The ``rulerun`` console script."""
    _lark_without_regex()
    cli.main(args=argv, prog_name=PROG)


def _lark_without_regex():
    """Keep the optional ``regex`` module out of this process (it is a
    fifth of the time a ``rulerun check`` spends importing Lark).  Lark
    reaches for it only to build a grammar with Unicode categories, which
    ours has none of, and nothing else ``rulerun`` runs imports it.  Done
    only here, in the console script's own process, before Lark is loaded
    (on the first parse a command needs: a file found in the parse cache
    never loads it); a program that imports rulelang as a library keeps
    Lark exactly as it finds it."""
    import sys

    if "lark" not in sys.modules and "regex" not in sys.modules:
        sys.modules["regex"] = None  # "import regex" raises ImportError
