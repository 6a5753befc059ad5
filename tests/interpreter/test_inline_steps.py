"""Steps the generated code writes inline must do what the runtime's own
functions do:

- a move of one card (``effects.one_card_source``), of a list of cards
  (``effects.list_source``), of a whole pile, stack or row of stacks
  (``effects.whole_source``), each also a closure for the VM: the cards go
  to the same place, in the same order, with the same knowledge of them
  (who saw them land, whether they lie face down), for every kind of
  destination: the top or bottom of a pile, the top or bottom of a stack,
  a new stack, face up or face down; from a pile or from a stack (which
  goes away when its last card leaves);
- the forgetting after a card chosen by name from a place others cannot
  see (``flowgen.forget_source``, against ``Machine.forget_unseen``)."""

import random
import re
from pathlib import Path

import pytest

from interpreter import load
from interpreter.compiler import effects, flowgen
from interpreter.runtime import RuleError

ROOT = Path(__file__).resolve().parents[2]

MOVES = '''game "Moves"
players 2
card attributes: n: int
cards:
  "A" 1
  "B" 2
  "C" 3
  "D" 4
  "E" 5
  "F" 6
  "G" 7
  "H" 8
  "I" 9
  "J" 10
zone deck: pile, hidden
zone hand: pile, per player, owner
zone row: stacks, per player, public
zone pot: pile, public
zone under: pile, public
player var caught: int = 0
action pile_on(c in hand(me), b in row(me)) "pile {c} on {b}":
  move c to b
action slip(c in hand(me), b in row(me)) "slip {c} under {b}":
  move c to bottom of b
action start(c in hand(me)) "start a stack with {c}":
  move c to new stack in row(me)
action sink(c in hand(me)) "sink {c}":
  move c to bottom of under
action pull(b in row(me)) "pull from {b}":
  move b[size(b) - 1] to hand(me)
action hop(b in row(me)) "hop from {b}":
  move b[0] to under
action bury(c in hand(me)) "bury {c}":
  move c face down to pot
action hide(c in hand(me), b in row(me)) "hide {c} in {b}":
  move c face down to b
action lift "lift":
  require size(pot) > 0
  move pot[size(pot) - 1] to hand(me)
action draw "draw":
  require size(deck) > 0
  move deck[size(deck) - 1] to hand(me)
action spread(b in row(me)) "spread onto {b}":
  require size(deck) > 0
  deal 1 from deck to b
action refill "refill":
  require size(deck) > 1
  deal 2 from deck to under
action dump(c in hand(me)) "dump from {c} up":
  move [x for x in hand(me) if x.n >= c.n] to under
action tuck(c in hand(me)) "tuck from {c} down":
  move [x for x in hand(me) if x.n <= c.n] to bottom of under
action found(c in hand(me)) "found a stack from {c} up":
  move [x for x in hand(me) if x.n >= c.n] to new stack in row(me)
action heap(cs in subsets of hand(me) sized 1..2, b in row(me)) "heap {cs} on {b}":
  move cs to b
action wedge(cs in subsets of hand(me) sized 1..2, b in row(me)) "wedge {cs} under {b}":
  move cs to bottom of b
action stash(cs in subsets of hand(me) sized 1..2) "stash {cs}":
  move cs face down to pot
action sweep(b in row(me)) "sweep {b}":
  move [x for x in b if x.n > 3] to hand(me)
action unload "unload your hand under":
  require size(hand(me)) > 0
  move hand(me) to bottom of under
action gather(b in row(me)) "gather under onto {b}":
  move under to b
action raise "raise a stack from under":
  move under to new stack in row(me)
action cover "cover the pot with your hand":
  move hand(me) face down to pot
action scrap(b in row(me)) "scrap {b}":
  move b to bottom of under
action shift(b in row(me)) "shift {b} to a new stack":
  move b to new stack in row(me)
action clear "clear your row":
  require size(row(me)) > 1
  move row(me) to under
action wait "wait":
  pass
when c enters hand(p):
  set caught(p) = caught(p) + c.n
setup:
  shuffle deck
  for p in players:
    deal 3 from deck to hand(p)
play:
  repeat 30 times:
    for p in players:
      turn p:
        choose pile_on, slip, start, sink, pull, hop, bury, hide, lift, draw, spread, refill, dump, tuck, found, heap, wedge, stash, sweep, unload, gather, raise, cover, scrap, shift, clear, wait
outcome(p):
  score size(hand(p)) * 100 + caught(p)
'''
# the same game where no card is ever laid face down (no face flag is kept)
FACE_UP = MOVES.replace("move c face down to", "move c to").replace("move cs face down to", "move cs to") \
    .replace("move hand(me) face down to", "move hand(me) to")


def playout(game, seed):
    """Each step's legal actions, where every card lies, who knows it and
    whether it lies face down, over one random game."""
    state = game.new_state(seed)
    rnd = random.Random(seed)
    seen = []
    while not state.is_terminal:
        legal = state.legal_actions()
        seen.append((legal, repr(state.Z), state.loc[:], state.K[:], state.F[:]))
        state.apply(legal[rnd.randrange(len(legal))])
    seen.append((repr(state.Z), state.loc[:], state.K[:], state.F[:], state.scores()))
    return seen


def closures_only(monkeypatch):
    """Moves are called as closures, never written inline."""
    monkeypatch.setattr(effects, "with_source", lambda f, exprs, lines, span: f)


@pytest.mark.parametrize("text", [MOVES, FACE_UP], ids=["face-down-kept", "face-up-only"])
def test_a_move_written_inline_does_what_its_closure_does(tmp_path, monkeypatch, text):
    path = tmp_path / "moves.rules"
    path.write_text(text, encoding="utf-8")
    inline = load(path)
    with monkeypatch.context() as m:
        closures_only(m)
        called = load(path)
    kinds = set()
    for seed in range(12):
        ours = playout(inline, seed)
        assert ours == playout(called, seed)
        kinds.update(a[0] for legal, *_ in ours[:-1] for a in legal)
    source = inline.generated_source()
    assert "_t.insert(0, _c)" in source and "append([_c])" in source  # stack bottom, new stack
    assert "st.Z[_d].insert(0, _c)" in source  # pile bottom
    # a list of cards: to the top and bottom of a pile or stack, a new stack; taken from stacks too
    assert {"_t.extend(_cs)", "_t[0:0] = _cs", "st.Z[_d].append(_cs.copy())", "_d >>= "} <= set(re.findall(
        r"_t\.extend\(_cs\)|_t\[0:0\] = _cs|st\.Z\[_d\]\.append\(_cs\.copy\(\)\)|_d >>= ", source))
    assert re.search(r"for _c in _cs:\n +_i = st\.loc\[_c\]\n +if _i in _k\d+:", source)
    assert ("st.F[_c] = True" in source) == (text is MOVES)
    assert "for _ in range(_k):" in source  # a deal
    assert "insert(0, _c)" not in called.generated_source() and "range(_k)" not in called.generated_source()
    assert "_cs" not in called.generated_source()
    # a whole pile (but the one put on a stack, which may be a hand's trigger: see below)
    assert len(re.findall(r"_cs = st\.Z\[_i\]\n +st\.Z\[_i\] = \[\]", source)) == 3
    # a card that may enter a hand (to a hand, or to a stack the compiler does not place) fires a
    # trigger: its move notes it, written in too (pile_on, slip, hide, pull, lift, draw)
    assert len(set(re.findall(r"L\[(\d+)\] = \(_c,\) if st\.loc\[_c\] != _i else \(\)", source))) == 6
    assert "!= _i else ()" not in called.generated_source()
    # a stack, and a row of stacks
    assert re.search(r"_cs = st\.Z\[_i >> \d+\]\.pop\(_i & \d+\)", source)
    assert "_cs = [_c for _s in st.Z[_i] for _c in _s]" in source
    assert len(kinds) == 27  # every action was offered somewhere


@pytest.mark.parametrize("name", ["desplumados", "fox_in_the_henhouse", "hens", "emu_ranchers"])
def test_the_games_play_the_same_with_moves_and_deals_inline_or_called(monkeypatch, name):
    # ¡Desplumados! deals card by card under a trigger (the moon), Fox deals plainly
    path = ROOT / "games" / f"{name}.rules"
    inline = load(path)
    with monkeypatch.context() as m:
        closures_only(m)
        called = load(path)
    for seed in range(3):
        for players in sorted({inline.min_players, inline.max_players}):
            a, b = inline.new_state(seed, players), called.new_state(seed, players)
            rnd = random.Random(seed)
            while not a.is_terminal:
                legal = a.legal_actions()
                assert legal == b.legal_actions()
                assert (a.Z, a.loc, a.K, a.F) == (b.Z, b.loc, b.K, b.F)
                action = legal[rnd.randrange(len(legal))]
                a.apply(action)
                b.apply(action)
            assert b.is_terminal and a.scores() == b.scores()
    assert "_t.append(_c)" in inline.generated_source()  # a deal written inline
    assert "_t.append(_c)" not in called.generated_source()  # (no deal, nor move to a stack)
    if name == "desplumados":  # a deal card by card counts its cards in a slot set inline, called or not
        for game in (inline, called):
            assert re.search(r"\n +L\[\d+\] = max\(0, \(4 - len\(st\.Z\[", game.generated_source())


def test_a_move_that_fails_names_its_line_inline_too(tmp_path):
    text = MOVES.replace("  move b[0] to under\n", "  move b[size(b)] to under\n")
    path = tmp_path / "moves.rules"
    path.write_text(text, encoding="utf-8")
    game = load(path)
    line = text.splitlines().index("  move b[size(b)] to under") + 1
    for seed in range(20):
        state = game.new_state(seed)
        while not state.is_terminal:
            hops = [a for a in state.legal_actions() if state.action_text(a).startswith("hop")]
            if hops:
                with pytest.raises(Exception) as info:
                    state.apply(hops[0])
                assert info.value.span.line == line
                return
            state.apply(state.legal_actions()[-1] if seed % 2 else state.legal_actions()[0])
    raise AssertionError("no game offered a hop")


def test_a_deal_past_the_pile_s_end_names_its_line_inline_too(tmp_path):
    text = MOVES.replace("  deal 2 from deck to under\n", "  deal 20 from deck to under\n")
    path = tmp_path / "moves.rules"
    path.write_text(text, encoding="utf-8")
    state = load(path).new_state(0)
    line = text.splitlines().index("  deal 20 from deck to under") + 1
    with pytest.raises(RuleError) as info:
        state.apply_text("refill")
    assert info.value.span.line == line and "cannot deal 20 cards from a pile of 4" in info.value.message


def forget_by_call(monkeypatch):
    """Steps call Machine.forget_unseen instead of writing it inline."""
    monkeypatch.setattr(flowgen, "forget_source",
                        lambda m, ns, c, z, b: [f"{ns.ref(m)}.forget_unseen(st, {c}, {z}, {b})"])


@pytest.mark.parametrize("name", ["moves", "fox_in_the_henhouse", "hens", "emu_ranchers", "desplumados"])
def test_forgetting_written_inline_forgets_what_the_machine_forgets(tmp_path, monkeypatch, name):
    if name == "moves":
        path = tmp_path / "moves.rules"
        path.write_text(MOVES, encoding="utf-8")
    else:
        path = ROOT / "games" / f"{name}.rules"
    inline = load(path)
    with monkeypatch.context() as m:
        forget_by_call(m)
        called = load(path)
    players = inline.max_players
    forgot = 0
    for seed in range(4):
        a, b = inline.new_state(seed, players), called.new_state(seed, players)
        rnd = random.Random(seed)
        while not a.is_terminal:
            legal = a.legal_actions()
            assert legal == b.legal_actions()
            action = legal[rnd.randrange(len(legal))]
            before = sum(map(int.bit_count, a.K))
            a.apply(action)
            b.apply(action)
            assert a.K == b.K and a.loc == b.loc
            forgot += before > sum(map(int.bit_count, a.K))
    # some step made someone forget (in ¡Desplumados! a card chosen from a hand always lands in sight)
    assert forgot or name == "desplumados"


@pytest.mark.parametrize("inline", [True, False], ids=["inline", "by-call"])
def test_a_card_seen_by_all_then_buried_from_a_hand_is_forgotten(tmp_path, monkeypatch, inline):
    # P1 lifts C from the public pot (both saw it), then buries it face down from their
    # hand: P2 no longer knows which card lies there, nor any card left in P1's hand
    # (C could have been any of them); P1 remembers all
    path = tmp_path / "moves.rules"
    path.write_text(MOVES, encoding="utf-8")
    if not inline:
        forget_by_call(monkeypatch)
    state = load(path).new_state(0)
    state.put(["A", "B"], "hand", 0)
    state.put(["D"], "hand", 1)
    state.put(["C"], "pot")
    c = state.m.card_ids("C")[0]
    assert state.knows(1, c)
    state.apply_text("lift")
    assert state.knows(1, c)  # P2 saw it go into P1's hand
    state.apply_text("wait")
    state.apply_text("bury C")
    assert not state.knows(1, c)
    assert not any(state.knows(1, x) for x in state.m.card_ids("A") + state.m.card_ids("B"))
    assert all(state.knows(0, x) for name in "ABC" for x in state.m.card_ids(name))


@pytest.mark.parametrize("inline", [True, False], ids=["written-inline", "called"])
def test_a_clone_and_its_original_keep_their_own_face_down_flags(tmp_path, monkeypatch, inline):
    # a clone shares its original's flags until either writes one (State.clone): a card laid
    # face down, or lifted face up again, by a move or a deal written inline or called,
    # changes the flag of the state that played it, never of the other
    path = tmp_path / "moves.rules"
    path.write_text(MOVES, encoding="utf-8")
    with monkeypatch.context() as m:
        if not inline:
            closures_only(m)
        game = load(path)
    flipped = 0
    for seed in range(6):
        state = game.new_state(seed)
        rnd = random.Random(seed)
        while not state.is_terminal:
            legal = state.legal_actions()
            before = state.F[:]
            twin = state.clone()
            a = legal[rnd.randrange(len(legal))]
            twin.apply(a)
            assert state.F == before
            flipped += twin.F != before
            replay = game.new_state(seed)
            for x in state.history + [a]:
                replay.apply(x)
            assert twin.F == replay.F
            state.apply(legal[rnd.randrange(len(legal))])
    assert flipped > 20


def play_every_action(game, seed, players):
    """At each position of one random game: every legal action played on a
    clone, each giving where the cards then lie, who knows them, their
    faces and the slots (or the rule error it met, with its line); then the
    game goes on by a random action that met none."""
    state, rnd, seen = game.new_state(seed, players), random.Random(seed), []
    while not state.is_terminal:
        legal = state.legal_actions()
        fine = []
        for action in legal:
            after = state.clone()
            try:
                after.apply(action)
            except RuleError as err:
                seen.append((action, err.message, err.span.line if err.span else None))
                continue
            seen.append((action, repr(after.Z), after.loc[:], after.K[:], after.F[:], after.L[:]))
            fine.append(action)
        if not fine:
            break
        state.apply(fine[rnd.randrange(len(fine))])
    return seen


@pytest.mark.parametrize("knowledge", [True, False], ids=["knowledge", "no-knowledge"])
@pytest.mark.parametrize("name", ["moves_odd", "moves_dest"])
def test_moves_at_their_edges_do_inline_what_their_closures_do(monkeypatch, name, knowledge):
    """A list with a card twice (an error, at the same line), a pile or a
    list moved onto itself, an empty list or pile, a stack moved whole onto
    itself or a new stack, and destinations worked out after the cards are
    taken (the last stack of the row, the stack a card lies in, a seat that
    depends on the hand just emptied): each action, from every position,
    leaves the same state or meets the same error, written in or called,
    with or without the record of who knows which card."""
    path = Path(__file__).parent / f"{name}.rules"
    inline = load(path, knowledge=knowledge)
    with monkeypatch.context() as m:
        closures_only(m)
        called = load(path, knowledge=knowledge)
    errors = 0
    for seed in range(6):
        for players in sorted({inline.min_players, inline.max_players}):
            ours = play_every_action(inline, seed, players)
            assert ours == play_every_action(called, seed, players)
            errors += sum(len(step) == 3 for step in ours)
    assert errors  # (a card twice in one list is not there the second time; the last stack of an empty row)
    assert "_cs" in inline.generated_source() and "_cs" not in called.generated_source()
