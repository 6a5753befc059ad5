"""The statements of the flow that move cards (move, swap, deal, reveal,
shuffle), with the triggers a card entering a zone fires, and, in a
machine that checks invariants, the checks after each step.

A mixin of :class:`.flow.FlowCompiler`: it emits into the same code list.
"""

from __future__ import annotations

from functools import partial

from rulelang import ast as A

from ..runtime import EXEC, JF, JMP, RANDOM, STACK_MASK, STACK_SHIFT, RuleError
from . import effects
from .chance import Shuffle
from .inline import inline_source
from .triggers import cards_moved


class CardStatements:
    """Moves, swaps, deals, reveals and shuffles (a mixin of the flow compiler)."""

    def step_check(self, s) -> None:
        """In a machine that checks invariants after each step: after ``s``
        (and the triggers it fired), if it changes anything, the always
        invariants."""
        m = self.m
        if m.always_invariants and isinstance(s, (A.Move, A.Deal, A.Set, A.AugSet, A.Swap, A.SetRandom,
                                                  A.LetRandom)):
            self.emit(EXEC, m.assert_invariants, None, s.span)

    def checked(self, s) -> None:
        """Right after a move, a deal or a swap (before the triggers it fires,
        which may take the cards away again), in a machine that checks
        invariants: the capacities of the zones it can fill (its
        destination's; all of them when that is not known before play; none
        for a swap, which moves no card in or out of a place)."""
        if not self.check_invariants:
            return
        if isinstance(s, A.Swap):
            return
        m = self.m
        zone = destination_zone(self.g, s.dest)
        caps = [c for c in m.capacities if zone is None or c[1] == zone]
        if caps:
            self.emit(EXEC, partial(m.capacities_checked, capacities=caps), None, s.span)

    def s_Move(self, s):
        move = effects.move(s, self.exprs, self.m)
        triggers = self.triggers.for_destination(s.dest)
        if not triggers:
            self.emit(EXEC, move, None, s.span)
            self.checked(s)
            return
        cards = self.new_slot()
        moving = cards_moved(self.exprs.t(s.what), self.exprs.fn(s.what), (STACK_SHIFT, STACK_MASK))

        def move_noting_cards(st):  # the cards that came from another place entered
            moved = moving(st)
            loc = st.loc
            before = [loc[c] for c in moved]
            move(st)
            st.L[cards] = tuple(c for c, was in zip(moved, before) if loc[c] != was)
        noting = effects.noting_source(self.exprs, s, self.m, cards)
        if noting is not None:  # (a card's move: written in the step, as the move is)
            move_noting_cards = effects.with_source(move_noting_cards, self.exprs, noting, s.span)
        self.emit(EXEC, move_noting_cards, None, s.span)
        self.checked(s)
        self.triggers.after_cards_enter(triggers, cards, s.span)

    def s_Swap(self, s):
        swap = effects.swap(s, self.exprs, self.m)
        triggers = self.triggers.for_destination(None)  # either card may land anywhere
        if not triggers:
            self.emit(EXEC, swap, None, s.span)
            self.checked(s)
            return
        cards = self.new_slot()
        a, b = self.exprs.fn(s.a), self.exprs.fn(s.b)

        def swap_noting_cards(st):
            x, y = a(st), b(st)
            before = st.loc[x], st.loc[y]
            swap(st)
            # a card entered a zone if it changed places (x first, then y)
            st.L[cards] = tuple(c for c, was in zip((x, y), before) if st.loc[c] != was)
        self.emit(EXEC, swap_noting_cards, None, s.span)
        self.checked(s)
        self.triggers.after_cards_enter(triggers, cards, s.span)

    def s_Reveal(self, s):
        self.emit(EXEC, effects.reveal(s, self.exprs, self.m.knowledge), None, s.span)

    def s_Deal(self, s):
        triggers = self.triggers.for_destination(s.dest)
        if not triggers:
            self.emit(EXEC, effects.deal(s, self.exprs, self.m.face_down, self.m.knowledge), None, s.span)
            self.checked(s)
            return
        # one card at a time, each followed by the triggers it fires
        count, src = self.exprs.fn(s.count), self.exprs.fn(s.source)
        left, cards = self.new_slot(), self.new_slot()
        one = effects.deal_one(s, self.exprs, self.m.face_down, self.m.knowledge)

        def start(st):
            st.L[left] = count(st)
        written = inline_source(count)
        if written is not None:  # written inline (see .flowgen)
            start.flow = ("set", ((left, written),))
        self.emit(EXEC, start, None, s.span)
        top = len(self.code)
        def more(st):
            return st.L[left] > 0
        more.flow = ("expr", f"st.L[{int(left)}] > 0")  # written inline (.flowgen)
        jf = self.emit(JF, more, None, s.span)

        index, tests = self.new_slot(), []  # tests: each trigger's, filled in below

        def deal_cards(st):  # dealt on until a card fires a trigger (which may end the game)
            L = st.L
            while L[left] > 0:
                if not st.Z[src(st)]:
                    empty_deal(L[left])
                L[cards] = (one(st),)
                L[left] -= 1
                L[index] = 0
                for fires in tests:
                    if fires(st):
                        return  # the flow fires the triggers for this card, then deals on
            L[cards] = ()
        self.emit(EXEC, deal_cards, None, s.span)
        self.checked(s)
        self.triggers.after_cards_enter(triggers, cards, s.span, index, tests)
        # the same as source, written inline where the flow is generated (the tests known by now;
        # a test written out notes no card: the trigger notes it as it fires, right after, and only
        # the capacity check stands between, which reads no trigger's slots)
        ns = self.exprs.ns
        n, dealt, k = int(left), int(cards), int(index)
        effects.with_source(deal_cards, self.exprs, [
            f"while st.L[{n}] > 0:",
            f"    if not st.Z[{self.exprs.expr(s.source, {})}]:",
            f"        {ns.ref(empty_deal)}(st.L[{n}])",
            *[f"    {line}" for line in effects.deal_one_source(s, self.exprs, self.m.face_down, self.m.knowledge)],
            f"    st.L[{dealt}] = (_c,)",
            f"    st.L[{n}] -= 1",
            f"    st.L[{k}] = 0",
            f"    if {' or '.join(_test_source(ns, fires) for fires in tests)}:",
            "        break",
            "else:",
            f"    st.L[{dealt}] = ()"], s.span)
        self.emit(JMP, top, None, s.span)
        self.patch(jf, len(self.code))

    def s_Shuffle(self, s):
        zone = self.exprs.fn(s.zone)
        slot = self.m.shuffle_slot  # (the one slot beyond the checker's: see compile_machine)
        self.flow_slots.add(slot)

        if not self.m.knowledge:
            def start_shuffle(st):
                st.L[slot] = len(st.Z[zone(st)])
            self.emit(EXEC, start_shuffle, None, s.span)
            self.emit(RANDOM, Shuffle(zone, slot), None, s.span)
            return

        def start_shuffle(st):
            inst = zone(st)
            pile = st.Z[inst]
            seen = st.vis[inst]
            K = st.K
            F = st.F
            for c in pile:  # a shuffled card is known only to who sees the pile (face up)
                K[c] = 0 if F[c] else seen
            st.L[slot] = len(pile)
        self.emit(EXEC, start_shuffle, None, s.span)
        self.emit(RANDOM, Shuffle(zone, slot), None, s.span)


def empty_deal(left):
    raise RuleError(f"cannot deal {left} more cards from an empty pile")


def destination_zone(g, dest):
    """The name of the zone a move or a deal puts cards in, when the rules
    say it by name (a pile, a row of stacks, one of its stacks), else None."""
    while isinstance(dest, A.Index):
        dest = dest.obj
    r = g.res.get(id(dest))
    if r is not None and r[0] == "zone":
        return r[1]
    return None


def _test_source(ns, fires) -> str:
    """A trigger's test in source: as written by .triggers where it has no
    condition (without noting its card, which the trigger does when it
    fires), else a call."""
    kind = getattr(fires, "flow", None)
    return f"({kind[1]})" if kind is not None and kind[0] == "fires" else f"{ns.ref(fires)}(st)"
