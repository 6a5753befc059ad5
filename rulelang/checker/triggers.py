"""Checks of triggers (``when ... enters``, ``after every action``, ``before
every turn``) and of the game's record (``record`` variables and the
``achievements(p):`` section).
"""

from __future__ import annotations

from .. import ast as A
from ..diagnostics import did_you_mean
from .base import CheckerBase
from .model import ERR
from .scope import Scope


def _blocks(body):
    yield body
    for st in body:
        if isinstance(st, A.If):
            for _, b in st.branches:
                yield from _blocks(b)
            if st.else_body is not None:
                yield from _blocks(st.else_body)
        elif isinstance(st, (A.Repeat, A.For)):
            yield from _blocks(st.body)


class TriggerChecks(CheckerBase):
    """Triggers and the record; their bodies are checked as statements."""

    def check_trigger(self, t: A.Trigger):
        scope = Scope()
        # a trigger's body runs where its event happens: like an action's
        # effects, it may not hold a while loop or a turn block (see stmt).
        # A card may enter a zone outside every turn (in setup): there,
        # "me", choose and can() would have no player
        ctx = {"turn": t.event != "enter", "action": None, "trigger": True, "nested": True,
               "enter_trigger": t.event == "enter"}
        card_slot = owner_slot = None
        if t.event == "enter":
            z = self.g.zones.get(t.zone)
            if z is None:
                self.err("RL101", f'unknown zone "{t.zone}"' + did_you_mean(t.zone, self.g.zones), t.span)
            else:
                if t.owner is not None and not z.per_player:
                    self.err("RL104", f'"{t.zone}" is one zone for the table: write "enters {t.zone}" '
                             "without a player", t.span)
                if z.kind not in ("pile", "grid"):
                    self.err("RL103", f'triggers watch cards entering a pile zone; "{t.zone}" is a row of stacks',
                             t.span)
            if t.card is not None and t.card.value not in self.g.card_names:
                self.err("RL101", f'no card named "{t.card.value}"' + did_you_mean(t.card.value, self.g.card_names),
                         t.card.span)
            card_slot = self.new_slot()
            if t.var is not None:
                self._bind(scope, t.var, "card", card_slot, t.span)
            if t.owner is not None:
                owner_slot = self.new_slot()
                self._bind(scope, t.owner, "player", owner_slot, t.span)
            if t.cond is not None:
                self.expect(self.expr(t.cond, scope, ctx), "bool", t.cond, "the trigger's condition")
        self.g.trigger_slots[id(t)] = (card_slot, owner_slot)
        self.g.triggers.append(t)
        if t.event == "action":
            for b in _blocks(t.body):
                for st in b:
                    if isinstance(st, A.Choose):
                        self.err("RL109", 'a choose in "after every action" would offer an action, after '
                                 "which the trigger would fire again: put the choice in the flow", st.span)
        self.check_block(t.body, scope, ctx)

    def _bind(self, scope, name, typ, slot, span):
        if name in self.global_names or name in ("me", "players", "player_count"):
            self.err("RL102", f'"{name}" is already defined; choose another name', span)
        scope.names[name] = (typ, slot, False)

    def check_record_var(self, v: A.Var):
        if not v.record or id(v) not in self.g.types:
            return
        if v.kind == "card var":
            self.err("RL109", "a game's record keeps variables of the table or of each player, "
                     "not card vars", v.span)
        t = self.g.types[id(v)]
        if t not in ("int", "bool", ERR):
            self.err("RL103", "a record variable counts (int) or flags (bool); "
                     f'"{v.name}" is another type', v.span)

    def check_achievements(self, a: A.Achievements):
        if self.g.achievements is not None:
            self.err("RL102", 'a second "achievements" section', a.span)
            return
        self.g.achievements = a
        scope = Scope()
        slot = self.new_slot()
        self.g.achievement_slot = slot
        scope.names[a.var] = ("player", slot, False)
        seen = set()
        for item in a.items:
            if item.text in seen:
                self.err("RL102", f'the achievement "{item.text}" is listed twice', item.span)
            seen.add(item.text)
            self.expect(self.expr(item.cond, scope, {"turn": False, "achievement": True}), "bool", item.cond,
                        "an achievement")
