"""Statements -> the flat code list of the machine.

The flow (setup, play, and each action's effects) becomes a list of
``(opcode, a, b, span)`` with jumps; loops keep their counters in local
slots, so a state is only flat lists.  Each ``choose`` is a decision point;
the effects of each action it offers are laid out right after it.  Straight
runs of steps are then fused (:mod:`.fusion`).  The statements that move
cards, with their triggers and checks, are in :mod:`.flow_cards`.
"""

from __future__ import annotations

from rulelang import ast as A
from rulelang.checker import CheckedGame
from rulelang.diagnostics import NO_SPAN

from ..machine import Machine, SiteAction
from ..runtime import DECIDE, END, EXEC, JF, JMP, MAX_LIST, MAX_VALUE, RANDOM, RuleError, own_card_vars
from .chance import RandomOrder, RandomPick
from .expressions import Expressions, is_const
from .inline import inline_source
from .flow_cards import CardStatements
from .fusion import fuse_blocks
from .helpers import too_big, too_long
from .tree import all_blocks, preamble
from .progress import proven as progress_proven
from .simultaneous import compile_simultaneous
from .triggers import Triggers


class FlowCompiler(CardStatements):
    def __init__(self, g: CheckedGame, m: Machine, exprs: Expressions, action_defs: dict,
                 coverage=False, check_invariants=False):
        self.g = g
        self.m = m
        self.exprs = exprs
        self.action_defs = action_defs
        self.coverage = coverage
        self.check_invariants = check_invariants
        self.code = m.code
        self.flow_slots = set()  # the slots that live across steps (part of a state's key)
        self.simple = {}  # pc -> Let/Set/AugSet statement, for block fusion
        self.list_slots = set()  # those holding a loop's items, fixed while the loop runs (see Machine.list_slots)
        self.list_lets = set()  # those a let sets to a list (see Machine.list_lets)
        # the flow's while loops not proven to make progress (compiler.progress): its only loops
        # that may come back to a position (see Machine.positions_unique)
        self.while_loops = 0
        self.triggers = Triggers(self)

    def compile(self, *blocks):
        """Lay out the blocks one after another, then END; fuse the straight runs."""
        for body in blocks:
            self.block(body)
        self.emit(END, None, None, NO_SPAN)
        fuse_blocks(self.code, self.m.site_actions, self.simple, self.exprs)

    # ------------------------------------------------------------ helpers
    def emit(self, op, a, b, span):
        self.code.append((op, a, b, span))
        return len(self.code) - 1

    def patch(self, at, b):
        op, a, _, span = self.code[at]
        self.code[at] = (op, a, b, span)

    def setter(self, target):
        """A closure (state, value) -> None for an assignable expression."""
        g, layout = self.g, self.exprs.layout
        if isinstance(target, A.Name):
            r = g.res[id(target)]
            if r[0] == "slot":
                k = r[1]

                def set_slot(st, v):
                    st.L[k] = v
                return set_slot
            i = layout.var_index[r[1]]

            def set_var(st, v):
                st.V[i] = v
            return set_var
        if isinstance(target, A.Call):
            base = layout.pvar_base[target.func]
            a = self.exprs.fn(target.args[0])

            def set_pvar(st, v):
                st.V[base + a(st)] = v
            return set_pvar
        if isinstance(target, A.Attr):
            base = layout.cvar_base[target.name]
            o = self.exprs.fn(target.obj)

            def set_cvar(st, v):
                own_card_vars(st)[base + o(st)] = v
            return set_cvar
        raise AssertionError(target)  # pragma: no cover

    def condition(self, cond):
        """The function of a branch's condition, remembered with its node for
        the static checks; one that keeps its values by the piles it reads,
        where it can (see :meth:`.functions.Functions.kept_condition`)."""
        f = self.exprs.kept_condition(cond) or self.exprs.fn(cond)
        self.m.branch_conds[id(f)] = cond
        return f

    def probe(self, kind, what, span):
        """With coverage on, count each time the flow passes here."""
        if not self.coverage:
            return
        counts = self.m.coverage_counts
        i = len(counts)
        counts.append(0)
        self.m.coverage_points.append((kind, what, span))

        def hit(st):
            counts[i] += 1
        hit.flow = ("count", counts, i)  # written inline by .fusion and .flowgen
        self.emit(EXEC, hit, None, span)

    # ------------------------------------------------------------ statements
    def block(self, body):
        for st in body:
            if self.coverage == "lines":  # each statement counted, by its place in the file (rulerun diff)
                self.probe("line", "", st.span)
            self.stmt(st)
            if self.check_invariants:
                self.step_check(st)

    def stmt(self, s):
        method = getattr(self, "s_" + type(s).__name__, None)
        if method is None:  # pragma: no cover
            raise AssertionError(s)
        method(s)

    def value(self, e):
        """A function state -> the value of ``e``; a number or a list is checked against its bound."""
        f = self.exprs.fn(e)
        if is_const(f):
            return f
        if self.exprs.t(e).startswith("list:"):
            def short(st):
                v = f(st)
                if len(v) > MAX_LIST:
                    too_long(v)
                return v
            return short
        if self.exprs.t(e) != "int":
            return f

        def bounded(st):
            v = f(st)
            if -MAX_VALUE <= v <= MAX_VALUE:
                return v
            too_big(v)
        return bounded

    def s_Let(self, s):
        k = self.g.res[id(s)]
        self.flow_slots.add(k)
        if self.exprs.t(s.expr).startswith("list:"):
            self.list_lets.add(k)
        f = self.value(s.expr)

        def let(st):
            st.L[k] = f(st)
        self.simple[self.emit(EXEC, let, None, s.span)] = s

    def s_Set(self, s):
        setter = self.setter(s.target)
        f = self.value(s.expr)
        self.simple[self.emit(EXEC, lambda st: setter(st, f(st)), None, s.span)] = s

    def s_AugSet(self, s):
        setter = self.setter(s.target)
        get = self.exprs.fn(s.target)
        f = self.exprs.fn(s.expr)
        sign = 1 if s.op == "+=" else -1

        def aug_set(st):
            v = get(st) + sign * f(st)
            if not -MAX_VALUE <= v <= MAX_VALUE:
                too_big(v)
            setter(st, v)
        self.simple[self.emit(EXEC, aug_set, None, s.span)] = s

    def s_SetRandom(self, s):
        self.random(s.choices, self.setter(s.target), s.order, s.span)

    def s_LetRandom(self, s):
        k = self.g.res[id(s)]
        self.flow_slots.add(k)

        def set_slot(st, v):
            st.L[k] = v
        self.random(s.choices, set_slot, s.order, s.span)

    def random(self, choices, setter, order, span):
        """A chance step: one uniform pick, or (``order``) a uniformly random order."""
        items = self.exprs.seq_fn(choices)
        if not order:
            self.emit(RANDOM, RandomPick(items, setter), None, span)
            return
        slot, left = self.new_slot(), self.new_slot()

        def start_order(st):
            xs = tuple(items(st))
            st.L[slot] = xs
            st.L[left] = len(xs)
        self.emit(EXEC, start_order, None, span)
        self.emit(RANDOM, RandomOrder(slot, left, setter), None, span)

    def new_slot(self) -> int:
        """A local slot of the compiled flow, beyond the checker's."""
        k = self.m.nslots
        self.m.nslots += 1
        self.flow_slots.add(k)
        return k

    def s_Require(self, s):
        raise AssertionError("require outside an action preamble")  # checker forbids

    def s_Choose(self, s, sealed=None):
        """A decision point, the effects of each action offered after it.  A
        ``sealed`` choice (made in secret: the slot of the pending choices)
        keeps the chosen action, and its effects are laid out elsewhere
        (:func:`.simultaneous.compile_simultaneous`); returns its site actions."""
        site = len(self.m.sites)
        self.m.sites.append([])
        self.probe("choose", "choice reached: " + ", ".join(n.id for n in s.actions), s.span)
        self.emit(DECIDE, site, None, s.span)
        jumps = []
        offered = []
        for n in s.actions:
            ad = self.action_defs[n.id]
            uid = len(self.m.site_actions)
            sa = SiteAction(uid, ad, len(self.code), s.span, site, sealed)
            self.m.site_actions.append(sa)
            self.m.sites[site].append(sa)
            offered.append(sa)
            if sealed is None:
                self.action_effects(sa.action, s.span)
            jumps.append(self.emit(JMP, None, None, s.span))
        for j in jumps:
            self.code[j] = (JMP, len(self.code), None, s.span)
        return offered

    def action_effects(self, ad, span):
        """The effects of an action (its :class:`ActionDef`), then the after-action triggers."""
        a = self.g.actions[ad.name]
        body = a.body[len(preamble(a)):]
        if any(isinstance(x, (A.Choose, A.SetRandom, A.LetRandom, A.Shuffle)) for b in all_blocks(body) for x in b):
            # a choice or a chance step inside the action: its parameters and lets live across it
            self.flow_slots.update(slot for slot, _, _ in ad.params)
            self.flow_slots.update(slot for slot, _ in ad.lets)
        self.block(body)
        self.triggers.after_action(span)

    def s_Simultaneous(self, s):
        compile_simultaneous(self, s)

    def s_EndGame(self, s):
        if s.winners is not None:
            who = self.exprs.fn(s.winners)
            single = self.exprs.t(s.winners) in ("player", "int")
            i = self.m.winners_index

            def name_winners(st):
                w = who(st)
                seats = (w,) if single else tuple(sorted(set(w)))
                for p in seats:
                    if not 0 <= p < st.n:
                        raise RuleError(f"player {p + 1} is not a seat of this {st.n}-player game")
                st.V[i] = seats
            self.emit(EXEC, name_winners, None, s.span)
        self.emit(END, None, None, s.span)

    def s_Pass(self, s):
        pass

    def s_Do(self, s):
        """An example's ``do ACTION(ARGS) by P``: checked to be legal (an
        expectation), then P takes it: its parameters bound, its effects and
        the after-action triggers run, as after a choice."""
        check = s.check
        self.s_Expect(check, stop=True)
        player, ad, arg_fns = next(parts for e, parts in self.m.expectations if e is check)
        args = [(slot, f) for (slot, _, _), f in zip(ad.params, arg_fns)]
        lets = ad.lets

        def bind(st):
            st.me = player(st)
            for slot, f in args:
                st.L[slot] = f(st)
            for slot, f in lets:
                st.L[slot] = f(st)
        self.emit(EXEC, bind, None, s.span)
        self.action_effects(ad, s.span)

    def s_Expect(self, s, stop=False):
        """An example's expectation, checked where it stands (see
        :mod:`interpreter.examples`, which sets ``Machine.on_expect``)."""
        i = next(k for k, (e, _) in enumerate(self.m.expectations) if e is s)

        def check(st):
            st.m.on_expect(st, i, stop)
        self.emit(EXEC, check, None, s.span)

    def s_If(self, s):
        span = s.span
        ends = []
        for k, (cond, body) in enumerate(s.branches):
            jf = self.emit(JF, self.condition(cond), None, cond.span)
            self.probe("branch", f"{'if' if k == 0 else 'elif'} branch taken", cond.span)
            self.block(body)
            ends.append(self.emit(JMP, None, None, span))
            self.patch(jf, len(self.code))
        if s.else_body is not None:
            self.probe("branch", "else branch taken", s.else_body[0].span)
            self.block(s.else_body)
        else:
            self.probe("branch", "if condition false (no branch taken)", s.branches[0][0].span)
        for j in ends:
            self.code[j] = (JMP, len(self.code), None, span)

    def s_While(self, s):
        if not progress_proven(self.g, s):
            self.while_loops += 1
        top = len(self.code)
        jf = self.emit(JF, self.condition(s.cond), None, s.cond.span)
        self.probe("loop", "while loop body entered", s.cond.span)
        self.block(s.body)
        self.emit(JMP, top, None, s.span)
        self.patch(jf, len(self.code))

    def s_Repeat(self, s):
        span = s.span
        var = self.g.res[id(s)]
        cnt = self.g.res[(id(s), "counter")]
        self.flow_slots.update((var, cnt))
        count = self.exprs.fn(s.count)

        def init(st):
            st.L[cnt] = count(st)
            st.L[var] = 0
        src = inline_source(count)
        if src is not None:  # written inline (see .flowgen), as the test and the step below are
            init.flow = ("set", ((cnt, src), (var, "0")))
        self.emit(EXEC, init, None, span)
        top = len(self.code)
        def below(st):
            return st.L[var] < st.L[cnt]
        below.flow = ("below", var, cnt)  # written inline by .flowgen, as are the steps below
        jf = self.emit(JF, below, None, span)
        self.block(s.body)

        def inc(st):
            st.L[var] += 1
        inc.flow = ("inc", var)
        self.emit(EXEC, inc, None, span)
        self.emit(JMP, top, None, span)
        self.patch(jf, len(self.code))

    def s_For(self, s):
        span = s.span
        var = self.g.res[id(s)]
        items = self.g.res[(id(s), "items")]
        cnt = self.g.res[(id(s), "counter")]
        self.flow_slots.update((var, items, cnt))
        self.list_slots.add(items)
        seq = self.exprs.seq_fn(s.iter)
        start = self.exprs.fn(s.start) if s.start is not None else None

        def init(st):
            xs = tuple(seq(st))
            if start is not None:
                k = start(st) % len(xs) if xs else 0
                xs = xs[k:] + xs[:k]
            st.L[items] = xs
            st.L[cnt] = 0
        sources = [getattr(f, "flow", None) for f in (seq, start) if f is not None]
        if all(x is not None and x[0] == "expr" for x in sources):  # written inline (see .flowgen)
            init.flow = ("for", items, cnt, *(x[1] for x in sources))
        self.emit(EXEC, init, None, span)
        top = len(self.code)

        def more(st):
            i = st.L[cnt]
            xs = st.L[items]
            if i < len(xs):
                st.L[var] = xs[i]
                return True
            return False
        more.flow = ("more", cnt, items, var)
        jf = self.emit(JF, more, None, span)
        self.block(s.body)

        def inc(st):
            st.L[cnt] += 1
        inc.flow = ("inc", cnt)
        self.emit(EXEC, inc, None, span)
        self.emit(JMP, top, None, span)
        self.patch(jf, len(self.code))

    def s_Turn(self, s):
        saved = self.g.res[(id(s), "saved")]
        self.flow_slots.add(saved)
        who = self.exprs.fn(s.player)
        counted = self.m.turns_base

        def enter(st):
            st.L[saved] = st.me
            st.me = who(st)

        def enter_counted(st):
            st.L[saved] = st.me
            st.me = p = who(st)
            st.V[counted + p] += 1
        enter.flow = ("enter", saved, who)
        self.emit(EXEC, enter if counted is None else enter_counted, None, s.span)
        self.probe("turn", "turn taken", s.span)
        self.triggers.before_turn(s.span)
        self.block(s.body)

        def leave(st):
            st.me = st.L[saved]
        leave.flow = ("leave", saved)
        self.emit(EXEC, leave, None, s.span)

