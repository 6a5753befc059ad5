"""Where everything of a game lives in a state, and how a new state starts.

:class:`Layout` numbers the cards, zones and variables (pure tables, from
the checked game alone); :meth:`Layout.fill` writes them into the machine;
:func:`compile_start` compiles the variables' defaults and the deck with the
expression compiler it is given.
"""

from __future__ import annotations

from rulelang import ast as A
from rulelang.checker import CheckedGame
from rulelang.diagnostics import NO_SPAN

from ..machine import Machine, ZoneDef
from ..runtime import RuleError
from .failures import guarded
from .purity import is_scalar
from .slots import slot_list


# The variable that holds a parameter read from the state (see .late) is named
# "param NAME": a name no rules file can declare (it has a space).
LATE_PREFIX = "param "


class Layout:
    """Indices of cards, zones and variables in a state (``st.Z``, ``st.V``, ``st.C``)."""

    def __init__(self, g: CheckedGame):
        self.g = g
        self.stride = g.players[1]  # the most seats: a per-player zone has a place for each
        # places: each zone's first place in st.Z, in the zones' order; a per-player
        # zone takes one place per seat (up to the most players), a shared zone one
        self.zone_base = []
        base = 0
        for z in sorted(g.zones.values(), key=lambda z: z.index):
            self.zone_base.append(base)
            base += self.stride if z.per_player else 1
        self.nplaces = base
        # cards: ids in declaration order; copies of a name share a name id
        self.card_names = [c[0] for c in g.cards]
        names = {}
        self.card_name_ids = [names.setdefault(c[0], len(names)) for c in g.cards]
        self.has_copies = len(names) < len(g.cards)
        self.card_attrs = {aname: (tuple(c[1][i] for c in g.cards), t) for aname, (i, t) in g.card_attrs.items()}
        # variables: st.V holds the game variables, then each player variable for every seat
        self.var_index = {name: i for i, name in enumerate(g.vars)}
        # the parameters read from the state (.late), constant all game: a cache that a
        # game without them keeps by the player count alone keeps by them too
        self.late_indices = tuple(i for name, i in self.var_index.items() if name.startswith(LATE_PREFIX))
        self.pvar_base = {name: len(g.vars) + k * self.stride for k, name in enumerate(g.player_vars)}
        # after them, the winners named by "end game with winners" (None: the outcome decides)
        self.winners_index = len(g.vars) + len(g.player_vars) * self.stride
        # after it, when the rules read turns_taken(p), each seat's count of turns taken
        self.turns_base = self.winners_index + 1 if _reads_turns(g) else None
        # card variables: st.C holds each one for every card
        self.cvar_base = {name: k * len(g.cards) for k, name in enumerate(g.card_vars)}

    def copies(self, name) -> bool:
        """Does more than one card bear this name?"""
        return sum(1 for c in self.g.cards if c[0] == name) > 1

    def fill(self, m: Machine):
        """Write the tables into the machine."""
        g = self.g
        stride = m.stride = self.stride
        m.card_names = self.card_names
        m.card_name_ids = self.card_name_ids
        m.card_attrs.update(self.card_attrs)
        m.enum_members = {k: list(v) for k, v in g.enums.items()}
        for z in sorted(g.zones.values(), key=lambda z: z.index):
            m.zones.append(ZoneDef(z.name, z.index, z.kind, z.per_player, z.visibility, self.zone_base[z.index]))
        m.nplaces = self.nplaces
        m.inst_zone = tuple(z.index for z in m.zones for _ in z.instances(stride))
        m.inst_owner = tuple(i - z.base for z in m.zones for i in z.instances(stride))
        m.stack_instances = tuple(i for z in m.zones if z.kind == "stacks" for i in z.instances(stride))
        m.grid_instances = frozenset(i for z in m.zones if z.kind == "grid" for i in z.instances(stride))
        m.grid_boxes = {i: g.zones[z.name].box for z in m.zones if z.kind == "grid" for i in z.instances(stride)}
        shared_piles = [z for z in m.zones if z.kind == "pile" and not z.per_player]
        piles = shared_piles or [z for z in m.zones if z.kind == "pile"]
        if not piles:
            raise RuleError("the rules declare no pile zone for the cards to start in", NO_SPAN)
        m.start_zone = piles[0].base
        m.winners_index = self.winners_index
        m.late_indices = self.late_indices
        m.turns_base = self.turns_base
        for name, v in g.vars.items():
            m.var_names.append((name, g.types[id(v)], self.var_index[name]))
        for name, v in g.player_vars.items():
            m.pvar_names.append((name, g.types[id(v)], self.pvar_base[name]))
        m.internal_vars = frozenset(name for d in (g.vars, g.player_vars, g.card_vars)
                                    for name, v in d.items() if v.internal)
        for name, v in g.card_vars.items():
            m.cvar_names.append((name, g.types[id(v)], self.cvar_base[name]))
            m.cvar_bases.append(self.cvar_base[name])


def _reads_turns(g: CheckedGame) -> bool:
    """Do the rules call turns_taken()?"""
    from .tree import of_rules, walk
    return of_rules(g, "reads_turns", lambda: any(
        isinstance(x, A.Call) and x.func == "turns_taken" and g.res.get(id(x), ("",))[0] == "builtin"
        for x in walk(g.module)))


def compile_start(g: CheckedGame, m: Machine, exprs):
    """The machine's var_defaults, cvar_defaults and deck, with ``exprs``
    (an :class:`~interpreter.compiler.expressions.Expressions`)."""
    stride = m.stride

    def default(name, v):
        return guarded(exprs.fn(v.default), f'the initial value of "{name}"', v.default.span)

    V_defaults = [default(name, v) for name, v in g.vars.items()]
    pv_defaults = [default(name, v) for name, v in g.player_vars.items()]
    ncards = len(g.cards)
    cv_defaults = [(g.res[id(v)], default(name, v)) for name, v in g.card_vars.items()]

    counters = [0] * stride if m.turns_base is not None else []

    def var_defaults(st, V_defaults=V_defaults, pv_defaults=pv_defaults):
        V = [f(st) for f in V_defaults]
        for f in pv_defaults:
            V.extend([f(st)] * stride)
        V.append(None)  # the winners named by "end game with winners"
        V.extend(counters)  # the turns each seat has taken, when the rules read them
        return V

    # card variables whose initial values read only each card's printed attributes, the
    # parameters and the player count (and are numbers...): computed once per player count
    fixed = all(is_scalar(g.types.get(id(v))) and _fixed(g, v.default, g.res[id(v)]) for v in g.card_vars.values())
    known = {}

    def cvar_defaults(st, cv_defaults=cv_defaults):
        hit = known.get(st.n)
        if hit is not None:
            return list(hit)
        C = []
        for slot, f in cv_defaults:
            slots_of, k = slot_list(slot)  # (a scratch slot: see .slots)
            slots = slots_of(st)
            for c in range(ncards):
                slots[k] = c
                C.append(f(st))
        if fixed:
            known[st.n] = tuple(C)
        return C

    m.var_defaults = var_defaults
    m.cvar_defaults = cvar_defaults
    m.deck = compile_deck(g, exprs)


def compile_deck(g: CheckedGame, exprs):
    """A function state -> the sorted ids of the cards in play."""
    items = []
    for item in g.deck:
        when = guarded(exprs.fn(item.when), "a deck condition", item.when.span) if item.when is not None else None
        if isinstance(item, A.DeckWhere):
            items.append(("where", g.res[id(item)], guarded(exprs.fn(item.cond), "a deck condition", item.cond.span),
                          when))
        else:
            ids = tuple(i for i, c in enumerate(g.cards) if c[0] == item.name)
            items.append(("named", ids, None, when))
    ncards = len(g.cards)
    # a deck chosen by printed attributes, parameters and the player count: once per player count
    fixed = all((item.when is None or _fixed(g, item.when, None))
                and (not isinstance(item, A.DeckWhere) or _fixed(g, item.cond, g.res[id(item)])) for item in g.deck)
    known = {}

    def deck(st):
        hit = known.get(st.n)
        if hit is not None:
            return list(hit)
        out = chosen_cards(st)
        if fixed:
            known[st.n] = tuple(out)
        return out

    def chosen_cards(st):
        if not items:
            return list(range(ncards))
        chosen = set()
        for kind, x, cond, when in items:
            if when is not None and not when(st):
                continue
            if kind == "named":
                chosen.update(x)
            else:
                slots_of, k = slot_list(x)
                slots = slots_of(st)
                for c in range(ncards):
                    slots[k] = c
                    if cond(st):
                        chosen.add(c)
        return sorted(chosen)

    return deck


def _fixed(g: CheckedGame, e, slot) -> bool:
    """Does ``e`` read nothing that changes from game to game at one player
    count: only the printed attributes of the card in ``slot``, cards by
    name, literals, parameters and the player count?"""
    from .tree import walk
    constant = {id(y) for x in walk(e) if isinstance(x, A.SetLit) for y in walk(x.items)}  # a set written out: a mask
    for x in walk(e):
        if id(x) in constant:
            continue
        if isinstance(x, A.Name):
            r = g.res.get(id(x))
            if r is None or not (r[0] in ("param", "member", "player_count", "enum_all") or r == ("slot", slot)):
                return False
        elif isinstance(x, A.Attr):
            if x.name not in g.card_attrs or x.name in g.card_vars:
                return False
        elif isinstance(x, A.Call):
            if x.func not in ("abs", "sign", "min", "max") or g.res.get(id(x), ("",))[0] != "builtin":
                return False
        elif not isinstance(x, (A.IntLit, A.BoolLit, A.SetLit, A.StrLit, A.BinOp, A.BoolOp, A.Not, A.Neg, A.IfExpr)):
            return False  # (a seat written out, an IntLit, depends on the player count alone)
    return True
