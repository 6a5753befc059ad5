"""Loading a rules file: parse, check, compile (the one place that joins the
front end to the runtime)."""

from __future__ import annotations

from pathlib import Path

import rulelang
from rulelang.diagnostics import RulesError

from .compiler import ParamError, compile_game, params_depend_on_players, resolve_params
from .machine import Machine
from .runtime import MAX_SEARCH, MAX_WORK, RuleError, State


class Game:
    """A compiled game with fixed parameters.  ``new_state(seed, players)``
    starts a game."""

    def __init__(self, machine: Machine, checked, path: str, explicit_chance: bool, overrides=None):
        self.machine = machine
        self.checked = checked
        self.path = path
        self.explicit_chance = explicit_chance
        self.overrides = dict(overrides or {})
        # parameters whose defaults read the player count get a machine per count
        self.per_players = params_depend_on_players(checked)
        self._machines = {machine.players[0]: machine}

    def machine_for(self, num_players: int | None) -> Machine:
        """The compiled machine for a player count (the same one for every
        count unless a parameter's default depends on it)."""
        if not self.per_players or num_players is None:
            return self.machine
        m = self._machines.get(num_players)
        if m is None:
            lo, hi = self.machine.players
            if not isinstance(num_players, int) or not lo <= num_players <= hi:
                return self.machine  # new_state reports the bad count
            m = compile_game(self.checked, self.overrides, self.explicit_chance, num_players,
                             coverage=getattr(self, "coverage", False),
                             check_invariants=getattr(self, "check_invariants", False),
                             knowledge=self.knowledge)
            self._machines[num_players] = m
        return m

    def probe_counts(self) -> list:
        """[(machine, its coverage counts)] for each machine of this game (one
        per player count played, when a default reads the count)."""
        return [(m, m.coverage_counts) for m in {id(m): m for m in self._machines.values()}.values()]

    @property
    def knowledge(self) -> bool:
        """Does this game keep who knows which card (see :func:`load`)?"""
        return self.machine.knowledge

    @property
    def title(self) -> str:
        return self.machine.title

    @property
    def params(self) -> dict:
        """The parameters' values for the smallest player count (see
        :meth:`params_for`: a default may depend on the count)."""
        return dict(self.machine.params)

    def params_for(self, num_players: int | None) -> dict:
        """The parameters' values in a game of ``num_players``."""
        return dict(self.machine_for(num_players).params)

    @property
    def min_players(self) -> int:
        return self.machine.players[0]

    @property
    def max_players(self) -> int:
        return self.machine.players[1]

    def param_info(self, num_players: int | None = None) -> list:
        """(name, kind, type, value, doc) for each declared parameter, with
        its value in a game of ``num_players`` (default: the smallest count)."""
        values = self.machine_for(num_players).params
        out = []
        for name, p in self.checked.params.items():
            out.append((name, p.kind, self.checked.types[id(p)], values[name], p.doc))
        return out

    def param_values_by_players(self) -> dict:
        """{name: {player count: value}} for the parameters whose value
        changes with the player count."""
        if not self.per_players:
            return {}
        lo, hi = self.machine.players
        by_count = {n: resolve_params(self.checked, self.overrides, n) for n in range(lo, hi + 1)}
        out = {}
        for name in self.checked.params:
            values = {n: by_count[n][name] for n in by_count}
            if len(set(map(repr, values.values()))) > 1:
                out[name] = values
        return out

    def new_state(self, seed: int = 0, num_players: int | None = None) -> State:
        return self.machine_for(num_players).new_state(seed, num_players)

    def generated_source(self) -> str:
        """The Python source generated for this game's expressions, action
        searches and fused blocks (for debugging; see
        :mod:`interpreter.compiler.source`)."""
        return "\n".join(self.machine.generated_sources)

    def evaluate(self, state: State, text: str):
        """Evaluate an expression of the rules language in ``state`` (for
        tests, debugging and tools), e.g. ``bird_value(birds(0)[0])``: a
        card comes back as its name, a place (``hand(0)``, ``birds(0)[0]``)
        as the names of its cards, a cell as its (x, y) (see
        ``Machine.to_python``).  Raises :class:`RulesError` if the expression
        does not check, :class:`RuleError` if it cannot be evaluated in this
        state (the top of an empty pile, a stack since gone)."""
        from rulelang.checker import check_expression
        from rulelang.parser import parse_expression

        from .checks import EVAL_ERRORS, _explain
        from .compiler import expression_function

        e, diags = parse_expression(text)
        if e is None:
            raise RulesError(diags, text)
        t, diags = check_expression(self.checked, e)
        if [d for d in diags if d.severity == "error"]:
            raise RulesError(diags, text)
        m = self.machine_for(state.num_players)  # this game's parameter values for the state's player count
        f = expression_function(self.checked, m, e)
        # (an expression binds no slot of a state's own, only scratch ones)
        if len(state.S) < self.checked.nscratch:  # (the machine's list: every state's)
            state.S.extend([0] * (self.checked.nscratch - len(state.S)))
        state.m.work_left, state.m.search_left = MAX_WORK, MAX_SEARCH  # an expression of its own: fresh budgets
        try:
            return m.to_python(t, f(state), state)
        except EVAL_ERRORS as err:  # as an example says it: in the rules' words
            raise RuleError(_explain(err)) from None

    def with_params(self, /, **overrides) -> "Game":
        return self._again({**self.overrides, **overrides}, self.knowledge)

    def with_knowledge(self) -> "Game":
        """This game keeping who knows which card: itself if it does, else
        the same rules compiled again with ``knowledge=True`` (kept)."""
        if self.knowledge:
            return self
        twin = getattr(self, "_knowing", None)
        if twin is None:
            twin = self._knowing = self._again(self.overrides, True)
        return twin

    def _again(self, params: dict, knowledge: bool) -> "Game":
        """The same rules compiled with ``params``, keeping who knows which
        card or not, with this game's chance, coverage and checks."""
        coverage, check = getattr(self, "coverage", False), getattr(self, "check_invariants", False)
        game = Game(compile_game(self.checked, params, self.explicit_chance, coverage=coverage,
                                 check_invariants=check, knowledge=knowledge),
                    self.checked, self.path, self.explicit_chance, params)
        game.coverage, game.check_invariants = coverage, check
        return game


def load(path, overrides: dict | None = None, /, explicit_chance: bool = False, coverage: bool | str = False,
         check_invariants: bool = False, knowledge: bool = True, **params) -> Game:
    """Parse, check and compile a rules file, its parameters set by name
    (``load(path, years=2)``) or in a dict (``load(path, {"years": 2})``,
    for a parameter named like one of these options).  Raises
    :class:`rulelang.RulesError` for a bad file and :class:`ParamError` for
    a bad parameter.  For the fuzzer: ``coverage=True`` counts, in
    ``game.machine``, each pass through a branch, loop and choice
    (``coverage="lines"``: each statement too);
    ``check_invariants=True`` checks the declared invariants and capacities
    after every statement that moves cards or sets a variable.
    ``knowledge=False``: the game does not keep track of who has seen which
    card, which nothing in the rules reads, only observations, ``knows``
    and ``resample`` (they then raise :class:`~interpreter.runtime.NoKnowledge`):
    the same games, the same legal actions, played faster, for bots that
    read neither and for the fuzzer."""
    params = {**(overrides or {}), **params}
    checked = rulelang.load_checked(Path(path))
    machine = compile_game(checked, params, explicit_chance, coverage=coverage, check_invariants=check_invariants,
                           knowledge=knowledge)
    game = Game(machine, checked, str(path), explicit_chance, params)
    game.coverage = coverage
    game.check_invariants = check_invariants
    return game


__all__ = ["Game", "load", "RulesError", "ParamError"]
