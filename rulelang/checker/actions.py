"""Checks of the actions: parameters and their domains (a card chosen by name
must be visible to the chooser), the action text, where requires stand, and
the actions offered by chooses (no action may offer itself again, and the
follow-up choices must not nest too deep or come to too many statements).
"""

from __future__ import annotations

import string

from .. import ast as A
from ..diagnostics import did_you_mean
from ..visit import walk
from .base import CheckerBase
from .model import ERR, elem_type, tname
from .scope import Scope

# The parameter values one listing of legal actions may try (the runtime's MAX_SEARCH).
MAX_SEARCH = 1_000_000

# The compiler copies the effects of each offered action (and of the actions
# their own chooses offer, and so on) after each choose: limits on how deep
# such follow-up choices nest (with the blocks around them), and on how many
# statements the copies come to.
MAX_CHOICE_NESTING = 100
MAX_LAID_OUT = 20_000


class ActionChecks(CheckerBase):
    """Actions; their bodies are checked as statements (:mod:`.statements`)."""

    def check_action(self, a: A.Action):
        scope = Scope()
        pslots = []
        ctx = {"action": a.name, "turn": True, "params": {}}
        for i, p in enumerate(a.params):
            if p.subsets:
                dt = self.expr(p.domain, scope, ctx)
                if dt not in ("pile", "stack", "list:card", ERR):
                    self.err("RL103", f"a set of cards is chosen among cards (a pile, a stack or a list of "
                             f"cards); this is {tname(dt)}", p.domain.span)
                for bound in (p.min_size, p.max_size):
                    if bound is not None:
                        self.expect(self.expr(bound, scope, ctx), "int", bound, "a number of cards")
                t = "list:card"
                if dt in ("pile", "stack", "list:card"):
                    self.check_visible_domain(p)
            elif p.high is not None:
                self.expect(self.expr(p.domain, scope, ctx), "int", p.domain, "a range bound")
                self.expect(self.expr(p.high, scope, ctx), "int", p.high, "a range bound")
                t = "int"
                lo, hi = _number(p.domain), _number(p.high)
                if lo is not None and hi is not None and hi - lo + 1 > MAX_SEARCH:
                    self.err("RL116", f"a range of {hi - lo + 1:,} numbers: the choices of one action may "
                             f"try at most {MAX_SEARCH:,} parameter values", p.span)
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
        body_scope = Scope(scope)
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
        among hidden cards by identity would tell the player what they are
        (a list of a zone's cards too, filtered or not)."""
        d = p.domain
        while isinstance(d, A.ListComp):
            d = d.iter
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
        elif zone.name in self.face_down_zones() and not owner_is_me:
            self.err("RL117", f'"{p.name}" would choose a card of {zone.name} by name, but cards are laid '
                     f'face down there, hidden from the player who chooses; choose a position or a cell '
                     f'instead', p.domain.span)

    def face_down_zones(self) -> set:
        """The zones some move lays cards face down in."""
        if getattr(self, "_face_down_zones", None) is None:
            zones = set()
            todo = [item.body for item in self.m.items if isinstance(getattr(item, "body", None), tuple)]
            while todo:
                for st in todo.pop():
                    if isinstance(st, A.Move) and st.face_down:
                        d = st.dest
                        if isinstance(d, A.Call):
                            zones.add(d.func)
                        elif isinstance(d, A.Name):
                            zones.add(d.id)
                    todo.extend(_sub_blocks(st))
            self._face_down_zones = zones
        return self._face_down_zones
    def check_can_cycles(self):
        """``can(b)`` in an action's parameters, lets or requires (directly or
        through functions) asks whether b is legal, which computes b's own;
        a circle of those never ends."""
        actions, functions = self.g.actions, self.g.functions

        def asked(nodes) -> set:
            out, todo, seen = set(), list(nodes), set()
            while todo:
                x = todo.pop()
                for n in walk(x):
                    if not isinstance(n, A.Call):
                        continue
                    if n.func == "can":
                        out.update(a.id for a in n.args if isinstance(a, A.Name) and a.id in actions)
                    elif n.func in functions and n.func not in seen:
                        seen.add(n.func)
                        f = functions[n.func]
                        todo.extend([f.body, *f.lets])
            return out

        graph = {}
        for name, a in actions.items():
            pre = []
            for st in a.body:
                if not isinstance(st, (A.Let, A.Require)):
                    break
                pre.append(st)
            graph[name] = asked([a.params, *pre])
        reported, done = set(), set()
        for root in sorted(graph):
            if root in done:
                continue
            path, stack, on_path = [root], [iter(sorted(graph[root]))], {root}
            while stack:
                m = next(stack[-1], None)
                if m is None:
                    done.add(path[-1])
                    on_path.discard(path.pop())
                    stack.pop()
                elif m in on_path:
                    cycle = path[path.index(m):] + [m]
                    if frozenset(cycle) not in reported:
                        reported.add(frozenset(cycle))
                        how = " -> ".join(f"can({x})" for x in cycle)
                        self.err("RL111", f'whether "{m}" can be taken depends on itself ({how}): '
                                 "an action's parameters and requires may not ask can() about the action "
                                 "itself, directly or through other actions", actions[m].span)
                elif m not in done:
                    on_path.add(m)
                    path.append(m)
                    stack.append(iter(sorted(graph[m])))

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


def _number(e):
    """The value of a number written out (``5``, ``-5``), else None."""
    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.Neg) and isinstance(e.operand, A.IntLit):
        return -e.operand.value
    return None


def _sub_blocks(st):
    """The blocks directly inside a statement (the branches of an if, a loop's or a turn's body)."""
    if isinstance(st, A.If):
        for _, b in st.branches:
            yield b
        if st.else_body is not None:
            yield st.else_body
    elif isinstance(st, (A.While, A.Repeat, A.For, A.Turn, A.Simultaneous)):
        yield st.body
