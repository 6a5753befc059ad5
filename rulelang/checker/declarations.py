"""Checks of the declarations: the one-of sections (game, players, ...),
enums, card attributes, parameters, cards, zones, variables, the deck,
functions and the outcome.

Declaring puts each name in the checked game; the bodies (default values, deck
conditions, function bodies) are checked once every name is known, with the
expression checks of :mod:`.expressions`.
"""

from __future__ import annotations

from .. import ast as A
from ..diagnostics import Span, did_you_mean
from .base import CheckerBase
from .model import ERR, ZoneInfo
from .scope import Scope

ZONE_KINDS = ("pile", "stacks")
VISIBILITIES = ("public", "owner", "hidden")


class DeclarationChecks(CheckerBase):
    """Declarations, in the order :meth:`Checker.run` visits them."""

    def _singletons(self, by_type):
        file_span = Span(self.m.file, 1, 1, 1, 2)
        for cls, what, required in ((A.Game, "game", False), (A.Players, "players", True),
                                    (A.Cards, "cards", True), (A.Deck, "deck", False),
                                    (A.Attrs, "card attributes", False), (A.Setup, "setup", False),
                                    (A.Play, "play", True), (A.Outcome, "outcome", True),
                                    (A.Heuristic, "heuristic", False)):
            found = by_type.get(cls, [])
            if not found and required:
                self.err("RL108", f'the rules have no "{what}" section', file_span)
            for extra in found[1:]:
                self.err("RL102", f'a second "{what}" section', extra.span, [f"the first is at {found[0].span}"])
        if by_type.get(A.Game):
            self.g.title = by_type[A.Game][0].title
        if by_type.get(A.Players):
            p = by_type[A.Players][0]
            if not (1 <= p.low <= p.high <= 32):
                self.err("RL116", "player counts must satisfy 1 <= low <= high <= 32", p.span)
            else:
                self.g.players = (p.low, p.high)
        if by_type.get(A.Outcome):
            self.g.outcome = by_type[A.Outcome][0]
    # ------------------------------------------------------------ declarations
    def check_enum(self, e: A.Enum):
        if not self.declare_global(e.name, e.span, "an enum"):
            return
        members = []
        for m in e.members:
            if self.declare_global(m.id, m.span, "an enum member"):
                self.g.members[m.id] = (e.name, len(members))
            members.append(m.id)
        if len(members) > 60:
            self.err("RL116", "an enum may have at most 60 members", e.span)
        self.g.enums[e.name] = members

    def resolve_type(self, t, allow=("int", "bool", "player", "card", "stack", "pile", "cell")) -> str:
        if isinstance(t, A.TypeName):
            if t.name in allow:
                return t.name
            if t.name in self.g.enums:
                return "enum:" + t.name
            self.err("RL101", f'unknown type "{t.name}"' + did_you_mean(t.name, list(allow) + list(self.g.enums)), t.span)
            return ERR
        if isinstance(t, A.TypeSet):
            if t.elem in self.g.enums:
                return "set:" + t.elem
            self.err("RL101", f'"set of" needs an enum; "{t.elem}" is not one'
                     + did_you_mean(t.elem, self.g.enums), t.span)
            return ERR
        if isinstance(t, A.TypeList):
            if t.elem in ("int", "card", "player", "stack", "bool", "pile", "cell"):
                return "list:" + t.elem
            self.err("RL101", f'unknown list element type "{t.elem}"', t.span)
            return ERR
        return ERR

    def check_attrs(self, a: A.Attrs):
        for i, d in enumerate(a.attrs):
            if d.name in self.g.card_attrs:
                self.err("RL102", f'card attribute "{d.name}" is defined twice', d.span)
                continue
            if d.name == "name":
                self.err("RL102", 'every card already has a "name"', d.span)
                continue
            self.g.card_attrs[d.name] = (len(self.g.card_attrs), self.resolve_type(d.type, ("int", "bool")))

    def check_param_decl(self, p: A.Param):
        if not self.declare_global(p.name, p.span, "a parameter"):
            return
        t = self.resolve_type(p.type, ("int", "bool"))
        self.g.params[p.name] = p
        self.g.types[id(p)] = t

    def check_param_values(self, p: A.Param):
        if p.name not in self.g.params or self.g.params[p.name] is not p:
            return
        t = self.g.types[id(p)]
        scope = Scope()
        dt = self.expr(p.default, scope, {"const": True})
        self.expect(dt, t, p.default, "the default value")
        if p.low is not None:
            if t != "int":
                self.err("RL110", "only int parameters take a range", p.low.span)
            self.expect(self.expr(p.low, scope, {"const": True}), "int", p.low, "the range's low bound")
            self.expect(self.expr(p.high, scope, {"const": True}), "int", p.high, "the range's high bound")
            lo, hi, d = p.low, p.high, p.default
            if t == "int" and all(isinstance(x, A.IntLit) for x in (lo, hi, d)):
                if lo.value > hi.value:
                    self.err("RL110", f"the range {lo.value}..{hi.value} is empty", lo.span)
                elif not lo.value <= d.value <= hi.value:
                    self.err("RL110", f"the default {d.value} is outside the range {lo.value}..{hi.value}", d.span)

    def check_cards(self, c: A.Cards):
        attrs_list = sorted(self.g.card_attrs.items(), key=lambda kv: kv[1][0])
        for row in c.rows:
            if len(row.values) != len(attrs_list):
                names = ", ".join(n for n, _ in attrs_list) or "none"
                self.err("RL106", f'card "{row.name}" has {len(row.values)} values; the card attributes are: {names}',
                         row.span)
                continue
            values = []
            for v, (aname, (_, atype)) in zip(row.values, attrs_list):
                values.append(self.card_value(v, aname, atype, row))
            if row.copies < 1:
                self.err("RL106", "a card needs at least one copy", row.span)
            # expand at most one card past the limit (reported below), never *10**20 of them
            for _ in range(max(1, min(row.copies, 4001 - len(self.g.cards)))):
                if row.name not in self.g.card_names:
                    self.g.card_names[row.name] = len(self.g.cards)
                self.g.cards.append((row.name, tuple(values), row.span))
        if len(self.g.cards) > 4000:
            self.err("RL106", "at most 4000 cards", c.span)

    def card_value(self, v: A.CardValue, aname, atype, row):
        if atype == ERR:
            return 0
        if atype == "int":
            if v.kind != "int":
                self.err("RL106", f'card "{row.name}": attribute "{aname}" wants a number', v.span)
                return 0
            if abs(v.value) > 10**12:
                self.err("RL116", "number too large (the limit is 10**12)", v.span)
                return 0
            return v.value
        if atype == "bool":
            if v.kind == "name" and v.value in ("true", "false"):
                return v.value == "true"
            self.err("RL106", f'card "{row.name}": attribute "{aname}" wants true or false', v.span)
            return False
        enum = atype.split(":", 1)[1]
        members = self.g.enums.get(enum, [])
        if atype.startswith("enum:"):
            if v.kind != "name" or v.value not in members:
                shown = v.value if v.kind != "set" else "{...}"
                self.err("RL106", f'card "{row.name}": "{shown}" is not a {enum}'
                         + (did_you_mean(str(v.value), members) if v.kind == "name" else ""), v.span)
                return 0
            return members.index(v.value)
        # set
        if v.kind != "set":
            self.err("RL106", f'card "{row.name}": attribute "{aname}" wants a set like {{a, b}}', v.span)
            return 0
        mask = 0
        for name in v.value:
            if name not in members:
                self.err("RL106", f'card "{row.name}": "{name}" is not a {enum}' + did_you_mean(name, members), v.span)
            else:
                mask |= 1 << members.index(name)
        return mask

    def check_zone(self, z: A.Zone):
        if not self.declare_global(z.name, z.span, "a zone"):
            return
        kind, per_player, vis, capacity, box = "pile", False, "public", None, None
        for opt in z.opts:
            w = " ".join(opt.words)
            if opt.words[0] == "grid":
                kind = "grid"
                box = self.grid_box(opt)
            elif opt.words[0] == "capacity":
                if len(opt.words) != 2:
                    self.err("RL107", 'write "capacity N" (a number or an int parameter)', opt.span)
                elif opt.words[1].isdigit():
                    if len(opt.words[1].lstrip("0")) > 13 or int(opt.words[1]) > 10**12:  # int() refuses 4300+ digits
                        self.err("RL116", "number too large (the limit is 10**12)", opt.span)
                    else:
                        capacity = int(opt.words[1])
                elif opt.words[1] in self.g.params and self.g.types.get(id(self.g.params[opt.words[1]])) == "int":
                    capacity = opt.words[1]
                else:
                    self.err("RL107", f'capacity takes a number or an int parameter, not "{opt.words[1]}"'
                             + did_you_mean(opt.words[1], self.g.params), opt.span)
            elif w in ZONE_KINDS:
                kind = w
            elif w == "per player":
                per_player = True
            elif w in VISIBILITIES:
                vis = w
            else:
                options = list(ZONE_KINDS) + ["grid W by H"] + list(VISIBILITIES) + ["per player", "capacity N"]
                self.err("RL107", f'unknown zone option "{w}"' + did_you_mean(w, options), opt.span,
                         ["zone options: " + ", ".join(options)])
        if vis == "owner" and not per_player:
            self.err("RL107", 'an "owner" zone must be "per player"', z.span)
        self.g.zones[z.name] = ZoneInfo(z.name, len(self.g.zones), kind, per_player, vis, z.span, capacity, box)

    def grid_box(self, opt) -> tuple:
        """``grid W by H [either way]``: the box every layout must fit."""
        words = opt.words
        shape = len(words) in (4, 6) and words[2] == "by" and words[1].isdigit() and words[3].isdigit() \
            and (len(words) == 4 or words[4:] == ("either", "way"))
        if not shape:
            self.err("RL107", 'write a grid as "grid W by H", or "grid W by H either way" when it may '
                     'also lie H by W', opt.span)
            return (4, 4, False)
        w, h = int(words[1]), int(words[3])
        if not (1 <= w <= 32 and 1 <= h <= 32):
            self.err("RL116", "a grid is 1 to 32 cells each way", opt.span)
            return (4, 4, False)
        return (w, h, len(words) == 6)

    def declare_var(self, v: A.Var):
        if not self.declare_global(v.name, v.span, "a variable"):
            return
        t = self.resolve_type(v.type)
        self.g.types[id(v)] = t
        {"var": self.g.vars, "player var": self.g.player_vars, "card var": self.g.card_vars}[v.kind][v.name] = v
        if v.kind == "card var" and v.name in self.g.card_attrs:
            self.err("RL102", f'"{v.name}" is already a card attribute', v.span)

    def check_var_default(self, v: A.Var):
        if id(v) not in self.g.types:
            return
        scope = Scope()
        if v.kind == "card var":  # the default may read the card's attributes
            slot = self.new_slot(scratch=True)
            scope.names["card"] = ("card", slot, False)
            self.g.res[id(v)] = slot
        t = self.expr(v.default, scope, {"const": True})
        self.expect(t, self.g.types[id(v)], v.default, "the initial value")

    def check_deck(self, d: A.Deck):
        self.g.deck = d.items
        for item in d.items:
            scope = Scope()
            if isinstance(item, A.DeckWhere):
                slot = self.new_slot(scratch=True)
                scope.names["card"] = ("card", slot, False)
                self.g.res[id(item)] = slot
                self.expect(self.expr(item.cond, scope, {"const": True}), "bool", item.cond, "a deck condition")
            else:
                if item.name not in self.g.card_names:
                    self.err("RL101", f'no card is named "{item.name}"' + did_you_mean(item.name, self.g.card_names),
                             item.span)
            if item.when is not None:
                self.expect(self.expr(item.when, Scope(), {"const": True}), "bool", item.when, "a deck condition")

    def check_functions(self):
        # signatures first so that calls can be typed in any order
        for f in self.g.functions.values():
            pslots = []
            scope = Scope()
            for p in f.params:
                t = self.resolve_type(p.type)
                slot = self.new_slot(scratch=True)
                if p.name in scope.names:
                    self.err("RL102", f'parameter "{p.name}" is named twice', p.span)
                scope.names[p.name] = (t, slot, False)
                pslots.append((slot, t))
            self.g.func_slots[f.name] = (pslots, scope)
        self._func_state = {}
        for name in self.g.functions:
            self.function_type(name)

    def function_type(self, name):
        state = self._func_state.get(name)
        if state == "done":
            return self.g.func_types[name]
        f = self.g.functions[name]
        if state == "busy":
            self.err("RL111", f'function "{name}" calls itself (directly or through others); '
                     "recursion is not allowed, so that every step ends", f.span)
            self.g.func_types[name] = ERR
            return ERR
        self._func_state[name] = "busy"
        pslots, pscope = self.g.func_slots[name]
        scope = Scope(pscope)
        ctx = {"function": name}
        lets = []
        for let in f.lets:
            t = self.expr(let.expr, scope, ctx)
            slot = self.new_slot(scratch=True)
            scope.names[let.name] = (t, slot, False)
            self.g.res[id(let)] = slot
            lets.append(slot)
        t = self.expr(f.body, scope, ctx)
        self.g.func_types[name] = t
        self._func_state[name] = "done"
        return t

    def check_heuristic(self, h: A.Heuristic):
        """Like the score: a number for player ``h.var``, read anywhere in the game."""
        scope = Scope()
        slot = self.new_slot()
        self.g.heuristic = h
        self.g.heuristic_slot = slot
        scope.names[h.var] = ("player", slot, False)
        self.expect(self.expr(h.value, scope, {"turn": False}), "int", h.value, "the heuristic")

    def check_outcome(self, o: A.Outcome):
        scope = Scope()
        slot = self.new_slot()
        self.g.outcome_slot = slot
        scope.names[o.var] = ("player", slot, False)
        ctx = {"turn": False}
        self.expect(self.expr(o.score, scope, ctx), "int", o.score, "the score")
        for hilo, e in o.tiebreaks:
            self.expect(self.expr(e, scope, ctx), "int", e, "a tie-break")
        if o.nobody is not None:  # about the game as a whole: no player of its own
            self.expect(self.expr(o.nobody, Scope(), ctx), "bool", o.nobody, '"nobody wins if"')
