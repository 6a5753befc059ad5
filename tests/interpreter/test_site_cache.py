"""A choice's legal actions kept under what its searches read
(interpreter/compiler/site_cache.py, search_reads.py): what is read is named
right, what reads more is given up, the player count is part of the key, a
choice whose keys keep changing goes back to its search.  (The kept
listings against the searches, on every rules file at hand and on
adversarial ones: test_site_cache_review.py.)"""

import random
from pathlib import Path

from interpreter import load
from interpreter.compiler import site_cache
from interpreter.compiler.search_reads import SearchReads

ROOT = Path(__file__).resolve().parents[2]


def reads_of(game, action) -> SearchReads | None:
    for sa in game.new_state(0).m.site_actions:
        if sa.action.name == action:
            return sa.action.reads
    raise KeyError(action)


def test_what_fox_searches_read():
    fox = load(ROOT / "games" / "fox_in_the_henhouse.rules")
    take = reads_of(fox, "take_henhouse")  # i <= size(henhouse(q)) for every q: their sizes alone
    assert take.sizes == {(2, "all")} and not take.cards and not take.me
    hand = reads_of(fox, "take_hand")  # q != me, not (blocking and q == blocked)
    assert hand.me and hand.variables == {"blocking", "blocked"}
    put = reads_of(fox, "put_back")  # the mover's hand, card by card
    assert put.cards == {(1, "me")} and put.me
    swap = reads_of(fox, "swap_cards")  # places named by parameters: every place's size
    assert swap.all_sizes and not swap.cards


RULES = '''game "Reads"
players 2
card attributes: n: int
cards:
  "A" 1
  "B" 2
  "C" 3
zone deck: pile, public
zone hand: pile, per player, owner
var source: pile = deck
card var bid: int = 0
player var coins: int = 0
action by_var(c in hand(me)) "play {c}":
  require size(source) > 0
  move c to deck
action by_card_var(c in hand(me)) "bid {c}":
  require c.bid == 0
  move c to deck
action by_coins(c in hand(me)) "pay {c}":
  require coins(me) > c.n
  move c to deck
action by_turns "wait":
  require turns_taken(me) > 1
  pass
play:
  move deck to hand(0)
  turn 0:
    choose by_var, by_card_var, by_coins, by_turns
outcome(p):
  score 0
'''


def test_a_search_that_reads_more_is_not_kept(tmp_path):
    path = tmp_path / "reads.rules"
    path.write_text(RULES)
    game = load(path)
    assert reads_of(game, "by_var") is None  # a place named by a variable: whose cards, unknown
    assert reads_of(game, "by_card_var") is None  # card variables
    assert reads_of(game, "by_turns") is None  # the turns taken
    coins = reads_of(game, "by_coins")
    assert coins.player_vars == {("coins", "me")} and coins.cards == {(1, "me")}
    state = game.new_state(0)
    state.legal_actions()
    assert state.m.legal_at[state.pc].__name__ == f"_site{state.m.code[state.pc][1]}"  # searched


def test_a_choice_whose_keys_keep_changing_goes_back_to_its_search(monkeypatch):
    monkeypatch.setattr(site_cache, "MAX_KEPT", 40)
    fox = load(ROOT / "games" / "fox_in_the_henhouse.rules")
    state = fox.new_state(0, 3)
    m = state.m
    rnd = random.Random(0)
    names = set()
    while not state.is_terminal:
        legal = state.legal_actions()
        names.add(m.legal_at[state.pc].__name__)
        state.apply(legal[rnd.randrange(len(legal))])
    final = {f.__name__ for f in m.legal_at if f is not None}
    # the take (few sizes) keeps its listings; the put back (a hand) fills its forty and stops
    assert "_site0k" in final and "_site1" in final and "_site1k" in names


def test_a_listing_is_kept_per_player_count(tmp_path):
    # one machine serves every player count: "q in players" reads no place, yet its
    # choices differ with the count (a mutant of Fox in the Henhouse found this)
    path = tmp_path / "count.rules"
    path.write_text('''game "Count"
players 2..4
cards:
  "A"
zone deck: pile, public
var picked: player = 0
action pick(q in players) "pick {q}":
  set picked = q
play:
  turn 0:
    choose pick
outcome(p):
  score 0
''')
    game = load(path)
    assert reads_of(game, "pick") is not None
    for players in (2, 3, 4, 3, 2):
        state = game.new_state(0, players)
        assert state.m is game.new_state(0, 2).m  # the same machine, its kept listings shared
        assert len(state.legal_actions()) == players


def test_positions_that_agree_on_a_kept_key_share_one_listing_tuple():
    # the kept listing is handed out as it is, not copied (a copy touched every action kept):
    # a tuple, so no caller can change it under the other positions that get it
    fox = load(ROOT / "games" / "fox_in_the_henhouse.rules")
    a, b = fox.new_state(0, 3), fox.new_state(0, 3)
    assert a.m is b.m and a.m.legal_at[a.pc] is not None
    first, again = a.legal_actions(), b.legal_actions()
    assert type(first) is tuple and first == again
    assert a.m.legal_at[a.pc].__name__.endswith("k")  # kept under a key
    assert again is first
    # a listing searched afresh is a tuple too, as is the end's, so the type never depends on the cache
    game = load(ROOT / "games" / "desplumados.rules")
    state = game.new_state(0, 3)
    rnd = random.Random(0)
    while not state.is_terminal:
        legal = state.legal_actions()
        assert type(legal) is tuple
        state.apply_at(rnd.randrange(len(legal)))
    assert state.legal_actions() == ()
