"""Setting up a position by hand, outside the rules (``State.put``): for
tests, tutorials and tools, before play resumes."""

from __future__ import annotations

from .runtime import take_card


def put(st, cards, zone: str, player=None, stack=None) -> None:
    """:meth:`State.put`: the named cards onto a zone of ``st``."""
    m = st.m
    inst = m.zone_instance(st, zone, player)
    ids = []
    for c in cards:
        if isinstance(c, str):
            free = [i for i in m.card_ids(c) if i not in ids]
            if not free:
                raise ValueError(f"no more copies of {c!r}")
            c = free[0]
        if st.loc[c] < 0:
            raise ValueError(f"{m.card_names[c]!r} is not in play in this game")
        ids.append(c)
    stacks = set(m.stack_instances)
    for c in ids:
        take_card(st, c, stacks)
        st.loc[c] = inst
    if inst in m.stack_instances:
        if stack is None:
            if ids:  # (no cards, no stack: a row of stacks never holds an empty one)
                st.Z[inst].append(ids)
        else:
            st.Z[inst][stack].extend(ids)
    else:
        st.Z[inst].extend(ids)
    if st.m.knowledge:
        for c in ids:
            st.K[c] |= st.vis[inst]
    st._legal = None
