"""The games of the fuzzer's drawn settings, played on machines they share.

Compiling the game again for each setting the fuzzer draws cost a quarter
of a run of Emu Ranchers (a compile, then the code each step generates
when it first runs, for about fifty settings in 100 examples).  So the
drawn parameters are read from the state instead (see
:mod:`interpreter.compiler.late`): the settings that differ only in them
share one machine, compiled once, and each plays on it as a
:class:`SettingGame`, which gives a new state its values.

What a machine counts (each branch, loop and choice that ran: the report's
coverage, and what ran only under some setting) is counted for the
setting whose game plays: a :class:`SettingGame` that starts a game on a
machine another one last played takes the machine's counts over, keeping
the other's (:meth:`SettingGame.probe_counts` gives its own).
"""

from __future__ import annotations

from .compiler import ParamError, compile_game, params_depend_on_players, resolve_params
from .compiler.late import late_checked, late_names, late_slots
from .game import Game


class Shared:
    """The machines shared by the settings of one fuzz run: one per value of
    the parameters that are not read late."""

    def __init__(self, base: Game, names):
        self.base = base
        self.late = late_names(base.checked, names)
        self.checked = late_checked(base.checked, self.late) if self.late else base.checked
        # (parameters whose default reads the player count, when all of them are read late:
        # one machine for every count)
        early = {n for n in base.checked.params if n not in self.late}
        self.per_players = params_depend_on_players(base.checked, early)
        self.games = {}  # the values of the parameters not read late -> the shared game

    def game(self, path: str, params: dict) -> Game | None:
        """The game of one setting (``params``: every value given, drawn or
        not); None for a combination the rules refuse."""
        try:
            resolve_params(self.base.checked, params)  # (as compile_game checks it)
        except ParamError:
            return None
        fixed = {k: v for k, v in params.items() if k not in self.late}
        key = tuple(sorted(fixed.items()))
        shared = self.games.get(key)
        if shared is None:
            machine = compile_game(self.checked, fixed, False, coverage=True, check_invariants=True,
                                   knowledge=self.base.knowledge)
            shared = Game(machine, self.checked, path, False, fixed)
            shared.per_players = self.per_players
            shared.coverage = shared.check_invariants = True
            self.games[key] = shared
        return SettingGame(shared, self, path, params)


class SettingGame(Game):
    """A game with its parameters set as drawn, played on a shared machine
    that reads some of them from the state."""

    def __init__(self, shared: Game, owner: Shared, path: str, params: dict):
        super().__init__(shared.machine, owner.base.checked, path, False, params)
        self.shared = shared
        self.names = owner.late
        self.per_players = shared.per_players
        self.coverage = self.check_invariants = True
        self._late = {}  # player count -> [(index in st.V, value)]
        self._counts = {}  # id(machine) -> (machine, this setting's counts)

    def machine_for(self, num_players):
        return self.shared.machine_for(num_players)

    def params_for(self, num_players) -> dict:
        return resolve_params(self.checked, self.overrides, num_players)

    @property
    def params(self) -> dict:
        return self.params_for(None)

    def param_info(self, num_players=None) -> list:
        values = self.params_for(num_players)
        return [(name, p.kind, self.checked.types[id(p)], values[name], p.doc)
                for name, p in self.checked.params.items()]

    def new_state(self, seed: int = 0, num_players: int | None = None):
        m = self.machine_for(num_players)
        n = m.players[0] if num_players is None else num_players
        late = self._late.get(n)
        if late is None:
            if not isinstance(n, int) or not m.players[0] <= n <= m.players[1]:
                return m.new_state(seed, num_players)  # (which says what is wrong with the count)
            values = resolve_params(self.checked, self.overrides, n)  # (a ParamError: not a game at n)
            late = self._late[n] = [(i, values[name]) for name, i in late_slots(m, self.names)]
        if getattr(m, "counting_for", None) is not self:
            self._take_counts(m)
        return m.new_state(seed, num_players, late)

    def _take_counts(self, m) -> None:
        """Make ``m``'s coverage counts this setting's, keeping its last setting's."""
        counts = m.coverage_counts
        last = getattr(m, "counting_for", None)
        if last is not None:
            last._counts[id(m)] = (m, list(counts))
        mine = self._counts.get(id(m))
        counts[:] = mine[1] if mine is not None else [0] * len(counts)
        m.counting_for = self

    def probe_counts(self) -> list:
        """[(machine, this setting's counts of its probes)] for each machine it played on."""
        out = []
        for m in {id(m): m for m in self.shared._machines.values()}.values():
            if getattr(m, "counting_for", None) is self:
                out.append((m, list(m.coverage_counts)))
            elif id(m) in self._counts:
                out.append(self._counts[id(m)])
        return out


__all__ = ["Shared", "SettingGame"]
