"""Exhaustive exploration: walk every reachable position of a small game.

    rulerun explore FILE --players 2 --max-states 100000 [--set NAME=VALUE ...]

The game is compiled with explicit chance nodes, so every shuffle position
and random pick is an edge with its probability, not a draw from a seed.
Positions are identified by a 128-bit digest of their bytes
(:meth:`Machine.position_bytes`: zones, variables, where the flow stands);
each is expanded once, breadth first.  A position waiting in the queue is
kept as its parent and the move to it, and made again when its turn comes.
Within the bound, this proves that no reachable position is a dead state
(not over, nobody can move) and reports the shortest path to any that is.  A
game may declare a parameter that scales its deck down, so that a complete
walk is feasible.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections import deque
from hashlib import blake2b

import attrs

from .game import load
from .runtime import RuleError


@attrs.define
class ExploreReport:
    rules: str
    players: int
    states: int = 0
    terminal: int = 0
    edges: int = 0
    complete: bool = False  # every reachable position was expanded
    depth: int = 0
    dead_states: list = attrs.Factory(list)  # paths (lists of step texts)
    rule_errors: list = attrs.Factory(list)  # (message, where, path)
    seconds: float = 0.0
    stopped_by: str = ""  # "" (complete or findings), "max_states" or "max_memory"
    memory_mb: float = 0.0  # memory the walk took, as the process's resident size grew
    max_memory_mb: int = 0

    @property
    def states_per_s(self) -> float:
        return self.states / self.seconds if self.seconds else 0.0

    @property
    def bytes_per_state(self) -> float:
        return self.memory_mb * 2**20 / self.states if self.states else 0.0

    def to_dict(self) -> dict:
        d = attrs.asdict(self)
        d["states_per_s"] = round(self.states_per_s, 1)
        d["bytes_per_state"] = round(self.bytes_per_state)
        return d


def default_max_memory_mb() -> int:
    """Half the machine's memory, at most 4 GB (2 GB where it cannot be told)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):
        return 2048
    return max(256, min(4096, total // 2))


def resident_mb() -> float:
    """The process's resident memory now (Linux), or its peak so far elsewhere."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def explore(path, players=None, max_states: int = 100_000, params=None, max_findings: int = 5,
            progress=None, max_memory_mb: int | None = None) -> ExploreReport:
    """Walk breadth first until every position is expanded, ``max_states``
    are known, or the walk has taken ``max_memory_mb`` (default: half the
    machine's memory, at most 4 GB), checked every 1,000 positions expanded."""
    game = load(path, params, explicit_chance=True, knowledge=False)  # (nothing here observes)
    n = game.min_players if players is None else players
    t0 = time.perf_counter()
    limit = default_max_memory_mb() if max_memory_mb is None else max_memory_mb
    report = ExploreReport(str(path), n, max_memory_mb=limit)
    base = resident_mb()
    try:
        root = game.new_state(0, n)
    except RuleError as err:
        report.rule_errors.append((err.message, str(err.span) if err.span else None, []))
        report.seconds = time.perf_counter() - t0
        return report
    # key -> (parent key, step, depth); a step is (seat, action) or (None, chance outcome, its
    # probability), written out only for a path a finding reports.  A position's key is a
    # digest of its bytes (Machine.position_bytes): 16 bytes where a tuple of tuples takes thousands
    # The queue holds (parent state, move, key): a position waiting its turn is made again from
    # its parent when it comes (a clone and a move, a fifth of the time a position takes), so
    # the states kept are those of the positions whose moves are waiting, not of every one
    write = root.m.position_bytes

    def position(st) -> bytes:
        # 16 bytes (BLAKE2b) of the position's few hundred: two positions sharing them is a
        # chance of about 1 in 10^26 in a walk of two million
        return blake2b(write(st), digest_size=16).digest()
    parents = {position(root): (None, None, 0)}
    queue = deque([(None, root, position(root))])

    def path(key) -> list:
        return _path(parents, key, root)
    expanded = 0
    while queue:
        if len(parents) >= max_states and queue:
            report.stopped_by = "max_states"
            break
        expanded += 1
        if expanded % 1000 == 0 and resident_mb() - base > limit:
            report.stopped_by = "max_memory"
            break
        parent, st, key = queue.popleft()
        if parent is not None:
            move, st = st, parent.clone()
            st.apply_at(move)  # (the index of the action, or the chance outcome)
        depth = parents[key][2]
        report.depth = max(report.depth, depth)
        if st.is_terminal:
            report.terminal += 1
            continue
        if st.is_chance_node:
            moves = [(o, (None, o, p)) for o, p in st.chance_outcomes()]
        else:
            try:
                legal = st.legal_actions()
            except RuleError as err:
                if len(report.rule_errors) < max_findings:
                    report.rule_errors.append((err.message, str(err.span) if err.span else None, path(key)))
                continue
            if not legal:
                if len(report.dead_states) < max_findings:
                    report.dead_states.append(path(key))
                continue
            seat = st.current_player
            moves = list(enumerate((seat, a) for a in legal))  # (by index: apply_at looks nothing up)
        for move, step in moves:
            child = st.clone()
            try:
                child.apply_at(move)
            except RuleError as err:
                if len(report.rule_errors) < max_findings:
                    report.rule_errors.append((err.message, str(err.span) if err.span else None,
                                               path(key) + [_step_text(step, root)]))
                continue
            report.edges += 1
            ck = position(child)
            if ck not in parents:
                parents[ck] = (key, step, depth + 1)
                queue.append((st, move, ck))
        if progress is not None and len(parents) % 1000 == 0:
            progress(len(parents))
    report.states = len(parents)
    report.complete = not queue
    report.memory_mb = round(max(0.0, resident_mb() - base), 1)
    report.seconds = time.perf_counter() - t0
    return report


def _path(parents, key, state) -> list:
    """The texts of the steps from the first position to ``key``'s
    (``state``: any state of the game, to write the actions)."""
    out = []
    while key is not None:
        parent, step, _ = parents[key]
        if step is not None:
            out.append(_step_text(step, state))
        key = parent
    return out[::-1]


def _step_text(step, state) -> str:
    """A step's text: "P2: take field card 1" or "chance 3 (p=0.25)" (an
    action's text depends on the rules only, not on the position)."""
    if step[0] is None:
        return f"chance {step[1]} (p={step[2]:.4g})"
    return f"P{step[0] + 1}: {state.action_text(step[1])}"


__all__ = ["explore", "ExploreReport"]
