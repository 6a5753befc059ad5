"""A search's seed decides its games, whatever else the process imported.

Hypothesis draws, now and then, a literal of the source of the modules it
takes for the user's own (see interpreter/hypothesis_search.py).  Here a
module of such literals is imported between two runs of the same search:
the fuzzer's and ``diff``'s reports must not change, and the module's
source must not be read into Hypothesis's cache of constants.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from interpreter.diff import diff
from interpreter.fuzz import fuzz

ROOT = Path(__file__).resolve().parents[2]
FOX = str(ROOT / "games" / "fox_in_the_henhouse.rules")


def _fuzz_summary():
    r = fuzz(FOX, players="all", examples=40, seed=3)
    return r.games, r.actions, [(f.kind, f.players, f.seed, f.actions) for f in r.findings]


def _diff_summary():
    r = diff(FOX, FOX, examples=60, seed=3)
    return r.games, r.actions, r.difference


@pytest.mark.parametrize("search", [_fuzz_summary, _diff_summary], ids=["fuzz", "diff"])
def test_a_module_of_literals_imported_changes_no_search(search, tmp_path, monkeypatch):
    before = search()
    name = f"house_numbers{search.__name__}"
    # numbers a draw of a seed could take, new to the process (each test its own); small ones
    # (a player count, a policy); a string and bytes
    base = 1_000_003 + 7919 * len(name) * (1 + (search is _diff_summary))
    literals = ", ".join(str(k) for k in [*range(64), *range(base, base + 64)]) + ", 'x', b'y'"
    module = tmp_path / f"{name}.py"
    module.write_text(f"NUMBERS = [{literals}]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    try:
        importlib.import_module(name)
        assert search() == before
        from hypothesis.configuration import storage_directory
        cached = storage_directory("constants", intent_to_write=False).path
        read = [p for p in cached.glob("*") if p.is_file() and str(module) in p.read_text(errors="replace")]
        assert not read, "the module's source was read for constants"
    finally:
        sys.modules.pop(name, None)
