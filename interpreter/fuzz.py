"""The fuzz harness: drive a rules file into dead states, endless games,
broken invariants, rule errors and nondeterminism, and shrink each finding
to a short, replayable action sequence.

    from interpreter.fuzz import fuzz
    report = fuzz("games/emu_ranchers.rules", examples=200)
    for f in report.findings:
        print(f.kind, f.message, f.actions)

How it searches (the shape of a Hypothesis stateful test): each example
draws a player count, values for the parameters named in ``vary`` (within
their declared ranges), a game seed, a prefix of action choices (two bytes
a step; they shrink toward the first legal action) and a seed for the
policy that plays on after the prefix (uniform, or insisting on the first,
the last or the same choice: a loop that needs one move made again and again
is found that way).  The game is played to its
end, then further games from seeds of their own with the same policy until
the example has played ``EXAMPLE_ACTIONS`` actions; after every step the
invariants are checked and the position is compared with the earlier
positions of the same game.

What it reports, by kind:

- ``dead_state``: not over, yet the player to move has no legal action;
- ``endless``: the game passed ``max_actions`` actions;
- ``cycle``: a position came back: the players can go round forever;
- ``invariant``: a declared invariant, a zone capacity, card conservation
  (every card in exactly one place) or whole-number scores failed;
- ``rule_error``: a rule could not be carried out (an empty pile to draw
  from, ...), with its place in the rules file;
- ``nondeterminism``: the same seed and actions replayed differently;
- ``crash``: the engine itself failed (a bug to report, not the rules').

Hypothesis shrinks the search's choices; then the action trace itself is
minimised greedily (each step tried as the first legal action, steps
dropped) while the same kind of finding still occurs.  Each search stops at
its first finding; the search is then repeated with that kind set aside,
so one run can report several kinds.  The run also counts, with the
machine's coverage probes, each branch, loop and choice that ever ran, and
each action ever played: what never ran is an ``unused`` finding.  The
``seat`` finding (:mod:`.fuzz_seats`) is also judged on the whole run.
"""

from __future__ import annotations

import gc
import random
import time

from .compiler import ParamError
from .fuzz_game import _action_texts, _Found, _results, crash, play_game, replay, Staller
from .fuzz_late import Shared
from .fuzz_params import small_parameters, strategies
from .fuzz_report import REPLAY_VERSION, Finding, ReplayError, Report, coverage_report, load_replay, save_replay
from .fuzz_deal import same_deal
from .fuzz_seats import SeatLog
from .fuzz_shrink import Shrinking
from .game import Game, load
from .hypothesis_search import own_draws_only, search_settings
from .record import game_record
from .runtime import RuleError

KINDS = ("example", "same_deal", "dead_state", "endless", "cycle", "invariant", "rule_error", "nondeterminism",
         "crash", "seat", "unused")
# The kinds judged on the whole run, with no one game to replay.
RUN_KINDS = ("example", "same_deal", "seat", "unused")
ONCE_KINDS = ("example", "same_deal")  # judged once per run, before the search (the first batch of several)
# After the prefix, the rest of a game is played by one of these policies:
# uniform at random; or, 99 times in 100, the first, the last, or the same
# choice as the step before (players who insist find endless loops).
POLICIES = ("uniform", "first", "last", "stubborn", "stall")
PREFIX_STEPS = 400
# An example plays on to this many actions, in at most this many games.
EXAMPLE_ACTIONS = 1000
EXAMPLE_GAMES = 8
# Every so many games, one is played again to check that it comes out the same.
REPLAY_EVERY = 25
# After a game that need not end is found, later games stop at four times the
# longest game that ended by itself, and never sooner than this.
ENDLESS_CAP_FLOOR = 200
# The young objects the garbage collector lets pile up before it walks them, while
# the search runs (Python's default is 700).  A game makes many short-lived lists,
# freed as soon as they are dropped; what a run keeps a while (each game's actions,
# the seat log's batches of legal lists, Hypothesis's records) was walked again at
# each of the frequent collections.  Fewer walks: 2-6% less time playing.  What the
# run leaves in reference cycles is collected when it ends, in its time (2-9 ms).
YOUNG_OBJECTS = 20_000


# ---------------------------------------------------------------- the search
class _OutOfTime(BaseException):
    """The run's time is up.  A BaseException, so that Hypothesis lets it
    through at once instead of taking it for a failure to shrink."""


class _Fuzzer(Shrinking):
    def __init__(self, path, players, examples, max_actions, vary, seed, params, progress, check_cycles,
                 vary_small=True, fixed=()):
        self.path = str(path)
        self.base_params = dict(params or {})
        self.examples = examples
        self.max_actions = max_actions
        self.seed = seed
        self.progress = progress
        self.check_cycles = check_cycles
        self.games = {}
        self.frozen = False  # (gc.freeze: the run is under way, see fuzz)
        self.shared = None  # the machines the drawn settings play on (.fuzz_late.Shared)
        first = self.game(())
        lo, hi = first.min_players, first.max_players
        if players in (None, "all"):
            self.counts = list(range(lo, hi + 1))
        else:
            counts = [players] if isinstance(players, int) else list(players)
            for n in counts:
                if not lo <= n <= hi:
                    raise ValueError(f"{first.title} is for {lo} to {hi} players, not {n}")
            self.counts = counts
        known = {name for name, *_ in first.param_info()}
        for name in fixed:
            if name not in known:
                raise ValueError(f'--fixed: unknown parameter "{name}" (parameters: {", ".join(known) or "none"})')
        small = [n for n in small_parameters(first) if n not in fixed and n not in self.base_params] \
            if vary_small else []
        self.vary_names, self.vary = strategies(first, [n for n in (vary or ()) if n not in fixed], small)
        self.defaults = first.params
        self.played_games = 0
        self.seats = SeatLog()  # who decided what (the "seat" finding)
        self.longest_finished = 0  # the most actions of a game that ended by itself
        self.deadline = None  # time.perf_counter() at which the run stops (fuzz's time_limit)
        self.out_of_time = False
        self.played_actions = 0
        self.by_setting = {}  # (players, drawn (name, value) pairs) -> [games, actions] of the search's games
        self.achieved = {}  # achievement text -> finished games in which someone reached it

    def note_achievements(self, final):
        try:
            reached = game_record(final)["achievements"]
        except RuleError:  # reported as a rule error by the rules' own tests, not here
            return
        for text, seats in reached.items():
            self.achieved[text] = self.achieved.get(text, 0) + bool(seats)

    def game(self, varied: tuple) -> Game | None:
        """The game with the drawn parameters ``varied`` ((name, value) pairs;
        () for none): loaded once, then compiled again per combination."""
        if varied in self.games:
            return self.games[varied]
        if not varied:
            # who knows which card is not kept: nothing the search checks reads it
            g = load(self.path, self.base_params, coverage=True, check_invariants=True, knowledge=False)
        else:
            # the drawn parameters read from the state: the settings share machines (.fuzz_late)
            if self.shared is None:
                self.shared = Shared(self.games[()], self.vary_names)
            g = self.shared.game(self.path, {**self.base_params, **dict(varied)})
            if self.frozen:
                # what was made for it (a compile, for the first setting of its kind) lives as
                # long as the run: out of the collector's walks too, as what was loaded before it
                gc.freeze()
        self.games[varied] = g
        return g

    def search(self, skip) -> tuple | None:
        """One Hypothesis search; returns (finding inputs, _Found) or None."""
        from hypothesis import given
        from hypothesis import strategies as st

        last = {}
        stall = not {"cycle", "endless"} <= skip  # stalling only serves to find a game that need not end

        @search_settings(self.seed, self.examples)
        # One draw of a tuple: Hypothesis spends about half as long on it as
        # on six draws from st.data(), and shrinks it the same way.
        @given(inputs=st.tuples(
            st.sampled_from(self.counts),                  # players
            self.vary,                                     # the drawn parameters (None: default)
            st.integers(0, 2**31 - 1),                     # the game's seed
            st.binary(max_size=2 * PREFIX_STEPS),          # the first choices
            st.sampled_from(POLICIES),                     # then the policy
            st.integers(0, 2**31 - 1)))                    # and its seed
        def run(inputs):
            players, values, game_seed, prefix, style, policy_seed = inputs
            if style == "stall" and not stall:
                style = "uniform"
            varied = tuple((name, v) for name, v in zip(self.vary_names, values) if v is not None)
            policy = random.Random(policy_seed)
            bits = policy.getrandbits
            game = self.game(varied)
            if game is None:  # a combination the rules refuse: nothing to play
                return
            last_pick = [0]
            # what the staller learns holds for the example's games (not beyond: an
            # example must play the same whenever Hypothesis runs it again)
            staller = Staller()
            lead = [len(prefix) // 2]  # the steps the drawn choices lead: the example's first game only
            here = []  # [state, legal actions] while choose is asked (play_game's position)

            def uniform(step, n):
                if step < lead[0]:
                    return (prefix[2 * step] << 8 | prefix[2 * step + 1]) % n
                # policy.randrange(n), drawn as it draws (the same bits), without its calls
                k = n.bit_length()
                i = bits(k)
                while i >= n:
                    i = bits(k)
                return i

            def choose(step, n):
                if step < lead[0] or policy.random() < 0.01:  # (no draw while the prefix leads)
                    i = uniform(step, n)
                elif style == "first":
                    i = 0
                elif style == "last":
                    i = n - 1
                elif style == "stall":  # the first action that does not draw from a hidden pile
                    i = staller(here[0], here[1])
                else:  # "stubborn": the same choice again, as far as it goes
                    i = min(last_pick[0], n - 1)
                last_pick[0] = i
                return i

            # An example plays games until it has played EXAMPLE_ACTIONS
            # actions (at most EXAMPLE_GAMES): Hypothesis's own work per
            # example takes about a millisecond, as long as a short game
            # (see docs/fuzzing.md).  The later games take
            # seeds of their own and the same policy, without the prefix.
            start = self.played_actions
            for k in range(EXAMPLE_GAMES):
                if self.deadline is not None and time.perf_counter() > self.deadline:
                    raise _OutOfTime
                seed = game_seed if k == 0 else (game_seed + k * 7919) % 2**31
                staller.new_game()
                self.one_game(game, players, varied, seed, uniform if style == "uniform" else choose, skip, last,
                              here if style == "stall" else None)
                lead[0] = 0
                if self.played_actions - start >= EXAMPLE_ACTIONS:
                    break

        try:
            with own_draws_only():
                run()
        except _Found:
            return last["inputs"], last["found"]
        except _OutOfTime:
            self.out_of_time = True
            if "found" in last:  # the time ran out while Hypothesis shrank a finding: keep it
                return last["inputs"], last["found"]
        return None

    def one_game(self, game, players, varied, seed, choose, skip, last, here=None):
        """Play and check one game of an example; raise :class:`_Found`
        with ``last`` holding what the finding needs to be shrunk."""
        self.played_games += 1
        self.seats.game(players)
        if self.progress is not None:
            self.progress(self.played_games, self.played_actions)
        chosen = []
        inputs = (game, players, dict(varied), seed, chosen)
        tally = self.by_setting.get((players, varied))
        if tally is None:
            tally = self.by_setting[(players, varied)] = [0, 0]
        tally[0] += 1
        try:
            actions, final = play_game(game, players, seed, choose, self.max_actions,
                                       skip, None, self.check_cycles, here, chosen, self.seats)
            self.played_actions += len(actions)
            tally[1] += len(actions)
        except ParamError:  # a drawn value out of its range at this player count: not a game
            tally[0] -= 1
            return
        except _Found as found:
            self.played_actions += len(chosen)
            tally[1] += len(chosen)
            last["inputs"], last["found"] = inputs, found
            raise
        except Exception as err:  # an engine bug: report it, do not hide it
            self.played_actions += len(chosen)
            tally[1] += len(chosen)
            if "crash" in skip:
                return
            found = crash(err)
            last["inputs"], last["found"] = inputs, found
            raise found from err
        if final is not None and final.is_terminal:
            self.longest_finished = max(self.longest_finished, len(actions))
            if final.m.achievements:
                self.note_achievements(final)
        if "nondeterminism" not in skip and self.played_games % REPLAY_EVERY == 1 and final is not None \
                and final.is_terminal:
            # The first such game is replayed from its texts, as a log is
            # (two legal actions with one text would show here); the later
            # ones from the actions themselves, which is cheaper.
            again, index = replay(game, players, seed,
                                  _action_texts(final, actions) if self.played_games == 1 else actions)
            if index is not None or again.key() != final.key() or _results(again) != _results(final):
                last["inputs"] = inputs
                last["found"] = _Found("nondeterminism", "replaying the same seed and actions gave a different game")
                raise last["found"]


def fuzz(path, players="all", examples: int | None = 100, max_actions: int = 5000, vary=(), seed: int = 0,
         params=None, progress=None, kinds=KINDS, check_cycles: bool = True,
         time_limit: float | None = None, vary_small: bool = True, fixed=()) -> Report:
    """Fuzz a rules file; returns a :class:`Report`.  ``players``: a count,
    a list of counts, or "all"; ``vary``: parameter names to draw within
    their ranges; ``vary_small``: also draw every option and small-range
    parameter, half the time at its default (see :mod:`.fuzz_params`),
    except those in ``fixed`` or ``params``; ``kinds``: the kinds of finding to look for;
    ``time_limit``: seconds of searching, after which the run stops and
    reports what it found (``examples=None`` with a time limit: as many
    examples as the time allows)."""
    if examples is None:
        examples = 100 if time_limit is None else 10**9
    fz = _Fuzzer(path, players, examples, max_actions, vary, seed, params, progress, check_cycles,
                 vary_small, fixed)
    import hypothesis  # noqa: F401 - loaded here, not within the first search's time
    skip = set(KINDS) - set(kinds)
    # the rules' examples: each compiles a game of its own, like the loading, before the clock
    findings = example_findings(fz.game(())) if "example" not in skip else []
    if "same_deal" not in skip:
        for n in fz.counts:
            message = same_deal(fz.game(()), n)
            if message is not None:
                findings.append(Finding("same_deal", message, n, {}, 0, []))
                break
    seconds = play_searches(fz, skip, findings, time_limit)
    report = Report(str(path), findings, fz.played_games, fz.played_actions, seconds,
                    out_of_time=fz.out_of_time)
    report.settings = [{"players": n, "params": dict(varied), "games": g, "actions": a}
                       for (n, varied), (g, a) in fz.by_setting.items() if g]
    report.seats = fz.seats.report()
    report.seat_log = fz.seats.portable()
    coverage_report(fz, report)
    report.findings += run_findings(fz.seats, report.never, fz.played_games, fz.counts[0], skip)
    return report


def play_searches(fz, skip: set, findings: list, time_limit) -> float:
    """The run's searches, each finding added to ``findings`` (and its kind
    to ``skip``); returns the seconds they took: the playing time, as
    simulate's speed counts it (not the loading, the rules' examples or
    the report).  bench/fuzz_speed.py times it, bench/fuzz_instructions.py
    counts its instructions."""
    # What is loaded by now (the game, Hypothesis) lives as long as the run: the garbage
    # collector is told to leave it out of its walks until the run ends (gc.freeze), and
    # walks only what the games make, and less often (YOUNG_OBJECTS)
    gc.freeze()
    fz.frozen = True
    threshold = gc.get_threshold()
    if threshold[0]:  # (0: the caller switched collecting off that way; left so)
        gc.set_threshold(max(threshold[0], YOUNG_OBJECTS), *threshold[1:])
    t0 = time.perf_counter()  # the playing time, as simulate's speed counts it (not the loading)
    try:
        if time_limit is not None:
            fz.deadline = t0 + time_limit
        while not fz.out_of_time:
            result = fz.search(frozenset(skip))
            if result is None:
                break
            inputs, found = result
            finding = fz.finding(inputs, found, frozenset(skip))
            if finding is None:  # not a finding of the game compiled for its setting: search again
                continue
            findings.append(finding)
            skip.add(found.kind)
            if found.kind == "cycle":
                skip.add("endless")  # a position that can repeat already says the game need not end
            if found.kind in ("cycle", "endless"):
                # the later searches need not play a game that may go on forever to --max-actions:
                # four times the longest game that ended by itself is plenty to reach what ends
                fz.max_actions = min(fz.max_actions, max(ENDLESS_CAP_FLOOR, 4 * fz.longest_finished))
            if skip >= set(KINDS):
                break
    finally:
        gc.set_threshold(*threshold)
        # what the run left in reference cycles (Hypothesis's records of its examples, mostly),
        # collected less often while it ran: freed now, as part of the run, not by whatever the
        # caller does next; while what was loaded before the run is still left out of the walk
        gc.collect()
        gc.unfreeze()
        fz.frozen = False
    return time.perf_counter() - t0


def run_findings(seats: SeatLog, never: list, games: int, players: int, skip) -> list:
    """The findings judged on every game of a run, with no trace to replay:
    ``seat`` (from the seat log) and ``unused`` (each rule in ``never``, which
    never ran: dead, or waiting for a setting the run did not draw)."""
    out = []
    if "seat" not in skip:
        out += [Finding("seat", message, n, {}, 0, [], where) for n, message, where in seats.findings()]
    if "unused" not in skip:
        out += [Finding("unused", f"{what} in {games} games (a dead rule, or one that needs other parameters: "
                        "--vary them)", players, {}, 0, [], where) for what, where in never]
    return out


def example_findings(game) -> list:
    """An ``example`` finding for each expectation of the rules' examples
    that does not hold (:mod:`interpreter.examples`), with no trace to replay."""
    from .examples import run_examples

    return [Finding("example", f'"{r.text}": {why}', r.players, {}, 0, [], where)
            for r in run_examples(game) for where, why in r.failures]


def assert_no_findings(path, **kwargs) -> Report:
    """Fuzz a rules file and fail with a readable report if anything is
    found: a designer's test suite fuzzes its rules in one line.

        from interpreter.fuzz import assert_no_findings

        def test_my_rules_never_get_stuck():
            assert_no_findings("my_game.rules", examples=200, vary=("hand_size",))

    Keyword arguments are those of :func:`fuzz`.  Returns the report."""
    report = fuzz(path, **kwargs)
    if report.findings:
        lines = [f"{path}: {len(report.findings)} finding(s)"]
        for f in report.findings:
            lines.append(f"- {f.kind}: {f.message}" + (f" (at {f.where})" if f.where else ""))
            lines.append(f"  players {f.players}, seed {f.seed}, params {f.params}")
            lines += [f"  {k:4}  {a}" for k, a in enumerate(f.actions, 1)]
        raise AssertionError("\n".join(lines))
    return report


__all__ = ["fuzz", "run_findings", "assert_no_findings", "Finding", "Report", "KINDS", "save_replay", "load_replay",
           "ReplayError", "replay", "play_game", "REPLAY_VERSION"]
