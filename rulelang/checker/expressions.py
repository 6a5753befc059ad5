"""Checks of expressions: the type of every expression (recorded in
``types``), what every name and call refers to (recorded in ``res``),
operators, generators and comprehensions, and the builtin functions.
"""

from __future__ import annotations

from .. import ast as A
from ..diagnostics import did_you_mean
from .base import CheckerBase
from .model import BUILTINS, ERR, GEN_FUNCS, elem_type, tname
from .scope import Scope


class ExpressionChecks(CheckerBase):
    """Expressions; calls of rule functions get their type from
    :meth:`DeclarationChecks.function_type`."""

    # ------------------------------------------------------------ expressions
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
                self.err("RL103", f"both branches must have one type: {tname(a)} and {tname(b)}", e.span)
                return ERR
            return a
        if isinstance(e, A.BinOp):
            return self.binop(e, scope, ctx)
        if isinstance(e, A.Attr):
            ot = self.expr(e.obj, scope, ctx)
            if ot == ERR:
                return ERR
            if ot != "card":
                self.err("RL105", f'only cards have attributes; this is {tname(ot)}', e.obj.span)
                return ERR
            if e.name == "name":
                self.err("RL105", "card names are for people; compare cards with a \"Name\" literal", e.span)
                return ERR
            if e.name in self.g.card_attrs:
                return self.g.card_attrs[e.name][1]
            if e.name in self.g.card_vars:
                return self.g.types[id(self.g.card_vars[e.name])]
            if e.name == "face_down":  # every card has it: laid face down by "move ... face down"
                return "bool"
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
                self.err("RL103", f"cannot index a {tname(ot)}", e.obj.span)
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
            self.err("RL103", f'"for ... in" runs over a collection; this is {tname(it)}', e.iter.span)
            et = ERR
        inner = Scope(scope)
        slot = self.new_slot(scratch=True)
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
            if ctx.get("enter_trigger"):
                self.err("RL109", '"me" has no value in a "when ... enters" trigger, which may fire outside '
                         'every turn: name the player (e.g. the zone\'s owner, "enters hand(p)")', e.span)
                return ERR
            if not ctx.get("turn", True) or ctx.get("achievement"):
                self.err("RL109", '"me" is the player whose turn it is: it has no value outside a '
                         '"turn" block, an action or a trigger (name the player instead)', e.span)
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
                self.err("RL103", f'cannot compare {tname(lt)} with {tname(rt)}', e.span)
            return "bool"
        if op in ("&", "|"):
            if not (lt.startswith("set:") and rt.startswith("set:")):
                self.err("RL103", f'"{op}" combines two sets; these are {tname(lt)} and {tname(rt)}', e.span)
                return ERR
            return lt if lt != "set:?" else rt
        if op in ("in", "not in"):
            if rt.startswith("set:"):
                if lt != "enum:" + rt[4:] and rt != "set:?":
                    self.err("RL103", f"{tname(lt)} cannot be in {tname(rt)}", e.span)
                return "bool"
            et = elem_type(rt)
            if et is None:
                self.err("RL103", f'"in" needs a collection or a set on the right; this is {tname(rt)}', e.right.span)
            elif et != lt and not (et == "player" and lt == "int"):
                self.err("RL103", f"{tname(lt)} cannot be in {tname(rt)}", e.span)
            return "bool"
        self.err("RL103", f"unknown operator {op}", e.span)  # pragma: no cover
        return ERR

    def call_gen(self, e: A.CallGen, scope, ctx) -> str:
        if e.func == "groups":
            inner, _ = self.gen_scope(e, scope, ctx)
            it = self.g.types.get(id(e.iter), ERR)
            if it not in ("grid", ERR):
                self.err("RL103", f"groups are found among the cards of a grid; this is {tname(it)}",
                         e.iter.span)
            kt = self.expr(e.expr, inner, ctx)
            if kt not in ("int", "bool", "player", "card", "cell", ERR) and not kt.startswith(("enum:", "set:")):
                self.err("RL103", f"groups joins neighbours with equal keys; {tname(kt)} cannot be compared",
                         e.expr.span)
            return "list:list:card"
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
                self.err("RL103", f"{func} combines sets; these are {tname(t)}", e.span)
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
                self.err("RL103", f"{f} needs a collection; this is {tname(t0)}", e.args[0].span)
            return "int" if f == "size" else "bool"
        if f in ("top", "bottom"):
            if t0.startswith("list:") and t0 != "list:card":
                return t0[5:]  # the last / first item of any list
            if t0 not in ("pile", "stack", "list:card"):
                self.err("RL103", f"{f} needs a pile, a stack or a list; this is {tname(t0)}", e.args[0].span)
                return ERR
            return "card"
        if f in ("increasing", "decreasing"):
            self.expect(t0, "list:int", e.args[0], f"what {f} tests")
            return "bool"
        if f == "stack_of":
            self.expect(t0, "card", e.args[0], "stack_of's argument")
            return "stack"
        if f in ("open_cells", "corners", "lines", "neighbours"):
            self.expect(t0, "grid", e.args[0], f"{f}'s grid")
            if f == "neighbours":
                self.expect(ts[1], "cell", e.args[1], "the cell")
                return "list:card"
            return "list:list:card" if f == "lines" else "list:cell"
        if f == "cell_of":
            self.expect(t0, "card", e.args[0], "cell_of's card")
            return "cell"
        if f == "groups":
            self.err("RL104", 'write groups(KEY for c in GRID if CONDITION): the cards of the grid that '
                     'pass, in groups of orthogonal neighbours with equal KEY', e.span)
            return ERR
        if f == "turns_taken":  # how many "turn" blocks the player has entered so far
            self.expect(t0, "player", e.args[0], "turns_taken's argument")
            return "int"
        if f == "is_winner":
            if not ctx.get("achievement"):
                self.err("RL109", "is_winner() tells who won a finished game: use it in the achievements", e.span)
            self.expect(t0, "player", e.args[0], "is_winner's argument")
            return "bool"
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
                self.err("RL103", f"{f} needs a list or a collection; this is {tname(t0)}", e.args[0].span)
                return ERR
            if f == "count":
                return "int"
            return self.aggregate_type(f, et, e.args[0])
        return ERR  # pragma: no cover
