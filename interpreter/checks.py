"""The checks of a position: the state key, the declared invariants and the
capacities, every card in one place, the scores; and the words a failed
evaluation is reported in.

A mixin of :class:`interpreter.machine.Machine` (its tables and a state);
the fuzzer and ``explore`` call these between steps.
"""

from __future__ import annotations

import marshal
from itertools import chain, repeat
from operator import itemgetter, mul

from .runtime import MAX_WORK, RuleError

# What a failed evaluation raises (max of nothing, an index past the end, a
# division by zero, ...): turned into RuleErrors with the span of the rules.
EVAL_ERRORS = (IndexError, ZeroDivisionError, ValueError, KeyError, TypeError, OverflowError)
# A part of the small key read by a subscript each while there are no more than these
# (see Checks.small_key_for); more are read by one slice or getter.
FEW_PARTS = 16
_BYTE = [bytes([i]) for i in range(256)]  # each place's index as a byte (cards_in_place)


class InvariantBroken(Exception):
    """Raised, in machines compiled with ``check_invariants``, when a
    declared invariant or a zone capacity fails between two steps."""

    def __init__(self, message, span=None):
        super().__init__(message)
        self.message = message
        self.span = span


def _explain(err) -> str:
    """A failed evaluation in the words of the rules language, not Python's."""
    if isinstance(err, IndexError):
        return "there is no such card or stack (an empty pile, or an index past the end)"
    if isinstance(err, ZeroDivisionError):
        return "division by zero"
    if isinstance(err, OverflowError):
        return "a number too large to compute with"
    text = str(err)
    for f in ("max", "min"):
        if text.startswith(f"{f}()"):
            return f"{f} of nothing (an empty pile or list)"
    if "not in list" in text or "not in tuple" in text:
        return "that card or value is not there"
    if isinstance(err, ValueError):
        return "a value out of its range here"
    return "a value of the wrong kind here (an empty place, or nothing where a card or a number is wanted)"


def _getter(indices):
    """A function of a list giving its items at ``indices`` as a tuple, at C speed."""
    if len(indices) == 1:
        i = indices[0]
        return lambda xs: (xs[i],)
    return itemgetter(*indices) if indices else (lambda xs: ())


class MachineChecks:
    """The checks of a position (a mixin of the Machine)."""

    def state_key(self, st) -> tuple:
        """Everything that decides the game from here on, save the random
        generator and who knows what: equal keys = the same position."""
        Z = list(map(tuple, st.Z))
        for i in self.stack_instances:
            Z[i] = tuple(map(tuple, st.Z[i]))
        if self.grid_instances:
            P = st.P
            for i in self.grid_instances:
                Z[i] = tuple((c, P[c]) for c in st.Z[i])
        V = tuple(st.V)
        if list in map(type, V):  # a list value: as a tuple (most games hold none)
            V = tuple(tuple(v) if isinstance(v, list) else v for v in V)
        L = st.L
        F = tuple(map(L.__getitem__, self.flow_slots))
        if list in map(type, F):
            F = tuple(tuple(v) if isinstance(v, list) else v for v in F)
        return (tuple(Z), V, tuple(st.C), F, st.pc, st.me, st.chance_n, st.is_terminal,
                tuple(st.F) if self.face_down else ())

    def small_key_for(self, n: int):
        """The function giving a position of ``n`` players its small key: a
        hash of what a position cannot come back without (how many cards
        each place holds, the variables, where the flow stands; not the
        items a loop goes through, which its count and the flow around it
        mostly tell apart: a part left out can only give two positions one
        key, which the check allows).  Two equal
        positions have one small key; a small key seen once in a game means
        no position of it came back, which is all the fuzzer's search for a
        cycle needs to know at most steps (see fuzz_game.play_game).  About
        half the cost of :meth:`position_bytes`.  Written once per player
        count (the fuzzer asks at each game)."""
        small = self._small_keys.get(n)
        if small is None:
            small = self._small_keys[n] = self._small_key_written(n)
        return small

    def _small_key_written(self, n: int):
        """:meth:`small_key_for`, written out."""
        from .compiler.source import Namespace  # the generated code's one gate (see there)

        # one tuple, written out for this machine: each live place's size, the variables,
        # the flow slots, then pc, me, chance and is_terminal.  Each part is read by a subscript
        # (quicker than a tuple made by map or a getter, for a few of them), the variables
        # and the flow slots of a game with many by one slice or getter (at C speed);
        # a slot a let sets to a list is read as a tuple (a list has no hash)
        ns = Namespace()
        nvars = self.winners_index + 1 + (self.stride if self.turns_base is not None else 0)  # see layout
        slots = [int(k) for k in self.flow_slots if k not in self.list_slots and k not in self.list_lets]
        listed = [int(k) for k in self.flow_slots if k in self.list_lets and k not in self.list_slots]
        parts = [f"len(Z[{int(i)}])" for i in self.live_instances(n)]
        # (not the parameters read from the state, the same all game long: the first
        # variables, as .compiler.late declares them)
        first = len(self.late_indices)
        assert self.late_indices == tuple(range(first)), self.late_indices
        if nvars - first <= FEW_PARTS:
            parts += [f"V[{i}]" for i in range(first, nvars)]
        else:
            parts.append(f"tuple(V[{int(first) or ''}:{int(nvars)}])")
        if len(slots) <= FEW_PARTS:
            parts += [f"L[{k}]" for k in slots]
        elif slots:
            parts.append(f"{ns.ref(_getter(slots), '_l')}(L)")
        parts += [f"(tuple(L[{k}]) if L[{k}].__class__ is list else L[{k}])" for k in listed]
        parts += ["st.pc", "st.me", "st.chance_n", "st.is_terminal"]
        src = "\n".join(["def _small(st):", " Z = st.Z", " V = st.V", " L = st.L", f" key = ({', '.join(parts)},)",
                         " try:", "  return hash(key)",  # (a variable that holds a list: as bytes)
                         " except TypeError:", f"  return {ns.ref(self._small_key_of_lists, '_b')}(key)"]) + "\n"
        return ns.define(src, "_small")

    @staticmethod
    def _small_key_of_lists(key) -> int:
        """A small key holding a list (a variable or a flow slot kept as one): written as bytes."""
        return hash(marshal.dumps(key, 2))

    def _getters(self, n: int) -> tuple:
        """(Z -> the places a game of ``n`` players can use, L -> the flow slots' values), read at C speed."""
        getters = self._position_getters.get(n)
        if getters is None:
            live = self.live_instances(n)
            places = itemgetter(*live) if len(live) > 1 else itemgetter(slice(live[0], live[0] + 1))
            getters = self._position_getters[n] = (places,
                                                   itemgetter(*self.flow_slots) if self.flow_slots else _nothing)
        return getters

    def position_bytes(self, st) -> bytes:
        """The position as :meth:`state_key` sees it, written by marshal
        (format 2: no back-references, so equal numbers, lists and
        tuples give equal bytes, whatever their history; a state holds no
        strings): about twice as fast, and not a Python object
        per zone for the garbage collector, which the fuzzer's search for a
        repeated position needs after every step.  (It tells a bool from an
        int and a list from a tuple, where the key does not: for a repeated
        position that can only mean a repeat not seen, never a false one.)"""
        places, flow = self._getters(st.n)
        parts = [places(st.Z), st.V, st.C, flow(st.L), st.pc, st.me, st.chance_n, st.is_terminal]
        if self.face_down:
            parts.append(st.F)
        if self.grid_instances:
            P = st.P
            Z = st.Z
            parts.append([list(map(P.__getitem__, Z[i])) for i in self.grid_instances])
        try:
            return marshal.dumps(parts, 2)
        except ValueError:  # pragma: no cover - a value marshal cannot write: the key, as bytes
            return repr(self.state_key(st)).encode()

    def live_instances(self, n: int) -> list:
        """The zone instances a game of ``n`` players can put cards in: a
        shared zone's first, a zone per player's first ``n`` (the others stay empty)."""
        return [z.base + p for z in self.zones for p in range(n if z.per_player else 1)]

    def capacities_checked(self, st, capacities) -> None:
        """Raise :class:`InvariantBroken` if one of these zones (entries of
        ``self.capacities``) holds more than its capacity."""
        if not self.capacities_hold(st, capacities):
            message, span = self.broken_capacities(st)[0]
            raise InvariantBroken(message, span)

    def assert_invariants(self, st) -> None:
        """Raise :class:`InvariantBroken` if an ``always invariant`` fails now
        (checked after every step when fuzzing; the other invariants hold
        between decisions, and are checked there by broken_invariants; the
        capacities, right after each move, by :meth:`capacities_checked`)."""
        for f, message, span in self.always_invariants:
            try:
                ok = f(st)
            except EVAL_ERRORS as err:
                raise InvariantBroken(f"invariant could not be evaluated: {_explain(err)}", span) from None
            if not ok:
                raise InvariantBroken(message, span)

    def capacities_hold(self, st, capacities=None) -> bool:
        """Is every zone within its capacity?  (The quick test; see broken_capacities.)"""
        Z, zones, n = st.Z, self.zones, st.n
        for index, _, per_player, _, cap, _ in self.capacities if capacities is None else capacities:
            base = zones[index].base
            if max(map(len, Z[base:base + (n if per_player else 1)])) > cap:
                return False
        return True

    def broken_capacities(self, st) -> list:
        """[(message, span)] for each zone over its capacity."""
        out = []
        for index, name, per_player, kind, cap, span in self.capacities:
            for p in (range(st.n) if per_player else (0,)):
                size = len(st.Z[self.zones[index].base + p])
                if size > cap:
                    who = f" of player {p + 1}" if per_player else ""
                    unit = "stacks" if kind == "stacks" else "cards"
                    out.append((f"{name}{who} holds {size} {unit}, over its capacity of {cap}", span))
        return out

    def invariants_hold(self, st, kept=None) -> bool:
        """Do the declared invariants and the capacities all hold?  The quick
        test of the fuzzer's every step; :meth:`broken_invariants` says which
        fail, and why.  ``kept``: see :meth:`holds_for`."""
        if kept is not None:
            return self.holds_for(st.n)(st, kept)
        self.work_left = MAX_WORK
        try:
            return all(f(st) for f, _, _ in self.invariants) and not (
                self.capacities and self.broken_capacities(st))
        except (*EVAL_ERRORS, RuleError):
            return False

    def holds_for(self, n: int):
        """:meth:`invariants_hold` for the games of ``n`` players, as a
        function of (state, kept), where ``kept`` (a
        :class:`interpreter.kept.Kept`, one per game) remembers what the
        invariants that read only places (and variables, card variables,
        cells and faces) read when they last held: while that stays the same,
        they hold still, and are not evaluated again."""
        holds = self._hold_plans.get(n)
        if holds is not None:
            return holds
        from .kept import KeptPlan
        each = [f for (f, _, _), r in zip(self.invariants, self.invariant_reads) if r is None]  # every time
        plan = KeptPlan(self, n)
        first, later = (plan.first, plan.later) if plan.functions or plan.every else (None, None)
        capacities = self.capacities_hold if self.capacities else None
        # a machine that checks them after each step that can fill a zone need not here, save at a
        # game's first check: the cards laid out in the first zone came there by no statement
        per_step = self.capacities_per_step
        if first is not None and capacities is None:  # the generated check alone (it evaluates each too)
            later.plan = plan  # (for tests)
            self._hold_plans[n] = later
            return later

        def holds(st, kept) -> bool:
            self.work_left = MAX_WORK
            try:
                if first is not None:
                    if not later(st, kept):  # each, then the kept ones (the first check: plan.first)
                        return False
                else:
                    for f in each:
                        if not f(st):
                            return False
            except (*EVAL_ERRORS, RuleError):
                return False
            if capacities is None:
                return True
            start, kept.started = not kept.started, True
            return (per_step and not start) or capacities(st)
        holds.plan = plan  # (for tests)
        self._hold_plans[n] = holds
        return holds

    def broken_invariants(self, st, declared_only=False, scores=True) -> list:
        """[(message, span)] for every invariant that does not hold: the
        declared ones, each zone's capacity, and unless ``declared_only``
        every card in exactly one place and (if ``scores``) whole-number
        scores that can be computed.  ``scores`` may also be the scores
        already computed, or the :class:`RuleError` computing them gave."""
        self.work_left = MAX_WORK
        out = []
        for f, message, span in self.invariants:
            try:
                ok = f(st)
            except EVAL_ERRORS as err:
                out.append((f"invariant could not be evaluated: {_explain(err)}", span))
                continue
            except RuleError as err:  # a helper's own error (the cell of a card not in a grid...)
                out.append((f"invariant could not be evaluated: {err.message}", span))
                continue
            if not ok:
                out.append((message, span))
        out += self.broken_capacities(st)
        if declared_only:
            return out
        if not self.cards_in_place(st):
            out += self.misplaced_cards(st)
        if scores is False:
            return out
        if scores is True:
            try:
                scores = self.scores(st)
            except RuleError as err:
                scores = err
        if isinstance(scores, RuleError):
            out.append((scores.message, scores.span))
        elif set(map(type, scores)) != {int}:  # whole numbers, not bools (nor int subclasses)
            out.append((f"scores are not whole numbers: {scores}", None))
        return out

    def cards_in_place(self, st) -> bool:
        """Is every card in play in exactly one place, the one the engine
        records for it?  (The quick test of every step of the fuzzer;
        :meth:`misplaced_cards` says what is wrong.)"""
        loc, Z = st.loc, st.Z
        if self.stack_instances:  # a row of stacks: its cards, in one list
            Z = list(Z)
            for i in self.stack_instances:
                Z[i] = list(chain.from_iterable(Z[i]))
        # each card lies in the place the engine records, and only once: all at C speed, the
        # places as bytes (a place's index repeated as many times as it has cards) where they fit
        cards = list(chain.from_iterable(Z))
        if not len(cards) == len(st.inplay) == len(set(cards)):
            return False
        if len(Z) <= len(_BYTE):
            try:
                return bytes(map(loc.__getitem__, cards)) == b"".join(map(mul, _BYTE, map(len, Z)))
            except (ValueError, TypeError):  # a place recorded past the last one's index, or no index
                return False
        return list(map(loc.__getitem__, cards)) == list(chain.from_iterable(map(repeat, range(len(Z)), map(len, Z))))

    def misplaced_cards(self, st) -> list:
        out = []
        seen = {}
        stacks = self.stack_instances
        for inst, z in enumerate(st.Z):
            for c in (x for s in z for x in s) if inst in stacks else z:
                if c in seen:
                    out.append((f"{self.card_names[c]} lies in two places at once", None))
                seen[c] = inst
                if st.loc[c] != inst:
                    out.append((f"{self.card_names[c]} is not where the engine thinks", None))
        if len(seen) != len(st.inplay):
            missing = [self.card_names[c] for c in st.inplay if c not in seen]
            out.append((f"cards lost: {', '.join(missing[:5])}", None))
        return out


def _nothing(L) -> tuple:
    return ()
