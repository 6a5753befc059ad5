"""Where a slot lives: a state's own list, or the machine's scratch list.

The checker numbers two kinds of slot (see ``rulelang.checker.SCRATCH_BASE``).
A state's own slot ``k`` is ``st.L[k]``: the names of statements, the
parameters of actions, the counters of loops, which may live from one
decision to the next, and which a clone copies.  A scratch slot (a name
bound inside an expression) is ``st.S[k - SCRATCH_BASE]``: written and then
read while one expression is evaluated, so every state of a machine shares
one list of them (``Machine.scratch``), and a clone copies none.  Whatever
may name a scratch slot (an expression's source, an invariant checked seat by
seat, a deck's ``where``) names it through these helpers; the flow's own
slots (statements, loops, turns) are always a state's, written ``st.L[k]``.
"""

from __future__ import annotations

from operator import attrgetter

from rulelang.checker import SCRATCH_BASE


def slot_source(k, st: str = "st") -> str:
    """The source of slot ``k`` of the state named ``st`` (read, or written on the left of ``=``)."""
    k = int(k)
    return f"{st}.L[{k}]" if k < SCRATCH_BASE else f"{st}.S[{k - SCRATCH_BASE}]"


def slot_local(k) -> str:
    """The source of slot ``k`` in a function that binds ``L = st.L`` and ``S = st.S``."""
    k = int(k)
    return f"L[{k}]" if k < SCRATCH_BASE else f"S[{k - SCRATCH_BASE}]"


def slot_list(k) -> tuple:
    """For a closure: (a function of a state giving the list slot ``k``
    lives in, ``st.L`` or ``st.S``; the slot's index in that list)."""
    k = int(k)
    return (_OWN, k) if k < SCRATCH_BASE else (_SCRATCH, k - SCRATCH_BASE)


_OWN, _SCRATCH = attrgetter("L"), attrgetter("S")
