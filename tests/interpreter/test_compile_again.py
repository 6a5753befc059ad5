"""Compiling the same checked rules again (the fuzzer does it for each
parameter set it draws) reuses what it worked out of the rules alone, and
plays as a compile from a fresh check does; and the helpers that
write a step's code line by line keep each line's meaning."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulelang
from rulelang import ast as A
from interpreter.compiler import compile_game
from interpreter.compiler.flowgen import local_slots
from interpreter.compiler.sites import returns_left
from interpreter.game import Game
from test_flowgen import playout

ROOT = Path(__file__).resolve().parents[2]
GAMES = sorted((ROOT / "games").glob("*.rules"))


def _played(checked, path, players, seed, params=None):
    """A random game of the rules compiled (again) from ``checked``: every
    legal-action list, the final position, the scores, what each seat sees."""
    machine = compile_game(checked, params if params is not None else {}, False, coverage=True,
                           check_invariants=True)
    return playout(Game(machine, checked, str(path), False, params or {}), seed, players)


def _sizes(derived) -> dict:
    return {key: len(v) if isinstance(v, dict) else v for key, v in derived.items()}


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_a_second_compile_plays_as_a_fresh_one(path):
    """The facts kept with the checked rules (``derived``) after one compile
    serve the next compile, with other parameters too, whose game offers
    the same legal actions at every step as a compile of rules checked
    afresh; and it works out nothing new."""
    warm = rulelang.load_checked(path)
    players = warm.players[0] if warm.players[0] > 1 else warm.players[0] + 1
    _played(warm, path, players, 0)  # a first compile fills warm.derived
    assert warm.derived.get("plan_facts") and warm.derived.get("zone_reads") and warm.derived.get("slots_read")
    kept = _sizes(warm.derived)
    assert _played(warm, path, players, 3) == _played(rulelang.load_checked(path), path, players, 3)
    # another parameter set: the facts are of the rules alone
    name, param = next((name, p) for name, p in warm.params.items() if p.low is not None)
    other = {name: 1 if isinstance(param.default, A.IntLit) and param.default.value != 1 else 2}
    assert _played(warm, path, players, 5, other) == _played(rulelang.load_checked(path), path, players, 5, other)
    assert _sizes(warm.derived) == kept


def test_a_step_reads_its_slots_through_its_local():
    assert local_slots("        x = st.L[3] + st.L[14]") == "        x = L[3] + L[14]"
    assert local_slots("        y = st.V[2]") == "        y = st.V[2]"
    assert local_slots("        _st.L[2] = 1") == "        _st.L[2] = 1"  # (another name ending in st)
    # a comprehension keeps st.L: L in it would make L a cell of the whole function
    line = "        z = [st.L[3] + c for c in st.Z[2]]"
    assert local_slots(line) == line


def test_returns_become_the_lines_that_leave():
    body = ["    x = 1", "    if x:", "        return 5", "    for c in y:", "        z = c", "    return"]
    assert returns_left(body, lambda v: [f"pc = {v or 0}", "break"]) == [
        "    x = 1", "    if x:", "        pc = 5", "        break", "    for c in y:", "        z = c",
        "    pc = 0", "    break"]
    # a return inside a loop cannot leave with a break: the lines are not written in
    assert returns_left(["    while True:", "        if a:", "            return 1"], lambda v: ["break"]) is None
    # a loop's body ends where the indentation comes back: a return after it is outside
    assert returns_left(["    for c in y:", "        q = c", "    return 2"], lambda v: [f"r = {v}"]) == \
        ["    for c in y:", "        q = c", "    r = 2"]


def test_a_fold_is_compiled_once_and_evaluated_in_each_namespace():
    # the operations on literals a compile folds come back with each compile: their code
    # is kept by source, and each namespace reads its own names
    from interpreter.compiler import source
    a, b = source.Namespace(), source.Namespace()
    x, y = a.ref(7), b.ref(9)
    assert x == y  # (each namespace numbers its own names alike)
    src = f"{x} * 3 + 1"
    assert a.value(src) == 22
    code = source._CODE[("eval", src)]
    assert b.value(src) == 28
    assert source._CODE[("eval", src)] is code
