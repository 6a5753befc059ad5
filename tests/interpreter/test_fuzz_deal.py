"""The ``same_deal`` finding (interpreter/fuzz_deal.py): rules that draw at
random yet deal every game alike.  Never on the real games; found when a
shuffle is left out or shuffles the wrong pile, also when a first player
drawn at random passes the same hands round; never for rules with no random
step at all (a fixed deal on purpose)."""

from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import load
from interpreter.fuzz_deal import private_cards, same_deal

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "games").glob("*.rules")) + sorted((ROOT / "games" / "variants").glob("*.rules"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_real_games_deal_differently_on_other_seeds(path):
    game = load(path)
    for n in range(game.min_players, min(game.max_players, 5) + 1):
        assert same_deal(game, n) is None


def mutated(tmp_path, name, old, new):
    text = (ROOT / "games" / f"{name}.rules").read_text()
    assert text.count(old) == 1
    path = tmp_path / f"{name}.rules"
    path.write_text(text.replace(old, new))
    return load(path)


def test_a_shuffle_of_the_wrong_pile_deals_every_game_alike(tmp_path):
    game = mutated(tmp_path, "emu_ranchers", "    shuffle draw_pile\n", "    shuffle discard_pile\n")
    message = same_deal(game, 2)
    assert message.startswith("every game deals the same cards (4 seeds, 2 players: ")
    assert "is a shuffle missing" in message


def test_a_first_player_drawn_at_random_does_not_hide_it(tmp_path):
    """Hens deals from its first player round: unshuffled, the same hands
    go to other seats on other seeds."""
    game = mutated(tmp_path, "hens", "  shuffle deck\n", "  shuffle box\n")
    deals = [private_cards(game.new_state(seed, 3)) for seed in range(6)]
    assert len(set(deals)) > 1 and len({tuple(sorted(d)) for d in deals}) == 1
    assert same_deal(game, 3) is not None


def test_rules_with_no_random_step_are_not_judged(tmp_path):
    game = mutated(tmp_path, "fox_in_the_henhouse", "  set first_player = random players\n", "  pass\n")
    text = (tmp_path / "fox_in_the_henhouse.rules").read_text().replace("    shuffle deck\n", "")
    fixed = tmp_path / "fixed.rules"
    fixed.write_text(text)
    assert same_deal(load(fixed), 2) is None  # a fixed deal on purpose: nothing drawn at random
    assert same_deal(game, 2) is None  # still shuffled
