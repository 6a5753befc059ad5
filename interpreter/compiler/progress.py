"""Does a ``while`` loop make progress?  A proof that it never comes back
to a position, from the rules alone.

Every other loop of the flow counts its rounds (see
``Machine.positions_unique``); a ``while`` loop does not, so a game with
one could, for all the flow knows, come back to a position it has been in,
and the fuzzer looks for that after every step.  Many ``while`` loops
plainly make progress, though: a turn draws from a pile that nothing refills
while the loop runs, or puts a card where nothing takes cards from.  This
module proves that, conservatively: where it cannot, the loop counts as one
that may repeat.

The proof, for one loop:

1. **The moves that can run while the loop runs**: its body's, those of
   every action chosen in it (and in those actions), and every trigger's.
   Each moves cards from one zone (all players' instances of a zone
   together) to another, or from or to a place not known here.
2. **A measure.**  A zone that cards only leave while the loop runs weighs
   +1 a card; one that cards only enter, -1; any other, 0.  No move can
   raise the sum of the weights of where the cards are (a move from a
   place not known counts as a move from every zone, and likewise to).
3. **Every round lowers it.**  Each way through the body is followed, one
   choice at a time (every action offered, both sides of an ``if`` whose
   condition is not known), keeping the values that plain variables were
   set to on the way, so that a ``require`` or a condition reading them is
   known where it can be.  A way that reaches the loop's head again with
   its condition not known to be false must move one card, certainly, from
   a zone to a lighter one: an action's card parameter, moved before
   anything else moves (it is still where it was chosen from), the top,
   bottom or an index of a pile, or a deal of a number of cards written
   out.  (Where a card of an action chosen in secret lies is never known:
   the choices of a ``simultaneously`` round are carried out one after
   another, and an earlier one may move it.)

Then no position comes back while the loop runs.  Say it did: the same
position twice, at one decision, rounds apart (within a round, the flow's
counted loops tell two visits apart, and a ``while`` loop inside it has a
proof of its own: every one needs one).  The measure is equal at both, and
no move raises it, so no move between them lowered it: no whole round lies
between them.  So the way from the first to the head of the loop, and the
way from the head to the second, are the end and the start of two rounds;
put together (the start first), they make one way through a round, and one
that step 3 followed: it meets the same conditions, since the plain
variables (all that the proof reads) are part of the position and so the
same at both ends.  That way moves a card to a lighter zone, and that move
was made between the two: a contradiction.

- If the decision lies inside a loop of the round, the first round of that
  loop is either wholly between the two visits or cut at the decision, its
  halves between them: the same splice.
- What step 3 takes on trust besides the variables holds of the game as
  played: a parameter's card lies where it was chosen until something
  moves, and the top of a pile is a card, or the game stops at a rule
  error.
- A way dropped for a ``require`` that fails, an ``end game``, or a choice
  with no legal action is a game that stops there.
- Loops inside the body (``for``, ``repeat``, a round of secret choices,
  another ``while``) are followed zero or more times: their moves count for
  step 2, and for step 3 only in the first round of a loop that surely runs
  one (``for p in players``, ``repeat 2 times``).
- A variable that a trigger (or ``after every action``, ``before every
  turn``) sets is never known.
"""

from __future__ import annotations

from rulelang import ast as A

from .tree import of_node

MAX_WAYS = 512  # ways through one round followed at once; past it, no proof
MAX_STEPS = 20_000  # statements followed in all, over every way; past it, no proof

_UNKNOWN = object()  # a condition's value not known here
_DONE = ({}, True, frozenset())  # a way that made progress: nothing after it changes its verdict


class _GiveUp(Exception):
    """Past what this proof follows: no proof."""


def proven(g, loop: A.While) -> bool:
    """Does every round of ``loop`` (a ``while`` of the flow of the checked
    rules ``g``) make progress, so that no position comes back while it
    runs?  (A fact of the rules alone: worked out once per loop.)"""
    return of_node(g, "progress", loop, lambda: _Proof(g, loop).holds())


class _Proof:
    def __init__(self, g, loop):
        self.g = g
        self.loop = loop
        self.params = {}  # an action's parameters by slot: (the zone it is chosen in, or None; its type)
        self.steps = 0
        self.assigned_in = {}  # ids of blocks -> the variables they set (see assigned)

    # ------------------------------------------------------------ the whole proof
    def holds(self) -> bool:
        try:
            for name, pslots in self.g.action_slots.items():
                a = self.g.actions[name]
                for (slot, t, _), p in zip(pslots, a.params):
                    domain = None if p.high is not None else self.collection_zone(p.domain)
                    self.params[slot] = (domain, "cards" if p.subsets else t)
            self.volatile = self.assigned([t.body for t in self.g.triggers])
            self.weigh()
            return self.rounds_progress()
        except Exception:  # noqa: BLE001 - _GiveUp, or a form of the rules this proof misreads: no proof, and the game loads
            return False

    def res(self, e):
        """How the checker resolved ``e``, when it is a name, a call or a zone (a
        tuple); None otherwise (a list made in a comprehension: its slot)."""
        r = self.g.res.get(id(e))
        return r if r.__class__ is tuple else None

    # ------------------------------------------------------------ what runs in the loop
    def reachable(self, blocks) -> list:
        """(block, fresh parameters) for each block that can run from
        ``blocks``: those, and the bodies of the actions chosen in them,
        transitively, with their parameters (see :meth:`written`)."""
        seen_actions = set()
        out = [(body, frozenset()) for body in blocks]
        for body, _ in out:  # (grows as it goes)
            written = self.written(body, frozenset())
            # a choice made in secret is carried out after others made in the same round,
            # which may have moved its parameters' cards already: none is known where it is
            sealed = {id(x) for st, _ in written if isinstance(st, A.Simultaneous)
                      for x, _ in self.written(st.body, frozenset()) if isinstance(x, A.Choose)}
            for st, _ in written:
                if isinstance(st, A.Choose):
                    for n in st.actions:
                        key = (n.id, id(st) in sealed)
                        if key not in seen_actions:
                            seen_actions.add(key)
                            out.append((self.g.actions[n.id].body, frozenset() if key[1] else self.fresh(n.id)))
        return out

    def fresh(self, action: str) -> frozenset:
        """The slots of the parameters of ``action`` whose zone is known."""
        return frozenset(slot for slot, _, _ in self.g.action_slots[action] if self.params[slot][0] is not None)

    def written(self, body, fresh) -> list:
        """(statement, fresh) for each statement of ``body`` and of the blocks
        in it, in the order written.  ``fresh``: the parameters of the action
        that are still in the zone they were chosen in, as far as this proof
        knows: all of them until something moves cards (a trigger could move
        theirs), none inside a loop or after it."""
        out = []

        def visit(block, fresh):
            for st in block:
                out.append((st, fresh))
                if isinstance(st, (A.Move, A.Deal, A.Swap, A.Choose)):
                    fresh = frozenset()
                elif isinstance(st, A.If):
                    for sub in [b for _, b in st.branches] + ([st.else_body] if st.else_body is not None else []):
                        fresh = visit(sub, fresh)  # (a branch after another, as if both ran)
                elif isinstance(st, A.Turn):
                    fresh = visit(st.body, fresh)
                elif isinstance(st, (A.While, A.Repeat, A.For, A.Simultaneous)):
                    visit(st.body, frozenset())
                    fresh = frozenset()
            return fresh
        visit(body, fresh)
        return out

    def assigned(self, blocks) -> set:
        """The plain variables set anywhere in ``blocks`` (and what they choose)."""
        key = tuple(map(id, blocks))
        known = self.assigned_in.get(key)
        if known is not None:
            return known
        out = self.assigned_in[key] = set()
        for body, _ in self.reachable(blocks):
            for st, _ in self.written(body, frozenset()):
                if isinstance(st, (A.Set, A.AugSet, A.SetRandom)):
                    r = self.res(st.target)
                    if r is not None and r[0] == "var":
                        out.add(r[1])
        return out

    # ------------------------------------------------------------ step 2: the weights
    def weigh(self) -> None:
        """Each zone's weight a card: +1 (cards only leave it while the loop
        runs), -1 (cards only enter it) or 0."""
        leave, enter = set(), set()
        zones = set(self.g.zones)
        for body, fresh in self.reachable([self.loop.body] + [t.body for t in self.g.triggers]):
            for st, now in self.written(body, fresh):
                for src, dst in self.edges(st, now):
                    if src is not None and src == dst:
                        continue  # within one zone: no card changes zone
                    leave |= zones if src is None else {src}
                    enter |= zones if dst is None else {dst}
        self.weight = {z: (1 if z in leave and z not in enter else -1 if z in enter and z not in leave else 0)
                       for z in zones}

    def edges(self, st, fresh) -> list:
        """(from zone, to zone) of the cards ``st`` moves (None: a place not known here)."""
        if isinstance(st, A.Move):
            return [(self.zone_of(st.what, fresh), self.zone_of(st.dest, fresh))]
        if isinstance(st, A.Deal):
            return [(self.zone_of(st.source, fresh), self.zone_of(st.dest, fresh))]
        if isinstance(st, A.Swap):
            a, b = self.zone_of(st.a, fresh), self.zone_of(st.b, fresh)
            return [(a, b), (b, a)]
        if isinstance(st, (A.Let, A.Set, A.AugSet, A.SetRandom, A.LetRandom, A.Require, A.Shuffle, A.Reveal,
                           A.Choose, A.EndGame, A.Pass, A.If, A.While, A.Repeat, A.For, A.Turn,
                           A.Simultaneous)):
            return []
        raise _GiveUp  # a statement this proof does not know

    def zone_of(self, e, fresh):
        """The zone that ``e`` (cards, a card, a stack, a zone) is in or is, or
        None if not known; an action's parameter only while in ``fresh``."""
        r = self.res(e)
        if r is not None and r[0] == "zone":
            return r[1]
        if isinstance(e, A.Name) and r is not None and r[0] == "slot":
            return self.params[r[1]][0] if r[1] in fresh else None
        if isinstance(e, A.Index):
            return self.zone_expr(e.obj)
        if isinstance(e, A.Call) and r == ("builtin", e.func) and e.func in ("top", "bottom") and len(e.args) == 1:
            return self.zone_expr(e.args[0])
        return None

    def zone_expr(self, e):
        """The zone ``e`` names (``hand(p)``, ``pile``), or None."""
        r = self.res(e)
        return r[1] if r is not None and r[0] == "zone" else None

    def collection_zone(self, e):
        """The zone whose cards (or stacks) a parameter's domain holds: a zone, or a
        list of its items with a filter; None if not known."""
        z = self.zone_expr(e)
        if z is not None:
            return z
        if isinstance(e, A.ListComp) and isinstance(e.expr, A.Name):
            if self.res(e.expr) == ("slot", self.g.res.get(id(e))):  # the items themselves (the comprehension's slot)
                return self.zone_expr(e.iter)
        return None

    # ------------------------------------------------------------ step 3: every round
    def rounds_progress(self) -> bool:
        ways = [({}, False, frozenset())]  # (known variables, progress made, fresh card parameters)
        for env, moved, _ in self.block(self.loop.body, ways):
            if not moved and self.value(self.loop.cond, env) is not False:
                return False
        return True

    def block(self, body, ways) -> list:
        for st in body:
            ways = [w for way in ways for w in self.statement(st, way)]
            if len(ways) > 1:  # (two ways that know the same are followed as one)
                ways = list({(tuple(sorted(e.items())), m, f): (e, m, f) for e, m, f in ways}.values())
            if len(ways) > MAX_WAYS:
                raise _GiveUp
            if not ways:
                break
        return ways

    def statement(self, st, way) -> list:
        """The ways on after ``st``, from ``way`` (a game that ends: none)."""
        env, moved, fresh = way
        if moved:
            return [way]  # (_DONE: its round makes progress, whatever comes after)
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _GiveUp
        if isinstance(st, A.Set):
            return [(self.setting(env, st.target, self.value(st.expr, env)), moved, fresh)]
        if isinstance(st, (A.AugSet, A.SetRandom)):
            return [(self.setting(env, st.target, _UNKNOWN), moved, fresh)]
        if isinstance(st, A.Require):
            return [] if self.value(st.cond, env) is False else [way]
        if isinstance(st, A.EndGame):
            return []
        if isinstance(st, A.Move):
            return [_DONE] if self.certain_progress(st, fresh) else [(env, moved, frozenset())]
        if isinstance(st, A.Deal) and self.certain_deal(st, fresh):
            return [_DONE]
        if isinstance(st, (A.Deal, A.Swap)):
            return [(env, moved, frozenset())]  # (it, or a trigger it fires, may move a parameter's card)
        if isinstance(st, (A.Let, A.LetRandom, A.Shuffle, A.Reveal, A.Pass)):
            return [way]
        if isinstance(st, A.Turn):
            return self.block(st.body, [way])
        if isinstance(st, A.If):
            out = []
            for cond, body in st.branches:
                v = self.value(cond, env)
                if v is not False:
                    out += self.block(body, [way])
                if v is True:
                    return out
            return out + (self.block(st.else_body, [way]) if st.else_body is not None else [way])
        if isinstance(st, A.Choose):
            out = []
            for n in st.actions:
                a = self.g.actions[n.id]
                out += [(e, m, frozenset()) for e, m, _ in self.block(a.body, [(env, moved, self.fresh(n.id))])]
            return out
        if isinstance(st, (A.While, A.Repeat, A.For, A.Simultaneous)):
            # zero or more rounds: its moves are weighed (step 2), and what it sets is not known after it;
            # a loop that runs at least once (over the players, or a number of times written out) is
            # followed through its first round, for the progress made there
            ways = [(env, moved, frozenset())]
            if self.runs_once(st):
                ways = self.block(st.body, ways)
            forgotten = self.assigned([st.body])
            return [({k: v for k, v in e.items() if k not in forgotten}, m, frozenset()) for e, m, _ in ways]
        raise _GiveUp

    def runs_once(self, st) -> bool:
        """Does the loop ``st`` surely run its body at least once?"""
        if isinstance(st, A.For):
            return self.g.res.get(id(st.iter)) == ("players",)  # (a game has a player)
        if isinstance(st, A.Repeat):
            return isinstance(st.count, A.IntLit) and st.count.value >= 1
        return False

    def setting(self, env, target, value) -> dict:
        r = self.res(target)
        if r is None or r[0] != "var":
            return env  # a player's or a card's variable, a local: not followed
        env = dict(env)
        if value is _UNKNOWN or r[1] in self.volatile:
            env.pop(r[1], None)
        else:
            env[r[1]] = value
        return env

    def certain_progress(self, st: A.Move, fresh) -> bool:
        """Does ``st`` certainly move one card to a lighter zone?"""
        what = st.what
        src = None
        r = self.res(what)
        if isinstance(what, A.Name) and r is not None and r[0] == "slot":
            if self.params.get(r[1], (None, None))[1] == "card":  # (not a stack, not a set of cards)
                src = self.zone_of(what, fresh)
        elif isinstance(what, A.Index) or (isinstance(what, A.Call) and r == ("builtin", what.func)
                                            and what.func in ("top", "bottom")):
            z = self.zone_of(what, fresh)
            if z is not None and self.g.zones[z].kind == "pile":  # (one card, where it is now)
                src = z
        return self.lighter(src, self.zone_of(st.dest, fresh))

    def certain_deal(self, st: A.Deal, fresh) -> bool:
        """Does the deal ``st`` certainly move a card to a lighter zone?  (A
        number of cards written out, 1 or more: a pile that holds fewer stops
        the game at a rule error.)"""
        if not (isinstance(st.count, A.IntLit) and st.count.value >= 1):
            return False
        return self.lighter(self.zone_of(st.source, fresh), self.zone_of(st.dest, fresh))

    def lighter(self, src, dst) -> bool:
        """Is zone ``dst`` lighter than zone ``src`` (both known)?"""
        if src is None or dst is None or src == dst:
            return False
        return self.weight[src] > self.weight[dst]

    def value(self, e, env):
        """``e``'s value where it is known from ``env`` and literals, else _UNKNOWN."""
        self.steps += 1  # (a condition is followed on every way: charged as statements are)
        if self.steps > MAX_STEPS:
            raise _GiveUp
        if isinstance(e, (A.BoolLit, A.IntLit)):
            return e.value
        r = self.res(e)
        if isinstance(e, A.Name):
            if r is not None and r[0] == "var":
                return env.get(r[1], _UNKNOWN)
            if r is not None and r[0] == "member":
                return ("member", r[1])
            return _UNKNOWN
        if isinstance(e, A.Not):
            v = self.value(e.operand, env)
            return _UNKNOWN if v is _UNKNOWN else not v
        if isinstance(e, A.BoolOp):
            values = [self.value(x, env) for x in e.items]
            stop = e.op == "or"  # the value that decides: true for "or", false for "and"
            if stop in values:
                return stop
            return not stop if all(v is not _UNKNOWN for v in values) else _UNKNOWN
        if isinstance(e, A.BinOp) and e.op in ("==", "!="):
            left, right = self.value(e.left, env), self.value(e.right, env)
            if left is _UNKNOWN or right is _UNKNOWN:
                return _UNKNOWN
            return (left == right) == (e.op == "==")
        return _UNKNOWN
