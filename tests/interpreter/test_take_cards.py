"""Taking many cards at once (runtime.take_cards, used by a move of a list
of cards) leaves every place as taking them one by one does: the rest of
each pile and stack in its order, a stack left empty gone, a card named
twice an error."""

import random
from pathlib import Path

from hypothesis import given, settings, strategies as st

from interpreter import load
from interpreter.runtime import FEW_TAKEN, RuleError, take_card, take_cards

ROOT = Path(__file__).resolve().parents[2]
EMU = load(ROOT / "games" / "emu_ranchers.rules")


def _position(seed: int, steps: int):
    """A position of Emu Ranchers (birds are rows of stacks) after random play."""
    state = EMU.new_state(seed, 2)
    rnd = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal:
            break
        state.apply(rnd.choice(state.legal_actions()))
    return state


def _taken(state, cards, take):
    out = state.clone()
    try:
        take(out, cards)
    except (ValueError, RuleError):
        return "error"
    return out.Z


def _one_by_one(state, cards):
    for c in cards:
        take_card(state, c, state.m.stack_instances)


def _at_once(state, cards):
    take_cards(state, cards, state.m.stack_instances)


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 50), steps=st.integers(0, 120), data=st.data())
def test_taking_many_cards_at_once_leaves_what_one_by_one_leaves(seed, steps, data):
    state = _position(seed, steps)
    in_play = [c for c in range(len(state.loc)) if state.loc[c] >= 0]
    cards = data.draw(st.lists(st.sampled_from(in_play), min_size=FEW_TAKEN, max_size=len(in_play), unique=True))
    if data.draw(st.booleans()):  # now and then the whole of some bird, so that its stack goes away
        birds = [s for i in state.m.stack_instances for s in state.Z[i]]
        if birds:
            cards += [c for c in data.draw(st.sampled_from(birds)) if c not in cards]
    assert _taken(state, cards, _at_once) == _taken(state, cards, _one_by_one)


def test_a_card_named_twice_fails_as_one_by_one():
    state = _position(3, 40)
    hand = state.Z[state.m.zone_instance(state, "hand", 0)]
    cards = list(range(FEW_TAKEN)) + [hand[0], hand[0]]
    assert _taken(state, cards, _at_once) == _taken(state, cards, _one_by_one) == "error"


def test_a_bird_taken_whole_goes_away():
    state = _position(7, 60)
    row = state.m.zone_instance(state, "birds", state.me)
    assert len(state.Z[row]) >= 2  # (this position has birds)
    first = state.Z[row][0]
    hand = state.Z[state.m.zone_instance(state, "hand", 0)]
    cards = first + [c for c in hand][:FEW_TAKEN]
    after = _taken(state, cards, _at_once)
    assert after[row] == [s for s in state.Z[row][1:]]
