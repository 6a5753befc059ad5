"""Golden playthroughs: each game in games/*.rules, for each player count it
allows, played by a seeded random policy must match its stored step-by-step
record in tests/playthroughs/<stem>-<N>p.txt (legal actions and their texts,
the actions taken, observations, returns and winners).

If a difference is intended, run ``python tests/playthroughs/regenerate.py``
and review the changed files.
"""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLAYTHROUGHS = ROOT / "tests" / "playthroughs"
HINT = "run python tests/playthroughs/regenerate.py if the change is intended"
MAX_DIFF_LINES = 40


def _load_regenerate():
    spec = importlib.util.spec_from_file_location("playthroughs_regenerate", PLAYTHROUGHS / "regenerate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


regen = _load_regenerate()
CASES = regen.cases()


def test_one_playthrough_per_game_and_player_count():
    expected = {name for _, _, name in CASES}
    stored = {f.name for f in PLAYTHROUGHS.glob("*.txt")}
    games = {rules.stem for rules in regen.game_files()}
    assert games, "no games found in games/*.rules"
    assert {name.rsplit("-", 1)[0] for name in expected} == games
    missing = sorted(expected - stored)
    stale = sorted(stored - expected)
    assert not missing, f"no playthrough for {', '.join(missing)}: {HINT}"
    assert not stale, f"playthroughs that no game produces: {', '.join(stale)}: {HINT}"


@pytest.mark.parametrize("rules,players,name", CASES, ids=[name[:-4] for _, _, name in CASES])
def test_playthrough_matches(rules, players, name):
    stored_path = PLAYTHROUGHS / name
    if not stored_path.exists():
        pytest.fail(f"{name} is missing: {HINT}")
    stored = stored_path.read_text(encoding="utf-8")
    actual = regen.render(rules, players, regen.SEED)
    if actual == stored:
        return
    diff = list(difflib.unified_diff(stored.splitlines(), actual.splitlines(),
                                     f"stored {name}", "rendered now", lineterm="", n=2))
    shown = diff[:MAX_DIFF_LINES]
    if len(diff) > MAX_DIFF_LINES:
        shown.append(f"... ({len(diff) - MAX_DIFF_LINES} more diff lines)")
    pytest.fail(f"{name} differs from the game as played now:\n" + "\n".join(shown) + f"\n\n{HINT}",
                pytrace=False)
