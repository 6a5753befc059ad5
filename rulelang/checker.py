"""The checker: AST -> checked game, or a list of *all* diagnostics.

It resolves every name (locals get a slot number), infers and checks the type
of every expression, and checks the declarations (card rows against the card
attributes, zone options, duplicates, action templates, where statements may
stand).  The result, :class:`CheckedGame`, is what the compiler reads: the
declarations by name, plus two side tables keyed by ``id(node)``: ``types``
and ``res`` (what each name refers to).

Types are small strings: ``int bool player card stack pile stacks players
range set:E enum:E list:T none``; ``error`` silences follow-on diagnostics.
"""

from __future__ import annotations

import attrs

from . import ast as A
from .diagnostics import Diagnostic, Span, did_you_mean

ERR = "error"
COLLECTION_ELEM = {"pile": "card", "stack": "card", "stacks": "stack", "players": "player", "range": "int"}
BUILTIN_TYPES = ("int", "bool", "player", "card", "stack")
ZONE_KINDS = ("pile", "stacks")
VISIBILITIES = ("public", "owner", "hidden")

# builtin functions and their arity (min, max); checked specially below
BUILTINS = {
    "size": (1, 1), "empty": (1, 1), "top": (1, 1), "bottom": (1, 1),
    "sum": (1, 1), "count": (1, 1), "any": (1, 1), "all": (1, 1),
    "min": (1, 2), "max": (1, 2), "sign": (1, 1), "abs": (1, 1),
    "intersection": (1, 1), "union": (1, 1), "least_sum_at_least": (2, 2),
    "next": (1, 2), "previous": (1, 2), "all_cards": (0, 0), "can": (1, 99),
    "stack_of": (1, 1), "increasing": (1, 1), "decreasing": (1, 1),
}
GEN_FUNCS = ("sum", "count", "any", "all", "min", "max", "intersection", "union")
RESERVED = {"me", "players", "player_count", "card"} | set(BUILTINS)
# The compiler copies the effects of each offered action (and of the actions
# their own chooses offer, and so on) after each choose: limits on how deep
# such follow-up choices nest (with the blocks around them), and on how many
# statements the copies come to.
MAX_CHOICE_NESTING = 100
MAX_LAID_OUT = 20_000


def elem_type(t: str) -> str | None:
    if t in COLLECTION_ELEM:
        return COLLECTION_ELEM[t]
    if t.startswith("list:"):
        return t[5:]
    if t.startswith("set:") and t != "set:?":  # a set of enum members iterates over them
        return "enum:" + t[4:]
    return None


@attrs.define
class ZoneInfo:
    name: str
    index: int
    kind: str
    per_player: bool
    visibility: str
    span: Span
    capacity: object = None  # int, the name of an int parameter, or None


@attrs.define
class CheckedGame:
    module: A.Module
    file: str
    title: str = ""
    players: tuple = (2, 2)
    params: dict = attrs.Factory(dict)  # name -> A.Param
    enums: dict = attrs.Factory(dict)  # name -> list of member names
    members: dict = attrs.Factory(dict)  # member -> (enum, index)
    card_attrs: dict = attrs.Factory(dict)  # name -> (index, type)
    cards: list = attrs.Factory(list)  # (name, values tuple, copies, span)
    deck: tuple = ()
    zones: dict = attrs.Factory(dict)  # name -> ZoneInfo
    vars: dict = attrs.Factory(dict)  # name -> A.Var (kind var)
    player_vars: dict = attrs.Factory(dict)
    card_vars: dict = attrs.Factory(dict)
    functions: dict = attrs.Factory(dict)  # name -> A.Function
    func_types: dict = attrs.Factory(dict)  # name -> return type
    func_slots: dict = attrs.Factory(dict)  # name -> (param slots, let slots)
    actions: dict = attrs.Factory(dict)  # name -> A.Action
    action_slots: dict = attrs.Factory(dict)  # name -> (param slots, {let name: slot})
    setup: tuple = ()
    play: tuple = ()
    outcome: A.Outcome | None = None
    outcome_slot: int = 0
    types: dict = attrs.Factory(dict)
    res: dict = attrs.Factory(dict)
    nslots: int = 0
    card_names: dict = attrs.Factory(dict)  # name -> first card id
    # the node ids of expressions whose value is a card name literal
    warnings: list = attrs.Factory(list)
    checker: object = None  # the Checker, kept to check extra expressions later
    invariants: list = attrs.Factory(list)  # A.Invariant




class _Scope:
    def __init__(self, parent=None):
        self.parent = parent
        self.names = {}  # name -> (type, slot, mutable)

    def lookup(self, name):
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def all_names(self):
        out = set()
        s = self
        while s is not None:
            out |= set(s.names)
            s = s.parent
        return out


class Checker:
    def __init__(self, module: A.Module):
        self.m = module
        self.g = CheckedGame(module, module.file)
        self.diags: list[Diagnostic] = []
        self.global_names: dict[str, Span] = {}
        self.slot = 0
        self.used_actions: set[str] = set()

    # ------------------------------------------------------------ helpers
    def err(self, code, msg, span, notes=()):
        self.diags.append(Diagnostic(code, msg, span, "error", tuple(notes)))

    def warn(self, code, msg, span):
        self.diags.append(Diagnostic(code, msg, span, "warning"))

    def new_slot(self):
        self.slot += 1
        return self.slot - 1

    def declare_global(self, name, span, what):
        if name in self.global_names:
            prev = self.global_names[name]
            self.err("RL102", f'"{name}" is defined twice', span, [f"first defined at {prev}"])
            return False
        if name in RESERVED:
            self.err("RL102", f'"{name}" is a built-in name and cannot be redefined as {what}', span)
            return False
        self.global_names[name] = span
        return True

    # ------------------------------------------------------------ entry
    def run(self) -> tuple[CheckedGame, list[Diagnostic]]:
        items = self.m.items
        by_type = {}
        for it in items:
            by_type.setdefault(type(it), []).append(it)
        self._singletons(by_type)
        for e in by_type.get(A.Enum, []):
            self.check_enum(e)
        for a in by_type.get(A.Attrs, []):
            self.check_attrs(a)
        for p in by_type.get(A.Param, []):
            self.check_param_decl(p)
        for c in by_type.get(A.Cards, []):
            self.check_cards(c)
        for z in by_type.get(A.Zone, []):
            self.check_zone(z)
        for v in by_type.get(A.Var, []):
            self.declare_var(v)
        for f in by_type.get(A.Function, []):
            if self.declare_global(f.name, f.span, "a function"):
                self.g.functions[f.name] = f
        for a in by_type.get(A.Action, []):
            if self.declare_global(a.name, a.span, "an action"):
                self.g.actions[a.name] = a
        # bodies, once every name is known
        for p in by_type.get(A.Param, []):
            self.check_param_values(p)
        for v in by_type.get(A.Var, []):
            self.check_var_default(v)
        for d in by_type.get(A.Deck, []):
            self.check_deck(d)
        self.check_functions()
        for a in self.g.actions.values():
            self.check_action(a)
        for s in by_type.get(A.Setup, []):
            self.g.setup = s.body
            self.check_block(s.body, _Scope(), ctx={"turn": False, "action": None})
        for s in by_type.get(A.Play, []):
            self.g.play = s.body
            self.check_block(s.body, _Scope(), ctx={"turn": False, "action": None})
        for o in by_type.get(A.Outcome, []):
            self.check_outcome(o)
        for inv in by_type.get(A.Invariant, []):
            self.expect(self.expr(inv.cond, _Scope(), {"turn": False}), "bool", inv.cond, "an invariant")
            self.g.invariants.append(inv)
        self.check_action_cycles()
        for name, a in self.g.actions.items():
            if name not in self.used_actions:
                self.warn("RL114", f'action "{name}" is never offered by a choose', a.span)
        self.g.nslots = self.slot
        self.g.checker = self
        self.g.warnings = [d for d in self.diags if d.severity == "warning"]
        return self.g, sorted(self.diags, key=lambda d: (d.span.line, d.span.column))

    def _singletons(self, by_type):
        file_span = Span(self.m.file, 1, 1, 1, 2)
        for cls, what, required in ((A.Game, "game", False), (A.Players, "players", True),
                                    (A.Cards, "cards", True), (A.Deck, "deck", False),
                                    (A.Attrs, "card attributes", False), (A.Setup, "setup", False),
                                    (A.Play, "play", True), (A.Outcome, "outcome", True)):
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

    def resolve_type(self, t, allow=("int", "bool", "player", "card", "stack", "pile")) -> str:
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
            if t.elem in ("int", "card", "player", "stack", "bool", "pile"):
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
        scope = _Scope()
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
        kind, per_player, vis, capacity = "pile", False, "public", None
        for opt in z.opts:
            w = " ".join(opt.words)
            if opt.words[0] == "capacity":
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
                options = list(ZONE_KINDS) + list(VISIBILITIES) + ["per player", "capacity N"]
                self.err("RL107", f'unknown zone option "{w}"' + did_you_mean(w, options), opt.span,
                         ["zone options: " + ", ".join(options)])
        if vis == "owner" and not per_player:
            self.err("RL107", 'an "owner" zone must be "per player"', z.span)
        self.g.zones[z.name] = ZoneInfo(z.name, len(self.g.zones), kind, per_player, vis, z.span, capacity)

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
        scope = _Scope()
        if v.kind == "card var":  # the default may read the card's attributes
            slot = self.new_slot()
            scope.names["card"] = ("card", slot, False)
            self.g.res[id(v)] = slot
        t = self.expr(v.default, scope, {"const": True})
        self.expect(t, self.g.types[id(v)], v.default, "the initial value")

    def check_deck(self, d: A.Deck):
        self.g.deck = d.items
        for item in d.items:
            scope = _Scope()
            if isinstance(item, A.DeckWhere):
                slot = self.new_slot()
                scope.names["card"] = ("card", slot, False)
                self.g.res[id(item)] = slot
                self.expect(self.expr(item.cond, scope, {"const": True}), "bool", item.cond, "a deck condition")
            else:
                if item.name not in self.g.card_names:
                    self.err("RL101", f'no card is named "{item.name}"' + did_you_mean(item.name, self.g.card_names),
                             item.span)
            if item.when is not None:
                self.expect(self.expr(item.when, _Scope(), {"const": True}), "bool", item.when, "a deck condition")

    def check_functions(self):
        # signatures first so that calls can be typed in any order
        for f in self.g.functions.values():
            pslots = []
            scope = _Scope()
            for p in f.params:
                t = self.resolve_type(p.type)
                slot = self.new_slot()
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
        scope = _Scope(pscope)
        ctx = {"function": name}
        lets = []
        for let in f.lets:
            t = self.expr(let.expr, scope, ctx)
            slot = self.new_slot()
            scope.names[let.name] = (t, slot, False)
            self.g.res[id(let)] = slot
            lets.append(slot)
        t = self.expr(f.body, scope, ctx)
        self.g.func_types[name] = t
        self._func_state[name] = "done"
        return t

    def check_action(self, a: A.Action):
        scope = _Scope()
        pslots = []
        ctx = {"action": a.name, "turn": True, "params": {}}
        for i, p in enumerate(a.params):
            if p.high is not None:
                self.expect(self.expr(p.domain, scope, ctx), "int", p.domain, "a range bound")
                self.expect(self.expr(p.high, scope, ctx), "int", p.high, "a range bound")
                t = "int"
            else:
                dt = self.expr(p.domain, scope, ctx)
                t = elem_type(dt) if dt != ERR else ERR
                if t is None:
                    self.err("RL103", f'an action parameter ranges over a collection (a zone, players, a..b); '
                             f'this is {dt}', p.domain.span)
                    t = ERR
            if p.name in scope.names:
                self.err("RL102", f'parameter "{p.name}" is named twice', p.span)
            if t == "card" and p.high is None:
                self.check_visible_domain(p)
            slot = self.new_slot()
            scope.names[p.name] = (t, slot, False)
            pslots.append((slot, t, p.name))
        # template
        if a.template is not None:
            import string
            try:
                parts = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(a.template) if f is not None]
            except ValueError:
                parts = []
                self.err("RL115", "the action text has an unmatched brace", a.span)
            fields = [f for f, _, _ in parts]
            for f, spec, conv in parts:
                # the text is filled in with str.format: a format spec or a conversion
                # ("{c:d}", "{c:>999999999}", "{c!r}") would fail or run wild at play time
                if spec or conv:
                    self.err("RL115", f'write a parameter in the action text as "{{{f}}}", without '
                             f'a format ("{{{f}:...}}") or a conversion ("{{{f}!...}}")', a.span)
            for f in fields or ():
                if f not in scope.names:
                    self.err("RL115", f'the action text names "{{{f}}}", which is not a parameter'
                             + did_you_mean(f, scope.names), a.span)
        # preamble: lets and requires first, then effects
        body_scope = _Scope(scope)
        in_preamble = True
        for st in a.body:
            if isinstance(st, (A.Require,)):
                if not in_preamble:
                    self.err("RL109", "a require must come before the action's effects", st.span)
            elif not isinstance(st, A.Let):
                in_preamble = False
        self.g.action_slots[a.name] = pslots
        self.check_block(a.body, body_scope, {"turn": True, "action": a.name}, new_scope=False)

    def check_visible_domain(self, p: A.ActionParam):
        """A card chosen by name must be one the chooser can see: choosing
        among hidden cards by identity would tell the player what they are."""
        d = p.domain
        zone = None
        owner_is_me = False
        if isinstance(d, A.Name) and d.id in self.g.zones:
            zone = self.g.zones[d.id]
        elif isinstance(d, A.Call) and d.func in self.g.zones:
            zone = self.g.zones[d.func]
            owner_is_me = len(d.args) == 1 and isinstance(d.args[0], A.Name) and d.args[0].id == "me"
        if zone is None:
            return
        if zone.visibility == "hidden" or (zone.visibility == "owner" and not owner_is_me):
            self.err("RL117", f'"{p.name}" would choose a card of {zone.name} by name, but those cards are '
                     f'hidden from the player who chooses; choose a position instead '
                     f'(e.g. "i in 1..size({zone.name}...)")', p.domain.span)

    def check_outcome(self, o: A.Outcome):
        scope = _Scope()
        slot = self.new_slot()
        self.g.outcome_slot = slot
        scope.names[o.var] = ("player", slot, False)
        ctx = {"turn": False}
        self.expect(self.expr(o.score, scope, ctx), "int", o.score, "the score")
        for hilo, e in o.tiebreaks:
            self.expect(self.expr(e, scope, ctx), "int", e, "a tie-break")

    def check_action_cycles(self):
        # an action whose effects offer (directly or not) itself again would inline forever
        actions = self.g.actions
        graph = {name: set() for name in actions}
        info = {}  # name -> (statements in its body, [(block depth, offered actions) for each choose])

        def walk(body, depth, sites):
            count = 0
            for st in body:
                count += 1
                if isinstance(st, A.Choose):
                    sites.append((depth, sorted({n.id for n in st.actions if n.id in actions}), st.span))
                for sub in _sub_blocks(st):
                    count += walk(sub, depth + 1, sites)
            return count

        for name, a in actions.items():
            sites = []
            info[name] = (walk(a.body, 0, sites), sites)
            for _, offered, _ in sites:
                graph[name].update(offered)
        # depth-first, without recursion (a chain of a thousand actions is not a deep Python stack)
        state = {}
        order = []  # each action after every action it offers
        cycle = False
        for root in sorted(graph):
            if state.get(root):
                continue
            state[root] = 1
            path, stack = [root], [iter(sorted(graph[root]))]
            while stack:
                m = next(stack[-1], None)
                if m is None:
                    state[path[-1]] = 2
                    order.append(path.pop())
                    stack.pop()
                elif state.get(m) == 1:
                    cycle = True
                    self.err("RL111", f'action "{m}" offers itself again through ' + " -> ".join(path + [m]),
                             actions[m].span)
                elif not state.get(m):
                    state[m] = 1
                    path.append(m)
                    stack.append(iter(sorted(graph[m])))
        if cycle:
            return
        # The compiler lays out the effects of each offered action right after its
        # choose, follow-up choices included: refuse what would be huge or too deep.
        size, depth = {}, {}
        for n in order:
            count, sites = info[n]
            size[n] = count + sum(size[b] for _, offered, _ in sites for b in offered)
            depth[n] = max((d + 1 + max((depth[b] for b in offered), default=0) for d, offered, _ in sites),
                           default=0)
        flow_sites = []
        walk(self.g.setup, 0, flow_sites)
        walk(self.g.play, 0, flow_sites)
        total = 0
        for d, offered, span in flow_sites:
            total += sum(size[b] for b in offered)
            deep = d + 1 + max((depth[b] for b in offered), default=0)
            if deep > MAX_CHOICE_NESTING:
                self.err("RL111", f"choices nest {deep} deep here (an action offered by this choose offers actions "
                         f"that offer others, ...); at most {MAX_CHOICE_NESTING}", span)
                return
            if total > MAX_LAID_OUT:
                self.err("RL111", f"the effects of the actions offered by the chooses up to this one, with their "
                         f"follow-up choices, come to {total} statements; at most {MAX_LAID_OUT}", span)
                return

    # ------------------------------------------------------------ statements
    def check_block(self, body, scope, ctx, new_scope=True):
        inner = _Scope(scope) if new_scope else scope
        ended = False
        for st in body:
            if ended:
                self.warn("RL114", "this statement can never run: the game has ended before it", st.span)
                ended = False
            self.stmt(st, inner, ctx)
            if isinstance(st, A.EndGame):
                ended = True

    def stmt(self, st, scope, ctx):
        if isinstance(st, A.Let):
            t = self.expr(st.expr, scope, ctx)
            if st.name in RESERVED or st.name in self.global_names:
                self.err("RL102", f'"{st.name}" is already defined; choose another name', st.span)
            slot = self.new_slot()
            scope.names[st.name] = (t, slot, ctx.get("action") is None)
            self.g.res[id(st)] = slot
        elif isinstance(st, A.Require):
            if ctx.get("action") is None:
                self.err("RL109", "require belongs in an action", st.span)
            elif ctx.get("nested"):  # the compiler tests requires before the action is offered
                self.err("RL109", "a require must stand at the top of the action, not inside an if or a loop",
                         st.span)
            self.expect(self.expr(st.cond, scope, ctx), "bool", st.cond, "a requirement")
        elif isinstance(st, (A.Set, A.AugSet, A.SetRandom)):
            tt = self.target(st.target, scope, ctx)
            if isinstance(st, A.SetRandom):
                ct = self.expr(st.choices, scope, ctx)
                et = elem_type(ct) if ct != ERR else ERR
                if et is None:
                    self.err("RL103", f"random picks from a collection; this is {ct}", st.choices.span)
                else:
                    self.expect(et, tt, st.choices, "the random choice")
            elif isinstance(st, A.AugSet):
                self.expect(tt, "int", st.target, "the target of " + st.op)
                self.expect(self.expr(st.expr, scope, ctx), "int", st.expr, "the value")
            else:
                self.expect(self.expr(st.expr, scope, ctx), tt, st.expr, "the value")
        elif isinstance(st, A.Move):
            wt = self.expr(st.what, scope, ctx)
            if wt not in ("card", "pile", "stack", "stacks", "list:card", ERR):
                self.err("RL103", f"move takes a card, a zone, a stack or a list of cards; this is {wt}", st.what.span)
            dt = self.expr(st.dest, scope, ctx)
            want = {"top": ("pile", "stack"), "bottom": ("pile", "stack"), "new_stack": ("stacks",)}[st.where]
            if dt != ERR and dt not in want:
                self.err("RL103", f"cannot move cards to a {dt} here; expected " + " or ".join(want), st.dest.span)
        elif isinstance(st, A.Swap):
            self.expect(self.expr(st.a, scope, ctx), "card", st.a, "what is swapped")
            self.expect(self.expr(st.b, scope, ctx), "card", st.b, "what is swapped")
        elif isinstance(st, A.Reveal):
            wt = self.expr(st.what, scope, ctx)
            if wt not in ("card", "pile", "stack", "list:card", ERR):
                self.err("RL103", f"reveal shows a card or a collection of cards; this is {_tname(wt)}", st.what.span)
            tt = self.expr(st.to, scope, ctx)
            if tt not in ("player", "players", "list:player", ERR):
                self.err("RL103", f"reveal shows cards to a player or players; this is {_tname(tt)}", st.to.span)
        elif isinstance(st, A.Shuffle):
            self.expect(self.expr(st.zone, scope, ctx), "pile", st.zone, "what is shuffled")
        elif isinstance(st, A.Deal):
            self.expect(self.expr(st.count, scope, ctx), "int", st.count, "the number of cards")
            self.expect(self.expr(st.source, scope, ctx), "pile", st.source, "where cards are dealt from")
            dt = self.expr(st.dest, scope, ctx)
            if dt not in ("pile", "stack", ERR):
                self.err("RL103", f"cards are dealt to a pile; this is {dt}", st.dest.span)
        elif isinstance(st, A.Choose):
            if not ctx.get("turn"):
                self.err("RL109", 'choose needs a player: put it inside a "turn" block', st.span)
            seen = set()
            for n in st.actions:
                if n.id not in self.g.actions:
                    self.err("RL112", f'unknown action "{n.id}"' + did_you_mean(n.id, self.g.actions), n.span)
                elif n.id in seen:
                    self.err("RL102", f'action "{n.id}" is offered twice', n.span)
                seen.add(n.id)
                self.used_actions.add(n.id)
        elif isinstance(st, (A.EndGame, A.Pass)):
            pass
        elif isinstance(st, A.If):
            for cond, body in st.branches:
                self.expect(self.expr(cond, scope, ctx), "bool", cond, "a condition")
                self.check_block(body, scope, dict(ctx, nested=True))
            if st.else_body is not None:
                self.check_block(st.else_body, scope, dict(ctx, nested=True))
        elif isinstance(st, A.While):
            if ctx.get("action") is not None:
                self.err("RL109", "while loops belong in the game flow, not in an action", st.span)
            self.expect(self.expr(st.cond, scope, ctx), "bool", st.cond, "a condition")
            self.check_block(st.body, scope, dict(ctx, nested=True))
        elif isinstance(st, A.Repeat):
            self.expect(self.expr(st.count, scope, ctx), "int", st.count, "the count")
            inner = _Scope(scope)
            if st.var:
                slot = self.new_slot()
                inner.names[st.var] = ("int", slot, False)
                self.g.res[id(st)] = slot
            else:
                self.g.res[id(st)] = self.new_slot()
            self.g.res[(id(st), "counter")] = self.new_slot()
            self.check_block(st.body, inner, dict(ctx, nested=True), new_scope=False)
        elif isinstance(st, A.For):
            it = self.expr(st.iter, scope, ctx)
            et = elem_type(it) if it != ERR else ERR
            if et is None:
                self.err("RL103", f"for loops run over a collection; this is {it}", st.iter.span)
                et = ERR
            if st.start is not None:
                self.expect(it, "players", st.iter, '"from" (only loops over players take a start)')
                self.expect(self.expr(st.start, scope, ctx), "player", st.start, "the first player")
            inner = _Scope(scope)
            slot = self.new_slot()
            inner.names[st.var] = (et, slot, False)
            self.g.res[id(st)] = slot
            self.g.res[(id(st), "items")] = self.new_slot()
            self.g.res[(id(st), "counter")] = self.new_slot()
            self.check_block(st.body, inner, dict(ctx, nested=True), new_scope=False)
        elif isinstance(st, A.Turn):
            if ctx.get("action") is not None:
                self.err("RL109", "turn blocks belong in the game flow, not in an action", st.span)
            self.expect(self.expr(st.player, scope, ctx), "player", st.player, "whose turn it is")
            self.g.res[(id(st), "saved")] = self.new_slot()
            self.check_block(st.body, scope, dict(ctx, turn=True, nested=True))
        else:  # pragma: no cover
            self.err("RL109", f"unknown statement {type(st).__name__}", st.span)

    def target(self, t, scope, ctx) -> str:
        """Type of an assignable place, recording how it resolves."""
        if isinstance(t, A.Name):
            local = scope.lookup(t.id)
            if local is not None:
                typ, slot, mutable = local
                if not mutable:
                    self.err("RL113", f'"{t.id}" cannot be changed here', t.span)
                self.g.res[id(t)] = ("slot", slot)
                return typ
            if t.id in self.g.vars:
                self.g.res[id(t)] = ("var", t.id)
                return self.g.types[id(self.g.vars[t.id])]
            if t.id in self.g.player_vars:
                self.err("RL113", f'"{t.id}" is a player var: write {t.id}(player)', t.span)
                return ERR
            if t.id in self.g.params:
                self.err("RL113", f'"{t.id}" is a parameter; parameters are fixed for a game', t.span)
                return ERR
            self.err("RL101", f'unknown variable "{t.id}"'
                     + did_you_mean(t.id, list(self.g.vars) + list(scope.all_names())), t.span)
            return ERR
        if isinstance(t, A.Call) and t.func in self.g.player_vars:
            if len(t.args) != 1:
                self.err("RL104", f'"{t.func}" takes one player', t.span)
                return ERR
            self.expect(self.expr(t.args[0], scope, ctx), "player", t.args[0], "the player")
            self.g.res[id(t)] = ("pvar", t.func)
            return self.g.types[id(self.g.player_vars[t.func])]
        if isinstance(t, A.Attr):
            ot = self.expr(t.obj, scope, ctx)
            if t.name in self.g.card_vars:
                self.expect(ot, "card", t.obj, "the card")
                return self.g.types[id(self.g.card_vars[t.name])]
            if t.name in self.g.card_attrs:
                self.err("RL113", f'"{t.name}" is a printed card attribute; declare a "card var" to change a value',
                         t.span)
                return ERR
            self.err("RL105", f'no card var "{t.name}"' + did_you_mean(t.name, self.g.card_vars), t.span)
            return ERR
        self.err("RL113", "only variables can be set", t.span)
        return ERR

    # ------------------------------------------------------------ expressions
    def expect(self, got, want, node, what):
        if got == ERR or want == ERR:
            return
        if got == want:
            return
        if got.startswith("set:") and want == "set:?" or want.startswith("set:") and got == "set:?":
            return
        if want == "player" and got == "int" and isinstance(node, A.IntLit):
            return
        self.err("RL103", f"{what} should be {_tname(want)}, not {_tname(got)}", node.span)

    def expr(self, e, scope, ctx) -> str:
        t = self._expr(e, scope, ctx)
        self.g.types[id(e)] = t
        return t

    def _expr(self, e, scope, ctx) -> str:
        if isinstance(e, A.IntLit):
            if abs(e.value) > 10**12:
                self.err("RL116", "number too large (the limit is 10**12)", e.span)
                return ERR
            return "int"
        if isinstance(e, A.BoolLit):
            return "bool"
        if isinstance(e, A.StrLit):
            if e.value in self.g.card_names:
                return "card"
            self.err("RL101", f'no card is named "{e.value}"' + did_you_mean(e.value, self.g.card_names), e.span)
            return ERR
        if isinstance(e, A.Name):
            return self.name(e, scope, ctx)
        if isinstance(e, A.SetLit):
            enum = None
            for it in e.items:
                if not isinstance(it, A.Name) or it.id not in self.g.members:
                    self.err("RL103", "a set lists members of one enum", it.span)
                    return ERR
                en = self.g.members[it.id][0]
                if enum is not None and en != enum:
                    self.err("RL103", f'"{it.id}" is a {en}, but this set holds {enum}', it.span)
                    return ERR
                enum = en
                self.g.types[id(it)] = "enum:" + en
            return "set:" + (enum or "?")
        if isinstance(e, A.BoolOp):
            for it in e.items:
                self.expect(self.expr(it, scope, ctx), "bool", it, f'each side of "{e.op}"')
            return "bool"
        if isinstance(e, A.Not):
            self.expect(self.expr(e.operand, scope, ctx), "bool", e.operand, '"not"\'s operand')
            return "bool"
        if isinstance(e, A.Neg):
            self.expect(self.expr(e.operand, scope, ctx), "int", e.operand, "a negated value")
            return "int"
        if isinstance(e, A.IfExpr):
            self.expect(self.expr(e.cond, scope, ctx), "bool", e.cond, "the condition")
            a = self.expr(e.then, scope, ctx)
            b = self.expr(e.else_, scope, ctx)
            if ERR in (a, b):
                return ERR
            if a != b and not (a.startswith("set:") and b.startswith("set:")):
                self.err("RL103", f"both branches must have one type: {_tname(a)} and {_tname(b)}", e.span)
                return ERR
            return a
        if isinstance(e, A.BinOp):
            return self.binop(e, scope, ctx)
        if isinstance(e, A.Attr):
            ot = self.expr(e.obj, scope, ctx)
            if ot == ERR:
                return ERR
            if ot != "card":
                self.err("RL105", f'only cards have attributes; this is {_tname(ot)}', e.obj.span)
                return ERR
            if e.name == "name":
                self.err("RL105", "card names are for people; compare cards with a \"Name\" literal", e.span)
                return ERR
            if e.name in self.g.card_attrs:
                return self.g.card_attrs[e.name][1]
            if e.name in self.g.card_vars:
                return self.g.types[id(self.g.card_vars[e.name])]
            self.err("RL105", f'cards have no attribute "{e.name}"'
                     + did_you_mean(e.name, list(self.g.card_attrs) + list(self.g.card_vars)), e.span)
            return ERR
        if isinstance(e, A.Index):
            ot = self.expr(e.obj, scope, ctx)
            self.expect(self.expr(e.index, scope, ctx), "int", e.index, "an index")
            if ot == ERR:
                return ERR
            et = elem_type(ot)
            if et is None or ot in ("players", "range"):
                self.err("RL103", f"cannot index a {_tname(ot)}", e.obj.span)
                return ERR
            return et
        if isinstance(e, A.ListLit):
            if not e.items:
                self.err("RL103", "an empty list has no type; write a comprehension instead", e.span)
                return ERR
            ts = [self.expr(x, scope, ctx) for x in e.items]
            if ERR in ts:
                return ERR
            for x, t in zip(e.items[1:], ts[1:]):
                self.expect(t, ts[0], x, "every item of a list")
            return "list:" + ts[0]
        if isinstance(e, A.ListComp):
            inner, et = self.gen_scope(e, scope, ctx)
            t = self.expr(e.expr, inner, ctx)
            return "list:" + t if t != ERR else ERR
        if isinstance(e, A.CallGen):
            return self.call_gen(e, scope, ctx)
        if isinstance(e, A.Call):
            return self.call(e, scope, ctx)
        self.err("RL103", f"unexpected expression {type(e).__name__}", e.span)  # pragma: no cover
        return ERR

    def gen_scope(self, e, scope, ctx):
        it = self.expr(e.iter, scope, ctx)
        et = elem_type(it) if it != ERR else ERR
        if et is None:
            self.err("RL103", f'"for ... in" runs over a collection; this is {_tname(it)}', e.iter.span)
            et = ERR
        inner = _Scope(scope)
        slot = self.new_slot()
        inner.names[e.var] = (et, slot, False)
        self.g.res[id(e)] = slot
        if e.cond is not None:
            self.expect(self.expr(e.cond, inner, ctx), "bool", e.cond, "a filter")
        return inner, et

    def name(self, e: A.Name, scope, ctx) -> str:
        n = e.id
        local = scope.lookup(n)
        if local is not None:
            self.g.res[id(e)] = ("slot", local[1])
            return local[0]
        if n == "me":
            if ctx.get("const"):
                self.err("RL109", '"me" has no value here', e.span)
                return ERR
            self.g.res[id(e)] = ("me",)
            return "player"
        if n == "players":
            self.g.res[id(e)] = ("players",)
            return "players"
        if n == "player_count":
            self.g.res[id(e)] = ("player_count",)
            return "int"
        if n in self.g.params:
            self.g.res[id(e)] = ("param", n)
            return self.g.types.get(id(self.g.params[n]), ERR)
        if n in self.g.members:
            self.g.res[id(e)] = ("member", n)
            return "enum:" + self.g.members[n][0]
        if n in self.g.enums:  # an enum's name stands for the set of all its members
            self.g.res[id(e)] = ("enum_all", n)
            return "set:" + n
        if ctx.get("const") and (n in self.g.vars or n in self.g.player_vars):
            self.err("RL109", f'"{n}" has no value before the game starts; only parameters and constants may be used here',
                     e.span)
            return ERR
        if n in self.g.vars:
            self.g.res[id(e)] = ("var", n)
            return self.g.types[id(self.g.vars[n])]
        if n in self.g.zones:
            z = self.g.zones[n]
            if z.per_player:
                self.err("RL104", f'"{n}" belongs to each player: write {n}(player)', e.span)
                return ERR
            self.g.res[id(e)] = ("zone", n)
            return z.kind
        if n in self.g.player_vars:
            self.err("RL104", f'"{n}" is a player var: write {n}(player)', e.span)
            return ERR
        known = (scope.all_names() | set(self.g.params) | set(self.g.members) | set(self.g.vars)
                 | set(self.g.zones) | {"me", "players", "player_count"})
        self.err("RL101", f'unknown name "{n}"' + did_you_mean(n, known), e.span)
        return ERR

    def binop(self, e: A.BinOp, scope, ctx) -> str:
        op = e.op
        lt = self.expr(e.left, scope, ctx)
        rt = self.expr(e.right, scope, ctx)
        if ERR in (lt, rt):
            return "bool" if op in ("==", "!=", "<", "<=", ">", ">=", "in", "not in") else ERR
        if op == "+" and lt.startswith("list:"):
            self.expect(rt, lt, e.right, 'the right side of "+"')
            return lt
        if op in ("<", "<=", ">", ">=") and lt == rt and lt in ("player", "pile"):
            return "bool"
        if op in ("+", "-", "*", "/", "%"):
            self.expect(lt, "int", e.left, f'the left side of "{op}"')
            self.expect(rt, "int", e.right, f'the right side of "{op}"')
            return "int"
        if op in ("<", "<=", ">", ">="):
            self.expect(lt, "int", e.left, f'the left side of "{op}"')
            self.expect(rt, "int", e.right, f'the right side of "{op}"')
            return "bool"
        if op in ("==", "!="):
            if lt != rt and not (lt.startswith("set:") and rt.startswith("set:")) \
                    and not ({lt, rt} == {"player", "int"}):
                self.err("RL103", f'cannot compare {_tname(lt)} with {_tname(rt)}', e.span)
            return "bool"
        if op in ("&", "|"):
            if not (lt.startswith("set:") and rt.startswith("set:")):
                self.err("RL103", f'"{op}" combines two sets; these are {_tname(lt)} and {_tname(rt)}', e.span)
                return ERR
            return lt if lt != "set:?" else rt
        if op in ("in", "not in"):
            if rt.startswith("set:"):
                if lt != "enum:" + rt[4:] and rt != "set:?":
                    self.err("RL103", f"{_tname(lt)} cannot be in {_tname(rt)}", e.span)
                return "bool"
            et = elem_type(rt)
            if et is None:
                self.err("RL103", f'"in" needs a collection or a set on the right; this is {_tname(rt)}', e.right.span)
            elif et != lt and not (et == "player" and lt == "int"):
                self.err("RL103", f"{_tname(lt)} cannot be in {_tname(rt)}", e.span)
            return "bool"
        self.err("RL103", f"unknown operator {op}", e.span)  # pragma: no cover
        return ERR

    def call_gen(self, e: A.CallGen, scope, ctx) -> str:
        if e.func not in GEN_FUNCS:
            self.err("RL104", f'"{e.func}" does not take a "for" generator; these do: ' + ", ".join(GEN_FUNCS), e.span)
            return ERR
        inner, _ = self.gen_scope(e, scope, ctx)
        t = self.expr(e.expr, inner, ctx)
        return self.aggregate_type(e.func, t, e)

    def aggregate_type(self, func, t, e):
        if t == ERR:
            return ERR
        if func in ("sum", "min", "max"):
            self.expect(t, "int", e, f"what {func} adds up")
            return "int"
        if func in ("any", "all"):
            self.expect(t, "bool", e, f"what {func} tests")
            return "bool"
        if func == "count":
            return "int"
        if func in ("intersection", "union"):
            if not t.startswith("set:"):
                self.err("RL103", f"{func} combines sets; these are {_tname(t)}", e.span)
                return ERR
            return t
        return ERR

    def call(self, e: A.Call, scope, ctx) -> str:
        f = e.func
        nargs = len(e.args)
        if f in self.g.zones:
            z = self.g.zones[f]
            if not z.per_player:
                self.err("RL104", f'"{f}" is one shared zone: write {f} without a player', e.span)
                return ERR
            if nargs != 1:
                self.err("RL104", f'"{f}" takes one player', e.span)
                return ERR
            self.expect(self.expr(e.args[0], scope, ctx), "player", e.args[0], "the zone's owner")
            self.g.res[id(e)] = ("zone", f)
            return z.kind
        if f in self.g.player_vars:
            if nargs != 1:
                self.err("RL104", f'"{f}" takes one player', e.span)
                return ERR
            self.expect(self.expr(e.args[0], scope, ctx), "player", e.args[0], "the player")
            self.g.res[id(e)] = ("pvar", f)
            return self.g.types[id(self.g.player_vars[f])]
        if f in self.g.functions:
            if ctx.get("const"):  # parameters, vars and the deck are checked before functions are
                self.err("RL109", "functions cannot be called before the game starts", e.span)
                return ERR
            pslots, _ = self.g.func_slots[f]
            if nargs != len(pslots):
                self.err("RL104", f'"{f}" takes {len(pslots)} argument(s), not {nargs}', e.span)
                return ERR
            for a, (_, pt) in zip(e.args, pslots):
                self.expect(self.expr(a, scope, ctx), pt, a, f"an argument of {f}")
            self.g.res[id(e)] = ("func", f)
            return self.function_type(f) if self._func_state.get(f) != "busy" else self.function_type(f)
        if f in BUILTINS:
            lo, hi = BUILTINS[f]
            if not lo <= nargs <= hi:
                want = str(lo) if lo == hi else f"{lo} to {hi}"
                self.err("RL104", f'"{f}" takes {want} argument(s), not {nargs}', e.span)
                return ERR
            self.g.res[id(e)] = ("builtin", f)
            if ctx.get("const") and f not in ("sign", "abs", "min", "max"):
                self.err("RL109", f'"{f}" has no value before the game starts', e.span)
                return ERR
            return self.builtin(e, scope, ctx)
        if f in self.g.actions:
            self.err("RL104", f'"{f}" is an action; test it with can({f})', e.span)
            return ERR
        known = list(self.g.functions) + list(BUILTINS) + [z for z in self.g.zones] + list(self.g.player_vars)
        self.err("RL101", f'unknown function "{f}"' + did_you_mean(f, known), e.span)
        return ERR

    def builtin(self, e: A.Call, scope, ctx) -> str:
        f = e.func
        if f == "can":
            if not ctx.get("turn"):
                self.err("RL109", 'can() needs a player: use it inside a "turn" block', e.span)
            for a in e.args:
                if not isinstance(a, A.Name) or a.id not in self.g.actions:
                    name = a.id if isinstance(a, A.Name) else "?"
                    self.err("RL112", f'can() takes action names; "{name}" is not an action'
                             + did_you_mean(name, self.g.actions), a.span)
                else:
                    self.used_actions.add(a.id)
            return "bool"
        if f == "all_cards":
            return "list:card"
        ts = [self.expr(a, scope, ctx) for a in e.args]
        if ERR in ts:
            return {"size": "int", "empty": "bool", "any": "bool", "all": "bool", "count": "int"}.get(f, ERR)
        t0 = ts[0]
        if f in ("size", "empty"):
            if elem_type(t0) is None:
                self.err("RL103", f"{f} needs a collection; this is {_tname(t0)}", e.args[0].span)
            return "int" if f == "size" else "bool"
        if f in ("top", "bottom"):
            if t0 not in ("pile", "stack", "list:card"):
                self.err("RL103", f"{f} needs a pile or a stack; this is {_tname(t0)}", e.args[0].span)
                return ERR
            return "card"
        if f in ("increasing", "decreasing"):
            self.expect(t0, "list:int", e.args[0], f"what {f} tests")
            return "bool"
        if f == "stack_of":
            self.expect(t0, "card", e.args[0], "stack_of's argument")
            return "stack"
        if f in ("sign", "abs"):
            self.expect(t0, "int", e.args[0], f"{f}'s argument")
            return "int"
        if f in ("min", "max") and len(ts) == 2:
            self.expect(t0, "int", e.args[0], f"{f}'s argument")
            self.expect(ts[1], "int", e.args[1], f"{f}'s argument")
            return "int"
        if f in ("next", "previous"):
            self.expect(t0, "player", e.args[0], f"{f}'s first argument")
            if len(ts) == 2:
                self.expect(ts[1], "int", e.args[1], "the number of seats")
            return "player"
        if f == "least_sum_at_least":
            self.expect(t0, "list:int", e.args[0], "the numbers")
            self.expect(ts[1], "int", e.args[1], "the target")
            return "int"
        if f in GEN_FUNCS:
            et = elem_type(t0)
            if et is None:
                self.err("RL103", f"{f} needs a list or a collection; this is {_tname(t0)}", e.args[0].span)
                return ERR
            if f == "count":
                return "int"
            return self.aggregate_type(f, et, e.args[0])
        return ERR  # pragma: no cover


def check_expression(g: CheckedGame, e) -> tuple[str, list[Diagnostic]]:
    """Type-check an extra expression against a checked game (as if inside a
    turn: ``me`` is the player to move).  Returns (type, diagnostics)."""
    ch = g.checker
    before = len(ch.diags)
    t = ch.expr(e, _Scope(), {"turn": True})
    g.nslots = max(g.nslots, ch.slot)
    new = ch.diags[before:]
    del ch.diags[before:]
    return t, new


def _sub_blocks(st):
    if isinstance(st, A.If):
        for _, b in st.branches:
            yield b
        if st.else_body is not None:
            yield st.else_body
    elif isinstance(st, (A.While, A.Repeat, A.For, A.Turn)):
        yield st.body


def _tname(t: str) -> str:
    if t.startswith("set:"):
        return f"a set of {t[4:]}" if t != "set:?" else "a set"
    if t.startswith("enum:"):
        return f"a {t[5:]}"
    if t.startswith("list:"):
        return f"a list of {t[5:]}"
    return {"int": "a number", "bool": "true/false", "player": "a player", "card": "a card",
            "stack": "a stack", "pile": "a pile", "stacks": "a row of stacks", "players": "the players",
            "range": "a range"}.get(t, t)


def check(module: A.Module) -> tuple[CheckedGame, list[Diagnostic]]:
    """Check a parsed module; returns the checked game and every diagnostic (errors and warnings)."""
    checker = Checker(module)
    try:
        return checker.run()
    except RecursionError:  # a hand-built tree deeper than the parser allows
        checker.err("RL001", "expression nested too deeply", Span(module.file, 1, 1, 1, 2))
        return checker.g, sorted(checker.diags, key=lambda d: (d.span.line, d.span.column))
