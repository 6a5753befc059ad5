"""Fuzzing the front end (and, behind it, the compiler and a short playout).

Inputs are the real games (``games/*.rules``, read at test time) damaged in
many ways -- lines deleted, duplicated, swapped or cut; characters inserted,
deleted or replaced; tokens swapped for other tokens of the files; odd
Unicode (NUL, BOM, RTL marks, combining marks, emoji, lone surrogates, line
separators), tabs against spaces, deep nesting, huge numbers, very long lines
and names -- plus random text and random bytes, and small generated games
with random (mostly well-typed) statements and expressions.  For each one:

- ``parse`` answers a module or a non-empty list of error diagnostics, and
  ``check`` answers a checked game and a list of diagnostics: never a Python
  exception, never a hang (each input gets a hard alarm and must finish the
  front end within ``FRONT_END_BUDGET_S``);
- every diagnostic has a known code, a line within the text (lines as the
  parser counts them: ``\\n`` ends a line, nothing else does), a column
  within that line (or just past its end), an end not before its start, and
  renders with the source: the right source line and a caret under the column;
- a file that checks without errors compiles (or raises one of the documented
  ``RuleError``/``ParamError``) and plays a short random game with a step
  cap and a time cap, raising nothing but ``RuleError``.

CI runs a fixed, derandomized number of examples.  To hunt for bugs, run with
more random examples, e.g.::

    RULELANG_FUZZ_EXAMPLES=5000 RULELANG_FUZZ_RANDOM=1 \\
        python3 -m pytest tests/rulelang/test_frontend_fuzz.py -x

Every input that once found a bug is kept in ``regressions/`` (one file per
bug, named after it, stored as UTF-8 with ``surrogatepass`` so that lone
surrogates survive) and runs through the same assertions.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from interpreter.compiler import ParamError, compile_game
from interpreter.runtime import RuleError
from rulelang import check, check_file, parse
from rulelang.checker import CheckedGame
from rulelang.diagnostics import CODES, Diagnostic, RulesError
from rulelang.parser import parse_expression

sys.path.append(str(Path(__file__).resolve().parents[1]))  # tests/: the shared mutation operators
from mutation_ops import (GENTLE, INTERESTING_CHARS, MAX_TEXT, MUTATORS, NEST_DEPTHS,  # noqa: E402
                          NESTERS, game_texts, token_pool)

REGRESSIONS = Path(__file__).resolve().with_name("regressions")
FILE = "fuzz.rules"

FRONT_END_BUDGET_S = 2.0  # parse + check, per input
COMPILE_BUDGET_S = 2.0
PLAYOUT_STEPS = 60
PLAYOUT_BUDGET_S = 1.0  # a playout that takes longer is stopped, not failed
HARD_LIMIT_S = 20.0  # an alarm turns a hang into a failure instead of a stuck CI job

EXAMPLES = int(os.environ.get("RULELANG_FUZZ_EXAMPLES", "0")) or None
RANDOM_RUN = os.environ.get("RULELANG_FUZZ_RANDOM", "") not in ("", "0")


def fuzz_settings(ci_examples: int):
    """Bounded and derandomized for CI; ``RULELANG_FUZZ_EXAMPLES`` and
    ``RULELANG_FUZZ_RANDOM=1`` turn it into a bug hunt."""
    return settings(
        max_examples=EXAMPLES or ci_examples,
        deadline=None,
        database=None,
        derandomize=not RANDOM_RUN,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


# ------------------------------------------------------------------ time limits
class _Hang(BaseException):
    """Raised by the alarm.  A BaseException, so that no ``except Exception``
    in the code under test swallows it."""


@contextlib.contextmanager
def hard_limit(seconds: float, exc=_Hang):
    """Raise ``exc`` in the body after ``seconds`` (where SIGALRM exists)."""
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return

    armed = [True]

    def on_alarm(signum, frame):
        if armed[0]:
            raise exc(f"took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    # and again every 0.1 s: an exception raised where Python only prints it
    # ("Exception ignored in ...": a gc callback, a __del__) must not end the limit
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.1)
    try:
        yield
    except _Hang as err:  # out of the code under test: a plain failure, which Hypothesis reports and shrinks
        armed[0] = False
        raise AssertionError(f"hang: {err}") from None
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class _PlayoutTimeUp(BaseException):
    pass


# ------------------------------------------------------------------ the property
def source_lines(text: str) -> list[str]:
    """The lines as the parser counts them: only ``\\n`` ends a line (not
    ``\\r``, form feed, ``\\x85``, ``\\u2028``, ... as ``str.splitlines`` has it)."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def assert_diagnostic_ok(d: Diagnostic, text: str) -> None:
    assert isinstance(d, Diagnostic), d
    assert d.code in CODES, d
    assert d.severity in ("error", "warning"), d
    assert isinstance(d.message, str) and d.message, d
    lines = source_lines(text)
    s = d.span
    assert s.file == FILE, d
    assert 1 <= s.line <= len(lines), (d, len(lines))
    line = lines[s.line - 1]
    assert 1 <= s.column <= len(line) + 1, (d, len(line))
    assert (s.end_line, s.end_column) >= (s.line, s.column), d
    # renders, without the source and with it: the right line, a caret under the column
    bare = d.render().split("\n")
    assert bare[0].startswith(f"{FILE}:{s.line}:{s.column}: {d.severity}: "), bare
    assert bare[0].endswith(f"[{d.code}]"), bare
    out = d.render(text).split("\n")
    assert out[0] == bare[0]
    shown = (line[:-1] if line.endswith("\r") else line).expandtabs(1)  # the "\r" of a "\r\n"
    assert out[1] == "    " + shown, (d, out[1], shown)
    caret = out[2]
    assert caret.startswith("    ") and caret[4:].lstrip(" ").startswith("^"), out
    assert caret[4:].index("^") == s.column - 1, out


def run_front_end(text: str):
    """Parse and check ``text`` under the time budget; assert the outcome is a
    module and a checked game, or diagnostics.  Returns (game|None, diags)."""
    start = time.perf_counter()
    with hard_limit(HARD_LIMIT_S):
        module, diags = parse(text, FILE)
        if module is None:
            assert diags, "no module and no diagnostic"
            assert all(d.severity == "error" for d in diags), diags
            game = None
        else:
            assert diags == [], diags
            game, diags = check(module)
            assert isinstance(game, CheckedGame)
    elapsed = time.perf_counter() - start
    assert elapsed < FRONT_END_BUDGET_S, f"the front end took {elapsed:.2f} s on {len(text)} characters"
    assert isinstance(diags, list)
    for d in diags:
        assert_diagnostic_ok(d, text)
    errors = [d for d in diags if d.severity == "error"]
    if errors:
        RulesError(errors, text).render()
        return None, diags
    return game, diags


# Machine.scores() and winners() turn a failed evaluation of the outcome (max
# of nothing, an index past the end, ...) into a RuleError, as the flow does;
# the regression files named known_bug_score_* keep the inputs that showed it.
SCORE_ERRORS_NOT_YET_RULE_ERRORS = ()


def run_compiled(game: CheckedGame, seed: int = 0) -> str:
    """Compile a checked game and play one short random game; returns how it went."""
    start = time.perf_counter()
    try:
        with hard_limit(HARD_LIMIT_S):
            machine = compile_game(game)
    except (RuleError, ParamError) as err:  # documented load-time errors
        str(err)
        return "compile: " + type(err).__name__
    elapsed = time.perf_counter() - start
    assert elapsed < COMPILE_BUDGET_S, f"compiling took {elapsed:.2f} s"
    rng = random.Random(seed)
    outcome = "playout: step cap"
    try:
        with hard_limit(PLAYOUT_BUDGET_S, _PlayoutTimeUp):
            state = machine.new_state(seed)
            for _ in range(PLAYOUT_STEPS):
                if state.is_terminal:
                    outcome = "playout: ended"
                    break
                legal = state.legal_actions()
                if not legal:
                    outcome = "playout: no legal action"
                    break
                action = legal[rng.randrange(len(legal))]
                state.action_text(action)
                state.apply(action)
            try:
                state.returns()
                if state.is_terminal:
                    state.winners()
            except SCORE_ERRORS_NOT_YET_RULE_ERRORS as err:
                outcome = f"KNOWN BUG: the score raised {type(err).__name__}"
    except RuleError as err:  # a rule that cannot be carried out: reported, not a crash
        str(err)
        outcome = "playout: RuleError"
    except _PlayoutTimeUp:
        outcome = "playout: time cap"
    return outcome


def run_all(text: str, seed: int = 0) -> str:
    game, _ = run_front_end(text)
    if game is None:
        return "diagnostics"
    return run_compiled(game, seed)


# ------------------------------------------------------------------ material from the real files
# The games, the token pools and the mutation operators live in tests/mutation_ops.py
# (shared with the pipeline mutation test and bench/pipeline_mutants.py); here
# Hypothesis makes the operators' choices, so that it can shrink them.
# any code point, lone surrogates included
ANY_CHAR = st.characters(exclude_categories=())
CHAR = st.one_of(st.sampled_from(INTERESTING_CHARS), ANY_CHAR)  # one character or a short sequence
JUNK_TEXT = st.lists(CHAR, max_size=12).map("".join)


class HypothesisChooser:
    """The chooser of tests/mutation_ops.py over Hypothesis's ``draw``."""

    def __init__(self, draw):
        self.draw = draw

    def integer(self, lo, hi, label=""):
        return self.draw(st.integers(lo, hi), label=label)

    def choice(self, seq, label=""):
        return self.draw(st.sampled_from(seq), label=label)

    def char(self, label=""):
        return self.draw(CHAR, label=label)

    def junk(self, label=""):
        return self.draw(JUNK_TEXT, label=label)

    def binary(self, max_size, label=""):
        return self.draw(st.binary(max_size=max_size), label=label)


@st.composite
def mutated_game(draw, mutators=tuple(MUTATORS), max_mutations=5):
    text = draw(st.sampled_from(game_texts()), label="game")
    for name in draw(st.lists(st.sampled_from(sorted(mutators)), min_size=1, max_size=max_mutations),
                     label="mutations"):
        text = MUTATORS[name](HypothesisChooser(draw), text)[:MAX_TEXT]
    return text


@st.composite
def token_soup(draw):
    """Tokens of the files in a random order, with random separators."""
    pieces = draw(st.lists(st.tuples(st.sampled_from(token_pool()),
                                     st.sampled_from([" ", " ", "", "\n", "\n  ", "\n    ", ":\n  ", "\t"])),
                           max_size=60))
    return "".join(a + b for a, b in pieces)


# ------------------------------------------------------------------ generated games
# A small game with declarations of every kind, and random statements and
# expressions (well-typed or not) in its setup, play, actions and outcome:
# many of these check, so the compiler and the runtime see odd but legal rules.
SKELETON = """\
game "generated"
players {players}
param n: int in 0..5 = 2
option flag: bool = true
enum Suit: Red, Blue, Green
card attributes: rank: int, suit: Suit, marks: set of Suit, wild: bool
cards:
  "A" 1 Red {{Red}} false
  "B" 2 Blue {{Blue, Green}} true *2
  "C" -3 Green {{}} false
  "D" {rank} Red {{Red, Blue, Green}} true
{deck}zone deck: pile, hidden
zone hand: pile, per player, owner
zone rows: stacks, per player, public
zone pool: pile, public, capacity 5
var v: int = {var_default}
var b: bool = false
var s: set of Suit = {{}}
var pl: player = 0
var pi: pile = pool
{extra_decls}
player var score: int = 0
card var val: int = card.rank
function f(x: int) = {function_body}
function g(c: card):
  let r = c.rank
  return {block_return}
action act(c in hand(me)) "play {{c}}":
{action_body}
action take(i in 1..3, q in players) "take {{i}} from {{q}}":
  require i <= size(hand(q))
  move hand(q)[i - 1] to pool
action stack_it(c in hand(me)):
  move c to new stack in rows(me)
action nop:
  pass
setup:
{setup_body}
play:
  move all_cards() to deck
  shuffle deck
  for p in players:
    deal min(2, size(deck)) from deck to hand(p)
  repeat {rounds} times as round:
    for p in players:
      turn p:
        choose act, take, stack_it, nop{extra_choices}
{play_body}
outcome(p):
  score score(p) + {score}
{tiebreaks}"""

INT_LITERALS = ["0", "1", "2", "-1", "7", "1000000000000", "-1000000000000", "1000000000001"]
# Expressions by type: "{int}" stands for an expression of that type.  Now and then
# an expression of a random type stands in its place, for the checker to catch.
TYPED = {
    "int": ["0", "1", "2", "-1", "7", "1000000000000", "n", "v", "score(me)", "player_count", "{int} + {int}",
            "{int} - {int}", "{int} * {int}", "{int} / {int}", "{int} % {int}", "-{int}", "({int})", "{card}.rank",
            "{card}.val", "size({coll})", "sum({ints})", "sum(x.rank for x in {pile})",
            "count(x.wild for x in {pile})", "max(x.val for x in {pile})", "min({ints})", "min({int}, {int})",
            "abs({int})", "sign({int})", "f({int})", "g({card})", "least_sum_at_least({ints}, {int})",
            "(if {bool} then {int} else {int})", "{ints}[{int}]", "score({player})"],
    "bool": ["true", "false", "b", "flag", "not {bool}", "{bool} and {bool}", "{bool} or {bool}", "{int} < {int}",
             "{int} == {int}", "{card} in {pile}", "{card} not in {cards}", "{suit} in {set}", "{set} == {set}",
             "empty({coll})", "any(x.wild for x in {pile})", "all(x.rank > {int} for x in {cards})", "{card}.wild",
             "{player} == {player}", "{pile} < {pile}", "{card} == {card}", "(if {bool} then {bool} else {bool})"],
    "player": ["me", "pl", "0", "next({player})", "previous({player}, {int})", "(if {bool} then {player} else {player})"],
    "card": ['"A"', '"B"', '"D"', "top({pile})", "bottom({pile})", "{pile}[{int}]", "{cards}[{int}]",
             "top({stack})", "{stack}[0]"],
    "pile": ["deck", "pool", "hand(me)", "pi", "hand({player})", "(if {bool} then {pile} else {pile})"],
    "stacks": ["rows(me)", "rows({player})"],
    "stack": ["rows(me)[0]", "{stacks}[{int}]", "stack_of({card})"],
    "set": ["s", "{Red, Blue}", "{}", "Suit", "{card}.marks", "{set} | {set}", "{set} & {set}",
            "intersection(x.marks for x in {pile})", "union(x.marks for x in {cards})"],
    "suit": ["Red", "Green", "{card}.suit"],
    "ints": ["[1, 2]", "[x.rank for x in {pile}]", "[{int}, {int}]", "{ints} + {ints}", "[x.val for x in {cards}]"],
    "cards": ["all_cards()", "[x for x in {pile} if {bool}]", "[{card}]", "{cards} + {cards}"],
    "coll": ["{pile}", "{ints}", "{cards}", "{stacks}", "players", "{stack}"],
}
EXPR_HOLE = re.compile(r"\{(int|bool|player|card|pile|stacks|stack|set|suit|ints|cards|coll)\}")


@st.composite
def gen_expr(draw, typ="int", depth=3, extra=(), exclude=()):
    """An expression of type ``typ`` (usually), at most ``depth`` deep; ``extra``: (type, name)
    locals; ``exclude``: forms containing these strings are left out (e.g. calls in a function)."""
    if draw(st.integers(0, 99), label="mischief") == 0:
        typ = draw(st.sampled_from(sorted(TYPED)), label="wrong type")
    forms = [f for f in TYPED[typ] if not any(x in f for x in exclude)] + [n for t, n in extra if t == typ]
    if depth <= 0:
        forms = [f for f in forms if not EXPR_HOLE.search(f)] or forms[:1]
    form = draw(st.sampled_from(forms), label=typ)
    return EXPR_HOLE.sub(lambda m: draw(gen_expr(m.group(1), depth - 1, extra, exclude)), form)


# statements: "{int}" etc. are expressions; "@" is an indented block
STATEMENTS = ["set v = {int}", "set b = {bool}", "set s = {set}", "set pl = {player}", "set pi = {pile}",
              "set score({player}) += {int}", "set score(me) -= {int}", "set {card}.val = {int}", "let z = {int}",
              "move {card} to {pile}", "move {pile} to {pile}", "move {cards} to bottom of {pile}",
              "move {card} to new stack in {stacks}", "move {stack} to {pile}", "move {card} to {stack}",
              "shuffle {pile}", "swap {card} with {card}", "reveal {card} to {player}", "reveal {pile} to players",
              "deal {int} from {pile} to {pile}", "set pl = random players", "set v = random {ints}",
              "if {bool}:\n@\nelse:\n@", "if {bool}:\n@\nelif {bool}:\n@", "for x in {cards}:\n  set x.val = {int}",
              "for p in players from {player}:\n  set score(p) += {int}", "repeat {int} times as k:\n@", "end game",
              "pass"]
ACTION_ONLY = ["choose nop", "choose take, nop"]
FLOW_ONLY = ["while {bool}:\n  set v += 1", "turn {player}:\n  choose nop, act", "turn {player}:\n@"]


@st.composite
def gen_block(draw, indent, in_action=False, depth=2):
    lines = []
    extra = (("card", "c"),) if in_action else ()
    if in_action and depth == 2:  # a preamble
        for _ in range(draw(st.integers(0, 2), label="requires")):
            lines.append(indent + "require " + draw(gen_expr("bool", 2, extra)))
    forms = STATEMENTS + (ACTION_ONLY if in_action else FLOW_ONLY)
    for _ in range(draw(st.integers(1, 3), label="statements")):
        form = draw(st.sampled_from(forms), label="statement")
        if depth <= 0:
            form = form.replace("@", "  pass")
        stmt = EXPR_HOLE.sub(lambda m: draw(gen_expr(m.group(1), 2, extra)), form)
        for line in stmt.split("\n"):
            if line == "@":
                lines.append(draw(gen_block(indent + "  ", in_action, depth - 1)))
            else:
                lines.append(indent + line)
    return "\n".join(lines)


CONST_INT = ["0", "1", "-2", "n", "player_count", "min(n, 3)", "max(1, player_count - 1)", "abs(-n)", "sign(n)",
             "(if flag then 2 else n)", "n * 2 + 1", "1000000000000", "n / 0", "n % (n - 2)"]
CONST_BOOL = ["true", "false", "flag", "not flag", "n > 2", "player_count == 2", "Red in {Red}"]
# optional declarations: (text, the action it declares or None)
EXTRA_DECLS = [
    ("param m: int in 0..{c_int} = {c_int}", None),
    ("param m: int in {c_int}..10 = {c_int}", None),
    ("option o: bool = {c_bool}", None),
    ("param e: Suit = Blue", None),
    ("invariant {bool} \"an invariant\"", None),
    ("invariant size(pool) <= {int}", None),
    ("card var tag: bool = card.wild", None),
    ("card var mk: set of Suit = card.marks", None),
    ("card var own: player = {c_int}", None),
    ("var li: list of int = [1, 2, {c_int}]", None),
    ("player var flags: set of Suit = {{Red}}", None),
    ("zone cap: pile, public, capacity n", None),
    ("zone spread: stacks, public", None),
    ("zone secret: pile, per player, hidden", None),
    ("action pick(i in 0..{int}, j in {int}..{int}) \"pick {{i}} {{j}}\":\n  require {bool}\n  set v = i + j", "pick"),
    ("action grab(x in pool, q in players) \"grab {{x}} for {{q}}\":\n  require {bool}\n  move x to hand(q)", "grab"),
    ("action pair(a in hand(me), b in hand(me)):\n  require a != b\n  swap a with b", "pair"),
    ("action nested(k in [1, 2, {int}]):\n  if k > 1:\n    choose nop\n  set v = k", "nested"),
    ("function h(a: int, c: card, z: pile):\n  let t = {int}\n  let u = t + a\n  return u + size(z)", None),
    ("function empty_args() = {int}", None),
]


@st.composite
def generated_game(draw):
    extras = draw(st.lists(st.sampled_from(EXTRA_DECLS), max_size=4, unique=True), label="declarations")
    holes = {"c_int": st.sampled_from(CONST_INT), "c_bool": st.sampled_from(CONST_BOOL)}

    def fill(text):
        return re.sub(r"\{(c_int|c_bool|int|bool)\}",
                      lambda m: draw(holes[m.group(1)]) if m.group(1) in holes else draw(gen_expr(m.group(1), 2)),
                      text).replace("{{", "{").replace("}}", "}")

    return SKELETON.format(
        extra_decls="\n".join(fill(d) for d, _ in extras),
        extra_choices="".join(", " + a for _, a in extras if a),
        tiebreaks="".join("  then " + draw(gen_expr("int", 2)) + "\n"
                          for _ in range(draw(st.integers(0, 2), label="tie-breaks"))),
        players=draw(st.sampled_from(["2", "1", "2..4", "3..3", "32", "1..32"]), label="players"),
        rank=draw(st.sampled_from(INT_LITERALS[:-1] * 3 + INT_LITERALS[-1:]), label="rank"),
        deck=draw(st.sampled_from(["", "deck:\n  cards where card.rank > {}\n".format(
            draw(st.sampled_from(["n", "1", "player_count", "-n", "me"]))), 'deck:\n  "A"\n  "B" if {}\n'.format(
            draw(st.sampled_from(["flag", "true", "n > 3", "player_count == 2", "1"])))]), label="deck"),
        var_default=draw(st.sampled_from(INT_LITERALS[:-1] * 2 + ["n", "player_count", "abs(n - 3)", "v", "f(1)"])),
        function_body=draw(gen_expr("int", 3, (("int", "x"),), exclude=("f(", "g("))),
        block_return=draw(gen_expr("int", 3, (("int", "r"), ("card", "c")), exclude=("g(",))),
        action_body=draw(gen_block("  ", in_action=True)),
        setup_body=draw(gen_block("  ")),
        rounds=draw(st.sampled_from(["1", "2", "n", "1000000000000"]), label="rounds"),
        play_body=draw(gen_block("  ")),
        score=draw(gen_expr("int", 3)),
    )


RANDOM_TEXT = st.one_of(
    st.lists(CHAR, max_size=200).map("".join),
    st.binary(max_size=200).map(lambda b: b.decode("utf-8", errors="surrogateescape")),
    st.sampled_from(["", "\n", "\r\n", "\ufeff", "\x00", "\t", " ", "#", "\\", "\\\n", '"', ":", "\ud800"]),
    token_soup(),
)


# ------------------------------------------------------------------ the tests
@pytest.fixture(scope="module", autouse=True)
def _warm_parser():
    parse("", FILE)  # build the LALR tables once, outside every time budget


def test_the_real_games_check_compile_and_play():
    for text in game_texts():
        game, diags = run_front_end(text)
        assert game is not None, [d.render(text) for d in diags]
        assert run_compiled(game).startswith("playout"), text[:60]


@fuzz_settings(400)
@given(text=mutated_game())
def test_mutated_games(text):
    event(run_all(text))


@fuzz_settings(300)
@given(text=mutated_game(GENTLE, max_mutations=3), seed=st.integers(0, 2**31))
def test_gently_mutated_games_compile_and_play(text, seed):
    event(run_all(text, seed))


@fuzz_settings(400)
@given(text=generated_game(), seed=st.integers(0, 2**31))
def test_generated_games(text, seed):
    event(run_all(text, seed))


@fuzz_settings(300)
@given(text=RANDOM_TEXT)
def test_random_text(text):
    event(run_all(text))


@fuzz_settings(200)
@given(text=st.one_of(RANDOM_TEXT, token_soup().map(lambda s: s.replace("\n", " ")),
                      st.tuples(st.sampled_from(sorted(NESTERS)), st.sampled_from(NEST_DEPTHS)).map(
                          lambda kn: NESTERS[kn[0]]("x", kn[1]))))
def test_parse_expression(text):
    start = time.perf_counter()
    with hard_limit(HARD_LIMIT_S):
        e, diags = parse_expression(text, FILE)
    assert time.perf_counter() - start < FRONT_END_BUDGET_S
    assert (e is None) == bool(diags)
    one_line = " ".join(text.split("\n"))  # parse_expression reads the text as one line
    for d in diags:
        assert_diagnostic_ok(d, one_line)


@fuzz_settings(60)
@given(data=st.binary(max_size=300) | mutated_game().map(lambda t: t.encode("utf-8", errors="surrogatepass")))
def test_check_file_on_raw_bytes(tmp_path_factory, data):
    """Bytes on disk: not UTF-8 (RL003), a BOM, or text; never an exception."""
    path = tmp_path_factory.mktemp("fuzz") / FILE
    path.write_bytes(data)
    with hard_limit(HARD_LIMIT_S):
        game, diags, text = check_file(path)
    for d in diags:
        assert d.span.file == str(path)
        d.render(text)
    if not [d for d in diags if d.severity == "error"]:
        assert game is not None


# ------------------------------------------------------------------ regressions
def regression_files():
    return sorted(REGRESSIONS.glob("*.rules"))


def read_regression(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="surrogatepass")


def test_there_are_regression_fixtures():
    assert regression_files(), f"no fixtures in {REGRESSIONS}"


@pytest.mark.parametrize("path", regression_files(), ids=lambda p: p.stem)
def test_regression(path):
    text = read_regression(path)
    for seed in range(4):
        run_all(text, seed)
    # and as a one-line expression
    with hard_limit(HARD_LIMIT_S):
        e, diags = parse_expression(text, FILE)
    one_line = " ".join(text.split("\n"))
    for d in diags:
        assert_diagnostic_ok(d, one_line)


KNOWN_SCORE_BUGS = [p for p in regression_files() if p.name.startswith("known_bug_score_")]


@pytest.mark.parametrize("path", KNOWN_SCORE_BUGS, ids=lambda p: p.stem)
def test_score_errors_are_rule_errors(path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "SCORE_ERRORS_NOT_YET_RULE_ERRORS", ())
    text = read_regression(path)
    for seed in range(4):
        run_all(text, seed)


def save_regression(name: str, text: str) -> Path:
    """Keep an input that found a bug (for use from a debugging session)."""
    REGRESSIONS.mkdir(exist_ok=True)
    path = REGRESSIONS / f"{name}.rules"
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    return path
