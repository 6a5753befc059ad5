"""Exhaustive exploration: walk every reachable position of a small game.

    rulerun explore FILE --players 2 --max-states 100000 [--set NAME=VALUE ...]

The game is compiled with explicit chance nodes, so every shuffle position
and random pick is an edge with its probability, not a draw from a seed.
Positions are identified by :meth:`State.key` (zones, variables, where the
flow stands); each is expanded once, breadth first.  Within the bound, this
proves that no reachable position is a dead state (not over, nobody can
move) and reports the shortest path to any that is.  A game may declare a
parameter that scales its deck down, so that a complete walk is feasible.
"""

from __future__ import annotations

import time
from collections import deque

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

    @property
    def states_per_s(self) -> float:
        return self.states / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict:
        d = attrs.asdict(self)
        d["states_per_s"] = round(self.states_per_s, 1)
        return d


def explore(path, players=None, max_states: int = 100_000, params=None, max_findings: int = 5,
            progress=None) -> ExploreReport:
    game = load(path, explicit_chance=True, **(params or {}))
    n = game.min_players if players is None else players
    t0 = time.perf_counter()
    report = ExploreReport(str(path), n)
    try:
        root = game.new_state(0, n)
    except RuleError as err:
        report.rule_errors.append((err.message, str(err.span) if err.span else None, []))
        report.seconds = time.perf_counter() - t0
        return report
    parents = {root.key(): (None, None, 0)}  # key -> (parent key, step text, depth)
    queue = deque([root])
    while queue:
        if len(parents) >= max_states and queue:
            break
        st = queue.popleft()
        key = st.key()
        depth = parents[key][2]
        report.depth = max(report.depth, depth)
        if st.is_terminal:
            report.terminal += 1
            continue
        if st.is_chance_node:
            moves = [(o, f"chance {o} (p={p:.4g})") for o, p in st.chance_outcomes()]
        else:
            try:
                legal = st.legal_actions()
            except RuleError as err:
                if len(report.rule_errors) < max_findings:
                    report.rule_errors.append((err.message, str(err.span) if err.span else None,
                                               _path(parents, key)))
                continue
            if not legal:
                if len(report.dead_states) < max_findings:
                    report.dead_states.append(_path(parents, key))
                continue
            moves = [(a, f"P{st.current_player + 1}: {st.action_text(a)}") for a in legal]
        for move, text in moves:
            child = st.clone()
            try:
                child.apply(move)
            except RuleError as err:
                if len(report.rule_errors) < max_findings:
                    report.rule_errors.append((err.message, str(err.span) if err.span else None,
                                               _path(parents, key) + [text]))
                continue
            report.edges += 1
            ck = child.key()
            if ck not in parents:
                parents[ck] = (key, text, depth + 1)
                queue.append(child)
        if progress is not None and len(parents) % 1000 == 0:
            progress(len(parents))
    report.states = len(parents)
    report.complete = not queue
    report.seconds = time.perf_counter() - t0
    return report


def _path(parents, key) -> list:
    out = []
    while key is not None:
        parent, text, _ = parents[key]
        if text is not None:
            out.append(text)
        key = parent
    return out[::-1]


__all__ = ["explore", "ExploreReport"]
