"""The house variants in games/variants/: each checks with no warning, plays
to the end, and changes what it says it changes (and nothing else)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from interpreter.fuzz_game import Staller
from interpreter.game import load
from interpreter.runner import cli
from rulelang import check_file

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = sorted((ROOT / "games" / "variants").glob("*.rules"))


def test_there_are_variants_of_every_game():
    bases = {list(check_file(p)[2].files)[1] for p in VARIANTS}  # each variant's own text, then its base's
    assert len(VARIANTS) >= 5
    assert {Path(b).name for b in bases} == {"emu_ranchers.rules", "fox_in_the_henhouse.rules",
                                             "desplumados.rules", "hens.rules"}


@pytest.mark.parametrize("path", VARIANTS, ids=lambda p: p.stem)
def test_each_variant_checks_and_plays_to_the_end(path):
    game, diags, _ = check_file(path)
    assert diags == [], [d.render() for d in diags]
    g = load(path)
    for n in sorted({g.min_players, g.max_players}):
        for seed in range(3):
            state = g.new_state(seed, n)
            rng = random.Random(seed)
            while not state.is_terminal:
                state.apply(rng.choice(state.legal_actions()))
            assert len(state.m.winners(state, state.m.scores(state))) >= 0


def variant(name):
    return load(ROOT / "games" / "variants" / f"{name}.rules")


def base(name):
    return load(ROOT / "games" / f"{name}.rules")


def test_short_years_deal_four_cards():
    g = variant("emu_short_year")
    assert g.params["hand_size"] == 4 and base("emu_ranchers").params["hand_size"] == 6
    state = g.new_state(1, 2)
    assert g.evaluate(state, "size(hand(0))") == 4


def test_big_birds_earn_five_more_or_cost_five_more():
    """Played the same way (the same seed and choices, growing birds whenever
    possible; scores decide no choice here), each bird of five cards or more scores 5 more than in the
    base game if it pays its upkeep, and 5 less if it does not."""
    plain, big = base("emu_ranchers").with_params(years="1"), variant("emu_big_birds").with_params(years="1")
    seen_big = 0
    for seed in range(20):
        a, b = plain.new_state(seed, 2), big.new_state(seed, 2)
        rng = random.Random(seed)
        while not a.is_terminal:
            legal = a.legal_actions()
            grow = [x for x in legal if a.action_text(x).startswith("grow bird")]
            choice = rng.choice(grow or legal)  # growing whenever it can: long birds
            assert [a.action_text(x) for x in legal] == [b.action_text(x) for x in b.legal_actions()]
            b.apply_text(a.action_text(choice))
            a.apply(choice)
        for p in range(2):
            expected = plain.evaluate(a, f"sum((if sum([x.value for x in b if x.kind in {{Number, Pawn, Court}}]) "
                                         f">= upkeep then 5 else 0 - 5) for b in birds({p}) if size(b) >= 5)")
            seen_big += plain.evaluate(a, f"count(size(b) >= 5 for b in birds({p}))")
            assert b.m.scores(b)[p] - a.m.scores(a)[p] == expected
    assert seen_big > 0  # the rule was exercised


def test_the_turn_limit_ends_a_game_that_otherwise_need_not_end():
    """A player who never draws when it need not (the fuzzer's staller) can
    keep ¡Desplumados! going; with the house turn limit the game ends."""
    for name, g in (("base", base("desplumados")), ("variant", variant("desplumados_turn_limit"))):
        ended = 0
        for seed in range(5):
            state, staller = g.new_state(seed, 3), Staller()
            for _ in range(3000):
                if state.is_terminal:
                    ended += 1
                    break
                legal = state.legal_actions()
                state.apply(legal[staller(state, legal)])
        if name == "variant":
            assert ended == 5
        else:
            assert ended < 5


def test_five_seasons_of_fox():
    g = variant("fox_five_seasons")
    assert g.params["seasons"] == 5

    def turns(game):
        state, rng = game.new_state(3, 2), random.Random(3)
        while not state.is_terminal:
            state.apply(rng.choice(state.legal_actions()))
        return len(state.history)
    # every season has its days, each a turn for every player: five seasons take about a quarter more actions
    assert 1.1 < turns(g) / turns(base("fox_in_the_henhouse")) < 1.4


def test_a_larger_barnyard_holds_fifteen_hens():
    g = variant("hens_larger_grid")
    assert g.params["rounds"] == 15
    state, rng = g.new_state(2, 1), random.Random(2)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    assert g.evaluate(state, "size(barnyard(0))") == 15
    assert g.checked.zones["barnyard"].box[:2] == (5, 3)


def test_compare_shows_what_a_variant_changes():
    r = CliRunner().invoke(cli, ["compare", "games/emu_ranchers.rules", "games/variants/emu_short_year.rules",
                                 "-n", "30", "--seed", "1", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["b"]["params"]["hand_size"] == 4
    row = data["rows"]["actions per game"]
    assert row["significant"] and row["difference"] > 0  # more, shorter turns: more draws and discards
