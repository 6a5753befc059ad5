"""How an action's search is written (``searches.enumerator``).

An action whose parameters are tested at most on their own (no require
joins two of them), with inner domains that read no other parameter,
offers every combination: its search lists them with one comprehension
instead of nested loops.  It must list the same actions in the same order,
charge the search budget what the loops would, and still stop a search
that is too wide.  A condition is tested by its truth alone where that is
the same (a bit of a mask, a number against zero)."""

import itertools

import pytest

from interpreter import load
from interpreter.runtime import MAX_SEARCH, RuleError

PAIRS = '''game "pairs"
players 2
card attributes: n: int
cards:
{cards}
zone pile: pile, public
zone hand: pile, per player, public
var v: int = 0
action pair(c in hand(me), d in pile, e in pile) "pair {c} {d} {e}":
  require c.n > 1
  set v = c.n
action pass_turn "pass":
  pass
setup:
  deal {hand} from pile to hand(0)
play:
  turn 0:
    choose pair, pass_turn
outcome(p):
  score v
'''


def game(tmp_path, cards, hand, value=lambda i: i % 4):
    text = PAIRS.replace("{cards}", "\n".join(f'  "C{i}" {value(i)}' for i in range(cards))).replace(
        "{hand}", str(hand))
    path = tmp_path / "pairs.rules"
    path.write_text(text, encoding="utf-8")
    return load(path)


def test_every_combination_is_listed_in_the_loops_order_and_charged_as_they_would(tmp_path):
    state = game(tmp_path, 12, 5).new_state(0)
    hand, pile = state.zone_cards("hand", 0), state.zone_cards("pile")
    legal = state.legal_actions()
    assert "for v0 in v0_d for v1 in d1 for v2 in d2]" in "".join(state.m.generated_sources)
    texts = [state.action_text(a) for a in legal]
    kept = [c for c in hand if int(c[1:]) % 4 > 1]
    assert texts == [f"pair {c} {d} {e}" for c, d, e in itertools.product(kept, pile, pile)] + ["pass"]
    # charged: each kept card, then each (card, d), then each (card, d, e), as nested loops charge
    k, p = len(kept), len(pile)
    assert state.m.search_left == MAX_SEARCH - (k + k * p + k * p * p)


def test_a_product_past_the_search_bound_is_too_wide(tmp_path):
    # 4 cards x 516 x 516: 1,065,024 triples, past the bound on one choice's search
    state = game(tmp_path, 520, 4, value=lambda i: 2).new_state(0)
    assert 4 * 516 * 516 > MAX_SEARCH
    with pytest.raises(RuleError, match="too wide"):
        state.legal_actions()
    # one card fewer in the pile each time is still too wide; 3 cards in hand and 500 in the
    # pile would not be (3 + 1,500 + 750,000)
    assert 3 + 3 * 500 + 3 * 500 * 500 < MAX_SEARCH


def test_a_condition_is_tested_by_its_truth_alone_where_that_is_the_same():
    from interpreter.compiler.searches import truth

    assert truth("((_t3[v0] >> v1) & 1 == 1)") == "((_t3[v0] >> v1) & 1)"
    assert truth("((_t13[v1] & h15) != 0)") == "((_t13[v1] & h15))"
    # not one comparison of the whole condition: left as it is
    for src in ["(a != 0) and (b != 0)", "(len(x) != 0) or (y != 0)", "f(x) != 0", "((x) == 1)",
                "(x & 1 == 1) and (y & 1 == 1)"]:
        assert truth(src) == src
    for src, env in [("((a >> b) & 1 == 1)", {"a": 5, "b": 1}), ("((a >> b) & 1 == 1)", {"a": 5, "b": 2}),
                     ("((a - b) != 0)", {"a": 3, "b": 3}), ("((a - b) != 0)", {"a": 3, "b": -3})]:
        assert bool(eval(truth(src), {}, env)) == eval(src, {}, env)
