"""Rows for a search's innermost loop.

When an action's innermost parameter ranges over a domain fixed before the
loops (a hand, a row of stacks, the open cells of a grid), what its tests
read of that parameter alone is the same at every round of the outer
loops.  Two kinds of such values are worked out once per value of the
parameter instead of once per pair:

* **row** values (:meth:`.actions.ActionCompiler.hoist_nodes`): they
  cannot fail and cost nothing (a stack's size, its top card's value), so
  they are worked out before the loops;
* a **memo** the innermost test starts with (see
  :func:`.searches._listed_memo`): worked out at the first round of the
  outer loops, as before.

The innermost loop then goes through a list of tuples, the value first
(``for v1, r3, r4 in r2:``), and reads them as locals: no lookup by value,
no stack's cards looked up again.  :class:`Rows` writes these lines into a
search's source (the list of lines :func:`.searches.enumerator` builds).
"""

from __future__ import annotations

import re

from ..runtime import STACK_MASK, STACK_SHIFT


def stack_cards(var: str) -> str:
    """The line that looks up the cards of the stack a search's loop
    variable ``var`` holds, as ``{var}_cards``."""
    return f"{var}_cards = st.Z[{var} >> {STACK_SHIFT}][{var} & {STACK_MASK}]"


class Rows:
    """The rows of one search: made by :meth:`plan` (None when there is
    nothing to work out per value), then written where the loop stands."""

    def __init__(self, var: str, domain: str, cards, locals_: dict, names: dict):
        self.var = var  # the innermost loop's variable
        self.domain = domain  # its fixed domain (a local made before the loops)
        self.cards = cards  # the local of a stack's cards, or None (not a row of stacks)
        self.locals = locals_  # source of a row value -> its local
        self.names = names  # id(node) -> the local that node is read as
        self.name = None  # the rows' local
        self.memo = None  # the memo's value in a row (its local or source), if the rows keep one
        self.memo_local = None  # ... and the local the loop reads it as
        self.pad = "    "  # the indentation of the loop's header
        self.append_pad = "        "  # ... and of the line that appends a row
        self.made = None  # (first, last) indices of the lines that make them before the loops
        self.cards_at = None  # the index of the line that looks up a stack's cards for a row
        self.append_at = None  # the index of the line that appends a row
        self.header_at = None  # the index of the innermost loop's header

    @classmethod
    def plan(cls, exprs, lines, params, levels, filtered, ctx, source):
        """The rows of a search whose innermost domain is fixed (``filtered``)
        and whose tests read "row" values (``levels[0]``); their lines are
        written before the loops (``lines``, at the function's first level)."""
        nodes = [node for kind, _, node in levels[0] if kind == "row"]
        last = len(params) - 1
        if not nodes or last not in filtered:
            return None
        slot, dom, high, _ = params[last]
        var = f"v{last}"
        cards = f"{var}_cards" if exprs.t(dom) == "stacks" and high is None else None
        saved = {k: ctx[k] for k in (slot, ("cards", slot)) if k in ctx}
        ctx[slot] = var
        if cards:
            ctx[("cards", slot)] = cards
        locals_, names = {}, {}
        for node in nodes:
            src = source(node)
            if src not in locals_:  # (the same value read twice: worked out once)
                locals_[src] = exprs.ns.fresh("r")
            names[id(node)] = locals_[src]
        for k in (slot, ("cards", slot)):
            ctx.pop(k, None)
        ctx.update(saved)
        rows = cls(var, filtered[last], cards, locals_, names)
        rows.name = exprs.ns.fresh("r")
        first = len(lines)
        lines += [f"    {rows.name} = []", f"    for {var} in {rows.domain}:"]
        if cards:
            rows.cards_at = len(lines)
            lines.append(f"        {stack_cards(var)}")
        rows.append_at = len(lines)
        lines.append(f"        {rows._append()}")
        rows.made = (first, len(lines) - 1)
        return rows

    @staticmethod
    def for_memo(rows, var: str, domain: str, cards):
        """The rows a memo is kept in (with ``rows``'s values, if any)."""
        return rows if rows is not None else Rows(var, domain, cards, {}, {})

    def fill_memo(self, lines, pad: str, local: str, read, src: str) -> str:
        """Make the rows at the first round of the outer loops, each with its
        value of the memo ``local`` (``read``: lines that leave it in
        ``{local}_x``, else its source ``src``), instead of before the loops;
        gives the local the memo is read as in the loop."""
        if self.made is not None:  # not before the loops, then
            for k in range(self.made[0], self.made[1] + 1):
                lines[k] = ""
        self.name = local
        lines += [f"{pad}if {local} is None:", f"{pad}    {local} = []", f"{pad}    for {self.var} in {self.domain}:"]
        if self.cards:
            self.cards_at = len(lines)
            lines.append(f"{pad}        {stack_cards(self.var)}")
        if read:
            lines += read
        self.memo, self.memo_local = (f"{local}_x" if read else src), f"{local}_v"
        self.append_at, self.append_pad = len(lines), pad + "        "
        lines.append(self.append_pad + self._append())
        return self.memo_local

    def header(self, lines, pad: str) -> None:
        """The innermost loop's header: through the rows, each unpacked."""
        self.header_at, self.pad = len(lines), pad
        lines.append(self._header())

    def read_by(self, ctx, slot) -> None:
        """Have the loop's tests read the row values (and the stack's cards) as locals."""
        for node_id, local in self.names.items():
            ctx["nodes"][node_id] = local
        if self.cards:
            ctx[("cards", slot)] = self.cards

    def finish(self, lines) -> None:
        """Once the loop is written: a stack's cards that its tests do not
        read are left out of the rows (and not looked up, if no row value
        reads them either)."""
        cards = self.cards
        if not cards:
            return
        word = re.compile(rf"\b{cards}\b")
        if any(word.search(line) for line in lines[self.header_at + 1:]):
            return
        self.cards = None  # (the lines written again without them)
        lines[self.header_at] = self._header()
        lines[self.append_at] = self.append_pad + self._append()
        if not any(word.search(line) for line in lines[self.cards_at + 1:self.append_at + 1]):
            del lines[self.cards_at]

    def _header(self) -> str:
        parts = [self.var, *([self.memo_local] if self.memo else []), *self.locals.values()]
        return f"{self.pad}for {', '.join(parts + ([self.cards] if self.cards else []))} in {self.name}:"

    def _append(self) -> str:
        parts = [self.var, *([self.memo] if self.memo else []), *self.locals]
        return f"{self.name}.append(({', '.join(parts + ([self.cards] if self.cards else []))}))"
