"""The marks of generated lines (compiler.source.marked): where a failing
line of a generated function leaves the state, and which statement its
error names, without a ``try`` block per statement.

The behaviour itself (a failing statement names its own line, the state
stops at the pc the VM would stop at) is tested against the VM in
test_flowgen.py and test_inline_steps.py; here, the reading of the marks
and the shape that makes it pay."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from interpreter import load
from interpreter.compiler.failures import failed
from interpreter.compiler.source import Namespace, marked
from interpreter.runtime import RuleError

ROOT = Path(__file__).resolve().parents[2]

SRC = """def f(st):
    @pc 1
    try:
        a = 1
        if a:
            @pc 2
            b = 2
        c = 3
        @span _s1
        d = 4
        @span _s2
        e = 5
        @end
        g = 6
        @end
        h = 7
    except BaseException as err:
        raise
"""


def test_a_line_has_the_pc_of_the_last_mark_in_its_block_and_the_innermost_span():
    where = {}
    spans = {"_s1": "first", "_s2": "second"}
    out = marked(SRC, spans, where).split("\n")
    assert not any("@" in line for line in out)
    at = {line.strip(): where.get(n) for n, line in enumerate(out, 1)}
    assert at["a = 1"] == at["if a:"] == (1, None)
    assert at["b = 2"] == (2, None)
    assert at["c = 3"] == (1, None)  # the branch's mark ended with it
    assert at["d = 4"] == at["g = 6"] == (1, "first")
    assert at["e = 5"] == (1, "second")
    assert at["h = 7"] == (1, None)
    assert at["def f(st):"] is None


class _St:
    pc = 0


def _fail_at(line_of):
    """Run a function defined from marked source that fails at the line
    reading ``line_of``; return (state, the error it raised)."""
    ns = Namespace()
    ns.ns["_s1"] = "the span"
    where = {}
    body = ["def f(st, which):", "    @pc 7", "    try:", "        x = 1", "        @span _s1",
            "        if which == 1:", "            y = [][0]", "        @end",
            "        if which == 2:", "            @pc 9", "            z = (1,)[3]",
            "    except BaseException as err:", "        _failed(st, err, _wf)", "        raise"]
    ns.ns["_wf"] = where
    f = ns.define("\n".join(body) + "\n", "f", where)
    st = _St()
    with pytest.raises(Exception) as caught:
        f(st, line_of)
    return st, caught.value


def test_an_error_in_a_statement_names_it_and_the_state_stands_at_its_pc():
    st, err = _fail_at(1)
    assert isinstance(err, RuleError) and err.span == "the span"
    assert st.pc == 7


def test_an_error_outside_any_statement_is_left_as_it_is_the_state_at_its_pc():
    st, err = _fail_at(2)
    assert isinstance(err, IndexError)  # (placed by the step around it, as before)
    assert st.pc == 9


def test_failed_reads_the_line_of_the_function_that_caught_the_error():
    def inner():
        return [][1]

    st = _St()
    try:
        inner()
    except IndexError as err:
        line = err.__traceback__.tb_lineno
        with pytest.raises(RuleError) as caught:
            failed(st, err, {line: (3, "here")})
    assert caught.value.span == "here" and st.pc == 3


@pytest.mark.parametrize("game,players", [("fox_in_the_henhouse", 4), ("emu_ranchers", 2), ("desplumados", 4)])
def test_a_step_has_no_try_block_per_statement(game, players):
    """The code a step runs stays together: one handler for the whole step,
    not a jump over a handler after each statement (a third fewer misses of
    the processor's data cache on Fox, by cachegrind)."""
    g = load(ROOT / "games" / f"{game}.rules", knowledge=False)
    rnd = random.Random(1)
    for seed in range(5):
        state = g.new_state(seed, players)
        while not state.is_terminal:
            state.apply_at(rnd.randrange(len(state.legal_actions())))
    source = "\n".join(g.machine_for(players).generated_sources)
    steps = [part for part in source.split("\ndef ") if re.match(r"_(step|flow|b)\d+\(", part)]
    assert len(steps) >= 5
    for part in steps:
        assert "except _Errors" not in part, part
        assert len(re.findall(r"\n\s+try:", part)) <= 3, part  # (the step's, its flow's, a let's)
