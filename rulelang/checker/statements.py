"""Checks of statements: blocks (and what can never run), each kind of
statement and where it may stand (require, choose, while, turn), the places a
statement may set, and the slots of let, repeat, for and turn.
"""

from __future__ import annotations

from .. import ast as A
from ..diagnostics import did_you_mean
from .base import CheckerBase
from .model import ERR, RESERVED, elem_type, tname
from .scope import Scope


class StatementChecks(CheckerBase):
    """Statements; their expressions are checked by :mod:`.expressions`."""

    # ------------------------------------------------------------ statements
    def check_block(self, body, scope, ctx, new_scope=True):
        inner = Scope(scope) if new_scope else scope
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
        elif isinstance(st, A.LetRandom):
            t = self.random_type(st, scope, ctx)
            if st.name in RESERVED or st.name in self.global_names:
                self.err("RL102", f'"{st.name}" is already defined; choose another name', st.span)
            slot = self.new_slot()
            scope.names[st.name] = (t, slot, ctx.get("action") is None)
            self.g.res[id(st)] = slot
        elif isinstance(st, (A.Set, A.AugSet, A.SetRandom)):
            tt = self.target(st.target, scope, ctx)
            if isinstance(st, A.SetRandom):
                t = self.random_type(st, scope, ctx)
                if t != ERR:
                    self.expect(t, tt, st.choices, "the random order" if st.order else "the random choice")
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
            want = {"top": ("pile", "stack"), "bottom": ("pile", "stack"), "new_stack": ("stacks",),
                    "at": ("grid",)}[st.where]
            if dt == "grid" and st.where != "at":
                self.err("RL103", "a card goes to a grid at a cell: write \"move CARD to GRID at CELL\"",
                         st.dest.span)
            elif dt != ERR and dt not in want:
                self.err("RL103", f"cannot move cards to {tname(dt)} here; expected " + " or ".join(want),
                         st.dest.span)
            if st.where == "at":
                if wt not in ("card", ERR):
                    self.err("RL103", f"one card goes to one cell; this is {tname(wt)}", st.what.span)
                self.expect(self.expr(st.at, scope, ctx), "cell", st.at, "the cell")
        elif isinstance(st, A.Swap):
            self.expect(self.expr(st.a, scope, ctx), "card", st.a, "what is swapped")
            self.expect(self.expr(st.b, scope, ctx), "card", st.b, "what is swapped")
        elif isinstance(st, A.Reveal):
            wt = self.expr(st.what, scope, ctx)
            if wt not in ("card", "pile", "stack", "list:card", ERR):
                self.err("RL103", f"reveal shows a card or a collection of cards; this is {tname(wt)}", st.what.span)
            tt = self.expr(st.to, scope, ctx)
            if tt not in ("player", "players", "list:player", ERR):
                self.err("RL103", f"reveal shows cards to a player or players; this is {tname(tt)}", st.to.span)
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
        elif isinstance(st, A.EndGame):
            if st.winners is not None:
                wt = self.expr(st.winners, scope, ctx)
                if wt == "int" and isinstance(st.winners, A.IntLit):
                    self.seat_literal(st.winners, "the winner")  # a seat written out, as in "turn 0"
                elif wt not in ("player", "list:player", "players", ERR):
                    self.err("RL103", f"the winners are a player or a list of players; this is {tname(wt)}",
                             st.winners.span)
        elif isinstance(st, A.Pass):
            pass
        elif isinstance(st, A.If):
            for cond, body in st.branches:
                self.expect(self.expr(cond, scope, ctx), "bool", cond, "a condition")
                self.check_block(body, scope, dict(ctx, nested=True))
            if st.else_body is not None:
                self.check_block(st.else_body, scope, dict(ctx, nested=True))
        elif isinstance(st, A.While):
            if ctx.get("action") is not None or ctx.get("trigger"):
                self.err("RL109", "while loops belong in the game flow, not in an action or a trigger", st.span)
            self.expect(self.expr(st.cond, scope, ctx), "bool", st.cond, "a condition")
            self.check_block(st.body, scope, dict(ctx, nested=True))
        elif isinstance(st, A.Repeat):
            self.expect(self.expr(st.count, scope, ctx), "int", st.count, "the count")
            inner = Scope(scope)
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
            inner = Scope(scope)
            slot = self.new_slot()
            inner.names[st.var] = (et, slot, False)
            self.g.res[id(st)] = slot
            self.g.res[(id(st), "items")] = self.new_slot()
            self.g.res[(id(st), "counter")] = self.new_slot()
            self.check_block(st.body, inner, dict(ctx, nested=True), new_scope=False)
        elif isinstance(st, A.Simultaneous):
            self.check_simultaneous(st, scope, ctx)
        elif isinstance(st, A.Turn):
            if ctx.get("action") is not None or ctx.get("trigger"):
                self.err("RL109", "turn blocks belong in the game flow, not in an action or a trigger", st.span)
            self.expect(self.expr(st.player, scope, ctx), "player", st.player, "whose turn it is")
            self.g.res[(id(st), "saved")] = self.new_slot()
            self.check_block(st.body, scope, dict(ctx, turn=True, nested=True))
        else:  # pragma: no cover
            self.err("RL109", f"unknown statement {type(st).__name__}", st.span)

    def check_simultaneous(self, st, scope, ctx):
        """Each player of the list chooses, in secret, with ``me`` = that
        player; the body is the one ``choose``."""
        if ctx.get("action") is not None or ctx.get("trigger"):
            self.err("RL109", "simultaneous choices belong in the game flow, not in an action or a trigger", st.span)
        it = self.expr(st.iter, scope, ctx)
        if it not in ("players", "list:player", ERR):
            self.err("RL103", f"the players who choose: players or a list of players; this is {tname(it)}",
                     st.iter.span)
        if st.start is not None:
            self.expect(self.expr(st.start, scope, ctx), "player", st.start, "the first player")
        inner = Scope(scope)
        slot = self.new_slot()
        inner.names[st.var] = ("player", slot, False)
        for key in ("items", "counter", "saved", "pending", "index"):
            self.g.res[(id(st), key)] = self.new_slot()
        self.g.res[id(st)] = slot
        turn_ctx = dict(ctx, turn=True, nested=True, simultaneous=True)
        if st.cond is not None:
            self.expect(self.expr(st.cond, inner, turn_ctx), "bool", st.cond, "a condition")
        if len(st.body) != 1 or not isinstance(st.body[0], A.Choose):
            self.err("RL109", "a simultaneous choice holds one choose and nothing else (its actions say "
                     "what happens once everyone has chosen)", st.span)
        self.check_block(st.body, inner, turn_ctx, new_scope=False)

    def random_type(self, st, scope, ctx) -> str:
        """The type of ``random C`` (an element of C) or ``random order of C`` (a list)."""
        ct = self.expr(st.choices, scope, ctx)
        if ct == ERR:
            return ERR
        et = elem_type(ct)
        if et is None:
            what = "random order of" if st.order else "random"
            self.err("RL103", f"{what} takes a collection; this is {tname(ct)}", st.choices.span)
            return ERR
        return "list:" + et if st.order else et

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
