"""What a machine shows: action texts and values as text, and each
player's observation (the cards they see or know, as data and as text).

A mixin of :class:`interpreter.machine.Machine`; it reads the machine's
tables and a state, and changes nothing.
"""

from __future__ import annotations

from .runtime import STACK_MASK, STACK_SHIFT, IllegalAction, RuleError, cell_text, cell_xy

PLACE_TYPES = frozenset({"pile", "grid", "stacks", "stack"})  # the types of a value naming a place


class MachineViews:
    # ------------------------------------------------------------ text
    def value_text(self, typ, v) -> str:
        if typ == "card":
            return self.card_names[v]
        if typ == "stack":
            return str((v & STACK_MASK) + 1)
        if typ == "player":
            return f"player {v + 1}"
        if typ.startswith("enum:"):
            return self.enum_members[typ[5:]][v]
        if typ == "bool":
            return "true" if v else "false"
        if typ == "cell":
            return cell_text(v)
        if typ == "pile" or typ == "grid" or typ == "stacks":
            return self.place_text(v)
        if typ.startswith("set:"):  # a set of enum members, as a bit mask
            return ", ".join(name for i, name in enumerate(self.enum_members[typ[4:]]) if v >> i & 1) or "none"
        if typ.startswith("list:"):
            return ", ".join(self.value_text(typ[5:], x) for x in v) if v else "nothing"
        return str(v)

    def card_description(self, card: int) -> str:
        """A card's name and its attributes from the card table ("Ace of Moons:
        rank 1, kind Ace, suits Moons"): static facts, never where it lies."""
        attrs = ", ".join(f"{name} {self.value_text(t, values[card])}" for name, (values, t) in self.card_attrs.items())
        return f"{self.card_names[card]}: {attrs}" if attrs else self.card_names[card]

    def action_cards(self, action) -> list:
        if not isinstance(action, tuple):
            return []
        try:
            ad = self.site_actions[action[0]].action
        except (IndexError, TypeError):
            raise IllegalAction(f"{action!r} is not an action of this game") from None
        out = []
        for (_, t, _), v in zip(ad.params, action[1:]):
            if t == "card":
                out.append(v)
            elif t == "list:card":
                out.extend(v)
        return out

    def action_text(self, st, action, hide=()) -> str:
        if not isinstance(action, tuple):
            return f"chance outcome {action}"
        try:
            sa = self.site_actions[action[0]]
        except (IndexError, TypeError):
            raise IllegalAction(f"{action!r} is not an action of this game") from None
        ad = sa.action
        values = {name: self._param_text(t, v, hide) for (_, t, name), v in zip(ad.params, action[1:])}
        if ad.template is not None:
            return ad.template.format(**values)
        return " ".join([ad.name] + [values[name] for _, _, name in ad.params])

    def _param_text(self, t, v, hide) -> str:
        if t == "card" and v in hide:
            return "a hidden card"
        if t == "list:card" and hide:
            return ", ".join("a hidden card" if c in hide else self.card_names[c] for c in v) or "nothing"
        return self.value_text(t, v)

    def place_text(self, place) -> str:
        """A place as a text shows it: "the deck", "player 2's hand"."""
        z = self.zones[self.inst_zone[place]]
        return f"player {self.inst_owner[place] + 1}'s {z.name}" if z.per_player else f"the {z.name}"

    def place_source(self, typ, v) -> str:
        """A place (a pile, a grid, a row of stacks or one of its stacks) as
        the rules language names it: ``hand(1)``, ``deck``, ``birds(0)[2]``."""
        if typ == "stack":
            return f"{self.place_source('stacks', v >> STACK_SHIFT)}[{v & STACK_MASK}]"
        z = self.zones[self.inst_zone[v]]
        return f"{z.name}({self.inst_owner[v]})" if z.per_player else z.name

    def to_python(self, typ, v, st=None):
        """A runtime value as plain Python: cards by name, sets as sorted
        member names, a cell as its (x, y); given the state ``st``, a place
        (a pile, a grid, a stack) as the names of its cards, bottom first,
        and a row of stacks as one such list per stack."""
        if typ == "card":
            return self.card_names[v]
        if typ in PLACE_TYPES and st is not None:
            names = self.card_names
            if typ == "stacks":
                return [[names[c] for c in stack] for stack in st.Z[v]]
            if typ == "stack":
                row, i = st.Z[v >> STACK_SHIFT], v & STACK_MASK
                if i >= len(row):  # (a stack kept in a variable, since gone from its row)
                    raise RuleError(f"there is no stack {i + 1} in {self.place_text(v >> STACK_SHIFT)}")
                return [names[c] for c in row[i]]
            return [names[c] for c in st.Z[v]]
        if typ == "cell":
            return cell_xy(v)
        if typ.startswith("set:"):
            members = self.enum_members[typ[4:]]
            return {m for i, m in enumerate(members) if v >> i & 1}
        if typ.startswith("enum:"):
            return self.enum_members[typ[5:]][v]
        if typ.startswith("list:"):
            return [self.to_python(typ[5:], x, st) for x in v]
        return v

    # ------------------------------------------------------------ observation
    def can_see(self, zone, owner: int, player: int) -> bool:
        if zone.visibility == "public":
            return True
        if zone.visibility == "owner":
            return owner == player
        return False

    def observation(self, st, player: int) -> dict:
        """What ``player`` may know, as a JSON-ready dict:

        - ``zones``: for each zone, its cards bottom first, each a card name
          when the player sees the zone or knows that card, else ``None``
          (a row of stacks: a list of such lists; a per-player zone: one
          entry per seat);
        - ``vars`` and ``player_vars``: the game's variables (all public);
        - ``to_move``: the seat to move, ``"chance"`` or ``None`` at the end;
        - ``scores`` once the game is over.
        """
        K, vis, bit = st.K, st.vis, 1 << player
        C, C0, cvars = st.C, self.cvar_initial, self.cvar_names
        plain = self.card_names

        def show(c):
            """A card's name, or {"card": name, var: value, ...} when one of
            its card variables differs from its initial value (a declared
            rank, say): what is on the table is public with the card."""
            changed = {name: self.json_value(t, C[base + c]) for name, t, base in cvars
                       if C[base + c] != C0[base + c]}
            if changed:
                return {"card": plain[c], **changed}
            return plain[c]

        names = _Shown(show) if cvars else plain
        zones = {}
        for z in self.zones:
            owners = range(st.n) if z.per_player else (0,)
            entries = []
            for owner in owners:
                inst = z.base + owner
                content = st.Z[inst]
                if z.kind == "grid":  # every card's cell is public; a face-down card's name is not
                    P, F = st.P, st.F
                    shown = [{"cell": list(cell_xy(P[c])), "card": names[c] if K[c] & bit else None,
                              "face_down": F[c]} for c in content]
                elif vis[inst] & bit and not self.face_down:
                    if z.kind == "stacks":
                        shown = [[names[c] for c in s] for s in content]
                    else:
                        shown = [names[c] for c in content]
                elif z.kind == "stacks":
                    shown = [[names[c] if K[c] & bit else None for c in s] for s in content]
                else:
                    shown = [names[c] if K[c] & bit else None for c in content]
                entries.append(shown)
            zones[z.name] = entries if z.per_player else entries[0]
        V = st.V
        obs = {
            "player": player,
            "to_move": (None if st.is_terminal else ("chance" if st.chance_n else st.me)),
            "terminal": st.is_terminal,
            "zones": zones,
            "vars": {name: self.json_value(t, V[i]) for name, t, i in self.var_names},
            "player_vars": {name: [self.json_value(t, V[base + p]) for p in range(st.n)]
                            for name, t, base in self.pvar_names},
        }
        if st.is_terminal:
            obs["scores"] = self.scores(st)
        return obs

    def json_value(self, typ, v):
        if typ in ("int", "bool", "player"):
            return v
        return self.value_text(typ, v)

    def debug_text(self, st) -> str:
        """Every card where it lies, hidden or not: for replays and debugging,
        never for players."""
        lines = []
        for z in self.zones:
            for p in (range(st.n) if z.per_player else (0,)):
                who = f" (P{p + 1})" if z.per_player else ""
                content = st.zone_cards(z.name, p if z.per_player else None)
                if z.kind == "stacks":
                    text = " | ".join(", ".join(s) for s in content) or "-"
                else:
                    text = ", ".join(content) or "-"
                lines.append(f"{z.name}{who}: {text}")
        V = st.V
        for name, t, i in self.var_names:
            lines.append(f"{name} = {self.value_text(t, V[i])}")
        for name, t, base in self.pvar_names:
            lines.append(f"{name}: " + ", ".join(f"P{p + 1} {self.value_text(t, V[base + p])}" for p in range(st.n)))
        return "\n".join(lines)

    def observation_text(self, st, player: int) -> str:
        """The observation as lines of text for a person (no more than
        :meth:`observation` holds)."""
        obs = self.observation(st, player)
        lines = []
        for z in self.zones:
            content = obs["zones"][z.name]
            if z.per_player:
                parts = []
                for p, c in enumerate(content):
                    who = "you" if p == player else f"P{p + 1}"
                    parts.append(f"{who}: {_zone_text(c, z.kind)}")
                lines.append(f"{z.name}: " + "; ".join(parts))
            else:
                lines.append(f"{z.name}: {_zone_text(content, z.kind)}")
        V = st.V
        for name, t, i in self.var_names:
            lines.append(f"{name} = {self.value_text(t, V[i])}")
        for name, t, base in self.pvar_names:
            lines.append(f"{name}: " + ", ".join(f"P{p + 1} {self.value_text(t, V[base + p])}"
                                                 for p in range(st.n)))
        return "\n".join(lines)


def _zone_text(content, kind="pile") -> str:
    """One zone instance's observed content as text: names, and a count of
    the cards face down ("?" inside a stack)."""
    if not content:
        return "-"
    if kind == "grid":
        return ", ".join(f"({e['cell'][0]}, {e['cell'][1]}) "
                         + ("face down" if e["card"] is None else _card_text(e["card"])
                            + (" (face down)" if e["face_down"] else "")) for e in content)
    if kind == "stacks":
        return " | ".join(", ".join(_card_text(c) for c in s) for s in content)
    if all(c is None for c in content):
        return f"{len(content)} face down"
    if any(c is None for c in content):  # keep the places: actions name cards by position
        return ", ".join(f"{i}:{_card_text(c)}" for i, c in enumerate(content, 1))
    return ", ".join(_card_text(c) for c in content)


class _Shown:
    """``names[c]`` for the observation: a plain lookup or a call."""

    __slots__ = ("show",)

    def __init__(self, show):
        self.show = show

    def __getitem__(self, c):
        return self.show(c)


def _card_text(c) -> str:
    if isinstance(c, dict):
        extra = ", ".join(f"{k} {v}" for k, v in c.items() if k != "card")
        return f"{c['card']} ({extra})"
    return c if c is not None else "?"


def card_names(content):
    """The card names in an observed place (None for each card not seen), however nested."""
    if content is None:
        yield None
    elif isinstance(content, str):
        yield content
    elif isinstance(content, dict):  # a card with its variables, or a grid's cell
        card = content.get("card")
        if isinstance(card, dict):
            yield from card_names(card)
        else:
            yield card
    elif isinstance(content, (list, tuple)):
        for x in content:
            yield from card_names(x)
