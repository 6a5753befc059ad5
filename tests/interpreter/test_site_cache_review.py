"""Adversarial cases for kept listings (interpreter/compiler/site_cache.py,
search_reads.py): small rules files whose choices get a kept listing, played
in lock-step against the same file with nothing kept.

MAX_KEPT is read when a choice is first listed (flowgen.lazy_site calls
cached_site then), not when the file is loaded, so the searched game is
played with MAX_KEPT = 0 patched around each of its calls, and checked to
list by search at every choice."""

import random
from pathlib import Path

import pytest

from interpreter import load
from interpreter.checks import InvariantBroken
from interpreter.compiler import site_cache
from interpreter.runtime import RuleError

ROOT = Path(__file__).resolve().parents[2]


def outcome(f, *args):  # what f(*args) gives, or the text of its rule error
    try:
        return f(*args)
    except (RuleError, InvariantBroken) as err:
        return "error: " + str(err)


def reads_of(game, action):
    for sa in game.new_state(0).m.site_actions:
        if sa.action.name == action:
            return sa.action.reads
    raise KeyError(action)


def mismatch(path, monkeypatch, kept_actions=(), seeds=8, steps=300, shared=False, **params):
    """Play random games with a kept and a searched game, decision by
    decision; the first difference, or None.  ``shared``: one game for every
    player count (as Game.new_state(seed, n) allows), else a fresh pair per count."""
    def searched(f, *args):
        with monkeypatch.context() as mp:
            mp.setattr(site_cache, "MAX_KEPT", 0)
            return outcome(f, *args)
    pairs = {}
    first = pairs[None] = (load(path, **params), load(path, **params))
    for a in kept_actions:
        assert reads_of(first[0], a) is not None, a  # else the case tests nothing
    lo, hi = first[0].machine.players
    wrapped = 0
    for seed in range(seeds):
        n = lo + seed % (hi - lo + 1)
        pair = first if shared or n == lo else pairs.setdefault(n, (load(path, **params), load(path, **params)))
        a, b = outcome(pair[0].new_state, seed, n), searched(pair[1].new_state, seed, n)
        if isinstance(a, str):
            assert a == b
            continue
        rnd = random.Random(seed)
        for step in range(steps):
            if a.is_terminal:
                break
            la, lb = outcome(a.legal_actions), searched(b.legal_actions)
            assert not b.m.legal_at[b.pc].__name__.endswith("k")  # searched
            wrapped += a.m.legal_at[a.pc].__name__.endswith("k")
            if la != lb:
                return f"seed {seed}, {n} players, step {step}: kept {la}, searched {lb}"
            if isinstance(la, str) or not la:
                break
            act = la[rnd.randrange(len(la))]
            done = outcome(a.apply, act), searched(b.apply, act)
            assert done[0] == done[1]
            if isinstance(done[0], str):
                break
    assert wrapped > 10 or not kept_actions, "no kept listing was used"
    return None


CARDS = '''card attributes: n: int
cards:
  "A" 1
  "B" 2
  "C" 3
  "D" 4
  "E" 5
'''
ZONES = '''zone deck: pile, public
zone table: pile, public
zone hand: pile, per player, public
'''
FLOW = '''play:
  shuffle deck
  repeat 8 times:
    for p in players:
      turn p:
        choose {choose}
outcome(p):
  score 0
'''
BACK = '''action back(c in hand(me)) "back {c}":
  move c to table
action draw "draw":
  require not empty(deck)
  move top(deck) to table
'''


def rules(tmp_path, body, choose, players="2", cards=CARDS, flow=FLOW):
    path = tmp_path / "case.rules"
    path.write_text(f'game "Review"\nplayers {players}\n' + cards + ZONES + body + flow.format(choose=choose))
    return path


# One machine serves every player count (Game.machine_for), and so do its
# kept listings: the key must tell the counts apart (st.n, since 93c97d5).
PLAYER_COUNT = {
    "players": '''action give(q in players) "give {q}":
  require q != me
  pass
''',
    "player_count": '''action give(i in 1..3) "give {i}":
  require i < player_count
  pass
''',
    "next": '''action give(q in players) "give {q}":
  require q == next(me)
  pass
''',
    "all_cards": '''action give(c in all_cards()) "give {c}":
  require c.n > 3
  pass
''',
}


@pytest.mark.parametrize("case", sorted(PLAYER_COUNT))
def test_player_counts_share_a_machine(case, tmp_path, monkeypatch):
    deck = 'deck:\n  "A"\n  "B"\n  "C"\n  "D"\n  "E" if player_count >= 3\n' if case == "all_cards" else ""
    path = rules(tmp_path, deck + PLAYER_COUNT[case], "give", players="2..3")
    assert mismatch(path, monkeypatch, ["give"], shared=True) is None


# ---------------------------------------------------------------- given up

# A list of places (written out, built by a generator, or given back by a
# function) is walked with value(), which reads none of its places' cards;
# an index, top or bottom of it then names one of them, whose cards are
# read without the key holding them.
PLACE_LISTS = {
    "index": '''action take(i in 0..1) "take {i}":
  require not empty([deck, table][i]) and top([deck, table][i]).n > 2
  move top([deck, table][i]) to hand(me)
''',
    "generator_index": '''action take(c in [table for q in players][0]) "take {c}":
  move c to hand(me)
''',
    "top_of_list": '''action take(c in top([deck, table])) "take {c}":
  move c to hand(me)
''',
    "function_list": '''function piles() = [deck, table]
action take "take":
  require not empty(table) and top(piles()[1]).n > 2
  move top(table) to hand(me)
''',
    "concat_index": '''action take "take":
  require not empty(table) and top(([deck] + [table])[1]).n > 2
  move top(table) to hand(me)
''',
    "bottom_of_list": '''action take "take":
  require not empty(table) and bottom(bottom([table, deck])).n > 2
  move bottom(table) to hand(me)
''',
    "pile_parameter_in_list": '''function high(z: pile) = not empty(z) and top([z][0]).n > 2
action take "take":
  require high(table)
  move top(table) to hand(me)
''',
}


@pytest.mark.parametrize("case", sorted(PLACE_LISTS))
def test_one_place_out_of_a_list_of_places_is_given_up(case, tmp_path, monkeypatch):
    path = rules(tmp_path, PLACE_LISTS[case] + BACK, "take, back, draw")
    assert reads_of(load(path), "take") is None
    assert mismatch(path, monkeypatch) is None


# ---------------------------------------------------------------- cases that hold

HOLDS = {
    # zones named through a variable player, next(me), a player var by other seats
    "seat_zone": ('''var seat: player = 0
player var coins: int = 0
action steal(c in hand(seat)) "steal {c}":
  require c.n > size(hand(next(me))) and coins(seat) + coins(next(me)) < 6
  move c to hand(me)
  set coins(me) += 1
action draw "draw":
  require not empty(deck)
  move top(deck) to hand(me)
  set seat = next(seat)
''', "steal, draw", "2..4"),
    "players_param": ('''player var coins: int = 0
action earn(q in players) "earn {q}":
  require coins(q) < 2 and hand(q) != hand(me)
  set coins(q) += 1
action spend "spend":
  require coins(me) > 0
  set coins(me) -= 1
''', "earn, spend", "2..4"),
    "card_var_and_names": ('''var last: card = "A"
action take(c in deck) "take {c}":
  require c != last and c.n != last.n + 1 and ("B" in table or top(deck) != "C")
  set last = c
  move c to table
action put(c in table) "put {c}":
  move c to deck
''', "take, put", "2"),
    "set_var": ('''enum Col: Red, Blue
var cols: set of Col = {}
action add(x in Col) "add {x}":
  require x not in cols and (x == Red or Red in cols)
  if x == Red:
    set cols = cols | {Red}
  else:
    set cols = cols | {Blue}
action clear "clear":
  require cols != {}
  set cols = {}
''', "add, clear", "2"),
    "pile_parameters": ('''function sz(z: pile) = size(z)
function open(z: pile) = sz(z) > 0 and z != table
action take(z in [deck, table] + [hand(q) for q in players], i in 1..size(z)) "take {z} {i}":
  require open(z) and z != hand(me) and i <= 2
  move top(z) to hand(me)
''' + BACK, "take, back, draw", "2..3"),
    "lets_and_indexes": ('''var k: int = 0
action take(i in 0..3) "take {i}":
  let m = size(table) - 1
  require i <= m and table[m - i].n > k and (empty(hand(me)) or hand(me)[0] != table[i])
  move table[m - i] to hand(me)
  set k = (k + 1) % 3
''' + BACK, "take, back, draw", "2"),
    "stacks": ('''zone birds: stacks, per player, public
action grow(b in birds(me), c in hand(me)) "grow {b} {c}":
  move c to b
action hatch(c in hand(me)) "hatch {c}":
  require size(birds(me)) < 3
  move c to new stack in birds(me)
action fly(c in birds(me)[0]) "fly {c}":
  require size(birds(me)) > 1 and top(birds(me)[0]).n != 3
  move c to deck
action take "take":
  require not empty(deck)
  move top(deck) to hand(me)
''', "grow, hatch, fly, take", "2"),
    "copies_subsets": ('''action throw(cs in subsets of hand(me) sized 1..size(table) + 1) "throw {cs}":
  require sum(c.n for c in cs) > size(deck)
  move cs to table
action take "take":
  require not empty(deck)
  move top(deck) to hand(me)
''', "throw, take", "2"),
    "copies_without_card_vars": ('''action give(c in hand(me), q in players) "give {c} to {q}":
  require q != me and ("A" in table or c.n > 1)
  move c to hand(q)
action take "take":
  require not empty(deck)
  move top(deck) to hand(me)
''', "give, take", "2..3"),
    "copies_card_vars_elsewhere": ('''card var worn: int = 0
action wear(q in players) "wear {q}":
  require "A" in hand(q)
  set top([c for c in hand(q) if c == "A"]).worn += 1
action take "take":
  require not empty(deck)
  move top(deck) to hand(me)
''', "wear, take", "2"),
    "params_and_options": ('''option strict: bool = false
param lim: int in 1..5 = 2
action take "take":
  require not empty(deck) and (not strict or size(hand(me)) < lim)
  move top(deck) to hand(me)
action back(c in hand(me)) "back {c}":
  require c.n >= lim
  move c to table
action wait "wait":
  pass
''', "take, back, wait", "2"),
}
COPIES = CARDS + '  "A" 1 *2\n  "B" 2 *2\n'


@pytest.mark.parametrize("case", sorted(HOLDS))
def test_kept_listing_is_the_search(case, tmp_path, monkeypatch):
    body, choose, players = HOLDS[case]
    cards = COPIES if case.startswith("copies") else CARDS
    path = rules(tmp_path, body, choose, players, cards=cards)
    names = [n.strip() for n in choose.split(",")]
    params = {"strict": True, "lim": 3} if case == "params_and_options" else {}
    assert mismatch(path, monkeypatch, names, **params) is None


def test_what_is_given_up(tmp_path):
    """Copies told apart by a card var, a list variable, an enum variable
    (is_scalar: not one of SCALAR), a face, a cell: no kept listing."""
    path = rules(tmp_path, '''enum Col: Red, Blue
var mood: Col = Red
action moody "moody":
  require mood == Red
card var worn: int = 0
var order: list of player = [p for p in players]
zone yard: grid 3 by 2, per player, public
action wear(c in hand(me)) "wear {c}":
  set c.worn += 1
action pick(cs in subsets of hand(me) sized 1..1) "pick {cs}":
  pass
action ordered(q in order) "order {q}":
  pass
action look(c in yard(me)) "look {c}":
  require not c.face_down
action lay(c in hand(me), x in open_cells(yard(me))) "lay {c}":
  move c to yard(me) at x
''', "wear, pick, ordered, look, lay, moody", cards=COPIES)
    game = load(path)
    for a in ("wear", "pick", "ordered", "look", "lay", "moody"):
        assert reads_of(game, a) is None, a


GRID_ETC = '''zone yard: grid 3 by 2, per player, public
var laid: int = 0
action lay(c in hand(me), x in open_cells(yard(me))) "lay {c} at {x}":
  move c face down to yard(me) at x
action pick(c in yard(me)) "pick {c}":
  require c.n > size(hand(me)) + laid
  move c to hand(me)
action take "take":
  require not empty(deck)
  move top(deck) to hand(me)
action wait "wait":
  pass
action answer(c in hand(me)) "answer {c}":
  require empty(table) or c.n < top(table).n
  move c to table
when c enters table:
  set laid = (laid + 1) % 3
before every turn:
  if size(hand(me)) > 2:
    choose answer, wait
'''
GRID_FLOW = '''play:
  shuffle deck
  repeat 6 times:
    for p in players:
      turn p:
        if not empty(hand(me)) and size(yard(me)) < 6:
          choose lay, wait
        choose pick, take, wait
        turn next(p):
          choose answer, wait
    simultaneously for p in players if not empty(hand(p)):
      choose answer, wait
outcome(p):
  score 0
'''


def test_grids_triggers_turns_and_secret_choices(tmp_path, monkeypatch):
    """A grid's cards and size (face-down cards laid there), a trigger
    setting a variable the search reads, a choose in a `before every turn`,
    a nested turn of another player, a choice made in secret."""
    path = rules(tmp_path, GRID_ETC, "", players="2..3", flow=GRID_FLOW)
    game = load(path)
    assert reads_of(game, "lay") is None
    assert mismatch(path, monkeypatch, ["pick", "take", "wait", "answer"]) is None


FILES = sorted((ROOT / "games").glob("*.rules")) + sorted((ROOT / "games" / "variants").glob("*.rules")) \
    + sorted((ROOT / "examples").glob("*.rules")) + sorted((ROOT / "tests" / "fuzz_targets").glob("*.rules"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_games_with_nothing_kept_for_real(path, monkeypatch):
    """Every rules file at hand, kept against searched (MAX_KEPT = 0 while the searched game plays)."""
    game = load(path)
    if all(sa.action.reads is None for sa in game.new_state(0).m.site_actions):
        pytest.skip("nothing kept")
    assert mismatch(path, monkeypatch, seeds=4, steps=600) is None
