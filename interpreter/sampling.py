"""Samples of what a seat knows, for a search (``State.resample``): the
cards it does not know dealt again at random among their places, and the
choices others made in secret drawn again."""

from __future__ import annotations

import random

from .runtime import own_cells


def resample(state, player: int, rng, knowledge: bool = True):
    """:meth:`interpreter.runtime.State.resample` (``state`` keeps who
    knows which card; ``player`` is one of its seats)."""
    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    s = state.clone()
    own_cells(s)  # (written below)
    bit = 1 << player
    K, vis, loc = s.K, s.vis, s.loc
    stacks = set(state.m.stack_instances)
    face_down = state.m.face_down  # then a seen place may hold an unknown card
    slots = []  # (container list, index, instance)
    for inst, content in enumerate(s.Z):
        if vis[inst] & bit and not face_down:
            continue
        rows = content if inst in stacks else (content,)
        for row in rows:
            for i, c in enumerate(row):
                if not K[c] & bit:
                    slots.append((row, i, inst))
    held = [row[i] for row, i, _ in slots]
    masks = [K[c] for c in held]
    places = [(s.P[c], s.F[c]) for c in held]  # a cell and a face stay with the place
    # shuffled from a canonical order: where the unknown cards really lie
    # must not change the sample a given rng gives (a bot would read it)
    cards = sorted(held)
    rng.shuffle(cards)
    for (row, i, inst), c, mask, (cell, down) in zip(slots, cards, masks, places):
        row[i] = c
        loc[c] = inst
        K[c] = mask  # who knew the card at this place now "knows" the new one
        s.P[c] = cell
        s.F[c] = down
    redraw_secret_choices(s, player, rng)
    s.rng = rng.getrandbits(64)
    s._legal = None
    if not knowledge:
        s.m = state.m.without_knowledge()  # (its record, as sampled, is never written there)
        s.S = s.m.scratch  # (and that machine's scratch slots)
    return s


def redraw_secret_choices(state, player, rng) -> None:
    """The choices other players made in secret (not yet carried out),
    drawn anew among what they could choose: nobody can read them."""
    m = state.m
    for slot in m.sealed_slots:
        kept = state.L[slot]
        if not kept:
            continue
        redrawn = []
        for seat, action in kept:
            if seat != player:
                me, state.me = state.me, seat
                out = []
                for sa in m.sites[m.site_actions[action[0]].site]:
                    sa.action.enumerate(state, out, sa.uid)
                state.me = me
                if out:
                    action = out[rng.randrange(len(out))]
            redrawn.append((seat, action))
        state.L[slot] = tuple(redrawn)
