"""Triggers compiled away: each trigger's body is laid out again at every
place its event can happen, so the machine needs no event queue.

- ``before every turn``: at the start of each ``turn`` block, ``me`` set;
- ``after every action``: after the effects of each action a ``choose``
  offers (a follow-up choice's action included);
- ``when CARD enters ZONE(p) [if COND]``: after each ``move`` whose cards
  may land in that zone, once per card that entered it, in the order they
  were moved; a ``deal`` into such a zone moves one card at a time, so a
  trigger that ends the game stops the rest of the deal (it deals on,
  without a step of the flow per card, until a card fires one); a ``swap`` that
  puts a card in another zone instance fires too (the first card, then the
  second).

Several triggers for one event fire in the order they are declared.  A
trigger does not fire from its own effects, directly or through other
triggers: when that would happen, it is a rule error (a trigger that fired
itself would never end), raised only if the event really happens.
"""

from __future__ import annotations

from ..runtime import EXEC, JF, JMP, RuleError


MAX_CODE = 200_000  # steps of the compiled flow: trigger bodies are copied, and copies nest


class Triggers:
    def __init__(self, flow):
        self.flow = flow
        g = flow.g
        self.g = g
        by_event = {"enter": [], "action": [], "turn": []}
        for t in g.triggers:
            by_event[t.event].append(t)
        self.enter = by_event["enter"]
        self.action = by_event["action"]
        self.turn = by_event["turn"]
        self.firing = []  # the triggers whose bodies are being laid out, outermost first

    # ------------------------------------------------------------ turn and action
    def before_turn(self, span):
        for t in self.turn:
            self.expand(t, span)

    def after_action(self, span):
        for t in self.action:
            self.expand(t, span)

    def expand(self, t, span):
        """Lay out ``t``'s body here (or a rule error if ``t`` is already firing)."""
        flow = self.flow
        if any(f is t for f in self.firing):
            line = t.span.line

            def fires_itself(st):
                raise RuleError(f"the trigger at line {line} fires again from its own effects; "
                                "it would never end")
            flow.emit(EXEC, fires_itself, None, span)
            return
        self.firing.append(t)
        try:
            flow.probe("trigger", f"trigger at line {t.span.line} fired", t.span)
            flow.flow_slots.update(s for s in self.g.trigger_slots[id(t)] if s is not None)
            flow.block(t.body)
        finally:
            self.firing.pop()
        if len(flow.code) > MAX_CODE:
            raise RuleError(f"the triggers, laid out wherever they can fire (and inside each other), come to "
                            f"more than {MAX_CODE} steps; fire fewer triggers from triggers", t.span)

    # ------------------------------------------------------------ cards entering zones
    def for_destination(self, dest) -> list:
        """The card-entry triggers a move to ``dest`` may fire (those on
        other zones are left out when the zone is known before play)."""
        if not self.enter:
            return []
        r = self.g.res.get(id(dest)) if dest is not None else None
        zone = r[1] if r is not None and r[0] == "zone" else None
        if zone is None:
            return list(self.enter)
        return [t for t in self.enter if t.zone == zone]

    def after_cards_enter(self, triggers, cards_slot, span, index=None, tests=None):
        """For each card listed in ``cards_slot`` (in order), fire each of
        ``triggers`` whose zone now holds it and whose pattern it matches.
        ``index``: the slot counting the cards (a new one if None);
        ``tests``: a list to which each trigger's test is added (a function
        of the state: does the card at ``index`` fire it?  One that does
        notes its card and owner in the trigger's slots, as its firing
        does, before its condition is tested)."""
        flow, g = self.flow, self.g
        m = flow.m
        inst_zone, inst_owner = m.inst_zone, m.inst_owner
        if index is None:
            index = flow.new_slot()
        flow.emit(EXEC, _setter(index, 0), None, span)
        top = len(flow.code)

        def more(st):
            return st.L[index] < len(st.L[cards_slot])
        more.flow = ("expr", f"st.L[{int(index)}] < len(st.L[{int(cards_slot)}])")  # written inline (.flowgen)
        jf_end = flow.emit(JF, more, None, span)
        for t in triggers:
            card_slot, owner_slot = g.trigger_slots[id(t)]
            zone_index = g.zones[t.zone].index
            name_ids = m.card_name_ids
            want = name_ids[g.card_names[t.card.value]] if t.card is not None else None
            cond = flow.exprs.fn(t.cond) if t.cond is not None else None

            def matches(st, card_slot=card_slot, owner_slot=owner_slot, zone_index=zone_index,
                        want=want, cond=cond):
                L = st.L
                c = L[cards_slot][L[index]]
                inst = st.loc[c]
                if inst_zone[inst] != zone_index or (want is not None and name_ids[c] != want):
                    return False
                L[card_slot] = c
                if owner_slot is not None:
                    L[owner_slot] = inst_owner[inst]
                return cond is None or cond(st)
            if cond is None:  # written inline where the flow is generated (.flowgen, .flow_cards)
                matches.flow = _fires_source(flow.exprs.ns, m, cards_slot, index, zone_index, want,
                                             card_slot, owner_slot)
            if tests is not None:
                tests.append(matches)
            jf = flow.emit(JF, matches, None, t.span)
            self.expand(t, t.span)
            flow.patch(jf, len(flow.code))

        def step(st):
            st.L[index] += 1
        step.flow = ("inc", index)
        flow.emit(EXEC, step, None, span)
        flow.emit(JMP, top, None, span)
        flow.patch(jf_end, len(flow.code))


def _fires_source(ns, m, cards_slot, index, zone_index, want, card_slot, owner_slot) -> tuple:
    """A trigger's test with no condition, as ``matches`` makes it, in
    source: ("fires", the test (reading the card listed at ``index``: does it
    lie in the trigger's zone, and bear its name?), the lines its true side
    starts with (the trigger's card, and the owner of the place it lies in)).
    The test itself writes nothing."""
    card = f"st.L[{int(cards_slot)}][st.L[{int(index)}]]"
    test = f"{ns.ref(m.inst_zone, '_iz')}[st.loc[{card}]] == {int(zone_index)}"
    if want is not None:
        test += f" and {ns.ref(m.card_name_ids, '_ni')}[{card}] == {int(want)}"
    sets = [f"st.L[{int(card_slot)}] = {card}"]
    if owner_slot is not None:
        sets.append(f"st.L[{int(owner_slot)}] = {ns.ref(m.inst_owner, '_io')}[st.loc[st.L[{int(card_slot)}]]]")
    return "fires", test, sets


def _setter(slot, value):
    def set_slot(st):
        st.L[slot] = value
    set_slot.flow = ("put", slot, value)  # written inline (.flowgen, .fusion)
    return set_slot


def cards_moved(wt: str, what, stride_mask):
    """A function state -> the tuple of cards a ``move`` of ``what`` (of
    type ``wt``) is about to move, read before it moves them."""
    shift, mask = stride_mask
    if wt == "card":
        return lambda st: (what(st),)
    if wt == "stack":
        return lambda st: tuple(st.Z[what(st) >> shift][what(st) & mask])
    if wt == "stacks":
        return lambda st: tuple(c for s in st.Z[what(st)] for c in s)
    if wt == "pile":
        return lambda st: tuple(st.Z[what(st)])
    return lambda st: tuple(what(st))

