"""``simultaneously for p in PLAYERS [if COND]: choose ...``: choices made
in secret, carried out together.

Each listed player (who passes COND) decides in turn, ``me`` being that
player, against the same position: a chosen action changes nothing yet; it
is kept, with its parameters, in a slot of pending choices that no
observation shows (``State.is_secret`` tells front ends to announce it as a
secret choice).  Once everyone has chosen, the kept actions are carried out
in the order the players chose (the list's order), each with ``me`` = its
player, followed by the after-action triggers.

The API still sees one decision at a time; ``State.resample`` deals the
other players' pending choices anew, so a search cannot read them.
"""

from __future__ import annotations

from ..runtime import EXEC, JF, JMP


def compile_simultaneous(flow, s):
    g, m, exprs = flow.g, flow.m, flow.exprs
    span = s.span
    var = g.res[id(s)]
    items, count, saved, pending, index = (g.res[(id(s), k)] for k in ("items", "counter", "saved", "pending",
                                                                          "index"))
    uid_slot = flow.new_slot()
    flow.flow_slots.update((var, items, count, saved, pending, index))
    flow.list_slots.add(items)
    m.sealed_slots = tuple(m.sealed_slots) + (pending,)
    seq = exprs.seq_fn(s.iter)
    first = exprs.fn(s.start) if s.start is not None else None
    cond = exprs.fn(s.cond) if s.cond is not None else None

    # 1. each player chooses, in turn, in secret
    def start(st):
        xs = tuple(seq(st))
        if first is not None and xs:  # from a player on, round the list
            k = xs.index(first(st)) if first(st) in xs else 0
            xs = xs[k:] + xs[:k]
        st.L[items] = xs
        st.L[count] = 0
        st.L[pending] = ()
        st.L[saved] = st.me
    flow.emit(EXEC, start, None, span)
    top = len(flow.code)

    def next_chooser(st):
        i = st.L[count]
        xs = st.L[items]
        if i < len(xs):
            st.L[var] = st.me = xs[i]
            return True
        return False
    jf_done = flow.emit(JF, next_chooser, None, span)
    if cond is not None:
        jf_skip = flow.emit(JF, cond, None, s.cond.span)
    offered = flow.s_Choose(s.body[0], sealed=pending)
    if cond is not None:
        flow.patch(jf_skip, len(flow.code))

    def step(st):
        st.L[count] += 1
    flow.emit(EXEC, step, None, span)
    flow.emit(JMP, top, None, span)
    flow.patch(jf_done, len(flow.code))

    # 2. the kept choices, carried out in order
    flow.emit(EXEC, lambda st: st.L.__setitem__(index, 0), None, span)
    top2 = len(flow.code)
    by_uid = {sa.uid: sa.action for sa in offered}

    def next_choice(st):
        L = st.L
        k = L[index]
        kept = L[pending]
        if k >= len(kept):
            L[pending] = ()
            st.me = L[saved]
            return False
        seat, action = kept[k]
        st.me = seat
        ad = by_uid[action[0]]
        for (slot, _, _), v in zip(ad.params, action[1:]):
            L[slot] = v
        for slot, f in ad.lets:
            L[slot] = f(st)
        L[uid_slot] = action[0]
        return True
    jf_end = flow.emit(JF, next_choice, None, span)
    ends = []
    for sa in offered:
        jf = flow.emit(JF, lambda st, uid=sa.uid: st.L[uid_slot] == uid, None, span)
        flow.action_effects(sa.action, span)
        ends.append(flow.emit(JMP, None, None, span))
        flow.patch(jf, len(flow.code))
    for j in ends:
        flow.code[j] = (JMP, len(flow.code), None, span)

    def step2(st):
        st.L[index] += 1
    flow.emit(EXEC, step2, None, span)
    flow.emit(JMP, top2, None, span)
    flow.patch(jf_end, len(flow.code))
