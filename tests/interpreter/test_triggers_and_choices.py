"""Behaviour of the new features at play time: triggers and ``end game with
winners`` (random orders and set choices: test_random_and_set_choices.py).

Each test writes a small rules file, loads it with ``interpreter.load`` and
plays it by hand.  Orders are traced in an int variable, one decimal digit
per event (``set trace = trace * 10 + k``), so a wrong order, a missing or
an extra firing all change the number.
"""

from __future__ import annotations

import time

import pytest

from interpreter import RuleError, load


def load_text(tmp_path, text, name="t.rules", **kw):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load(path, **kw)


def line_of(text: str, needle: str) -> int:
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(hits) == 1, f"{needle!r} is on lines {hits}"
    return hits[0]


def digits(values) -> int:
    out = 0
    for v in values:
        out = out * 10 + v
    return out


# ================================================================ triggers
TRIG = '''game "triggers"
players 2
card attributes: v: int
cards:
  "A" 1 *2
  "B" 2 *2
  "C" 3
zone deck: pile, public
zone pot: pile, public
zone other: pile, public
zone hand: pile, per player, public
var trace: int = 0
var named: int = 0
player var got: int = 0
{decls}
action to_pot "all to the pot":
  move deck to pot
action deal_me "deal me five":
  deal 5 from deck to hand(me)
action one_to(q in players) "one to {q}":
  move top(deck) to hand(q)
action elsewhere "elsewhere":
  move deck to other
action one_pot "one to the pot":
  move top(deck) to pot
play:
  turn 0:
    choose to_pot, deal_me, one_to, elsewhere, one_pot
  turn 1:
    choose elsewhere
outcome(p):
  score got(p)
'''

V = {"A": 1, "B": 2, "C": 3}


def arrange(state, names):
    """Make the deck hold exactly ``names``, bottom first (through the other pile)."""
    state.put(names, "other")
    state.put(names, "deck")
    assert state.zone_cards("deck") == names and state.zone_cards("other") == []


def trig(tmp_path, decls, **kw):
    return load_text(tmp_path, TRIG.replace("{decls}", decls), **kw)


def test_enter_trigger_fires_once_per_card_in_move_order(tmp_path):
    game = trig(tmp_path, 'when c enters pot:\n  set trace = trace * 10 + c.v\n'
                          'when "B" enters pot:\n  set named += 1')
    state = game.new_state(1)
    order = ["B", "A", "C", "B", "A"]
    arrange(state, order)
    state.apply_text("all to the pot")
    assert state.zone_cards("pot") == order
    assert state.get_var("trace") == digits(V[n] for n in order)
    assert state.get_var("named") == 2  # only the two B's


def test_enter_trigger_does_not_fire_for_other_zones(tmp_path):
    game = trig(tmp_path, 'when c enters pot:\n  set trace = trace * 10 + c.v')
    state = game.new_state(1)
    state.apply_text("elsewhere")
    assert len(state.zone_cards("other")) == 5
    assert state.get_var("trace") == 0


def test_enter_trigger_binds_the_owner_and_tests_its_condition(tmp_path):
    game = trig(tmp_path, 'when c enters hand(p) if c.v >= 2:\n  set got(p) += c.v')
    for q in (0, 1):
        state = game.new_state(1)
        top = state.zone_cards("deck")[-1]
        state.apply_text(f"one to player {q + 1}")
        assert state.zone_cards("hand", q) == [top]
        want = V[top] if V[top] >= 2 else 0
        assert [state.get_var("got", p) for p in (0, 1)] == [want if p == q else 0 for p in (0, 1)]


@pytest.mark.parametrize("pattern", ["c", '"B"'])
@pytest.mark.parametrize("how", ["move", "deal"])
def test_a_trigger_without_a_condition_is_tested_in_the_generated_flow_and_binds_card_and_owner(
        tmp_path, pattern, how):
    # its test is written into the step (no call), and its true side notes the card and the
    # owner of the hand it entered, as the test called would
    trigger = f'when {pattern} enters hand(p):\n  set got(p) += 10 + V(card)\n  set trace = trace * 10 + V(card)'
    game = trig(tmp_path, trigger.replace("V(card)", "c.v" if pattern == "c" else "2"))
    for q in (0, 1):
        state = game.new_state(1)
        before = ["A", "B", "C", "A", "B"]  # B on top
        arrange(state, before)
        if how == "move":
            state.apply_text(f"one to player {q + 1}")
            entered = ["B"]
        else:
            if q == 1:
                continue  # (a deal goes to the mover's hand)
            state.apply_text("deal me five")
            entered = list(reversed(before))
        fired = [n for n in entered if pattern == "c" or n == "B"]
        assert [state.get_var("got", p) for p in (0, 1)] == [
            sum(10 + V[n] for n in fired) if p == q else 0 for p in (0, 1)]
        assert state.get_var("trace") == digits(V[n] for n in fired)
    source = game.generated_source()
    assert "_iz" in source and "[st.loc[" in source


def test_enter_trigger_condition_false_for_every_card(tmp_path):
    game = trig(tmp_path, 'when c enters hand(p) if p == 1:\n  set got(p) += 1')
    state = game.new_state(1)
    state.apply_text("deal me five")
    assert len(state.zone_cards("hand", 0)) == 5
    assert [state.get_var("got", p) for p in (0, 1)] == [0, 0]


def test_deal_fires_per_card_and_end_game_stops_the_rest(tmp_path):
    game = trig(tmp_path, 'when c enters hand(p):\n  set trace = trace * 10 + c.v\n'
                          'when "C" enters hand(p):\n  end game with winner p')
    state = game.new_state(1)
    # C third from the top: the deal takes two cards, then C, then stops
    before = ["A", "B", "C", "B", "A"]
    arrange(state, before)
    state.apply_text("deal me five")
    assert state.is_terminal
    dealt = list(reversed(before[-3:]))  # top first
    assert state.zone_cards("hand", 0) == dealt
    assert state.zone_cards("deck") == before[:-3]  # the rest of the deal stays in the deck
    assert state.get_var("trace") == digits(V[n] for n in dealt)
    assert state.winners() == [0]


def test_deal_fires_for_the_cards_that_match_and_deals_on(tmp_path):
    """Between the cards that fire a trigger, the deal goes on without one: each B fires once,
    in the order dealt, after the cards before it and before the cards after it."""
    game = trig(tmp_path, 'when c enters hand(p) if c.v == 2:\n'
                          '  set trace = trace * 10 + size(hand(p))\n  set named += 1')
    state = game.new_state(1)
    before = ["A", "B", "C", "B", "A"]
    arrange(state, before)
    state.apply_text("deal me five")
    assert state.zone_cards("hand", 0) == list(reversed(before))
    assert state.get_var("named") == 2
    assert state.get_var("trace") == digits([2, 4])  # the hand held 2 cards, then 4, as each B came


def test_deal_without_the_end_deals_everything(tmp_path):
    game = trig(tmp_path, 'when c enters hand(p):\n  set trace = trace * 10 + c.v')
    state = game.new_state(1)
    before = ["A", "B", "C", "B", "A"]
    arrange(state, before)
    state.apply_text("deal me five")
    assert not state.is_terminal
    assert state.zone_cards("deck") == []
    assert state.get_var("trace") == digits(V[n] for n in reversed(before))


def test_triggers_of_one_event_fire_in_declaration_order(tmp_path):
    game = trig(tmp_path, 'when c enters pot:\n  set trace = trace * 10 + 1\n'
                          'when x enters pot if x.v == 3:\n  set trace = trace * 10 + 2\n'
                          'when y enters pot:\n  set trace = trace * 10 + 3')
    state = game.new_state(1)
    order = ["A", "C", "B", "A", "B"]
    arrange(state, order)
    state.apply_text("all to the pot")
    # for each card in turn, every matching trigger in the order declared
    want = digits(d for n in order for d in ((1, 2, 3) if n == "C" else (1, 3)))
    assert state.get_var("trace") == want


def test_end_game_in_a_trigger_stops_the_later_cards_triggers_of_a_move(tmp_path):
    # a move is one step: every card lands, then the triggers run card by card
    game = trig(tmp_path, 'when c enters pot:\n  set trace = trace * 10 + c.v\n'
                          'when "C" enters pot:\n  end game')
    state = game.new_state(1)
    arrange(state, ["B", "C", "A", "A", "B"])
    state.apply_text("all to the pot")
    assert state.is_terminal
    assert state.zone_cards("pot") == ["B", "C", "A", "A", "B"]
    assert state.get_var("trace") == 23


@pytest.mark.parametrize("next_top,fails", [("A", False), ("B", True)])
def test_a_trigger_is_an_error_only_if_it_really_fires_itself(tmp_path, next_top, fails):
    text = TRIG.replace("{decls}", 'when c enters pot if c.v >= 2:\n  move top(deck) to pot')
    game = load_text(tmp_path, text)
    state = game.new_state(1)
    arrange(state, ["A", "A", "B", "B", "C"] if next_top == "B" else ["B", "B", "A", "A", "C"])
    if fails:
        with pytest.raises(RuleError) as info:
            state.apply_text("one to the pot")
        assert f"line {line_of(text, 'when c enters pot')}" in info.value.message
    else:
        state.apply_text("one to the pot")  # C enters, then A (which fires nothing)
        assert state.zone_cards("pot") == ["C", "A"]
        assert state.zone_cards("deck") == ["B", "B", "A"]


def test_a_card_swapped_into_a_zone_fires_its_enter_trigger(tmp_path):
    text = TRIG.replace("{decls}", 'when c enters pot:\n  set trace = trace * 10 + c.v\n'
                                   'action swap_in "swap in":\n  swap top(deck) with top(pot)')
    text = text.replace("elsewhere, one_pot", "elsewhere, one_pot, swap_in")
    game = load_text(tmp_path, text)
    state = game.new_state(1)
    arrange(state, ["A", "A", "B", "B", "C"])
    state.put(["A"], "pot")
    state.apply_text("swap in")
    assert state.zone_cards("pot") == ["C"]
    assert state.get_var("trace") == 3


FLOW = '''game "flow"
players 2
cards:
  "A" *4
zone deck: pile, public
zone hand: pile, per player, public
var trace: int = 0
player var got: int = 0
{decls}
action outer "outer":
  set trace = trace * 10 + 1
  choose inner
  set trace = trace * 10 + 3
action inner "inner":
  set trace = trace * 10 + 2
action plain "plain":
  set trace = trace * 10 + 4
play:
  turn 0:
    set trace = trace * 10 + 5
    choose outer, plain
  turn 1:
    set trace = trace * 10 + 6
    choose plain
outcome(p):
  score got(p)
'''


def flow(tmp_path, decls, **kw):
    return load_text(tmp_path, FLOW.replace("{decls}", decls), **kw)


def test_after_action_fires_after_a_follow_up_and_after_the_outer_action(tmp_path):
    game = flow(tmp_path, 'after every action:\n  set trace = trace * 10 + 9')
    state = game.new_state(1)
    assert state.get_var("trace") == 5
    state.apply_text("outer")
    assert state.get_var("trace") == 51  # the follow-up choice is pending
    state.apply_text("inner")
    assert state.get_var("trace") == 5129396  # inner, trigger, rest of outer, trigger, turn 1
    state.apply_text("plain")
    assert state.is_terminal
    assert state.get_var("trace") == 51293964 * 10 + 9


def test_after_action_triggers_fire_in_declaration_order(tmp_path):
    game = flow(tmp_path, 'after every action:\n  set trace = trace * 10 + 7\n'
                          'after every action:\n  set trace = trace * 10 + 8')
    state = game.new_state(1)
    state.apply_text("plain")
    assert state.get_var("trace") == 54786


def test_before_turn_fires_at_each_turn_with_me_bound(tmp_path):
    game = flow(tmp_path, 'before every turn:\n  set trace = trace * 10 + (if me == 0 then 1 else 2)\n'
                          '  set got(me) += 1\n'
                          'before every turn:\n  set trace = trace * 10 + 8')
    state = game.new_state(1)
    assert state.get_var("trace") == 185  # before the turn's own first statement
    assert [state.get_var("got", p) for p in (0, 1)] == [1, 0]
    state.apply_text("plain")
    assert state.get_var("trace") == 1854286
    assert [state.get_var("got", p) for p in (0, 1)] == [1, 1]


def test_before_turn_deal_fires_the_enter_trigger(tmp_path):
    game = flow(tmp_path, 'before every turn:\n  deal 1 from deck to hand(me)\n'
                          'when c enters hand(p):\n  set got(p) += 10')
    state = game.new_state(1)
    assert len(state.zone_cards("hand", 0)) == 1
    assert [state.get_var("got", p) for p in (0, 1)] == [10, 0]
    state.apply_text("plain")
    assert [state.get_var("got", p) for p in (0, 1)] == [10, 10]


def test_a_trigger_firing_itself_is_a_rule_error_at_play_time(tmp_path):
    decl = 'when c enters pot:\n  move top(deck) to pot'
    text = TRIG.replace("{decls}", decl)
    game = load_text(tmp_path, text)  # loads: the loop is only an error if it happens
    state = game.new_state(1)
    state.apply_text("elsewhere")  # the pot is never entered: no error
    state = game.new_state(1)
    t0 = time.perf_counter()
    with pytest.raises(RuleError) as info:
        state.apply_text("one to the pot")
    assert time.perf_counter() - t0 < 5
    assert not isinstance(info.value, RecursionError)
    assert f"line {line_of(text, 'when c enters pot:')}" in info.value.message


def test_triggers_firing_each_other_is_a_rule_error(tmp_path):
    decl = ('when c enters pot:\n  move c to other\n'
            'when d enters other:\n  move d to pot')
    text = TRIG.replace("{decls}", decl)
    game = load_text(tmp_path, text)
    state = game.new_state(1)
    with pytest.raises(RuleError) as info:
        state.apply_text("all to the pot")
    # the pot's trigger would fire again, through the other's effects
    assert f"line {line_of(text, 'when c enters pot:')}" in info.value.message


def test_after_action_trigger_with_a_choice_is_refused(tmp_path):
    # its choice would offer an action, after which the trigger fires again:
    # the checker says so (RL109) rather than the game failing at play time
    from rulelang.diagnostics import RulesError
    with pytest.raises(RulesError) as info:
        flow(tmp_path, 'after every action:\n  choose plain')
    assert [d.code for d in info.value.diagnostics] == ["RL109"]


# ================================================================ end game with winners
WIN = '''game "winners"
players 3
cards:
  "A"
zone deck: pile, public
player var pts: int = 0
action {name} "{name}":
  end game with {what}
play:
  set pts(2) = 5
  turn 0:
    choose {name}
outcome(p):
  score pts(p)
'''


@pytest.mark.parametrize("what,want", [
    ("winner next(me)", [1]),
    ("winners [next(me), me, next(me)]", [0, 1]),  # sorted and deduplicated
    ("winners [p for p in players if p != 2]", [0, 1]),
    ("winners players", [0, 1, 2]),
    ("winners [p for p in players if false]", []),  # nobody wins
])
def test_end_game_with_winners_overrides_the_outcome(tmp_path, what, want):
    game = load_text(tmp_path, WIN.replace("{name}", "stop").replace("{what}", what))
    state = game.new_state(1)
    state.apply_text("stop")
    assert state.is_terminal
    assert state.winners() == want
    assert state.scores() == [0, 0, 5]  # the scores stay what the outcome says


def test_plain_end_game_keeps_the_outcome(tmp_path):
    text = WIN.replace("{name}", "stop").replace("  end game with {what}", "  end game")
    state = load_text(tmp_path, text).new_state(1)
    state.apply_text("stop")
    assert state.winners() == [2]
