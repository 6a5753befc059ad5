"""Loading a rules file: parse, check, compile (the one place that joins the
front end to the runtime)."""

from __future__ import annotations

from pathlib import Path

import rulelang
from rulelang.diagnostics import RulesError

from .compiler import ParamError, compile_game
from .machine import Machine
from .runtime import State


class Game:
    """A compiled game with fixed parameters.  ``new_state(seed, players)``
    starts a game."""

    def __init__(self, machine: Machine, checked, path: str, explicit_chance: bool):
        self.machine = machine
        self.checked = checked
        self.path = path
        self.explicit_chance = explicit_chance

    @property
    def title(self) -> str:
        return self.machine.title

    @property
    def params(self) -> dict:
        return dict(self.machine.params)

    @property
    def min_players(self) -> int:
        return self.machine.players[0]

    @property
    def max_players(self) -> int:
        return self.machine.players[1]

    def param_info(self) -> list:
        """(name, kind, type, value, doc) for each declared parameter."""
        out = []
        for name, p in self.checked.params.items():
            out.append((name, p.kind, self.checked.types[id(p)], self.machine.params[name], p.doc))
        return out

    def new_state(self, seed: int = 0, num_players: int | None = None) -> State:
        return self.machine.new_state(seed, num_players)

    def with_params(self, **overrides) -> "Game":
        params = dict(self.machine.params)
        params.update(overrides)
        return Game(compile_game(self.checked, params, self.explicit_chance), self.checked, self.path,
                    self.explicit_chance)


def load(path, explicit_chance: bool = False, **params) -> Game:
    """Parse, check and compile a rules file.  Raises
    :class:`rulelang.RulesError` for a bad file and :class:`ParamError` for
    a bad parameter."""
    checked = rulelang.load_checked(Path(path))
    machine = compile_game(checked, params, explicit_chance)
    return Game(machine, checked, str(path), explicit_chance)


__all__ = ["Game", "load", "RulesError", "ParamError"]
