"""A condition of the flow that reads only the cards of some piles, through
nested generators (¡Desplumados!'s ``any(has_won(p) for p in players)``,
tested after every action), keeps its values by those piles' cards
(compiler/functions.py, ``kept_condition``): the same game, the same work
budget spent, as working it out each time."""

import random
import re
from pathlib import Path

import pytest

from interpreter import load
from interpreter.compiler.functions import Functions

ROOT = Path(__file__).resolve().parents[2]
DESPLUMADOS = ROOT / "games" / "desplumados.rules"


def playthrough(path, seed, players):
    """Every legal-action list, the work budget left after each step, and the end."""
    game = load(path)
    state = game.new_state(seed, players)
    rnd = random.Random(seed)
    seen = []
    while not state.is_terminal:
        legal = state.legal_actions()
        state.apply(legal[rnd.randrange(len(legal))])
        seen.append((legal, state.m.work_left))
    return seen, state.key(), state.scores(), "".join(state.m.generated_sources)


def test_desplumados_keeps_whether_someone_has_won_by_the_henhouses():
    source = playthrough(DESPLUMADOS, 0, 4)[3]
    assert re.search(r"k = \(st\.n, tuple\(map\(tuple, st\.Z\[\d+:\d+ \+ st\.n\]\)\),\)", source)


@pytest.mark.parametrize("players", [3, 5])
def test_a_kept_condition_plays_and_charges_as_the_condition_itself(monkeypatch, players):
    kept = [playthrough(DESPLUMADOS, seed, players)[:3] for seed in range(4)]
    monkeypatch.setattr(Functions, "kept_condition", lambda self, e: None)
    plain = [playthrough(DESPLUMADOS, seed, players) for seed in range(4)]
    assert "_kc" not in plain[0][3]
    assert kept == [p[:3] for p in plain]


RULES = '''game "vaults"
players 2
card attributes: gem: int
cards:
  "A" 1
  "B" 0
  "C" 1
  "D" 1
zone deck: pile, public
zone vault: pile, per player, public
var bar: int = 2
function gems(p: player) = count(c.gem == 1 for c in vault(p))
action stash(c in deck) "stash {c}":
  move c to vault(me)
setup:
  pass
play:
  while not empty(deck):
    turn 0:
      choose stash
    if any(gems(p) >= TEST for p in players):
      set bar += 10
outcome(p):
  score bar
'''


@pytest.mark.parametrize("test, kept", [("2", True), ("bar", False)])
def test_a_condition_that_reads_a_variable_is_not_kept(tmp_path, test, kept):
    path = tmp_path / "vaults.rules"
    path.write_text(RULES.replace("TEST", test), encoding="utf-8")
    state = load(path).new_state(0)
    while not state.is_terminal:
        state.apply(state.legal_actions()[0])
    assert state.scores()[0] == (2 + 10 + 10 if test == "2" else 2 + 10)  # (A, C, then D: 2 gems twice)
    assert ("def _kc" in "".join(state.m.generated_sources)) == kept
