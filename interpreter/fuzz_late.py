"""The games of the fuzzer's drawn settings, played on machines they share.

Compiling the game again for each setting the fuzzer draws cost a quarter
of a run of a card game (a compile, then the code each step generates
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

from .compiler import ParamError, compile_game, compile_machine, params_depend_on_players, resolve_params
from .compiler.late import late_checked, late_names, late_slots
from .game import Game
from .machine import Machine


class Shared:
    """The machines shared by the settings of one fuzz run: one per value of
    the parameters that are not read late (and per player count, when one of
    those has a default that reads it)."""

    def __init__(self, base: Game, names):
        self.base = base
        self.late = late_names(base.checked, names)
        self.checked = late_checked(base.checked, self.late) if self.late else base.checked
        early = {n for n in base.checked.params if n not in self.late}
        self.per_players = params_depend_on_players(base.checked, early)
        self.machines = {}  # (values of the parameters not read late, player count or None) -> machine
        self.disagreed = False  # a finding on a shared machine that a setting's own compile did not meet

    def game(self, path: str, params: dict) -> Game | None:
        """The game of one setting (``params``: every value given, drawn or
        not); None for a combination the rules refuse."""
        try:
            resolve_params(self.base.checked, params)  # (as compiling the game for it checks it)
        except ParamError:
            return None
        fixed = {k: v for k, v in params.items() if k not in self.late}
        return SettingGame(self, path, params, fixed)

    def machine(self, fixed: dict, num_players) -> Machine:
        """The machine for the values ``fixed`` of the parameters not read late;
        compiled with theirs alone (the others' defaults and ranges are not
        worked out: a setting's own values are, when its game starts)."""
        n = (self.base.min_players if num_players is None else num_players) if self.per_players else None
        key = (tuple(sorted(fixed.items())), n)
        m = self.machines.get(key)
        if m is None:
            params = resolve_params(self.checked, fixed, n, late=self.late)  # (a ParamError: not a game at n)
            m = self.machines[key] = compile_machine(self.checked, params, False, coverage=True,
                                                     check_invariants=True, knowledge=self.base.knowledge)
        return m


class SettingGame(Game):
    """A game with its parameters set as drawn, played on a shared machine
    that reads some of them from the state.  (Not for :meth:`Game.evaluate`:
    its machine lays out the variables otherwise.)"""

    def __init__(self, owner: Shared, path: str, params: dict, fixed: dict):
        self.owner = owner
        self.fixed = fixed
        super().__init__(owner.machine(fixed, None), owner.base.checked, path, False, params)
        self.names = owner.late
        self.coverage = self.check_invariants = True
        self._late = {}  # player count -> [(index in st.V, value)]
        self._counts = {}  # id(machine) -> (machine, this setting's counts)
        self._compiled = None  # the game compiled for this setting (see compiled)

    def compiled(self) -> Game:
        """The game compiled for this setting, as a user loads it (once): a
        finding met on the shared machine is shrunk and written out on it."""
        if self._compiled is None:
            base = self.owner.base
            m = compile_game(self.checked, self.overrides, False, coverage=True, check_invariants=True,
                             knowledge=base.knowledge)
            g = self._compiled = Game(m, self.checked, self.path, False, self.overrides)
            g.coverage = g.check_invariants = True
        return self._compiled

    def play_compiled(self) -> None:
        """Play every setting's games on its own compile from now on (as
        before machines were shared): a finding met on the shared machine was
        not met on this setting's (where the two can differ: which rule error
        a game meets first, when the compile works out more of a condition
        than the rules say, as a table of card pairs, or leaves a product past
        the bound on numbers unchecked because a factor folds small)."""
        self.owner.disagreed = True

    def machine_for(self, num_players):
        if self.owner.disagreed:
            return self.compiled().machine_for(num_players)
        lo, hi = self.machine.players
        if not isinstance(num_players, int) or not lo <= num_players <= hi:
            return self.machine  # (new_state says what is wrong with the count)
        m = self.owner.machine(self.fixed, num_players)
        self._machines[num_players] = m
        return m

    def params_for(self, num_players) -> dict:
        return resolve_params(self.checked, self.overrides, num_players)

    @property
    def params(self) -> dict:
        return self.params_for(None)

    def param_info(self, num_players=None) -> list:
        values = self.params_for(num_players)
        return [(name, p.kind, self.checked.types[id(p)], values[name], p.doc)
                for name, p in self.checked.params.items()]

    def evaluate(self, state, text: str):
        raise NotImplementedError("a fuzzer setting's game reads some parameters from the state: "
                                  "evaluate on the game loaded with these parameters")

    def new_state(self, seed: int = 0, num_players: int | None = None):
        if self.owner.disagreed:
            return self.compiled().new_state(seed, num_players)
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
        for m in {id(m): m for m in self._machines.values()}.values():
            if getattr(m, "counting_for", None) is self:
                out.append((m, list(m.coverage_counts)))
            elif id(m) in self._counts:
                out.append(self._counts[id(m)])
        return out + (self._compiled.probe_counts() if self._compiled is not None else [])


__all__ = ["Shared", "SettingGame"]
