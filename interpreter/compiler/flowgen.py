"""The flow as generated Python: one function per place the flow starts from.

The machine's code list stays the reference (the VM can run it op by op);
this module turns it into functions, each running the flow from one pc
until a decision, the end, a chance step, or a point where it hands back
to the VM (``Machine.run``), with no VM step per op:

- a straight run of steps is one call after another;
- a branch is an ``if``/``else`` that joins again where the flow joins;
- a loop with no decision or chance step inside is a ``while`` loop (the
  game may end inside it: the function returns there; a step raises
  :class:`_Ended` out of the loops),
  its rounds counted against the VM's bound (``Machine.rounds_left``);
- a loop with a decision inside is followed round once at most: where the
  flow comes back to a pc the function has already passed, it returns that
  pc and the VM calls the function that starts there.  Its round is counted
  where the flow jumps back, as the VM counts one;
- a function nests few enough loops and ``try`` blocks, and indents little
  enough, for Python to compile it (``MAX_BLOCKS``, ``MAX_DEPTH``), and
  writes a bounded number of steps (``BUDGET``; a loop it could not write
  as ``while`` is not written twice over).

A function returns the next pc for the VM, or -1 once it has stopped the
state (``st.pc`` set at a decision or the end).  If a step fails it sets
``st.pc`` to that step's pc, so the error names the step's line, as the VM
does: the lines carry marks (``@pc N``, a statement's ``@span``) that
:func:`.source.marked` takes out into a table the function's one handler
reads (:func:`.failures.failed`), so no statement needs a ``try`` of its
own.  The rule the writer keeps: every line that can fail (a step, a test,
a round's check against the bound) comes right after a ``@pc`` mark of its
own at its indentation; the lines between (a loop's counter and test, a
slot set, the end of a round) cannot fail.

Functions are generated the first time the flow starts from their pc
(:func:`install`): loading a game compiles none, so ``rulerun check`` pays
nothing for them.  Like every generated source, they are built from
generated names and ints only (:mod:`.source`).

Steps that carry a ``flow`` tuple are written inline instead of called: a
``for`` loop's start, test and counter, a ``repeat``'s, a turn's start and end, a
coverage probe (made by :mod:`.flow`), a fused run of steps (:mod:`.fusion`,
each still naming its own line), a move (but one to a grid's cell) or a deal
(:mod:`.effects`, :mod:`.flow_cards`), a trigger's test when it has no
condition (:mod:`.triggers`) and an expression's own source
(:meth:`.expressions.Expressions.function_of`).  The flow's functions read
the state's slots through a local (:func:`local_slots`).

Two more kinds of functions are generated the same way, the first time
they are needed: ``_step{uid}`` plays an action offered at a choice, from
binding its parameters to the next stop, the flow function of its effects
written in (:func:`generate_step`, called by ``State.apply``), and ``_site{site}`` lists the
legal actions of a choice (:mod:`.sites`; :meth:`Machine.enumerate_site`,
``Machine.legal_at`` finds it by pc).
"""

from __future__ import annotations

import re

from ..checks import EVAL_ERRORS, _explain
from ..machine import _went_round as rounds_exceeded
from .. import machine as vm
from ..runtime import DECIDE, END, EXEC, JF, JMP, RANDOM, RuleError, no_choice
from .site_cache import cached_site
from .source import MARK
from .sites import generate_site, returns_left
from .inline import inline_source
from .fusion import SLOT_STEPS, slot_step

# ops one generated function writes out at most before handing back to the VM
BUDGET = 150
# Python compiles at most 20 nested loops and try blocks, and 100 levels of indentation:
# a function nests fewer (a loop past them goes round through the VM; a fused run is called)
MAX_BLOCKS = 12
MAX_DEPTH = 60




def install(m, ns) -> None:
    """Give machine ``m`` its table of flow functions, each generated (in
    namespace ``ns``) the first time the flow starts from its pc."""
    code = m.code
    fns = [None] * len(code)
    m.flow_fns = fns
    # every object the functions name gets its name now, in the code's order: a function's
    # source then depends on its pc alone, not on the order play reaches them (a source
    # compiled once is kept for the next machine of the same rules: see source.Namespace)
    for obj in (m, rounds_exceeded, RuleError, EVAL_ERRORS, _explain, m.stack_instances, _Ended):
        ns.ref(obj)
    ns.ref(fns, "_F")  # (the step functions run the flow by it)
    for op, a, _, span in code:
        ns.ref(span, "_s")
        if op in (EXEC, JF):
            ns.ref(a)
            kind = getattr(a, "flow", None)
            if kind is not None and kind[0] in ("enter", "count"):
                ns.ref(kind[1 if kind[0] == "count" else 2])
    for sa in m.site_actions:
        ns.ref(sa.action.enumerate)
        ns.ref(sa.action.span, "_s")
        for _, f in sa.action.lets:
            ns.ref(f)

    def lazy(st):
        pc = st.pc
        f = fns[pc] = generate(m, ns, pc)
        return f(st)
    for pc, (op, _, _, _) in enumerate(code):
        if op != RANDOM:  # a chance step stays with the VM (explicit or sampled)
            fns[pc] = lazy

    def lazy_step(st, action):
        uid = action[0]
        f = steps[uid] = generate_step(m, ns, m.site_actions[uid])
        return f(st, action)
    steps = m.action_steps = [lazy_step] * len(m.site_actions)

    def lazy_site(st):  # (each choice has its own site, at one pc)
        site = code[st.pc][1]
        f = legal_at[st.pc] = cached_site(m, ns, site, generate_site(m, ns, site, code[st.pc][3]))
        return f(st)
    legal_at = m.legal_at = [lazy_site if op == DECIDE else no_choice for op, _, _, _ in code]


def generate_step(m, ns, sa):
    """``step(st, action)`` for one action offered at one choice: binds its
    parameters and lets, runs its effects and the flow after them up to the
    next stop (a decision, a chance step, the end), and then has the players
    who could not see a card chosen by name forget where it went (as
    :meth:`Machine.forget_unseen` does, written in: :func:`forget_source`).
    What ``State.apply`` calls once the
    action is known to be legal: one function, not a call each to bind the
    action, to run the VM and to forget."""
    name = f"_step{int(sa.uid)}"
    ad = sa.action
    mach, rule = ns.ref(m), ns.ref(RuleError)
    lines = [f"def {name}(st, action):", "    L = st.L"]
    cards = []  # (the card's local, its place's, its blind seats')
    if m.knowledge and any(typ == "card" for _, typ, _ in ad.params):
        lines.append("    everyone = (1 << st.n) - 1")
    for i, (slot, typ, _) in enumerate(ad.params):
        if typ == "card" and m.knowledge:  # (who could not see it is told to forget below)
            c, z, b = f"_pc{i}", f"_pz{i}", f"_pb{i}"  # (names no generated flow line uses)
            lines += [f"    {c} = L[{int(slot)}] = action[{i + 1}]",
                      f"    {z} = st.loc[{c}]",
                      f"    {b} = everyone & ~st.vis[{z}]"]  # the seats that could not see it there
            cards.append((c, z, b))
        else:
            lines.append(f"    L[{int(slot)}] = action[{i + 1}]")
    if ad.lets:
        lines.append("    try:")
        for slot, f in ad.lets:
            lines.append(f"        L[{int(slot)}] = {_Writer.source_of(ns, f)}")
        lines += [f"    except {ns.ref(EVAL_ERRORS)} as err:",
                  f"        raise {rule}({ns.ref(_explain)}(err), {ns.ref(ad.span, '_s')}) from None"]
    if sa.sealed is not None:  # kept, unseen, until everyone has chosen
        slot = int(sa.sealed)
        lines.append(f"    L[{slot}] = L[{slot}] + ((st.me, tuple(action)),)")
    body = int(sa.body_pc)
    where = {}
    written = _flow_in_step(m, ns, body, ns.table_of(name, where), not cards) if m.flow_fns[body] is not None else None
    # the budgets of a step, as Machine.run fills them; the flow written in counts its
    # rounds in a local, _r, handed to the machine if the VM goes on from there. Where the
    # flow is written in, st.pc is set where it stops (a choice, the end), where it fails (its
    # except clause: the failing step's pc) and where it hands back to the VM (below); until
    # then it holds the choice's pc, and nothing in between reads it (a flow called, or run
    # by the VM, starts from st.pc: set here)
    lines += ([f"    st.pc = {body}"] if written is None else []) + [
              f"    {mach}.work_left = {int(vm.MAX_WORK)}",
              f"    {'_r' if written is not None else mach + '.rounds_left'} = {int(vm.MAX_AUTO_STEPS)}",
              "    try:"]
    if written is not None:  # the flow from there, written in, then the VM if it hands back
        lines += written + ["        if pc >= 0:",
                            "            st.pc = pc",
                            f"            {mach}.rounds_left = _r",
                            f"            {mach}.run(st, False)"]
    elif m.flow_fns[body] is not None:  # (the flow from there, called)
        lines += [f"        pc = {ns.ref(m.flow_fns, '_F')}[{body}](st)",
                  "        if pc >= 0:",
                  "            st.pc = pc",
                  f"            {mach}.run(st, False)"]
    else:  # (a chance step first: the VM's)
        lines.append(f"        {mach}.run(st, False)")
    lines += [f"    except {rule} as err:",  # placed as Machine.run places an error
              "        if err.span is None:",
              f"            raise {mach}.placed(st, err) from None",
              "        raise",
              f"    except {ns.ref(EVAL_ERRORS)} as err:",
              f"        raise {mach}.placed(st, err) from None"]
    for c, z, b in cards:  # in the order of the parameters, as each forgetting changes what the next sees
        lines += [f"    if {b}:"] + [f"        {line}" for line in forget_source(m, ns, c, z, b)]
    return ns.define("\n".join(lines) + "\n", name, where)


def _flow_in_step(m, ns, body: int, where: str, last: bool = False) -> list | None:
    """The lines of the flow function that starts at ``body`` (see
    :func:`generate`), to be written in an action's step in place of a
    call to it: in a ``while`` that each of its ``return`` lines leaves
    (``pc = ...`` then ``break``), setting ``pc`` as the call would.  None
    (call it) if a ``return`` stands inside a loop of its own, which a
    ``break`` would not leave (a loop with a stop inside is not written as a
    Python loop: see :meth:`_Writer.loop`, so this is a guard), save the
    game's end (``return -1`` after ``st.is_terminal``), raised out of the
    loops as :class:`_Ended`.  ``where``: the name of the step's table of
    its lines (see .source.marked).  ``last``: nothing follows the flow in
    the step (no card to forget), so where the flow stops (a choice, the
    end: ``return -1``) the step returns, from inside its loops too."""
    writer = _Writer(m, ns)
    writer.rounds_at = "_r"  # the step's local (see generate_step)
    flow = writer.function(body, where)  # (L = st.L; @pc body; try: ...; except BaseException: ...)
    ended = ns.ref(_Ended)
    stop = ["return"] if last else [f"raise {ended}"]
    out = returns_left(flow[3:-3], lambda value: ["return"] if last and value == "-1" else [f"pc = {value}", "break"],
                       lambda value: stop if value == "-1" else None)
    if out is None:
        return None
    caught = [f"        except {ended}:", "            pc = -1"] if any(f"raise {ended}" in x for x in out) else []
    return [f"        @pc {int(body)}", "        try:", "            while True:"] + \
        ["        " + line for line in out] + ["                break",  # (every way through returns: a guard)
                                              *caught,
                                              "        except BaseException as err:",
                                              f"            _failed(st, err, {where})",
                                              "            raise"]


class _Ended(Exception):
    """The game ended inside a loop of the flow written in a step (a
    ``while`` that a ``break`` cannot leave through the loops around it):
    raised from there (once a game, at most), caught around the flow."""


def forget_source(m, ns, c: str, z: str, b: str) -> list:
    """Source lines of :meth:`Machine.forget_unseen` for card ``c`` chosen
    from place ``z`` by a player the seats ``b`` could not see (names of
    the step's locals), written for this machine: whether it lays cards
    face down and keeps stacks is known here, not asked card by card.
    Since the seats ``b`` do not see ``z``, each card left there, face
    down or not, is forgotten by all of them."""
    seen = f"(0 if st.F[{c}] else st.vis[st.loc[{c}]])" if m.face_down else f"st.vis[st.loc[{c}]]"
    lines = [f"{b} &= ~{seen}",  # still out of their sight where it went?
             f"if {b}:",
             "    K = st.K",
             f"    drop = ~{b}"]
    if m.stack_instances:
        stacks = ns.ref(m.stack_instances)  # (named by install)
        lines.append(f"    for x in ([x for y in st.Z[{z}] for x in y] if {z} in {stacks} else st.Z[{z}]):")
    else:
        lines.append(f"    for x in st.Z[{z}]:")
    return lines + ["        K[x] &= drop", f"    K[{c}] &= drop"]


def generate(m, ns, start: int):
    name = f"_flow{int(start)}"
    writer = _Writer(m, ns)
    body = writer.function(start, ns.table_of(name, writer.where))
    return ns.define(f"def {name}(st):\n" + "\n".join(body) + "\n", name, writer.where)


_STATE_SLOT = re.compile(r"(?<![A-Za-z0-9_.])st\.L\[")


def local_slots(line: str) -> str:
    """``line`` reading the state's slots through the function's local ``L``
    (bound to ``st.L``, which no step replaces) instead of ``st.L``; a line
    with a comprehension is left as it is (its own scope would make ``L``
    a cell of the whole function)."""
    return line if " for " in line or "st.L[" not in line else _STATE_SLOT.sub("L[", line)


def _plain_loop(code, top: int, exit_: int) -> bool:
    """Is [top, exit_) a loop (JF at ``top`` to ``exit_``, JMP back to ``top``
    last) whose body has no decision or chance step, and no jump out?  (The
    game may end inside it: the function returns there.)"""
    for pc in range(top + 1, exit_ - 1):
        op, a, b, _ = code[pc]
        if op in (DECIDE, RANDOM):
            return False
        if op == JMP and not top <= a <= exit_:
            return False
        if op == JF and not top <= b <= exit_:
            return False
    return True


class _Writer:
    def __init__(self, m, ns):
        self.code = m.code
        self.ns = ns
        self.m = m
        self.lines = []
        self.where = {}  # line -> (pc, span), filled as the function is defined (see .source.marked)
        self.left = BUDGET
        self.rounds = False  # does the function count a loop's rounds (its local k)?
        self.blocks = 1  # the loops and try blocks around what is being written (the function's try)
        self.machine = ns.ref(m)
        self.rounds_at = f"{self.machine}.rounds_left"  # where the rounds left are counted between loops

    def out(self, depth, line):
        self.lines.append("    " * depth + line)

    def function(self, start, where: str):
        """A function's body: the flow from ``start``, where a failing step
        sets ``st.pc`` to its pc, and an error of evaluation names its
        statement (the marks of the lines, read by failures.failed from the
        table named ``where``)."""
        self.region(start, None, frozenset(), 2, frozenset())
        head = ["    L = st.L", f"    @pc {int(start)}", "    try:"]
        tail = ["    except BaseException as err:", f"        _failed(st, err, {where})", "        raise"]
        return head + [local_slots(line) for line in self.lines] + tail

    # ------------------------------------------------------------ steps
    def call(self, depth, pc, f):
        """A step: written inline if the flow compiler described it, else called."""
        kind = getattr(f, "flow", None)
        if kind is not None and kind[0] in SLOT_STEPS:
            self.out(depth, slot_step(kind, "L"))  # (the function's own name for st.L)
        elif kind is not None and kind[0] == "count":  # a coverage probe
            self.out(depth, f"{self.ns.ref(kind[1])}[{int(kind[2])}] += 1")
        elif kind is not None and kind[0] == "enter":  # a turn starts: whose is it?
            self.out(depth, f"@pc {pc}")
            self.out(depth, f"L[{int(kind[1])}] = st.me")
            self.out(depth, f"st.me = {self.value(kind[2])}")
        elif kind is not None and kind[0] == "for":  # a for loop starts: its items, rotated to its first
            self.out(depth, f"@pc {pc}")
            items, cnt, seq = int(kind[1]), int(kind[2]), kind[3]
            if len(kind) == 5:
                self.out(depth, f"_xs = tuple({seq})")
                self.out(depth, f"_x = ({kind[4]}) % len(_xs) if _xs else 0")
                self.out(depth, f"L[{items}] = _xs[_x:] + _xs[:_x]")
            else:
                self.out(depth, f"L[{items}] = tuple({seq})")
            self.out(depth, f"L[{cnt}] = 0")
        elif kind is not None and kind[0] == "set":  # flow slots set (a repeat's count and round...)
            self.out(depth, f"@pc {pc}")
            for slot, src in kind[1]:
                self.out(depth, f"L[{int(slot)}] = {src}")
        elif kind is not None and kind[0] == "block" and self.blocks < MAX_BLOCKS:  # fused steps (marked lines)
            self.out(depth, f"@pc {pc}")
            for line in kind[1]:
                self.out(depth, line)
        else:
            self.out(depth, f"@pc {pc}")
            self.out(depth, f"{self.ns.ref(f)}(st)")

    def test(self, depth, pc, f):
        """A branch's condition: (its source, the lines its true side starts with)."""
        kind = getattr(f, "flow", None)
        if kind is not None and kind[0] == "more":  # a for loop: is there a next item?
            cnt, items, var = map(int, kind[1:])
            return f"L[{cnt}] < len(L[{items}])", [f"L[{var}] = L[{items}][L[{cnt}]]"]
        if kind is not None and kind[0] == "below":  # repeat N times: round < N?
            return f"L[{int(kind[1])}] < L[{int(kind[2])}]", []
        if kind is not None and kind[0] == "fires":  # a trigger's test; its true side notes its card
            self.out(depth, f"@pc {pc}")
            return f"({kind[1]})", list(kind[2])
        self.out(depth, f"@pc {pc}")
        return self.value(f), []

    def value(self, f) -> str:
        return self.source_of(self.ns, f)

    @staticmethod
    def source_of(ns, f) -> str:
        """The source of an expression's function: its own source if it has one (or
        a whole number or truth value it folded to, written out), else a call."""
        src = inline_source(f)
        return f"({src})" if src is not None else f"{ns.ref(f)}(st)"

    # ------------------------------------------------------------ regions
    def region(self, pc, stop, stops, depth, path):
        """Write the flow from ``pc``; fall out of the region only where it
        reaches ``stop``.  ``stops`` are the stops of the regions around it
        (reaching one, or a pc on ``path``, hands back to the VM)."""
        code = self.code
        while pc != stop:
            if pc in stops or pc in path or self.left <= 0 or depth > MAX_DEPTH:
                self.out(depth, f"return {pc}")
                return
            path = path | {pc}
            self.left -= 1
            op, a, b, _ = code[pc]
            if op == EXEC:
                self.call(depth, pc, a)
                pc += 1
            elif op == JMP:
                if a <= pc and a != stop:  # back to the top of a loop (a while loop counts its own)
                    self.round(depth, a)
                pc = a
            elif op == DECIDE:
                self.out(depth, f"st.pc = {pc}")
                self.out(depth, "return -1")
                return
            elif op == END:
                self.out(depth, f"st.pc = {pc}")
                self.out(depth, "st.is_terminal = True")
                self.out(depth, "return -1")
                return
            elif op == RANDOM:
                self.out(depth, f"return {pc}")
                return
            elif code[b - 1][0] == JMP and code[b - 1][1] == pc and self.loop(pc, b, stops | _just(stop), depth, path):
                pc = b
            else:
                before = code[b - 1]
                join = before[1] if before[0] == JMP and b - 1 > pc and before[1] >= b else b
                inner = stops | _just(stop)
                cond, first = self.test(depth, pc, a)
                self.out(depth, f"if {cond}:")
                for line in first:
                    self.out(depth + 1, line)
                self.branch(pc + 1, join, inner, depth + 1, path)
                if b != join:
                    self.out(depth, "else:")
                    self.branch(b, join, inner, depth + 1, path)
                pc = join
        return

    def branch(self, pc, stop, stops, depth, path):
        mark = len(self.lines)
        self.region(pc, stop, stops, depth, path)
        if all(line.lstrip().startswith(MARK) for line in self.lines[mark:]):  # (marks are taken out)
            self.out(depth, "pass")

    def round(self, depth, top):
        """One more round of the loop at ``top``, against the bound of rounds between two decisions."""
        count = "k" if self.rounds else self.rounds_at
        self.out(depth, f"{count} -= 1")
        self.out(depth, f"if {count} < 0:")
        self.out(depth + 1, f"@pc {int(top)}")
        self.out(depth + 1, f"{self.ns.ref(rounds_exceeded)}({self.ns.ref(self.code[top][3], '_s')})")

    def loop(self, top, exit_, stops, depth, path) -> bool:
        """Write a loop with no decision inside as ``while``; False (nothing
        written) if it has one, or if its body does not fit whole."""
        if not _plain_loop(self.code, top, exit_):
            return False
        if self.blocks >= MAX_BLOCKS or exit_ - top > self.left:
            return False
        mark, outer = len(self.lines), not self.rounds
        if outer:  # one count of rounds for the loops nested in it
            self.out(depth, f"k = {self.rounds_at}")
            self.rounds = True
        a = self.code[top][1]
        kind = getattr(a, "flow", None)
        if kind is not None and kind[0] == "more":  # a for loop: over its items from its count on
            cnt, items, var = map(int, kind[1:])  # (the count is the loop's own: only its last step moves it)
            self.out(depth, f"for L[{var}] in L[{items}][L[{cnt}]:]:")
        else:
            self.out(depth, "while True:")
            cond, first = self.test(depth + 1, top, a)
            self.out(depth + 1, f"if not ({cond}):")
            self.out(depth + 2, "break")
            for line in first:
                self.out(depth + 1, line)
        body = len(self.lines)
        self.blocks += 1
        self.region(top + 1, top, stops, depth + 1, path | {top})
        self.blocks -= 1
        self.round(depth + 1, top)  # at the end of a round, where the VM jumps back
        # (a "return -1" in the body is the game's end: _plain_loop lets no decision in, the
        # other stop written so; the function returns there, inside the loop)
        if self.left <= 0 or any(line.lstrip().startswith("return") and line.lstrip() != "return -1"
                                 for line in self.lines[body:]):
            # the body hands back to the VM somewhere: no while loop (what writing it spent
            # stays spent, so that loops nested in loops are not written over and over)
            del self.lines[mark:]
            self.rounds = not outer
            return False
        if outer:
            self.out(depth, f"{self.rounds_at} = k")
            self.rounds = False
        return True


def _just(stop) -> frozenset:
    return frozenset() if stop is None else frozenset((stop,))
