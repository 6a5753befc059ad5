"""Mutation test of the whole pipeline: every rules file is refused, or plays.

One *mutant* is a rules file (a game of ``games/`` or a file of
``tests/fuzz_targets/``) damaged by the operators of
:mod:`mutation_ops`, chosen by a seed (:func:`make_mutant`).
:func:`run_mutant` takes it through everything a tool built on rulelang
does with a file: ``interpreter.load`` (parse, check, compile), now and
then a parameter override (``Game.with_params``), then for each allowed
player count (or a sample of them when there are many) a new state and a
random game with a step cap, where each decision point sees
``legal_actions``, ``action_text`` of every legal action, ``observation(p)``
(and its ``json.dumps``) and ``observation_text(p)`` of every player; a few
states are cloned (the clone agrees and stays apart) and resampled (the
resampled state keeps the player's observation and plays on); at the end of
every game ``returns``, ``scores``, ``winners`` and the game record.

The outcome of a mutant is one of the *allowed* outcomes::

    refused      the file has errors (RulesError and its diagnostics)
    rule_error   a documented RuleError: at load time or in a game
    param_error  a documented ParamError
    invariant    InvariantBroken (only when invariants are checked)
    stuck        a game with no legal action (a fault of the rules)
    capped       a game stopped by the step cap or the time budget
    finished     every game ended

or a *defect* of the engine, by kind::

    exception    any other exception (TypeError, IllegalAction, ...)
    memory       MemoryError (the memory limit of a worker)
    recursion    RecursionError
    hang         one call did not return within the budget
    killed       the worker had to be killed (a hang in C code) or died
    leak         a RuleError, ParamError or diagnostic worded in raw Python
                 ("object of type", "list index out of range", ...)
    bad_span     a RuleError pointing outside the file
    bad_seat     a seat to move that is not a seat of the game
    bad_result   returns/scores/winners of the wrong shape
    inconsistent a clone that differs or is not apart, a resampled state
                 that does not keep the observation

A defect carries its phase (where in the pipeline it happened), the
exception type, the message and the end of the traceback; :func:`defect_key`
groups defects by (kind, phase, type, message without numbers and names).

:func:`pipeline_workers.run_isolated` runs a mutant in a forked child with a
memory limit and kills it when it overruns its time (a hang in C code that no
alarm stops); ``bench/pipeline_mutants.py`` runs many of them, and
``tests/interpreter/test_pipeline_mutants.py`` a fixed few.
"""

from __future__ import annotations

import difflib
import json
import os
import random
import re
import signal
import tempfile
import time
import traceback
from dataclasses import dataclass

import mutation_ops as ops
from interpreter.compiler import ParamError
from interpreter.game import load
from interpreter.machine import InvariantBroken
from interpreter.record import game_record, record_lines
from interpreter.runtime import RuleError
from rulelang.diagnostics import RulesError

ALLOWED = ("refused", "rule_error", "param_error", "invariant", "stuck", "capped", "finished")
DEFECT_KINDS = ("exception", "memory", "recursion", "hang", "killed", "leak", "bad_span", "bad_seat", "bad_result",
                "inconsistent")
# the order in which a mutant's games sum up into one outcome: the first that occurred
SUMMARY_ORDER = ("rule_error", "param_error", "invariant", "stuck", "capped", "finished")

# Raw Python wording in a message meant for the author of a rules file.
LEAK_RE = re.compile(
    r"object of type|arg is an empty sequence|index out of range|unsupported operand|not supported between"
    r"|has no attribute|object is not|NoneType|'(?:int|str|list|tuple|dict|set|frozenset|bool|float|function)'"
    r"|unhashable|invalid literal|Exceeds the limit|recursion depth|is not in list|positional argument"
    r"|takes \d+ positional|unexpected keyword|randrange|math domain|too large to convert|int too large"
    r"|substring not found|Traceback|<function|<lambda>|<built-in|object at 0x"
    r"|(?:Key|Index|Type|Value|Attribute|Overflow)Error"
    r"|can't multiply|must be (?:str|int|real)|not subscriptable|integer string conversion|empty sequence"
    r"|expected an? \w+ object|cannot be interpreted as", re.I)


@dataclass(frozen=True)
class Budget:
    steps: int = 400  # decisions per game
    max_counts: int = 6  # player counts tried per mutant (all of them when there are no more)
    samples: int = 3  # states cloned and resampled per game
    # CPU seconds of the mutant's process (a loaded machine does not make hangs), but for kill_s
    soft_s: float = 6.0  # after this, the games left are skipped and a game under way stops (capped)
    hard_s: float = 10.0  # an alarm: a call still running is a hang
    kill_s: float = 30.0  # wall clock: the parent kills a child still running (a hang in C code, a wait)
    memory: int = 1536 << 20  # RLIMIT_AS of a child, bytes


BUDGET = Budget()
QUICK = Budget(steps=60, max_counts=2, samples=1, soft_s=2.0, hard_s=5.0, kill_s=15.0)


# ------------------------------------------------------------------ mutants
def make_mutant(seed: int) -> tuple[str, str, list]:
    """(base file name, mutant text, operators applied) for a seed."""
    ch = ops.RandomChooser(random.Random(f"mutant-{seed}"))
    files = ops.base_files()
    games = [f for f in files if (ops.GAMES_DIR / f"{f[0]}.rules").exists()]
    name, text = ch.choice(games if ch.rng.random() < 0.6 else files)  # the games more often: larger, richer
    r = ch.rng.random()
    if r < 0.45:
        names, most = sorted(ops.GENTLE) + sorted(ops.SEMANTIC), 2
    elif r < 0.8:
        names, most = sorted(ops.SEMANTIC), 3
    else:
        names, most = sorted(ops.MUTATORS) + sorted(ops.SEMANTIC), 5
    text, applied = ops.mutate(text, ch, names, most)
    return name, text, applied


def mutant_diff(base: str, text: str, limit: int = 40) -> str:
    """The mutant against its base file, as a unified diff (lines cut at 160 characters)."""
    original = dict(ops.base_files())[base]
    lines = [x[:160] for x in difflib.unified_diff(original.split("\n"), text.split("\n"), f"{base}.rules",
                                                   "mutant.rules", lineterm="", n=1)]
    return "\n".join(lines[:limit] + [f"... {len(lines) - limit} more lines"] * (len(lines) > limit))


# ------------------------------------------------------------------ classification
class _Hang(BaseException):
    """Raised by the alarm; a BaseException, so that no ``except Exception`` swallows it."""


class Defect(Exception):
    """An oracle of the harness failed (not an exception of the engine)."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def pattern(message: str) -> str:
    """A message without its numbers and quoted names, for grouping."""
    s = re.sub(r'"[^"\n]*"|\'[^\'\n]*\'', "'S'", message)
    return re.sub(r"\d+", "N", s)[:160]


def defect_key(result: dict) -> tuple:
    return (result["kind"], result["phase"], result["type"], pattern(result["message"]))


def tb_tail(err) -> str:
    """The traceback's first and last lines (a RecursionError's is thousands of lines long)."""
    lines = "".join(traceback.format_exception(type(err), err, err.__traceback__)).split("\n")
    if len(lines) > 45:
        lines = lines[:14] + [f"    ... {len(lines) - 44} lines ..."] + lines[-30:]
    return "\n".join(lines)[-6000:]


def _engine_frame(err) -> str:
    """The innermost frame of the traceback in rulelang/ or interpreter/: where the cause seems to lie."""
    where = ""
    for fs in traceback.extract_tb(err.__traceback__):
        f = fs.filename.replace(os.sep, "/")
        for top in ("/rulelang/", "/interpreter/"):
            if top in f:
                where = f"{top[1:]}{f.split(top, 1)[1]}:{fs.lineno} ({fs.name})"
    return where


# ------------------------------------------------------------------ one mutant
class _Run:
    def __init__(self, text, seed, budget, phase_cell=None):
        self.text = text
        self.rng = random.Random(f"run-{seed}")
        self.budget = budget
        self.cell = phase_cell
        self.phase = ""
        self.path = None
        # the file is read in text mode, where "\r\n" and a lone "\r" end a line too
        self.nlines = max(1, len(text.replace("\r\n", "\n").replace("\r", "\n").split("\n")))
        self.games = []  # each game's outcome
        self.stop_at = time.process_time() + budget.soft_s

    def at(self, phase):
        self.phase = phase
        if self.cell is not None:  # for the parent, should it have to kill this child
            self.cell.value = phase.encode()[:63]

    # -------------------------------------------------------- checks of documented errors
    def clean(self, message: str) -> str:
        return message.replace(self.path, "mutant.rules") if self.path else message

    def check_message(self, message: str, what: str) -> None:
        m = LEAK_RE.search(message)
        if m or not re.search(r"[A-Za-z]{3}", message):
            raise Defect("leak", f"{what} in raw Python wording ({m.group() if m else 'no words'}): "
                         f"{self.clean(message)}")

    def check_rule_error(self, err: RuleError) -> None:
        self.check_message(str(err.message), "a RuleError")
        s = err.span
        if s is not None and s.file != "<builtin>":
            if s.file != self.path or not 1 <= s.line <= self.nlines:
                raise Defect("bad_span", f"a RuleError at {self.clean(str(s))} (the file has {self.nlines} lines):"
                             f" {self.clean(str(err.message))}")

    # -------------------------------------------------------- the pipeline
    def go(self, tmpdir) -> dict:
        self.path = os.path.join(tmpdir, f"mutant-{os.getpid()}.rules")
        with open(self.path, "wb") as f:
            f.write(self.text.encode("utf-8", errors="surrogatepass"))
        try:
            return self.load_and_play()
        finally:
            os.unlink(self.path)

    def load_and_play(self) -> dict:
        rng = self.rng
        self.at("load")
        explicit, invariants = rng.random() < 0.2, rng.random() < 0.2
        try:
            game = load(self.path, explicit_chance=explicit, check_invariants=invariants)
        except RulesError as err:
            str(err)
            for d in err.diagnostics:
                d.render(self.text)
                self.check_message(d.message, f"diagnostic {d.code}")
            return {"outcome": "refused"}
        except RuleError as err:  # a parameter's default or range that cannot be computed, ...
            self.check_rule_error(err)
            return {"outcome": "rule_error"}
        except ParamError as err:  # a default outside its range
            self.check_message(str(err), "a ParamError")
            return {"outcome": "param_error"}
        if game.checked.params and rng.random() < 0.2:
            self.at("params")
            name, _kind, typ, value, _doc = rng.choice(game.param_info())
            choices = ["x", " 3 ", "-0", "99999999999999999999", "true", "1e3"]
            if typ == "int" and isinstance(value, int):
                choices += [value - 1, value + 1, 0, -1, 2 * value, 10**12]
            elif typ == "bool":
                choices += [not value, "yes", "off"]
            try:
                game = game.with_params(**{name: rng.choice(choices)})
            except ParamError as err:
                self.check_message(str(err), "a ParamError")
                self.games.append("param_error")
        lo, hi = game.min_players, game.max_players
        if hi - lo < self.budget.max_counts:
            counts = list(range(lo, hi + 1))
        else:
            counts = sorted({lo, lo + 1, hi - 1, hi} | set(rng.sample(range(lo, hi + 1), 2)))
            counts = counts[: self.budget.max_counts]
        for n in counts:
            if time.process_time() > self.stop_at:
                self.games.append("capped")
                break
            self.games.append(self.one_game(game, n, explicit))
        for outcome in SUMMARY_ORDER:
            if outcome in self.games:
                return {"outcome": outcome}
        return {"outcome": "finished"}

    def one_game(self, game, n, explicit) -> str:
        self.at("new_state")
        state = None
        try:
            state = game.new_state(seed=self.rng.getrandbits(32), num_players=n)
            outcome = self.play(state, n)
        except RuleError as err:
            self.check_rule_error(err)
            outcome = "rule_error"
        except ParamError as err:  # a parameter whose default depends on the player count
            self.check_message(str(err), "a ParamError")
            outcome = "param_error"
        except InvariantBroken as err:
            self.check_message(str(err), "InvariantBroken")
            outcome = "invariant"
        if state is not None:
            self.the_end(state, n)
        return outcome

    def play(self, state, n) -> str:
        rng, budget = self.rng, self.budget
        steps = samples = 0
        while True:
            if time.process_time() > self.stop_at:
                return "capped"
            self.at("current_player")
            cp = state.current_player
            if state.is_terminal:
                return "finished"
            if state.is_chance_node:
                self.at("chance")
                outs = state.chance_outcomes()
                if not outs or abs(sum(p for _, p in outs) - 1) > 1e-6:
                    raise Defect("bad_result", f"chance outcomes {outs[:5]!r}")
                state.apply(outs[rng.randrange(len(outs))][0])
                continue
            if not (isinstance(cp, int) and 0 <= cp < n):
                raise Defect("bad_seat", f"seat {cp!r} to move in a game of {n} players")
            self.check_layout(state, n)
            if steps >= budget.steps:
                return "capped"
            self.at("legal_actions")
            legal = state.legal_actions()
            if not legal:
                return "stuck"
            self.at("action_text")
            for a in legal:
                if not isinstance(state.action_text(a), str):
                    raise Defect("bad_result", "action_text is not a string")
            self.observe(state, n)
            if samples < budget.samples and rng.random() < 0.1:
                samples += 1
                self.sample(state, n, legal)
            self.at("apply")
            state.apply(legal[rng.randrange(len(legal))])
            steps += 1

    def check_layout(self, state, n) -> None:
        """Every card in play lies in one place, where the engine thinks, and no card in a seat not at the table."""
        self.at("layout")
        m, Z, seen = state.m, state.Z, {}
        for z in m.zones:
            for p, inst in enumerate(z.instances(m.stride)):
                rows = Z[inst] if inst in m.stack_instances else [Z[inst]]
                if not all(isinstance(r, list) and all(type(c) is int for c in r) for r in rows):
                    what = "a row of stacks" if inst in m.stack_instances else "a pile of cards"
                    raise Defect("inconsistent", f"the layout is corrupt: zone {z.name} of seat {p + 1} holds "
                                 f"{str(Z[inst])[:80]}, which is not {what}")
                cards = [c for r in rows for c in r]
                if cards and p >= (n if z.per_player else 1):
                    raise Defect("bad_seat", f"zone {z.name} holds cards for seat {p + 1} in a game of {n} players")
                for c in cards:
                    if c in seen or state.loc[c] != inst:
                        raise Defect("inconsistent", f"card {m.card_names[c]} lies in two places, or not where "
                                     "the engine thinks")
                    seen[c] = inst
        if len(seen) != len(state.inplay):
            raise Defect("inconsistent", f"{len(state.inplay) - len(seen)} cards in play lie nowhere")

    def observe(self, state, n) -> None:
        for p in range(n):
            self.at("observation")
            obs = state.observation(p)
            self.at("observation_json")
            json.dumps(obs)
            self.at("observation_text")
            if not isinstance(state.observation_text(p), str):
                raise Defect("bad_result", "observation_text is not a string")

    def sample(self, state, n, legal) -> None:
        """A clone agrees and stays apart; a resampled state keeps p's view and plays on."""
        rng = self.rng
        p = rng.randrange(n)
        self.at("clone")
        seen = state.observation(p)
        twin = state.clone()
        if twin.observation(p) != seen or twin.legal_actions() != legal or twin.current_player != state.current_player:
            raise Defect("inconsistent", "a clone differs from its state")
        try:
            twin.apply(legal[rng.randrange(len(legal))])
        except (RuleError, InvariantBroken):
            pass
        if state.observation(p) != seen or state.legal_actions() != legal:
            raise Defect("inconsistent", "playing a clone changed its state")
        self.at("resample")
        other = state.resample(p, rng.getrandbits(32))
        if other.observation(p) != seen:
            raise Defect("inconsistent", f"a state resampled for player {p} shows that player something else")
        if other.current_player != state.current_player:
            raise Defect("inconsistent", "a resampled state has another seat to move")
        if state.current_player == p:
            if [other.action_text(a) for a in other.legal_actions()] != [state.action_text(a) for a in legal]:
                raise Defect("inconsistent", "a resampled state gives the player to move other actions")
        self.at("resample_play")
        try:
            for _ in range(5):
                if other.is_terminal or other.is_chance_node:
                    break
                moves = other.legal_actions()
                if not moves:
                    break
                other.apply(moves[rng.randrange(len(moves))])
        except RuleError as err:
            self.check_rule_error(err)
        except InvariantBroken:
            pass

    def the_end(self, state, n) -> None:
        """returns, scores, winners, the record and the last observations; a RuleError is allowed in each."""
        for phase, f in (("returns", self.end_returns), ("scores", self.end_scores), ("winners", self.end_winners),
                         ("record", self.end_record), ("observation", self.observe)):
            self.at(phase)
            try:
                f(state, n)
            except RuleError as err:
                self.check_rule_error(err)

    def end_returns(self, state, n):
        if not _shaped(r := state.returns(), n, lambda x: isinstance(x, float)):
            raise Defect("bad_result", f"returns() = {r!r:.200} for {n} players")

    def end_scores(self, state, n):
        if not _shaped(s := state.scores(), n, lambda x: isinstance(x, int)):
            raise Defect("bad_result", f"scores() = {s!r:.200} for {n} players")

    def end_winners(self, state, n):
        w = state.winners()
        if not all(isinstance(p, int) and 0 <= p < n for p in w):
            raise Defect("bad_result", f"winners() = {w!r:.200} for {n} players")

    def end_record(self, state, n):
        json.dumps(game_record(state))
        record_lines(state)


def _shaped(values, n, ok) -> bool:
    return isinstance(values, list) and len(values) == n and all(map(ok, values))


def run_mutant(text: str, seed: int, budget: Budget = BUDGET, tmpdir: str | None = None, phase_cell=None) -> dict:
    """Take one mutant through the pipeline (in this process, under an alarm after
    ``budget.hard_s`` of CPU time).  Returns {"outcome": ...}, or for a defect {"outcome":
    "defect", "kind", "phase", "type", "message", "where", "traceback"}."""
    run = _Run(text, seed, budget, phase_cell)
    if own_dir := tmpdir is None:
        tmpdir = tempfile.mkdtemp(prefix="pipeline-mutant-")
    armed = [True]

    def on_alarm(signum, frame):
        if armed[0]:
            raise _Hang(f"a call took more than {budget.hard_s} s of CPU time")

    old = signal.signal(signal.SIGPROF, on_alarm)
    # and again every 0.2 s: an exception that Python only prints (in a __del__) must not end the limit
    signal.setitimer(signal.ITIMER_PROF, budget.hard_s, 0.2)
    start = time.monotonic()
    try:
        result = run.go(tmpdir)
    except BaseException as err:  # noqa: B902 - every escape is classified
        armed[0] = False
        if isinstance(err, KeyboardInterrupt):
            raise
        result = _defect(run, err)
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
        if own_dir:
            os.rmdir(tmpdir)
    result["games"] = run.games
    result["seconds"] = round(time.monotonic() - start, 3)
    return result


def _defect(run, err) -> dict:
    global _BALLAST
    if isinstance(err, MemoryError):  # room to write the report in
        _BALLAST = None
        traceback.clear_frames(err.__traceback__)
    origin = err
    if isinstance(err, Defect):
        kind = err.kind
        while origin.__context__ is not None:  # the RuleError, and the error it was made of ("from None")
            origin = origin.__context__
    elif isinstance(err, _Hang):
        kind = "hang"
    elif isinstance(err, MemoryError):
        kind = "memory"
    elif isinstance(err, RecursionError):
        kind = "recursion"
    else:
        kind = "exception"
    return {"outcome": "defect", "kind": kind, "phase": run.phase, "type": type(err).__name__,
            "message": run.clean(str(err))[:2000], "where": _engine_frame(origin),
            "traceback": run.clean(tb_tail(origin))}


_BALLAST = None  # a child's reserve of memory (pipeline_workers), freed on a MemoryError


def reserve_memory(size: int = 32 << 20) -> None:
    global _BALLAST
    _BALLAST = bytearray(size)
