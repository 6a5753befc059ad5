"""A search's card-pair conditions tabulated as bit masks (compiler/masks.py):
the legal actions are exactly those of the condition as written."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter.compiler.masks as masks
from interpreter import load

ROOT = Path(__file__).resolve().parents[2]

GAME = """\
game "Rows"
players 2..3
enum Colour: Red, Blue
card attributes: colour: Colour, n: int
cards:
  "r1" Red 1
  "r2" Red 2
  "r3" Red 3
  "b1" Blue 1
  "b2" Blue 2
  "b3" Blue 3
  "r4" Red 4
  "b4" Blue 4
  "r5" Red 5
  "b5" Blue 5
zone deck: pile, hidden
zone hand: pile, per player, owner
zone row: pile, per player, public
action lay(c in hand(me), q in players) "lay {c} in the row of {q}":
  require all(d.face_down or d.colour == c.colour or abs(d.n - c.n) == 1 for d in row(q))
  move c to row(q)
action cover(c in hand(me), q in players) "cover with {c} in the row of {q}":
  require any(not d.face_down and d.n > c.n for d in row(q))
  move c face down to row(q)
action pass_turn "pass":
  pass
play:
  shuffle deck
  for p in players:
    deal 3 from deck to hand(p)
  repeat 4 times:
    for p in players:
      turn p:
        choose lay, cover, pass_turn
outcome(p):
  score size(row(p))
"""


def legal_lists(path, players, seeds, steps=40):
    """Every legal-action list of random games (the same games for both compilations)."""
    game = load(path)
    out = []
    for seed in seeds:
        st = game.new_state(seed, players)
        rnd = random.Random(seed)
        for _ in range(steps):
            if st.is_terminal:
                break
            acts = st.legal_actions()
            out.append([st.action_text(a) for a in acts])
            st.apply(acts[rnd.randrange(len(acts))])
    return out


@pytest.mark.parametrize("players", [2, 3])
def test_masked_searches_offer_what_the_rules_say(tmp_path, monkeypatch, players):
    path = tmp_path / "rows.rules"
    path.write_text(GAME)
    source = load(path).generated_source()
    assert "_mask_and(" in source and "_mask_or(" in source  # both generators are tabulated
    masked = legal_lists(path, players, range(30))
    monkeypatch.setattr(masks, "MAX_CARDS", 0)  # no table: the conditions as written
    assert "_mask_" not in load(path).generated_source().replace("def _mask", "")
    assert legal_lists(path, players, range(30)) == masked
    assert any(any(t.startswith("cover") for t in acts) for acts in masked)  # the any() passes at times
    assert any(not any(t.startswith("lay") for t in acts) for acts in masked)  # and the all() fails at times


@pytest.mark.parametrize("stem, players, tabulated", [("hens", 3, ["_mask_and("]),
                                                      ("desplumados", 4, [".bit_count()", "sum(map(_bit", "_mask_and("])])
def test_a_game_s_legal_actions_are_the_same_with_a_table(monkeypatch, stem, players, tabulated):
    # Hens's placements (an all() over a cell's neighbours); ¡Desplumados!'s meadow visits (a
    # count) and hens played (an all() with a filter, in the helper fits(h, p) written in place)
    path = ROOT / "games" / f"{stem}.rules"
    assert all(t in load(path).generated_source() for t in tabulated)
    masked = legal_lists(path, players, range(6), steps=120)
    monkeypatch.setattr(masks, "MAX_CARDS", 0)
    assert legal_lists(path, players, range(6), steps=120) == masked


def test_a_pair_condition_that_fails_for_some_pair_is_left_as_written(tmp_path):
    """d.n % (c.n - 2) cannot be computed for a card of 2: no table; the search as written
    reports it when it meets one."""
    path = tmp_path / "rows.rules"
    path.write_text(GAME.replace("abs(d.n - c.n) == 1", "d.n % (c.n - 2) == 1"))
    assert "_mask_and(" not in load(path).generated_source()


COUNTED = GAME.replace('action pass_turn "pass":', '''action match(c in hand(me), q in players) "match {c} in the row of {q}":
  require count(not d.face_down and d.colour == c.colour for d in row(q)) == 1
  move c to row(q)
action pass_turn "pass":''').replace("choose lay, cover, pass_turn", "choose lay, cover, match, pass_turn")


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("rules, whole", [(COUNTED, False),
                                          (COUNTED.replace("not d.face_down and d.colour", "d.colour"), True)])
def test_a_counted_pair_condition_offers_what_the_rules_say(tmp_path, monkeypatch, players, rules, whole):
    # count(A(d) and B(d, c) for d in S): the cards of S that pass A as one mask, each card c
    # the bits it shares with its own table entry (the cards d that B passes for it); with no
    # A, every card of S counts: each is in S once, so the mask is the sum of their bits
    path = tmp_path / "counted.rules"
    path.write_text(rules)
    assert ".bit_count()" in load(path).generated_source()
    assert ("sum(map(_bit" in load(path).generated_source()) == whole
    masked = legal_lists(path, players, range(30))
    monkeypatch.setattr(masks, "MAX_CARDS", 0)
    assert ".bit_count()" not in load(path).generated_source()
    assert legal_lists(path, players, range(30)) == masked
    matches = [sum(t.startswith("match") for t in acts) for acts in masked]
    assert max(matches) > 0 and min(matches) == 0  # it passes for some cards, at times, and not always


# the same rule with its face-down test written as the generator's filter (... if not d.face_down)
FILTERED = GAME.replace("require all(d.face_down or d.colour == c.colour or abs(d.n - c.n) == 1 for d in row(q))",
                        "require all(d.colour == c.colour or abs(d.n - c.n) == 1 for d in row(q) if not d.face_down)")


@pytest.mark.parametrize("players", [2, 3])
def test_a_generator_s_own_filter_is_tabulated_with_it(tmp_path, monkeypatch, players):
    assert FILTERED != GAME
    path, plain = tmp_path / "filtered.rules", tmp_path / "rows.rules"
    path.write_text(FILTERED)
    plain.write_text(GAME)
    source = load(path).generated_source()
    assert "_mask_and(" in source and "if (not st.F[" in source  # (the filter, before the table)
    masked = legal_lists(path, players, range(30))
    assert masked == legal_lists(plain, players, range(30))
    monkeypatch.setattr(masks, "MAX_CARDS", 0)
    assert legal_lists(path, players, range(30)) == masked


GAPPED = GAME.replace("abs(d.n - c.n) == 1", "abs(d.n - c.n) == gap").replace(
    "zone deck: pile, hidden", 'param gap: int in 1..3 = 1  "how far apart two numbers may be"\nzone deck: pile, hidden')


def test_a_pair_table_is_made_once_per_rules_and_parameters(tmp_path, monkeypatch):
    """The rules compiled again (the fuzzer does so for each parameter set it draws)
    find a pair table made: the same one for the same source and card tables, another
    where a parameter written into the pair changes it; each offers what the rules say."""
    import rulelang
    from interpreter.compiler import compile_game

    path = tmp_path / "gapped.rules"
    path.write_text(GAPPED)
    g = rulelang.load_checked(path)

    def tables(params):
        m = compile_game(g, params)
        return [v for k, v in m.namespace.ns.items() if k.startswith("_mt")]

    first, wider, again = tables({}), tables({"gap": 2}), tables({"gap": 1})
    assert first and all(a is b for a, b in zip(first, again))  # kept: made once
    assert wider != first  # the parameter is part of what decides the table
    for gap in (1, 2):
        gapped = tmp_path / f"gap{gap}.rules"
        gapped.write_text(GAPPED.replace("= 1  \"how far", f"= {gap}  \"how far"))
        masked = legal_lists(gapped, 2, range(20))
        monkeypatch.setattr(masks, "MAX_CARDS", 0)
        assert legal_lists(gapped, 2, range(20)) == masked
        monkeypatch.undo()
