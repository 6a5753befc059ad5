"""The table `rulerun play` draws: the player's own cards with their
attributes, and the bookkeeping variables a rules file marks `internal`
left out of it (but not out of observations)."""

from __future__ import annotations

from pathlib import Path

from interpreter import load
from interpreter.play_view import render_view
from rulelang import parse

ROOT = Path(__file__).resolve().parents[2]


def section(text: str, head: str) -> list:
    lines = text.splitlines()
    start = lines.index(head) + 1
    out = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        out.append(line.strip())
    return out


def test_your_cards_lists_the_attributes_of_your_hand_only():
    game = load(ROOT / "games" / "emu_ranchers.rules")
    state = game.new_state(3, 2)
    for p in range(2):
        view = render_view(state, p, 120, actions=False)
        hand = state.observation(p)["zones"]["hand"][p]
        lines = section(view, "Your cards:")
        assert [ln.split(":")[0] for ln in lines] == list(dict.fromkeys(hand))
        other = state.observation(1 - p)["zones"]["hand"][1 - p]
        assert not set(other) - set(hand) & {ln.split(":")[0] for ln in lines}  # nothing of the other hand
        m = state.m
        for line, name in zip(lines, dict.fromkeys(hand)):
            card = m.card_names.index(name)
            assert line == m.card_description(card) and "rank " in line and "suits " in line


def test_a_game_without_card_attributes_shows_no_card_list(tmp_path):
    text = (ROOT / "examples" / "last_card.rules").read_text()
    text = text.replace("card attributes: rank: int\n", "")
    for rank in ("1", "2", "3", "4", "5"):
        text = text.replace(f"  {rank}\n", "\n")
    text = text.replace("c.rank < top(table).rank", "true")
    path = tmp_path / "plain.rules"
    path.write_text(text)
    state = load(path).new_state(1, 2)
    assert "Your cards:" not in render_view(state, 0, 100, actions=False)
    with_ranks = load(ROOT / "examples" / "last_card.rules").new_state(1, 2)
    assert "Your cards:" in render_view(with_ranks, 0, 100, actions=False)


def test_internal_variables_are_kept_out_of_the_table_but_not_out_of_observations():
    game = load(ROOT / "games" / "emu_ranchers.rules")
    state = game.new_state(3, 2)
    view = render_view(state, 0, 120, actions=False)
    vars_line = next(ln for ln in view.splitlines() if ln.startswith("vars:"))
    assert "first_player" in vars_line
    for name in ("seat", "discarded", "growing"):
        assert f"{name} =" not in vars_line
        assert name in state.observation(0)["vars"]
    assert state.m.internal_vars == {"seat", "discarded", "growing"}


def test_internal_is_written_before_var():
    module, diags = parse('internal var seat: player = 0\ninternal player var marks: int = 0\nvar shown: int = 0\n')
    assert diags == []
    assert [(v.name, v.internal) for v in module.items] == [("seat", True), ("marks", True), ("shown", False)]
    module, diags = parse("internal record var x: int = 0\n")
    assert module is None and diags[0].code == "RL001"
