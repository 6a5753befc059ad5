"""What does a change to a rules file do?  ``rulerun diff A.rules B.rules``.

Two rules files (a game and a house variant of it, or two versions of one
file) are played in lock step: the same player count, the same game seed,
the same choices by text.  After every step the two positions are
compared, and the first difference is reported:

- ``legal``: an action is legal in one and not in the other;
- ``position``: a zone, a variable or the player to move differs (zones and
  variables are compared by name, where both files declare them);
- ``over``: one game is over and the other is not;
- ``results``: both are over, with other scores or winners;
- ``rule_error``: a rule could not be carried out in one and could in the other.

The search is Hypothesis's, drawn as the fuzzer's is (a player count, a
seed, a prefix of choices, then a policy): it stops at the first
difference, which is then shortened greedily to the fewest actions that
still show a difference.  When no difference is found, the report says so,
with the number of games and actions, and lists the lines of B that are
not in A and never ran in any of those games (statements, by the lines
they start on, and an action's requires, which run whenever its choice is
reached): a change there cannot have mattered yet.

    from interpreter.diff import diff
    report = diff("games/emu_ranchers.rules", "my_variant.rules", examples=200)
    print(report.difference or report.never_ran)
"""

from __future__ import annotations

import difflib
import random
import time
from pathlib import Path

import attrs

from rulelang import ast as A

from .fuzz import POLICIES, PREFIX_STEPS
from .game import load
from .hypothesis_search import own_draws_only, search_settings
from .runtime import RuleError, cell_text


@attrs.define
class Difference:
    kind: str  # legal, position, over, results, rule_error
    message: str
    players: int
    seed: int
    actions: list  # the texts played in both games before they differ
    details: list = attrs.Factory(list)  # [what, in A, in B]

    def to_dict(self) -> dict:
        return attrs.asdict(self)


@attrs.define
class DiffReport:
    a: str
    b: str
    players: list
    difference: Difference | None = None
    games: int = 0
    actions: int = 0
    seconds: float = 0.0
    changed_lines: list = attrs.Factory(list)  # [line, text] of B not in A
    never_ran: list = attrs.Factory(list)  # those of them that never ran, [line, text]

    @property
    def same(self) -> bool:
        return self.difference is None

    def to_dict(self) -> dict:
        d = attrs.asdict(self)
        d["same"] = self.same
        return d


class _Differs(Exception):
    def __init__(self, kind, message, details=()):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.details = [list(x) for x in details]


# ---------------------------------------------------------------- one game in lock step
def _view(st) -> dict:
    """The position by name: each zone instance's cards (with their cells in
    a grid), each variable and player variable, who is to move."""
    m = st.m
    out = {"to move": "nobody (the game is over)" if st.is_terminal else f"player {st.current_player + 1}"}
    for z in m.zones:
        for p in (range(st.n) if z.per_player else (0,)):
            inst = m.zone_instance(st, z.name, p if z.per_player else None)
            names = m.card_names
            if inst in m.stack_instances:
                text = " | ".join(", ".join(names[c] for c in s) for s in st.Z[inst])
            elif inst in m.grid_instances:
                text = ", ".join(f"{names[c]} at {cell_text(st.P[c])}" for c in st.Z[inst])
            else:
                text = ", ".join(names[c] for c in st.Z[inst])
            out[f"{z.name}" + (f" of player {p + 1}" if z.per_player else "")] = text or "empty"
    for name, t, i in m.var_names:
        out[name] = m.value_text(t, st.V[i])
    for name, t, base in m.pvar_names:
        for p in range(st.n):
            out[f"{name} of player {p + 1}"] = m.value_text(t, st.V[base + p])
    return out


def _outcome(st):
    try:
        return st.scores(), st.winners()
    except RuleError as err:
        return err.message


def _compare(sa, sb) -> None:
    if sa.is_terminal != sb.is_terminal:
        over, going = ("A", "B") if sa.is_terminal else ("B", "A")
        raise _Differs("over", f"the game is over in {over} and goes on in {going}")
    if sa.is_terminal:
        ra, rb = _outcome(sa), _outcome(sb)
        if ra != rb:
            raise _Differs("results", "the games end with other results", [["results", _results_text(ra),
                                                                            _results_text(rb)]])
    va, vb = _view(sa), _view(sb)
    details = [[k, va[k], vb[k]] for k in va if k in vb and va[k] != vb[k]]
    if details:
        what = ", ".join(d[0] for d in details[:3]) + (", ..." if len(details) > 3 else "")
        raise _Differs("position", f"the positions differ: {what}", details)


def _results_text(r) -> str:
    if isinstance(r, str):
        return f"rule error: {r}"
    scores, winners = r
    return "scores " + ", ".join(map(str, scores)) + "; winners " + (
        ", ".join(f"player {p + 1}" for p in winners) or "nobody")


def _legal(st) -> dict:
    out = {}
    for a in st.legal_actions():
        out.setdefault(st.action_text(a), a)
    return out


def _both(fa, fb):
    """Run ``fa`` and ``fb``; a rule error in one and not the other is a
    difference; the same rule error in both ends the game (None)."""
    results = []
    for f in (fa, fb):
        try:
            results.append((f(), None))
        except RuleError as err:
            results.append((None, err.message))
    (a, ea), (b, eb) = results
    if ea is None and eb is None:
        return a, b
    if ea is not None and eb is not None:
        return None
    which, msg = ("A", ea) if ea is not None else ("B", eb)
    raise _Differs("rule_error", f"a rule error in {which} only: {msg}")


def play_pair(ga, gb, players: int, seed: int, choose, max_actions: int, played: list) -> int:
    """Play A and B in lock step until they differ (raises _Differs), end,
    or reach ``max_actions``; ``played`` gets each action's text.  Returns
    the number of actions."""
    pair = _both(lambda: ga.new_state(seed, players), lambda: gb.new_state(seed, players))
    if pair is None:
        return 0
    sa, sb = pair
    step = 0
    while True:
        _compare(sa, sb)
        if sa.is_terminal or step >= max_actions:
            return step
        pair = _both(lambda: _legal(sa), lambda: _legal(sb))
        if pair is None:
            return step
        la, lb = pair
        if set(la) != set(lb):
            only_a = [t for t in la if t not in lb]
            only_b = [t for t in lb if t not in la]
            raise _Differs("legal", "the legal actions differ",
                           ([["legal in A only", "; ".join(only_a), ""]] if only_a else [])
                           + ([["legal in B only", "", "; ".join(only_b)]] if only_b else []))
        if not la:
            return step  # stuck in both: the fuzzer's business
        texts = list(la)
        text = texts[choose(step, len(texts))]
        played.append(text)
        if _both(lambda: sa.apply(la[text]), lambda: sb.apply(lb[text])) is None:
            return step + 1
        step += 1


# ---------------------------------------------------------------- the search
def diff(path_a, path_b, players="all", examples: int = 100, max_actions: int = 2000, seed: int = 0,
         params=None, progress=None) -> DiffReport:
    """Look for the shortest game after which A and B differ (see the module doc)."""
    t0 = time.perf_counter()
    params = dict(params or {})
    ga = load(path_a, params)
    gb = load(path_b, params, coverage="lines")
    lo, hi = max(ga.min_players, gb.min_players), min(ga.max_players, gb.max_players)
    if lo > hi:
        raise ValueError(f"{ga.title} is for {ga.min_players} to {ga.max_players} players and "
                         f"{gb.title} for {gb.min_players} to {gb.max_players}: no count suits both")
    if players in (None, "all"):
        counts = list(range(lo, hi + 1))
    else:
        counts = [players] if isinstance(players, int) else list(players)
        for n in counts:
            if not lo <= n <= hi:
                raise ValueError(f"both games are for {lo} to {hi} players, not {n}")
    report = DiffReport(str(path_a), str(path_b), counts)
    found = _search(ga, gb, counts, examples, max_actions, seed, report, progress)
    if found is not None:
        n, game_seed, choices = found
        choices, err = _shorten(ga, gb, n, game_seed, choices, max_actions)
        texts = []
        try:
            play_pair(ga, gb, n, game_seed, _replaying(choices), max_actions, texts)
        except _Differs as e:
            err = e
        report.difference = Difference(err.kind, err.message, n, game_seed, texts, err.details)
    report.changed_lines = changed_lines(Path(path_a).read_text(), Path(path_b).read_text())
    report.never_ran = never_ran(gb, report.changed_lines)
    report.seconds = time.perf_counter() - t0
    return report


def _replaying(choices):
    def choose(step, n):
        return choices[step] % n if step < len(choices) else 0
    return choose


def _search(ga, gb, counts, examples, max_actions, seed, report, progress):
    from hypothesis import given
    from hypothesis import strategies as st

    last = {}

    @search_settings(seed, examples)
    @given(inputs=st.tuples(st.sampled_from(counts), st.integers(0, 2**31 - 1), st.binary(max_size=2 * PREFIX_STEPS),
                            st.sampled_from(POLICIES), st.integers(0, 2**31 - 1)))
    def run(inputs):
        n, game_seed, prefix, style, policy_seed = inputs
        policy = random.Random(policy_seed)
        chosen = []

        def choose(step, k):
            if 2 * step + 1 < len(prefix):
                i = (prefix[2 * step] << 8 | prefix[2 * step + 1]) % k
            elif style == "uniform" or policy.random() < 0.01:
                i = policy.randrange(k)
            else:
                i = {"first": 0, "last": k - 1}.get(style, min(chosen[-1] if chosen else 0, k - 1))
            chosen.append(i)
            return i

        report.games += 1
        if progress is not None:
            progress(report.games, report.actions)
        played = []
        try:
            play_pair(ga, gb, n, game_seed, choose, max_actions, played)
        except _Differs:
            last["found"] = (n, game_seed, list(chosen))
            raise
        finally:
            report.actions += len(played)

    try:
        with own_draws_only():
            run()
    except _Differs:
        return last["found"]
    return None


def _shorten(ga, gb, n, seed, choices, max_actions, budget_s=5.0):
    """Fewer choices that still show a difference: each step dropped or
    made the first legal action, while the difference comes no later."""
    def attempt(cs):
        played = []
        try:
            play_pair(ga, gb, n, seed, _replaying(cs), max_actions, played)
        except _Differs as e:
            return len(played), e
        return None, None

    best = list(choices)
    best_len, best_err = attempt(best)
    deadline = time.perf_counter() + budget_s
    improved = True
    while improved and time.perf_counter() < deadline:
        improved = False
        for i in range(min(len(best), best_len)):
            for cand in (best[:i] + best[i + 1:], best[:i] + [0] + best[i + 1:]):
                if cand == best:
                    continue
                length, err = attempt(cand)
                if length is not None and (length < best_len or (length == best_len and cand < best)):
                    best, best_len, best_err = cand[:length], length, err
                    improved = True
                    break
            if improved or time.perf_counter() >= deadline:
                break
    return best[:best_len], best_err


# ---------------------------------------------------------------- what changed, and did it run?
def changed_lines(text_a: str, text_b: str) -> list:
    """[line number, text] of each line of B that A does not have there
    (blank lines and comments left out)."""
    a, b = text_a.splitlines(), text_b.splitlines()
    out = []
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            for j in range(j1, j2):
                code = b[j].split("#", 1)[0].strip()
                if code:
                    out.append([j + 1, b[j].strip()])
    return out


def never_ran(game, lines) -> list:
    """Of ``lines`` ([number, text]), those that start a statement that never
    ran, or hold a require or let of an action whose choice was never
    reached, in any machine of ``game`` (loaded with ``coverage="lines"``)."""
    ran, tracked, reached = set(), set(), set()
    own = game.checked.module.file  # a variant's lines: not those of the file it extends
    for m in game._machines.values():
        for (kind, what, span), count in zip(m.coverage_points, m.coverage_counts):
            if kind == "line" and span.file == own:
                tracked.add(span.line)
                if count:
                    ran.add(span.line)
            elif kind == "choose" and count:
                reached.update(x.strip() for x in what.split(":", 1)[1].split(","))
    for name, a in game.checked.actions.items():
        if a.span.file != own:
            continue
        for item in a.body:
            if not isinstance(item, (A.Require, A.Let)):
                break
            for line in range(item.span.line, item.span.end_line + 1):
                tracked.add(line)
                if name in reached:
                    ran.add(line)
    return [[n, text] for n, text in lines if n in tracked and n not in ran]


__all__ = ["diff", "DiffReport", "Difference", "play_pair", "changed_lines", "never_ran"]
