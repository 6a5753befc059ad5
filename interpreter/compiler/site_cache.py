"""A choice's legal actions kept under what its searches read.

When every action offered at a choice has a search that reads little of
the state (:mod:`.search_reads`: whose turn it is, some variables, some
places' cards or sizes), the legal actions there are a function of those
values alone.  :func:`cached_site` wraps the choice's generated listing in
a function that writes those values out as a key, generated Python as the
rest is, and keeps each listing under its key: a position that agrees on
them gets the same tuple again, without a search and without a copy
(a copy touched each action kept, scattered in memory: on the game that
keeps the most listings, 6% more instructions per game and 15% more
misses of the processor's data cache).  A choice of
which pile to take a card from, for one, may read no more than the mover,
two variables and the piles' sizes.

A choice whose keys keep changing (a hand's cards, which seldom come back
in the same order) is not worth it: once ``MAX_KEPT`` listings are kept,
the choice goes back to its plain listing for the rest of the machine's
life.  Either way the tuple is the one the search gives; only the time
differs.
"""

from __future__ import annotations

from .search_reads import SearchReads

MAX_KEPT = 2000  # listings kept per choice before it lists its actions by search alone


def key_parts(m, reads) -> list:
    """The source of each value the key holds (``Z``, ``V`` and ``st`` in
    scope): the player count, the mover, the variables, the places' cards
    (a row of stacks as a tuple of tuples), then their sizes."""
    stride = m.stride
    var_index = {name: i for name, _, i in m.var_names}
    pvar_base = {name: base for name, _, base in m.pvar_names}
    # the player count first: one machine serves every count its parameters allow
    # (the seats, the cards in play and who sees what follow from it, and from the
    # parameters read from the state, if any: see .late)
    parts = ["st.n"] + [f"V[{int(i)}]" for i in m.late_indices] + (["st.me"] if reads.me else [])
    parts += [f"V[{int(var_index[name])}]" for name in sorted(reads.variables)]
    for name, whose in sorted(reads.player_vars):
        base = int(pvar_base[name])
        parts += [f"V[{base} + st.me]"] if whose == "me" else [f"V[{base + p}]" for p in range(stride)]

    def instances(z, whose):
        zone = m.zones[z]
        base = int(zone.base)
        if not zone.per_player:
            return [f"Z[{base}]"]
        return [f"Z[{base} + st.me]"] if whose == "me" else [f"Z[{base + p}]" for p in range(stride)]

    for z, whose in sorted(reads.cards):
        rows = m.zones[z].kind == "stacks"
        parts += [f"tuple(map(tuple, {x}))" if rows else f"tuple({x})" for x in instances(z, whose)]
    if reads.all_sizes:
        parts.append("tuple(map(len, Z))")
    else:
        parts += [f"len({x})" for z, whose in sorted(reads.sizes - reads.cards) for x in instances(z, whose)]
    return parts


def cached_site(m, ns, site: int, plain):
    """``plain`` (the choice's listing) with its listings kept, or
    ``plain`` itself when a search at the choice reads too much."""
    reads = None
    for sa in m.sites[site]:
        r = sa.action.reads
        if r is None:
            return plain
        if reads is None:
            reads = SearchReads()
        reads.merge(r)
    if reads is None:
        return plain
    parts = key_parts(m, reads)
    kept = {}

    def off(st):
        kept.clear()
        m.legal_at[st.pc] = plain  # (a choice stands at one pc)

    # names fixed by the site alone, as the flow's are (see flowgen.install_flow)
    k = int(site)
    plain_name, kept_name, off_name = f"_site{k}", f"_sitekept{k}", f"_siteoff{k}"
    ns.ns[kept_name], ns.ns[off_name] = kept, off
    name = f"_site{k}k"
    lines = [f"def {name}(st):", "    Z = st.Z", "    V = st.V",
             f"    key = ({', '.join(parts)},)",
             f"    hit = {kept_name}.get(key)",
             "    if hit is not None:",
             "        return hit",
             f"    out = {plain_name}(st)",
             f"    if len({kept_name}) < {int(MAX_KEPT)}:",
             f"        {kept_name}[key] = out",
             "    else:",
             f"        {off_name}(st)",
             "    return out"]
    return ns.define("\n".join(lines) + "\n", name)
