"""No rules file can crash, hang or fool the tool: the pipeline mutation test.

A fixed list of mutants (seeds of :func:`pipeline_mutation.make_mutant`:
the games and the fuzz targets damaged by the operators of
``tests/mutation_ops.py``) goes through the whole pipeline -- load, every
player count, random games, observations, clones, resamples, scores and the
record -- each in a forked child with a memory limit and a time limit
(:func:`pipeline_workers.run_isolated`), with the test suite's small budget
(``QUICK``).  Every outcome must be allowed: the file refused with
diagnostics, a documented ``RuleError`` or ``ParamError``, or a game that
ended, got stuck or was capped.  See ``tests/pipeline_mutation.py``.

Every file that once found a defect is kept in ``hermetic/`` and goes through
the same assertions with the full budget.  A defect not yet fixed in the
engine is in ``NOT_YET_FIXED`` (the case is an xfail, strict: when the engine
is fixed the test flips to XPASS, which fails, and the entry is to be
removed) and in ``KNOWN`` (the same defect met by a mutant of the fixed
list: an xfail too, not strict, rather than a failure of the whole list).

At scale, and to find new defects: ``python3 bench/pipeline_mutants.py``.
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parents[1]))  # tests/: the shared mutation machinery
import pipeline_mutation as pm  # noqa: E402
import pipeline_workers as pw  # noqa: E402
from rulelang import parse  # noqa: E402

HERMETIC = Path(__file__).resolve().with_name("hermetic")
SEEDS = range(48)  # the fixed list of mutants (the whole file must take well under a minute)
HERMETIC_BUDGET = pm.Budget(steps=200, max_counts=6, samples=3, soft_s=2.0, hard_s=3.0, kill_s=12.0)

# Defects of the engine that are not fixed yet: {hermetic file stem: the reason}.  Empty: every defect
# found so far is fixed (issue 9); a new one goes here with its case until the engine is fixed.
NOT_YET_FIXED: dict = {}

# The same defects as met by any mutant: (kinds, exception type, pattern of the message, pattern of the
# engine frame, the hermetic case).  Only for the fixed list of mutants; remove an entry with its case.
KNOWN: list = []


def report(result: dict, diff: str | None = None) -> str:
    lines = [f"{result['kind']} in phase {result['phase']}: {result['type']}: {result['message'][:500]}"]
    if result.get("where"):
        lines.append(f"where: {result['where']}")
    if result.get("traceback"):
        lines.append(result["traceback"][-2500:])
    if diff is not None:
        lines.append("the mutant:\n" + diff)
    return "\n".join(lines)


def known_defect(result: dict) -> str | None:
    for kinds, typ, message, where, stem in KNOWN:
        if (result["kind"] in kinds and typ in ("", result["type"]) and re.search(message, result["message"])
                and re.search(where, result.get("where") or "")):
            return stem
    return None


@functools.lru_cache(maxsize=None)
def outcome(seed: int) -> tuple:
    base, text, ops = pm.make_mutant(seed)
    return base, text, ops, pw.run_isolated(text, seed, pm.QUICK)


@pytest.fixture(scope="module", autouse=True)
def _warm_parser():
    parse("", "warm.rules")  # the parser's tables, built once before the forks


@pytest.mark.parametrize("seed", SEEDS)
def test_mutant(seed):
    base, text, ops, result = outcome(seed)
    if result["outcome"] == "defect":
        stem = known_defect(result)
        if stem:
            pytest.xfail(f"a known defect, kept in hermetic/{stem}.rules: {result['message'][:200]}")
        pytest.fail(f"mutant of {base} by {ops}: " + report(result, pm.mutant_diff(base, text)), pytrace=False)
    assert result["outcome"] in pm.ALLOWED, result


def test_the_fixed_list_reaches_the_games():
    """The list is no test of the runtime if every mutant is refused."""
    outcomes = [outcome(seed)[-1]["outcome"] for seed in SEEDS]
    assert sum(o not in ("refused", "defect") for o in outcomes) >= len(SEEDS) // 5, outcomes


# ------------------------------------------------------------------ regressions
def hermetic_cases():
    cases = []
    for path in sorted(HERMETIC.glob("*.rules")):
        marks = ()
        if path.stem in NOT_YET_FIXED:
            marks = pytest.mark.xfail(strict=True, reason=NOT_YET_FIXED[path.stem])
        cases.append(pytest.param(path, marks=marks, id=path.stem))
    return cases


def seeds_of(text: str) -> list:
    """The run seeds of a case: a first line ``# seeds: 3, 17`` or 0 and 1."""
    m = re.match(r"#\s*seeds:\s*([0-9, ]+)\n", text)
    return [int(s) for s in m.group(1).replace(",", " ").split()] if m else [0, 1]


def test_there_are_hermetic_cases():
    assert list(HERMETIC.glob("*.rules")), f"no cases in {HERMETIC}"
    stems = {p.stem for p in HERMETIC.glob("*.rules")}
    assert set(NOT_YET_FIXED) <= stems, set(NOT_YET_FIXED) - stems
    assert {k[-1] for k in KNOWN} <= set(NOT_YET_FIXED), "a known defect without its not-yet-fixed case"


@pytest.mark.parametrize("path", hermetic_cases())
def test_hermetic(path):
    text = path.read_bytes().decode("utf-8", errors="surrogatepass")
    for seed in seeds_of(text):
        result = pw.run_isolated(text, seed, HERMETIC_BUDGET)
        assert result["outcome"] in pm.ALLOWED, f"seed {seed}: " + report(result)
