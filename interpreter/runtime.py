"""The runtime: game states of a compiled machine, and the VM that plays them.

It imports nothing from the front end: a :class:`Machine` (built by
:mod:`interpreter.compiler`) is tables and closures; a :class:`State` is flat
lists that are cheap to copy.

State layout (all plain lists, indexed by small ints):

- ``Z``: zone instances.  Zone *k* for seat *p* is ``Z[base_k + p]``
  (a shared zone uses ``p = 0``).  A pile is a list of card ids, bottom
  first; a row of stacks is a list of such lists.  A stack is named by the
  int ``instance << 12 | index``.
- ``V``: global variables, then player variables (``base + seat``).
- ``C``: card variables, ``C[k * ncards + card]``.
- ``L``: the state's own slots (the flow's loops, lets, action parameters).
- ``S``: scratch slots (names bound inside expressions), the machine's one
  list, which every state of it shares (:mod:`interpreter.compiler.slots`).
- ``loc``: the zone instance each card lies in (-1: not in play).
- ``K``: knowledge, one bit mask of seats per card: the players who know
  that card's identity where it lies.  A card is learnt by whoever can see a
  zone it enters (``vis``: the mask of seats that see each zone instance)
  and by ``reveal``.  Knowledge follows a card when it moves face down, since
  everyone sees a card go from one place to another, with one exception: a
  card its player chose *by name* from a place others cannot see (a hand),
  and that stays out of their sight, could have been any card of that place;
  so those others forget every card of that place.  Shuffling forgets too.
- ``pc``: where the flow stands; ``me``: whose turn it is.

Chance events (shuffles, ``random``) are uniform choices among ``k``
outcomes.  By default the state's own seeded RNG resolves them at once; a
machine compiled with ``explicit_chance=True`` stops at each one instead
(``current_player == CHANCE``) and :meth:`State.chance_outcomes` lists them
with exact probabilities.  A shuffle of *n* cards is *n-1* such events
(Fisher-Yates), so the probabilities stay exact and small.
"""

from __future__ import annotations

import operator

CHANCE = -1
TERMINAL = -2

# opcodes
EXEC, JF, JMP, DECIDE, RANDOM, END = range(6)

STACK_SHIFT = 12
STACK_MASK = (1 << STACK_SHIFT) - 1
MAX_AUTO_STEPS = 1_000_000
# Numbers a game computes stay within -MAX_VALUE..MAX_VALUE (exact as floats too):
# a product or a stored number beyond it is a rule error at the line that made it.
MAX_VALUE = 10**15
# The parameter values the searches for legal actions try at one decision (or
# for one can() of the flow), all actions together.
MAX_SEARCH = 1_000_000
# A list a game keeps (in a variable) holds at most this many items.
MAX_LIST = 100_000
# The elements the generators of expressions go through between two decisions.
MAX_WORK = 10_000_000
M64 = (1 << 64) - 1


class DeadState(Exception):
    """The game is not over but the seat to move has no legal action:
    ``args == (actions played, seat)``."""


class RuleError(Exception):
    """A rule that cannot be carried out in this state (an empty pile to draw
    from, an index past the end, ...).  ``span`` points into the rules file."""

    def __init__(self, message, span=None):
        self.span = span
        self.message = message
        where = f"{span}: " if span is not None else ""
        super().__init__(f"{where}rule error: {message}")


class IllegalAction(Exception):
    """An action that is not legal in this state."""


class NoKnowledge(RuntimeError):
    """Asked who knows what of a game loaded with ``knowledge=False``, which
    does not keep track of it (observations, ``knows``, ``resample``)."""


def no_knowledge(what: str):
    raise NoKnowledge(f"{what} needs to know who has seen which card, and this game was loaded with "
                      f"knowledge=False, which does not keep track of it: load it with knowledge=True")


def _mix(seed: int) -> int:
    z = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    return z


def rng_below(st, n: int) -> int:
    """A uniform int in [0, n) from the state's SplitMix64 generator."""
    s = (st.rng + 0x9E3779B97F4A7C15) & M64
    st.rng = s
    z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    z ^= z >> 31
    return z % n


# A cell of a grid is one int: (x + CELL_ORIGIN) * CELL_ROW + (y + CELL_ORIGIN),
# x and y counted from the grid's first card, at (0, 0); sorting cells sorts by x, then y.
CELL_ROW = 128
CELL_ORIGIN = 64
ORIGIN_CELL = CELL_ORIGIN * CELL_ROW + CELL_ORIGIN


def cell_xy(cell: int) -> tuple:
    return cell // CELL_ROW - CELL_ORIGIN, cell % CELL_ROW - CELL_ORIGIN


def cell_text(cell: int) -> str:
    x, y = cell_xy(cell)
    return f"({x}, {y})"


def no_choice(st) -> tuple:
    """The legal actions where the flow stands at no choice: none at the
    end or at a chance event; anywhere else a rule error stopped the game
    between two decisions (``Machine.legal_at`` of every pc but a choice's)."""
    if st.is_terminal or st.chance_n:
        return ()
    raise RuleError("no choice stands here: the game stopped at a rule error")


def take_card(st, c, stack_instances) -> None:
    """Take card ``c`` out of wherever it lies (a stack left empty goes away)."""
    inst = st.loc[c]
    if inst in stack_instances:
        stacks = st.Z[inst]
        for i, stck in enumerate(stacks):
            if c in stck:
                stck.remove(c)
                if not stck:
                    del stacks[i]
                return
        raise RuleError("card lost in a stack")  # pragma: no cover - loc and Z disagree
    st.Z[inst].remove(c)


def own_card_vars(st) -> list:
    """``st.C``, the state's own: a clone shares its original's card
    variables until one of the two writes one, and each writer asks for
    them here first."""
    if st.cshared:
        st.C = st.C[:]
        st.cshared = False
    return st.C


def own_cells(st) -> None:
    """Make ``st.P`` and ``st.F`` (each card's cell and face-down flag) the
    state's own, as :func:`own_card_vars` does the card variables: each
    writer of either calls this first."""
    if st.pshared:
        st.P = st.P[:]
        st.F = st.F[:]
        st.pshared = False


def _as_index(index, count: int, chance=False) -> int:
    """``index`` as an int (numpy's integers too) of 0 or more, or an
    IllegalAction naming the ``count`` there are (of chance outcomes if ``chance``)."""
    if not isinstance(index, bool):
        try:
            index = operator.index(index)
        except TypeError:
            pass
        else:
            if index >= 0:
                return index
    raise _not_an_index(index, count, chance)


def _not_an_index(index, count: int, chance=False) -> IllegalAction:
    if chance:
        return IllegalAction(f"chance outcome {index!r} is not one of 0..{count - 1}")
    return IllegalAction(f"{index!r} is not the index of a legal action here (0..{count - 1})")


class State:
    """One position of a game.  Use ``legal_actions()``, ``apply()``,
    ``is_terminal``, ``returns()``, ``observation(p)`` and ``clone()``."""

    # (is_terminal is a slot, read as it is, not a property: in Python 3.11 a property costs
    # a call, about 130 ns a step of a playout, where a short game's step takes 2 to 3 µs)
    __slots__ = ("m", "n", "Z", "V", "C", "L", "S", "loc", "K", "P", "F", "vis", "pc", "me", "rng", "is_terminal",
                 "chance_n", "_played", "_legal", "inplay", "cshared", "pshared")

    # ------------------------------------------------------------ basics
    @property
    def num_players(self) -> int:
        return self.n

    @property
    def current_player(self) -> int:
        """The seat to move, ``CHANCE`` (-1) or ``TERMINAL`` (-2)."""
        if self.is_terminal:
            return TERMINAL
        if self.chance_n:
            return CHANCE
        return self.me

    @property
    def history(self) -> list:
        """The actions played so far (chance outcomes too, in explicit
        chance mode), first first: a new list.  A state keeps them as a
        chain of pairs that its clones share, so a clone copies none."""
        out = []
        node = self._played
        while node is not None:
            node, action = node
            out.append(action)
        out.reverse()
        return out

    @property
    def is_chance_node(self) -> bool:
        return bool(self.chance_n) and not self.is_terminal

    def clone(self) -> "State":
        m = self.m
        s = State.__new__(State)
        s.m = m
        s.n = self.n
        Z = list(map(list.copy, self.Z))  # every place is a list: a pile's cards, a row of stacks
        for i in m.stack_instances:
            Z[i] = list(map(list.copy, Z[i]))  # and each stack in it
        s.Z = Z
        s.V = self.V[:]
        # the card variables are shared until either state writes one (own_card_vars): most
        # steps write none, and a search clones for one step
        s.C = self.C
        s.cshared = self.cshared = True
        s.L = self.L[:]  # the state's own slots; its scratch slots are the machine's (.compiler.slots)
        s.S = self.S
        s.loc = self.loc[:]
        s.K = self.K[:] if m.knowledge else self.K  # (unwritten without knowledge: shared)
        # each card's cell, while it lies in a grid, and its face-down flag: shared too,
        # until either state writes one (own_cells); a game without grids never writes a
        # cell, and one that lays nothing face down never a flag
        s.P = self.P
        s.F = self.F
        s.pshared = self.pshared = True
        s.vis = self.vis
        s.pc = self.pc
        s.me = self.me
        s.rng = self.rng
        s.is_terminal = self.is_terminal
        s.chance_n = self.chance_n
        s._played = self._played  # shared: a chain that only grows at its end
        s._legal = self._legal
        s.inplay = self.inplay
        return s

    def __copy__(self) -> "State":  # copy.copy and copy.deepcopy: a clone (a copy of the slots would share them)
        return self.clone()

    def __deepcopy__(self, memo) -> "State":
        return self.clone()

    # ------------------------------------------------------------ actions
    def legal_actions(self) -> tuple:
        """The legal actions: a tuple in a stable order, of tuples of ints
        (shared by the positions a kept listing serves: ``compiler.site_cache``)."""
        legal = self._legal
        if legal is None:  # (Machine.enumerate_site; at the end or a chance event: none)
            legal = self._legal = self.m.legal_at[self.pc](self)
        return legal

    def apply(self, action) -> None:
        """Play one action (a tuple from ``legal_actions()``, or a chance
        outcome index at a chance node)."""
        legal = self._legal  # (listed: so the game is not over, nor at a chance node)
        if not legal:  # not listed yet, or nothing to list
            if self.is_terminal:
                raise IllegalAction("the game is over")
            if self.chance_n:
                if action.__class__ is not int:  # (numpy's integers too; not a bool)
                    action = _as_index(action, self.chance_n, chance=True)
                if not 0 <= action < self.chance_n:
                    raise _not_an_index(action, self.chance_n, chance=True)
                self._played = (self._played, action)
                self.m.resolve_chance(self, action)
                self._legal = None
                self.m.run(self)
                return
            legal = self.legal_actions()
        if action not in legal:
            raise IllegalAction(f"{action!r} is not a legal action here")
        self._played = (self._played, action)
        self._legal = None
        self.m.action_steps[action[0]](self, action)  # (flowgen.generate_step)

    def apply_at(self, index: int) -> None:
        """``apply(legal_actions()[index])``, without looking the action up
        in the list again (for a bot that picks by position, the fuzzer, a
        search): the index in the listing of this position as it is now (0
        or more); at a chance node, the outcome, as for apply."""
        legal = self._legal
        if not legal:  # not listed yet; or the game is over, or at a chance node: as apply says
            legal = self.legal_actions()
            if not legal:
                return self.apply(index)
        if index.__class__ is not int or index < 0:
            index = _as_index(index, len(legal))
        try:
            action = legal[index]
        except IndexError:
            raise _not_an_index(index, len(legal)) from None
        self._played = (self._played, action)
        self._legal = None
        self.m.action_steps[action[0]](self, action)  # (flowgen.generate_step)

    def apply_text(self, text: str) -> None:
        """Play the legal action whose text form is ``text``."""
        for a in self.legal_actions():
            if self.action_text(a) == text:
                self.apply(a)
                return
        raise IllegalAction(f"no legal action reads {text!r}")

    def action_text(self, action, hide=()) -> str:
        """The action's readable text; cards in ``hide`` (ids) are written
        "a hidden card" (for announcing a move to a player who cannot see them)."""
        return self.m.action_text(self, action, hide)

    def zone_layout(self) -> list:
        """The zones as declared, in order: dicts with name, kind ("pile" or
        "stacks"), per_player and visibility.  Static facts of the rules,
        to lay out an observation; no hidden information."""
        return [{"name": z.name, "kind": z.kind, "per_player": bool(z.per_player), "visibility": z.visibility}
                for z in self.m.zones]

    def var_types(self) -> dict:
        """The declared type of each variable and player variable ("int",
        "bool", "player", ...): static facts, to show an observation's values
        (a "player" value is a 0-based seat)."""
        return {name: t for name, t, _ in self.m.var_names + self.m.pvar_names}

    def action_cards(self, action) -> list:
        """The card ids among an action's parameters (its text names each)."""
        return self.m.action_cards(action)

    def chance_outcomes(self) -> list:
        """``[(outcome, probability), ...]`` at a chance node, else []."""
        n = self.chance_n
        if not n or self.is_terminal:
            return []
        p = 1.0 / n
        return [(i, p) for i in range(n)]

    # ------------------------------------------------------------ results
    def returns(self) -> list:
        """Each seat's score (final once the game is over)."""
        return [float(x) for x in self.m.scores(self)]

    def scores(self) -> list:
        return self.m.scores(self)

    def winners(self) -> list:
        """The winning seats: highest score, then the tie-breaks; ties share."""
        return self.m.winners(self)

    def _seat(self, player) -> int:
        """``player`` if it is a seat of this game (0 to n-1), else a ValueError."""
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.n:
            raise ValueError(f"player {player!r} is not a seat of this {self.n}-player game (0 to {self.n - 1})")
        return player

    def observation(self, player: int) -> dict:
        """What ``player`` may know, as a JSON-ready dict."""
        if not self.m.knowledge:
            no_knowledge("an observation")
        return self.m.observation(self, self._seat(player))

    def observation_text(self, player: int) -> str:
        if not self.m.knowledge:
            no_knowledge("an observation")
        return self.m.observation_text(self, self._seat(player))

    def card_name(self, card: int) -> str:
        return self.m.card_names[card]

    # ------------------------------------------------------------ hidden information
    def knows(self, player: int, card) -> bool:
        """Does ``player`` know this card's identity where it lies?"""
        if not self.m.knowledge:
            no_knowledge("knows()")
        self._seat(player)
        cid = self.m.card_ids(card)[0] if isinstance(card, str) else card
        seen = 0 if self.F[cid] else self.vis[self.loc[cid]]  # a face-down card is not seen where it lies
        return bool((self.K[cid] | seen) >> player & 1)

    def resample(self, player: int, rng, knowledge: bool = True) -> "State":
        """A full state that agrees with everything ``player`` knows: every
        card the player does not know is dealt at random among the places
        of the cards the player does not know.  Its future chance events
        come from ``rng`` (an int seed or a ``random.Random``), not from
        this state's generator, so a search over it cannot see the future.
        ``knowledge=False``: the sample plays on in the same game compiled
        without knowledge (``Machine.without_knowledge``): faster, for a
        search that never observes its samples, and what it plays is not
        counted with this game's coverage."""
        if not self.m.knowledge:
            no_knowledge("resample()")
        self._seat(player)
        from .sampling import resample
        return resample(self, player, rng, knowledge)

    def is_secret(self, action) -> bool:
        """Is ``action`` a choice made in secret (in a ``simultaneously``
        round)?  Front ends show it to the others only as a secret choice."""
        if not isinstance(action, tuple) or not action:
            return False
        return self.m.site_actions[action[0]].sealed is not None

    # ------------------------------------------------------------ scenarios
    # Public helpers to set up a position by hand (tests, tutorials, tools).
    # They change the state outside the rules: use them before play resumes.

    def zone_cards(self, zone: str, player: int | None = None) -> list:
        """The card names in a zone instance, bottom first (for a row of
        stacks, a list of lists)."""
        inst = self.m.zone_instance(self, zone, player)
        names = self.m.card_names
        content = self.Z[inst]
        if inst in self.m.stack_instances:
            return [[names[c] for c in s] for s in content]
        return [names[c] for c in content]

    def put(self, cards, zone: str, player: int | None = None, stack: int | None = None) -> None:
        """Move the named cards (names or ids), in order, onto the top of a
        zone; for a row of stacks, into a new stack (``stack=None``) or onto
        stack number ``stack`` (0-based).  A name with several copies takes
        the first copy not already placed by this call."""
        from .scenario import put
        put(self, cards, zone, player, stack)

    def _place_of(self, name: str, player=None, card=None) -> tuple:
        """(list, index) where a variable, player variable or card variable lives."""
        m = self.m
        if card is not None:
            cid = m.card_ids(card)[0] if isinstance(card, str) else card
            for vname, _, base in m.cvar_names:
                if vname == name:
                    return self.C, base + cid
            raise ValueError(f"no card var named {name!r}")
        for vname, _, i in m.var_names:
            if vname == name:
                return self.V, i
        for vname, _, base in m.pvar_names:
            if vname == name:
                if player is None or not 0 <= player < self.n:
                    raise ValueError(f"{name!r} belongs to each player: give player=0..{self.n - 1}")
                return self.V, base + player
        raise ValueError(f"no variable named {name!r}")

    def get_var(self, name: str, player: int | None = None):
        values, i = self._place_of(name, player)
        return values[i]

    def set_var(self, name: str, value, player: int | None = None) -> None:
        values, i = self._place_of(name, player)
        values[i] = value
        self._legal = None

    def card_var(self, name: str, card) -> object:
        values, i = self._place_of(name, card=card)
        return values[i]

    def set_card_var(self, name: str, card, value) -> None:
        _, i = self._place_of(name, card=card)
        own_card_vars(self)[i] = value
        self._legal = None

    def key(self) -> tuple:
        """A hashable summary of the position (not the random generator,
        not the history): equal keys mean the same position."""
        return self.m.state_key(self)

    def debug_text(self) -> str:
        """Every card where it lies, hidden or not: for replays and debugging,
        never for players."""
        return self.m.debug_text(self)

    def legal_action_texts(self) -> list:
        return [self.action_text(a) for a in self.legal_actions()]

    def __repr__(self):
        who = "terminal" if self.is_terminal else ("chance" if self.chance_n else f"player {self.me + 1}")
        return f"<State {self.m.title!r} {who}, {len(self.history)} moves>"
