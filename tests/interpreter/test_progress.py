"""A while loop proven to make progress (interpreter.compiler.progress): no
position of its game comes back, so the fuzzer does not look for one.

Each proof is checked both ways: the loop is proven when every round moves
a card one way (and the proof is refused when a round may not), and a game
proven so never repeats a position in random play, on rules drawn by
Hypothesis as well as on the small games written here."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter import RuleError, load

HEAD = '''game "Loop"
players 2
cards:
  "A" * 2
  "B"
  "C"
zone pile: pile, public
zone hand: pile, per player, public
zone table: pile, public
zone discard_pile: pile, public
var flag: bool = false
'''


def _write(path, body: str) -> None:
    """A game of HEAD, ``body`` and an outcome, written at ``path``."""
    path.write_text(HEAD + body + "outcome(p):\n  score 0\n", encoding="utf-8")


def _unique(tmp_path, body: str, name="loop") -> bool:
    path = tmp_path / f"{name}.rules"
    _write(path, body)
    return load(path).machine.positions_unique


def _play(choices: str, zone: str = "pile") -> str:
    """A flow that puts every card in ``zone``, then gives player 1 turns
    choosing among ``choices`` while it holds cards."""
    return f"play:\n  move all_cards() to {zone}\n  while not empty({zone}):\n    turn 0:\n      choose {choices}\n"


DRAW = '''action draw "draw":
  move top(pile) to hand(me)
action lay(c in hand(me)) "lay {c}":
  move c to table
'''


def test_a_loop_that_draws_from_a_pile_nothing_refills_is_proven(tmp_path):
    assert _unique(tmp_path, DRAW + _play("draw"))
    # laying a card on the table, where nothing takes cards from, is progress too
    assert _unique(tmp_path, DRAW + _play("draw, lay"))


def test_a_deal_of_a_number_of_cards_written_out_is_progress(tmp_path):
    """A deal from a pile that holds fewer cards stops the game, so a deal
    of 1 or more moves a card; a deal of a parameter's number may move none."""
    rules = '''param draws: int in 0..2 = 1
action draw "draw":
  deal 1 from pile to hand(me)
''' + _play("draw")
    assert _unique(tmp_path, rules)
    assert not _unique(tmp_path, rules.replace("deal 1 from", "deal draws from"), "draws")
    assert not _unique(tmp_path, rules.replace("deal 1 from", "deal 0 from"), "none")


def test_a_round_that_may_put_the_cards_back_is_not_proven(tmp_path):
    back = DRAW + '''action give(c in hand(me)) "give {c}":
  move c to pile
''' + _play("draw, give")
    assert not _unique(tmp_path, back)
    # the same through a trigger that refills the pile when a card reaches the table
    refill = DRAW + '''when c enters table:
  move c to pile
''' + _play("draw, lay")
    assert not _unique(tmp_path, refill, "refill")


SWAP = '''action lay(c in hand(me)) "lay {c}":
  set flag = true
  move c to discard_pile
action take_back "take the top discard":
  require not flag
  move top(discard_pile) to hand(me)
action draw "draw":
  move top(pile) to hand(me)
'''


def test_a_require_on_a_flag_set_earlier_in_the_round_is_followed(tmp_path):
    """Laying a card, then taking it back, would leave the cards as they
    were; the require on the flag that laying sets rules that round out, so
    every round draws (Emu Ranchers's turn)."""
    play = '''play:
  move all_cards() to pile
  deal 2 from pile to hand(0)
  while not empty(pile):
    turn 0:
      set flag = false
      choose lay
      choose draw, take_back
'''
    assert _unique(tmp_path, SWAP + play)
    # a flag set to a value not known here: no proof
    unknown = SWAP.replace("  set flag = true\n", "  set flag = size(table) > 0\n")
    assert unknown != SWAP and not _unique(tmp_path, unknown + play, "unknown")
    # nor when a trigger may set the flag too
    trigger = 'when c enters hand(p):\n  set flag = false\n'
    assert not _unique(tmp_path, SWAP + trigger + play, "trigger")
    # nor without the require: lay, then take back, is a round with no progress
    assert not _unique(tmp_path, SWAP.replace("  require not flag\n", "") + play, "no_require")


def test_a_round_that_leaves_the_loop_needs_no_progress(tmp_path):
    """Stopping sets the flag that the loop's condition reads: that way
    leaves the loop, and every way that stays in it lays a card (Emu
    Ranchers's year end)."""
    rules = '''action lay(c in hand(me)) "lay {c}":
  move c to table
action stop "stop":
  set flag = false
play:
  move all_cards() to hand(0)
  set flag = true
  while flag and not empty(hand(0)):
    turn 0:
      choose lay, stop
'''
    assert _unique(tmp_path, rules)
    assert not _unique(tmp_path, rules.replace("  set flag = false\n", "  pass\n"), "stays")


def test_progress_must_be_certain(tmp_path):
    """A move counts only when it surely moves one card to a lighter zone."""
    cases = {
        # a card named: where it is, is not known here
        "named": '  move "B" to table\n',
        # a parameter's card after another move (a trigger could have moved it)
        "later": '  move top(discard_pile) to discard_pile\n  move c to table\n',
        # inside a loop that may run no round
        "looped": '  for p in players:\n    move c to table\n',
        # inside an if whose condition is not known
        "iffed": '  if size(table) > 1:\n    move c to table\n',
    }
    for name, effect in cases.items():
        rules = f'''action lay(c in hand(me)) "lay":
{effect}action wait "wait":
  pass
''' + _play("lay", "hand(0)")
        assert not _unique(tmp_path, rules, name), name
    # the same loop with the plain move is proven (so each case above is refused for its reason)
    assert _unique(tmp_path, '''action lay(c in hand(me)) "lay":
  move c to table
''' + _play("lay", "hand(0)"), "plain")


def test_a_parameter_s_card_is_where_it_was_chosen_only_until_something_moves(tmp_path):
    """Its second move starts from wherever the first put it: here back to
    the pile, which is then a zone cards enter as well as leave."""
    rules = '''action take(c in pile) "take {c}":
  move c to hand(me)
  move c to pile
action lay(c in hand(me)) "lay {c}":
  move c to table
''' + _play("take, lay")
    assert not _unique(tmp_path, rules)
    assert _unique(tmp_path, rules.replace("  move c to pile\n", ""), "once")


def test_a_loop_inside_the_round_counts_when_it_surely_runs(tmp_path):
    """Every player's turn in a round: the first turn draws, so the round
    does; a loop that may run no round counts for nothing."""
    rules = DRAW + '''param rounds: int in 0..3 = 1
play:
  move all_cards() to pile
  while not empty(pile):
    for p in players:
      turn 0:
        choose draw
'''
    assert _unique(tmp_path, rules)
    assert _unique(tmp_path, rules.replace("for p in players:", "repeat 2 times:"), "twice")
    assert not _unique(tmp_path, rules.replace("for p in players:", "repeat rounds times:"), "rounds")
    assert not _unique(tmp_path, rules.replace("for p in players:", "for p in [q for q in players if q != 0]:"),
                       "some")


def test_a_parameter_over_a_list_of_a_zone_s_cards_is_in_that_zone(tmp_path):
    """A list made of a zone's cards (with a filter) is that zone's, for the
    proof; a list moved as a whole comes from a place it does not know."""
    rules = '''action lay(c in [x for x in hand(me) if x != "B"]) "lay {c}":
  move c to table
''' + _play("lay", "hand(0)")
    assert _unique(tmp_path, rules)
    # the same list from a function: not looked into
    called = "function mine() = [x for x in hand(0) if x != \"B\"]\n" + rules.replace(
        "c in [x for x in hand(me) if x != \"B\"]", "c in mine()")
    assert not _unique(tmp_path, called, "called")
    # a list moved back to the hand, from a place the proof does not know: the hand fills again
    moved = rules.replace("      choose lay\n", "      choose lay\n      move [x for x in table] to hand(0)\n")
    assert moved != rules and not _unique(tmp_path, moved, "moved")
    assert _unique(tmp_path, moved.replace("to hand(0)", "to discard_pile"), "elsewhere")


def test_where_a_secret_choice_s_card_lies_is_never_known(tmp_path):
    """The choices of a round made in secret are carried out one after
    another: another player's may have moved the card first."""
    rules = '''action take(c in pile) "take {c}":
  move c to table
action back(c in pile) "back {c}":
  move c to pile
action draw "draw":
  move top(pile) to hand(me)
play:
  move all_cards() to pile
  while not empty(pile):
    turn 0:
      choose draw
    simultaneously for p in players:
      choose take, back
'''
    assert not _unique(tmp_path, rules)
    # the same actions chosen in turn: each card is where it was chosen from
    assert _unique(tmp_path, rules.replace("    simultaneously for p in players:\n      choose take, back\n",
                                           "    turn 1:\n      choose take\n"), "in_turn")


def test_the_proof_gives_up_past_its_budget(tmp_path):
    """Actions that each set many flags to values not known, each choosing
    the next: the ways through a round multiply, and the proof stops (no
    proof) instead of following them all."""
    flags = 9
    lines = ["var n: int = 0"] + [f"var f{i}_{j}: bool = false" for i in range(3) for j in range(flags)]
    for i in range(3):
        lines.append(f'action a{i} "a{i}":')
        for j in range(flags):
            lines += ["  if n == 0:", f"    set f{i}_{j} = true", "  else:", f"    set f{i}_{j} = false"]
        if i < 2:
            lines.append(f"  choose a{i + 1}")
        lines += ["  if " + " and ".join(f"f{i}_{j}" for j in range(flags)) + ":", "    pass", "  else:",
                  "    end game"]
    lines += ["play:", "  move all_cards() to pile", "  while not empty(pile):", "    turn 0:",
              "      choose a0", "      move top(pile) to table"]
    assert not _unique(tmp_path, "\n".join(lines) + "\n")


def test_ways_that_made_progress_are_followed_as_one(tmp_path):
    """Nothing after a way's progress changes its verdict: however many
    ways there were before it (here 2**6, one for each set of flags), one
    is left, so a long round after it is followed once."""
    from rulelang import load_checked
    from rulelang.ast import While
    from interpreter.compiler.progress import _DONE, _Proof
    from interpreter.compiler.tree import all_blocks

    flags = "".join(f"    if size(table) == {j}:\n      set flag = true\n    else:\n      set flag = false\n"
                    f"    set f{j} = flag\n" for j in range(6))
    text = "".join(f"var f{j}: bool = false\n" for j in range(6)) + (
        "play:\n  move all_cards() to pile\n  while not empty(pile):\n" + flags
        + "    move top(pile) to table\n" + "    pass\n" * 50)
    assert _unique(tmp_path, text)
    g = load_checked(tmp_path / "loop.rules")
    loop = next(st for b in all_blocks(g.play) for st in b if isinstance(st, While))
    proof = _Proof(g, loop)
    assert proof.holds()
    assert proof.block(loop.body, [({}, False, frozenset())]) == [_DONE]


def test_every_while_loop_must_be_proven(tmp_path):
    rules = DRAW + '''action wait "wait":
  pass
play:
  move all_cards() to pile
  while not empty(pile):
    turn 0:
      choose draw
  while not empty(hand(0)):
    turn 0:
      choose lay, wait
'''
    assert not _unique(tmp_path, rules)
    assert _unique(tmp_path, rules.replace("choose lay, wait", "choose lay"), "both")


# ---------------------------------------------------------------- drawn rules
ZONES = ["pile", "hand(me)", "table", "discard_pile"]
ACTIONS = ["a0", "a1", "a2"]


@st.composite
def rules(draw) -> str:
    """A small game: a while loop over turns choosing among a few actions,
    each moving cards between four zones, maybe setting or requiring a flag;
    maybe a trigger; the turn maybe inside a loop."""
    out = []
    for name in ACTIONS:
        lines = []
        param = draw(st.booleans())
        if param:
            home = draw(st.sampled_from(ZONES))
            head = f'action {name}(c in {home}) "{name} {{c}}":'
        else:
            head = f'action {name} "{name}":'
        if draw(st.booleans()):
            lines.append(f"  require {draw(st.sampled_from(['flag', 'not flag']))}")
        for _ in range(draw(st.integers(0, 2))):
            kind = draw(st.sampled_from(["move", "top", "set", "deal"]))
            dest = draw(st.sampled_from(ZONES))
            if kind == "move" and param:
                lines.append(f"  move c to {dest}")
            elif kind in ("move", "top"):
                lines.append(f"  move top({draw(st.sampled_from(ZONES))}) to {dest}")
            elif kind == "deal":
                lines.append(f"  deal 1 from {draw(st.sampled_from(ZONES))} to {dest}")
            else:
                lines.append(f"  set flag = {draw(st.sampled_from(['true', 'false']))}")
        out.append("\n".join([head] + (lines or ["  pass"])))
    if draw(st.booleans()):
        src, dst = draw(st.sampled_from(ZONES[1:])), draw(st.sampled_from(["pile", "table", "discard_pile"]))
        zone = "hand(p)" if src == "hand(me)" else src
        effect = draw(st.sampled_from([f"move x to {dst}", "set flag = true", "set flag = false"]))
        out.append(f"when x enters {zone}:\n  {effect}")
    cond = draw(st.sampled_from(["not empty(pile)", "true", "flag", "not empty(hand(0))"]))
    reset = draw(st.sampled_from(["", "      set flag = false\n", "      set flag = true\n"]))
    first, second = draw(st.sampled_from([["a0"], ["a0", "a1"], ["a0", "a1", "a2"]])), draw(
        st.sampled_from([[], ["a2"], ["a1", "a2"]]))
    turn = f"    turn 0:\n{reset}      choose {', '.join(first)}\n"
    if second:
        turn += f"      choose {', '.join(second)}\n"
    loop = draw(st.sampled_from(["", "for p in players:", "repeat 2 times:", "repeat 0 times:"]))
    if loop:  # the turn inside a loop of the round
        turn = f"    {loop}\n" + "".join(f"  {line}\n" for line in turn.splitlines())
    play = f"play:\n  move all_cards() to pile\n  deal 2 from pile to hand(0)\n  set flag = true\n  while {cond}:\n{turn}"
    return "\n".join(out) + "\n" + play


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules(), st.integers(0, 2**16))
def test_a_game_proven_to_make_progress_never_repeats_a_position(text, seed):
    """Soundness: whenever the proof holds, random play meets no position
    twice (the state's key: every card's place, the variables and where the
    flow stands)."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "drawn.rules"
        _write(path, text)
        game = load(path)
    if not game.machine.positions_unique:
        return
    rnd = random.Random(seed)
    for game_seed in range(3):
        state = game.new_state(game_seed, 2)
        seen = set()
        for _ in range(200):
            if state.is_terminal:
                break
            key = state.key()
            assert key not in seen, text
            seen.add(key)
            try:
                legal = state.legal_actions()
            except RuleError:
                break
            if not legal:
                break
            try:
                state.apply(legal[rnd.randrange(len(legal))])
            except RuleError:  # (the top of an empty pile)
                break
