"""Which declared invariants to evaluate again after a step of the fuzzer.

An invariant that reads nothing but places (and perhaps card variables, and
the cells and faces of cards) holds still while what it reads stays the
same (see :mod:`interpreter.compiler.reads`); an invariant over every seat
is kept seat by seat; one over a row of stacks that reads each stack alone,
stack by stack; one over a grid that reads each card and its neighbours
alone, card by card (only the cards a step may have changed it at).
:class:`KeptPlan` tells, after a step, which of them
may have changed, at a cost that grows with the places watched, not with
the invariants: each watched place is compared once, at C speed, with its
copy from the step before, and only the places that differ (and the cards
whose cell or face changed) name the invariants to evaluate again.

A :class:`KeptPlan` is made once per machine and player count; what it
compares against is a :class:`Kept`, one per game.
"""

from __future__ import annotations

import re
from itertools import chain, compress, count
from operator import itemgetter, ne

from .checks import EVAL_ERRORS, _getter
from .compiler.slots import slot_list, slot_local, slot_source
from .compiler.source import Namespace
from .compiler.grids import NEAR
from .runtime import MAX_WORK, STACK_SHIFT, RuleError


class Kept:
    """What a game's kept invariants were last checked against."""

    __slots__ = ("places", "V", "C", "P", "F", "loc", "started", "cells")

    def __init__(self):
        self.places = None  # copies of the watched places (None: nothing checked yet)
        self.V = None  # the watched variables' values
        self.C = self.P = self.F = self.loc = None
        self.started = False  # has the game had its first check?
        self.cells = {}  # for a grid checked card by card: (its copy, a getter, its cards' cells, faces)


class KeptPlan:
    """The kept invariants of a machine at one player count: for each, a
    function of the state, and the places, card variables and cells it
    depends on."""

    def __init__(self, m, n: int):
        stacks = set(m.stack_instances)
        entries = []  # (function, places, card vars, cells: 0 none, 1 its places' cards, 2 any card's)
        # the check is written in the namespace of the rules' own code, where the
        # source of their expressions can be written inline (no call per invariant)
        self.namespace = getattr(m, "namespace", None)
        self.n = n
        self.inline = {}  # entry -> (seat slot, seat, source of its body at that seat) where it has one
        self.by_stack = {}  # entry -> a function of (state, stack index) for the stacks of its one place
        self.stack_inline = {}  # entry -> (stack slot, seat slot or None, seat, its place, body's source) where it has one
        self.every = []  # (function, its body's source at each seat) of those evaluated at every check
        self.by_card = {}  # entry -> a function checking the cards of its one grid a step may have changed it at
        # the entries checked stack by stack whose bodies read the card variables of their stack's
        # own cards alone: when card variables change, only the stacks holding such a card again
        self.own_card_vars = set()
        self.cards = len(m.card_names)  # (card variable v of card c is C[v * cards + c])
        variables = []  # for each entry, the indices in V of the variables it reads
        for (f, _, _), reads, seats, stacked, carded, var in zip(
                m.invariants, m.invariant_reads, m.invariant_seats, m.invariant_stacks, m.invariant_cards,
                m.invariant_vars):
            if seats is not None and self.namespace is not None:
                # a body that reads no more than a few sizes at each seat costs less to
                # evaluate at every check than to compare what it reads
                written = [_written(seats[0], n, seats[1], q) for q in range(n)]
                if all(w is not None and _plain(w) for w in written):
                    self.every.append((f, written))
                    continue
            if reads is not None:
                variables += [var] * (n if seats is not None else 1)
            if seats is not None:
                body, slot, shared, own, card_vars, cells = seats
                for q in range(n):
                    places = shared + tuple(m.zones[z].base + q for z in own)
                    if stacked is not None:
                        self.by_stack[len(entries)] = _at_stack(stacked[0], stacked[1], places[0], slot, q)
                        self._stack_written(len(entries), stacked, places[0], slot, q)
                        if stacked[2]:
                            self.own_card_vars.add(len(entries))
                    if carded is not None and len(places) == 1:
                        self.by_card[len(entries)] = _at_cards(carded[0], carded[1], len(entries), slot, q)
                    written = _written(body, n, slot, q) if self.namespace is not None else None
                    if written is not None:
                        self.inline[len(entries)] = (slot, q, written)
                    entries.append((_at_seat(body, slot, q), places, card_vars, cells))
            elif reads is not None:
                places = reads[0]
                if stacked is not None:
                    places = places[:1]  # a shared zone's one instance (see live_instances)
                    self.by_stack[len(entries)] = _at_stack(stacked[0], stacked[1], places[0])
                    self._stack_written(len(entries), stacked, places[0])
                    if stacked[2]:
                        self.own_card_vars.add(len(entries))
                if carded is not None and len(places) == 1:  # (a shared grid: its one instance)
                    self.by_card[len(entries)] = _at_cards(carded[0], carded[1], len(entries))
                entries.append((f, places, reads[1], reads[2]))
        self.functions = [e[0] for e in entries]
        self.var_watched = sorted({v for var in variables for v in var})
        self.var_readers = [[i for i, var in enumerate(variables) if v in var] for v in self.var_watched]
        watched = sorted({j for e in entries for j in e[1]})
        self.watched = watched
        self.get_places, self.get_values = _getter(watched), _getter(self.var_watched)  # read at C speed
        self.deep = [j in stacks for j in watched]  # a row of stacks is copied deeply
        at = {j: k for k, j in enumerate(watched)}
        self.readers = [[] for _ in watched]  # for each watched place, the entries that read it
        self.stack_readers = [[] for _ in watched]  # ... those of them checked stack by stack
        for i, (_, places, _, _) in enumerate(entries):
            for j in places:
                (self.stack_readers if i in self.by_stack else self.readers)[at[j]].append(i)
        # the entries that read card variables; the cells and faces of any card; of their places' cards
        self.card_var_readers = [i for i, e in enumerate(entries) if e[2]]
        self.any_cell_readers = [i for i, e in enumerate(entries) if e[3] == 2]
        self.place_cell_readers = {}  # watched place -> entries that read its cards' cells and faces
        for i, (_, places, _, cells) in enumerate(entries):
            if cells == 1 and i not in self.by_card:  # (those find the cards that changed themselves)
                for j in places:
                    self.place_cell_readers.setdefault(j, []).append(i)
        self.cells = bool(self.any_cell_readers or self.place_cell_readers or self.by_card)
        # _cells_named leaves out a place that changed: its readers of cells and faces are evaluated
        # whole for that change (none is checked stack by stack: reads.stack_split refuses a body
        # that reads a cell or a face, which would miss a card turned over in an unchanged stack)
        assert not any(entries[i][3] for i in self.by_stack), "a body checked stack by stack reads a cell"
        # for each such place: its index in Z and among the watched, is it a row of stacks, its readers
        self.cell_places = [(j, at[j], self.deep[at[j]], tuple(readers))
                            for j, readers in sorted(self.place_cell_readers.items())]
        # the invariants that are not kept (they read more, or cost less than comparing): every time
        self.each = [f for (f, _, _), r in zip(m.invariants, m.invariant_reads) if r is None] + \
            [f for f, _ in self.every]
        self.later = _generate(self, entries, variables)

    def _stack_written(self, entry: int, stacked, place: int, seat_slot=None, seat=None) -> None:
        """Keep the source of a body checked stack by stack, the seat (if
        any) and the number of players written in, for :func:`_generate`."""
        if self.namespace is None:
            return
        written = _written(stacked[0], self.n, seat_slot, seat)
        if written is not None:
            self.stack_inline[entry] = (stacked[1], seat_slot, seat, place, written)

    def first(self, st, kept: Kept) -> bool:
        """At a game's first check (or after one that failed), every invariant
        evaluated; ``later`` (generated, see :func:`_generate`) checks after
        that, evaluating those whose reads changed, and calls this while
        ``kept`` holds nothing.  An invariant that does not hold, or cannot
        be evaluated, has ``kept`` start again."""
        st.m.work_left = MAX_WORK
        try:
            for f in self.each:
                if not f(st):
                    return False  # (kept starts again only for a kept one)
            for f in self.functions:
                if not f(st):
                    return False
        except (*EVAL_ERRORS, RuleError):
            return False
        kept.places = [list(map(list.copy, x)) if d else x.copy()
                       for x, d in zip(self.get_places(st.Z), self.deep)]
        kept.V = list(self.get_values(st.V))
        kept.loc = st.loc.copy()
        # the card variables, cells and faces are shared, as a clone shares them: the state
        # copies them before it writes one (State.clone), and the next check sees the same
        # list, unchanged, without comparing it
        kept.C, kept.P, kept.F = st.C, st.P, st.F
        if self.card_var_readers:  # (what no check compares may change under kept)
            st.cshared = True
        if self.cells:
            st.pshared = True
        return True

    def _cells_named(self, st, kept, cp: bool, cf: bool) -> set:
        """The entries that read the cells and faces of a place's cards,
        for the places holding a card whose cell (``cp``: some cell changed)
        or face (``cf``) changed.  Only the cards now in a place that did
        not change are looked at: a card that left a place, or came, changed
        the place itself, and its readers are evaluated for that anyway.
        (A few lookups per card of those places: comparing every card's
        cell and face took 5 µs in a game of about a hundred cards.)"""
        Z, old, out = st.Z, kept.places, set()
        P, F, oldP, oldF = st.P, st.F, kept.P, kept.F
        for j, k, deep, readers in self.cell_places:
            z = Z[j]
            if z != old[k]:
                continue
            if deep:
                z = list(chain.from_iterable(z))
            if not z:
                continue
            get = itemgetter(*z)
            if (cp and get(P) != get(oldP)) or (cf and get(F) != get(oldF)):
                out.update(readers)
        return out


# The tables a check keeps by sharing them with the state, and the state's flag that has
# it copy one before writing it
_SHARED = {"C": "cshared", "P": "pshared", "F": "pshared"}


def _generate(plan: KeptPlan, entries, variables):
    """The check after a game's first, as one generated function of (state,
    kept): every watched place, variable and table compared once with its
    copy (at C speed), each entry evaluated once if something it reads
    changed (a row of stacks: the stacks that changed), then only what
    changed copied.  Built, like the rules' own code, from generated names
    and numbers alone (see :mod:`interpreter.compiler.source`)."""
    ns = plan.namespace if plan.namespace is not None else Namespace()
    fail = ns.ref(_fail, "_f")
    functions, by_stack = ns.ref(plan.functions, "_F"), ns.ref(plan.by_stack, "_B")  # read when called
    by_card = ns.ref(plan.by_card, "_K") if plan.by_card else None
    at = {j: k for k, j in enumerate(plan.watched)}
    vat = {v: k for k, v in enumerate(plan.var_watched)}
    lines = ["def _later(st, kept):", " old = kept.places", " if old is None:",  # a game's first check
             f"  return {ns.ref(plan.first, '_h')}(st, kept)"]
    if plan.each:  # evaluated at every check
        seats = {id(f): written for f, written in plan.every}
        written = {id(f): _written(f, plan.n) if plan.namespace is not None else None for f in plan.each}
        if not all(id(f) in seats or written[id(f)] is not None and _plain(written[id(f)]) for f in plan.each):
            lines.append(f" st.m.work_left = {int(MAX_WORK)}")  # (sizes and values alone cost the budget nothing)
        lines.append(" try:")
        for f in plan.each:
            if id(f) in seats:  # seat by seat, each seat written in
                lines += [f"  if not ({' and '.join(seats[id(f)])}):", "   return False"]
                continue
            lines += [f"  if not {written[id(f)] or ns.ref(f) + '(st)'}:", "   return False"]
        lines += [" except " + ns.ref((*EVAL_ERRORS, RuleError), "_e") + ":", "  return False"]
    if not (plan.watched or plan.var_watched or plan.card_var_readers or plan.any_cell_readers or plan.cells):
        lines.append(" return True")  # nothing is kept: every invariant was evaluated above
        return ns.define("\n".join(lines) + "\n", "_later")
    lines.append(" Z = st.Z")
    changed = []  # the names of the flags: this read changed
    for k, j in enumerate(plan.watched):
        lines += [f" z{k} = Z[{j}]", f" c{k} = z{k} != old[{k}]"]
        changed.append(f"c{k}")
    if plan.var_watched:
        lines += [" V = st.V", " W = kept.V"]
        for k, v in enumerate(plan.var_watched):
            lines.append(f" v{k} = V[{v}] != W[{k}]")
            changed.append(f"v{k}")
    tables = [(name, flag) for name, flag, wanted in (("C", "cc", plan.card_var_readers),
                                                      ("loc", "cl", plan.any_cell_readers),
                                                      ("P", "cp", plan.cells), ("F", "cf", plan.cells)) if wanted]
    # the tables kept are shared with the state (see KeptPlan.first): the same list is the
    # same table; another, written since, is compared (a write may leave a value as it was)
    again = []  # the lines that share the tables written since, for the next check
    for name, flag in tables:
        if name in _SHARED:
            lines += [f" n{flag} = st.{name} is not kept.{name}", f" {flag} = n{flag} and st.{name} != kept.{name}"]
            again += [f" if n{flag}:", f"  kept.{name} = st.{name}", f"  st.{_SHARED[name]} = True"]
        else:
            lines.append(f" {flag} = st.{name} != kept.{name}")
            again += [f" if {flag}:", f"  kept.{name} = st.{name}.copy()"]
        changed.append(flag)
    lines += [f" if not ({' or '.join(changed) or 'False'}):"] + [" " + line for line in again] + ["  return True",
              f" st.m.work_left = {int(MAX_WORK)}"]  # what evaluations go through (see Machine.run)
    if plan.stack_inline:  # (the slots a body written out at each stack reads)
        lines += [" L = st.L", " S = st.S"]
    if plan.place_cell_readers:
        lines.append(f" x = {ns.ref(plan._cells_named, '_x')}(st, kept, cp, cf) if cp or cf else ()")
    # the rows of stacks some entry checks stack by stack: one pass over each row that
    # changed finds the stacks that changed, copies each, and checks it for every such entry
    rows = {}  # row -> [(the lines checking its stack y1 at index y, the flags that have it checked whole)]
    # an entry checked stack by stack that reads the card variables of its stack's cards alone is
    # not evaluated whole when some changed: its row checks again the stacks holding a card
    # whose variables changed (dc), as well as those that changed
    by_cards = {i for i in plan.own_card_vars if entries[i][2] and len(entries[i][1]) == 1}
    targeted = {at[entries[i][1][0]] for i in by_cards}  # the rows of those entries
    if by_cards:
        lines.append(f" dc = {ns.ref(changed_cards, '_dc')}(st.C, kept.C, {int(plan.cards)}) if cc else None")
    lines.append(" try:")
    for i, (_, places, card_vars, cells) in enumerate(entries):
        whole = [f"v{vat[v]}" for v in variables[i]] + (["cc"] if card_vars and i not in by_cards else []) \
            + (["cl", "cp", "cf"] if cells == 2 else []) \
            + ([f"{i} in x"] if cells == 1 and i not in plan.by_card else [])
        own = [f"c{at[j]}" for j in places]
        name = f"{functions}[{i}]"
        if i in plan.by_stack and len(places) == 1:  # stack by stack, unless it must be evaluated whole
            k = at[places[0]]
            each = [f"if not {by_stack}[{i}](st, y):", f" return {fail}(kept)"]
            if i in plan.stack_inline:  # the body written out, at each stack (and its seat)
                slot, seat_slot, seat, place, body = plan.stack_inline[i]
                index = slot_source(slot)  # (the body reads the stack's index there: y0 here, its cards y1)
                each = ([f"{slot_local(seat_slot)} = {int(seat)}"] if seat_slot is not None else []) \
                    + [f"{slot_local(slot)} = y0",
                       f"if not {body.replace(f'_stack(st, {index})', 'y1').replace(index, 'y0')}:",
                       f" return {fail}(kept)"]
            if whole:
                lines += [f"  if ({' or '.join(whole)}) and not {name}(st):", f"   return {fail}(kept)"]
            rows.setdefault(k, []).append((each, whole))
        elif i in plan.by_card:  # the cards of its grid that came, left, moved or turned over, and their neighbours
            k = at[places[0]]
            call = f"{by_card}[{i}](st, kept, z{k}, old[{k}], c{k}, cp, cf, {' or '.join(whole) or 'False'})"
            # a grid of the same cards: their cells and faces, as the last check saw them (see
            # _at_cards), compared here first: a card laid in another grid changed a cell
            stale = f"s is None or s[0] is not old[{k}] or (cp and s[1](st.P) != s[2]) or (cf and s[1](st.F) != s[3])"
            lines += [f"  if c{k}{''.join(' or ' + w for w in whole)}:", f"   if not {call}:", f"    return {fail}(kept)",
                      "  elif cp or cf:", f"   s = kept.cells.get({i})",
                      f"   if ({stale}) and not {call}:", f"    return {fail}(kept)"]
        elif (whole or own) and i in plan.inline:  # the body written out, at its seat
            slot, seat, body = plan.inline[i]
            lines += [f"  if {' or '.join(own + whole)}:", f"   {slot_source(slot)} = {int(seat)}",
                      f"   if not {body}:", f"    return {fail}(kept)"]
        elif whole or own:
            lines += [f"  if ({' or '.join(own + whole)}) and not {name}(st):", f"   return {fail}(kept)"]
    for k, checks in sorted(rows.items()):
        # copied as it is compared: a check that fails has the next one start over anyway
        if k in targeted:  # (a stack as it was, holding a card whose variables changed: checked again)
            same = ["     if y1 == o[y]:", "      if not dc or dc.isdisjoint(y1):", "       continue",
                    "     else:", "      o[y] = y1.copy()"]
        else:
            same = ["     if y1 == o[y]:", "      continue", "     o[y] = y1.copy()"]
        lines += [f"  if c{k}{' or dc' if k in targeted else ''}:", f"   o = old[{k}]", "   had = len(o)",
                  f"   for y, y1 in enumerate(z{k}):", "    if y < had:", *same,
                  "    else:", "     o.append(y1.copy())",
                  f"    y0 = {int(plan.watched[k]) << STACK_SHIFT} | y"]
        for each, whole in checks:
            if whole:  # (evaluated whole above)
                lines.append(f"    if not ({' or '.join(whole)}):")
                lines += ["     " + line for line in each]
            else:
                lines += ["    " + line for line in each]
        lines.append(f"   del o[len(z{k}):]")
    if lines[-1] == " try:":  # nothing to evaluate again (a plan with no entries)
        lines.append("  pass")
    lines += [" except " + ns.ref((*EVAL_ERRORS, RuleError), "_e") + ":", f"  return {fail}(kept)"]
    for k, deep in enumerate(plan.deep):  # what they read now, for the next step
        if k in rows:  # copied above, stack by stack
            continue
        lines.append(f" if c{k}:")
        lines.append(f"  old[{k}] = list(map(list.copy, z{k}))" if deep else f"  old[{k}] = z{k}.copy()")
    if plan.var_watched:
        lines.append(f" if {' or '.join(f'v{k}' for k in range(len(plan.var_watched)))}:")
        lines.append(f"  kept.V = list({ns.ref(plan.get_values, '_g')}(V))")
    lines += again
    lines.append(" return True")
    return ns.define("\n".join(lines) + "\n", "_later")


_PLAYERS = re.compile(r"\bst\.n\b")  # the number of players, in generated source


def _written(f, n, slot=None, seat=None):
    """The source of expression function ``f`` with ``n`` written in for
    the number of players (and ``seat`` for the value of the seat's slot
    ``slot``: the caller sets the slot too, for what the source calls), or
    None if ``f`` has no source."""
    kind = getattr(f, "flow", None)
    if kind is None or kind[0] != "expr":
        return None
    src = kind[1] if slot is None else _SUM.sub(_added, kind[1].replace(slot_source(slot), f"({int(seat)})"))
    return "(" + _PLAYERS.sub(f"({int(n)})", src) + ")"


_SUM = re.compile(r"\((\d+) \+ \((\d+)\)\)")  # (a place's base + (the seat written in))


def _added(match) -> str:
    return str(int(match[1]) + int(match[2]))


_CALL = re.compile(r"[A-Za-z0-9_\]]\(")


def _plain(src: str) -> bool:
    """Does this source call nothing but ``len``, and read no slot (a body at
    a seat has its seat written in)?  What it reads besides (sizes,
    variables, a card's printed attribute or variable) costs a subscript or
    two, less than comparing places with their copies."""
    return "st.L[" not in src and "st.S[" not in src and not _CALL.search(src.replace("len(", "("))


def _fail(kept) -> bool:
    """An invariant does not hold, or cannot be evaluated: the next check evaluates them all."""
    kept.places = None
    return False


def changed_cards(C, old, cards: int) -> set:
    """The cards (of ``cards``) one of whose variables differs between
    the tables ``C`` and ``old`` (variable v of card c at ``v * cards + c``),
    found at C speed."""
    return {i % cards for i in compress(count(), map(ne, C, old))}


def _at_stack(body, slot, place, seat_slot=None, seat=None):
    """``body`` evaluated with the stack of ``place`` at an index (given)
    in ``slot`` (and ``seat`` in ``seat_slot``)."""
    base = place << STACK_SHIFT
    slots_of, k = slot_list(slot)  # (a scratch slot, bound in the invariant: see .compiler.slots)
    if seat_slot is not None:
        seat_slots_of, seat_k = slot_list(seat_slot)

    def at_stack(st, x):
        if seat_slot is not None:
            seat_slots_of(st)[seat_k] = seat
        slots_of(st)[k] = base | x
        return body(st)
    return at_stack


def _at_seat(body, slot, seat):
    """``body`` evaluated with ``seat`` in ``slot``."""
    slots_of, k = slot_list(slot)

    def at_seat(st):
        slots_of(st)[k] = seat
        return body(st)
    return at_seat


def _at_cards(body, slot, entry, seat_slot=None, seat=None):
    """A check of ``body`` (see :func:`interpreter.compiler.reads.card_split`)
    at the cards of a grid that a step may have changed its value at: the
    cards that came, moved, turned over or changed places in the grid's
    order, and every card next to where one of them is or was, or where a
    card that left was.  Only those: BODY at a card reads nothing but the
    card and the cards next to it, in the grid's order.  ``whole`` (some
    card variable changed, and BODY reads card variables): every card."""
    slots_of, k = slot_list(slot)
    if seat_slot is not None:
        seat_slots_of, seat_k = slot_list(seat_slot)

    def at_cards(st, kept, now, before, changed, cp, cf, whole) -> bool:
        if whole:  # (its cards may have moved too: what was last seen of them is seen again below)
            kept.cells.pop(entry, None)
        if not now:
            return True
        P = st.P
        if not whole:
            had = len(before)
            if not changed or now[:had] == before:  # the cards there before, then perhaps more
                still = True  # have they all kept their cells and faces? (cp, cf: some card's changed)
                if had and (cp or cf):
                    if changed:
                        get = itemgetter(*before)
                        still = not ((cp and get(P) != get(kept.P)) or (cf and get(st.F) != get(kept.F)))
                    else:  # (a card laid elsewhere: their cells and faces as last seen, kept while the grid is)
                        seen = kept.cells.get(entry)
                        if seen is None or seen[0] is not before:
                            get = itemgetter(*before)
                            seen = kept.cells[entry] = (before, get, get(kept.P), get(kept.F))
                        get = seen[1]
                        still = not ((cp and get(P) != seen[2]) or (cf and get(st.F) != seen[3]))
                        if not still:  # (as last seen: kept.P and kept.F, once this check is done)
                            del kept.cells[entry]
                if still and not changed:
                    return True
            else:
                still = False
            if still:  # cards came, and that is all (as a grid mostly grows)
                near = {P[c] + d for c in now[had:] for d in NEAR}
            else:
                F, oldP, oldF = st.F, kept.P, kept.F
                was, here = set(before), set(now)
                came = [c for c in now if c not in was or P[c] != oldP[c] or F[c] != oldF[c]]
                gone = [c for c in before if c not in here]
                # cards that stayed but now come in another order (a card laid again on its own
                # cell goes last): the neighbours of a card next to them come in another order,
                # which can change what a generator that stops early (on an error) gives
                stayed = [c for c in now if c in was]
                for i, (c, b) in enumerate(zip(stayed, [c for c in before if c in here])):
                    if c != b:
                        came += stayed[i:]
                        break
                # (a card that came has an old cell of no meaning here: one more cell looked at)
                cells = {P[c] for c in came} | {oldP[c] for c in chain(came, gone)}
                near = {x + d for x in cells for d in NEAR}
            now = [c for c in now if P[c] in near]
        if seat_slot is not None:
            seat_slots_of(st)[seat_k] = seat
        for c in now:
            slots_of(st)[k] = c
            if not body(st):
                return False
        return True
    return at_cards
