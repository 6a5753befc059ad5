"""The new syntax, parsed and checked: triggers, ``end game with winners``,
``random`` lets and random orders, set choices, ``always invariant``, the
game's record (record vars, achievements, ``is_winner``) and ``me`` outside
a turn.

Each case is a small rules file written here; diagnostics are asserted by
code and line (the line found from a needle in the text), never by prose,
except where the brief of a message is the feature (RL001 after ``random``).
"""

from __future__ import annotations

import pytest

from rulelang import ast as A
from rulelang import check, parse

BASE = '''game "t"
players 2
cards:
  "A" *3
  "B" *2
zone deck: pile, hidden
zone pot: pile, public
zone hand: pile, per player, owner
zone row: stacks, public
var n: int = 0
var order: list of player = [p for p in players if false]
var nums: list of int = [1 for p in players if false]
player var pts: int = 0
{decls}
action go "go":
  pass
setup:
  {setup}
play:
  turn 0:
    {turn}
    choose go
outcome(p):
  score pts(p)
'''


def rules(decls: str = "", setup: str = "pass", turn: str = "pass") -> str:
    return BASE.format(decls=decls, setup=setup, turn=turn)


def diagnose(text: str):
    module, diags = parse(text, "t.rules")
    if module is None:
        return diags
    _, diags = check(module)
    return diags


def errors(text: str) -> list:
    """[(code, line)] of the errors, in order."""
    return [(d.code, d.span.line) for d in diagnose(text) if d.severity == "error"]


def line_of(text: str, needle: str) -> int:
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(hits) == 1, f"{needle!r} is on lines {hits}"
    return hits[0]


def assert_error(text: str, code: str, needle: str):
    """Exactly one error: ``code`` on the line holding ``needle``."""
    assert errors(text) == [(code, line_of(text, needle))], "\n".join(
        d.render(text) for d in diagnose(text))


def assert_clean(text: str):
    errs = [d for d in diagnose(text) if d.severity == "error"]
    assert not errs, "\n".join(d.render(text) for d in errs)


def module_of(text: str):
    module, diags = parse(text, "t.rules")
    assert module is not None, diags
    return module


def items(text: str, cls) -> list:
    return [i for i in module_of(text).items if isinstance(i, cls)]


def test_base_file_is_clean():
    assert diagnose(rules()) == []


# ================================================================ triggers
def test_triggers_parse_to_their_events():
    text = rules(decls='when "A" enters hand(p):\n  set pts(p) += 1\n'
                       'when c enters pot if n > 0:\n  set n -= 1\n'
                       'when c enter pot:\n  pass\n'
                       'after every action:\n  set n += 1\n'
                       'before every turn:\n  set n += 2')
    ts = items(text, A.Trigger)
    assert [t.event for t in ts] == ["enter", "enter", "enter", "action", "turn"]
    a, b, c = ts[:3]
    assert (a.card.value, a.var, a.zone, a.owner, a.cond) == ("A", None, "hand", "p", None)
    assert (b.card, b.var, b.zone, b.owner) == (None, "c", "pot", None)
    assert isinstance(b.cond, A.BinOp)
    assert (c.var, c.zone) == ("c", "pot")  # "enter" is accepted as well as "enters"
    assert ts[3].zone is None and ts[4].zone is None
    assert_clean(text)


def test_trigger_binds_the_card_and_the_owner():
    # c is a card and p a player inside the trigger, in its condition too
    assert_clean(rules(decls='when c enters hand(p) if c == "A" and p == 0:\n  move c to pot\n  set pts(p) += 1'))
    # shared zone without (p)
    assert_clean(rules(decls='when c enters pot:\n  move c to hand(0)'))
    # p is a player, not an int
    text = rules(decls='when c enters hand(p):\n  set n = p')
    assert_error(text, "RL103", "set n = p")


def test_trigger_names_do_not_leak():
    text = rules(decls='when c enters pot:\n  pass', turn="move c to pot")
    assert_error(text, "RL101", "move c to pot")
    # a named card's trigger binds no card var
    text = rules(decls='when "A" enters pot:\n  set n = c')
    assert_error(text, "RL101", "set n = c")
    # an after-action trigger binds nothing
    text = rules(decls='after every action:\n  move c to pot')
    assert_error(text, "RL101", "move c to pot")


def test_trigger_card_var_may_not_shadow_a_global():
    text = rules(decls='when n enters pot:\n  pass')
    assert_error(text, "RL102", "when n enters pot")
    text = rules(decls='when c enters hand(players):\n  pass')
    assert_error(text, "RL102", "when c enters hand(players)")


def test_trigger_unknown_zone_is_rl101():
    text = rules(decls='when c enters nowhere:\n  pass')
    assert_error(text, "RL101", "enters nowhere")


def test_trigger_unknown_card_name_is_rl101():
    text = rules(decls='when "Zebra" enters pot:\n  pass')
    assert_error(text, "RL101", '"Zebra"')


def test_trigger_owner_on_a_shared_zone_is_rl104():
    text = rules(decls='when c enters pot(p):\n  pass')
    assert_error(text, "RL104", "enters pot(p)")


def test_trigger_on_a_stacks_zone_is_rl103():
    text = rules(decls='when c enters row:\n  pass')
    assert_error(text, "RL103", "enters row")


def test_trigger_condition_must_be_bool():
    text = rules(decls='when c enters pot if 3:\n  pass')
    assert_error(text, "RL103", "if 3")


@pytest.mark.parametrize("head", ["when c enters pot:", "after every action:", "before every turn:"])
def test_while_in_a_trigger_is_rl109(head):
    text = rules(decls=f'{head}\n  while n < 3:\n    set n += 1')
    assert_error(text, "RL109", "while n < 3")


@pytest.mark.parametrize("head", ["when c enters pot:", "after every action:", "before every turn:"])
def test_turn_in_a_trigger_is_rl109(head):
    text = rules(decls=f'{head}\n  turn 1:\n    set n += 1')
    assert_error(text, "RL109", "turn 1:")


@pytest.mark.parametrize("head", ["when c enters pot:", "after every action:", "before every turn:"])
def test_require_in_a_trigger_is_rl109(head):
    text = rules(decls=f'{head}\n  require n > 0')
    assert_error(text, "RL109", "require n > 0")


def test_while_nested_in_an_if_of_a_trigger_is_rl109():
    text = rules(decls='when c enters pot:\n  if n > 0:\n    while n < 3:\n      set n += 1')
    assert_error(text, "RL109", "while n < 3")


# ================================================================ end game with winners
def end_games(body) -> list:
    """The end-game statements of a block, nested ones included, in order."""
    out = []
    for st in body:
        if isinstance(st, A.EndGame):
            out.append(st)
        for _, b in getattr(st, "branches", ()):
            out += end_games(b)
        for attr in ("body", "else_body"):
            out += end_games(getattr(st, attr, None) or ())
    return out


def test_end_game_with_winners_parses():
    text = rules(turn="if n > 5:\n      end game with winners [p for p in players if pts(p) > 0]\n"
                      "    if n > 6:\n      end game with winner next(0)\n"
                      "    if n > 7:\n      end game with winners players\n"
                      "    if n > 8:\n      end game")
    assert_clean(text)
    (play,) = items(text, A.Play)
    ends = end_games(play.body)
    assert len(ends) == 4
    assert isinstance(ends[0].winners, A.ListComp)
    assert isinstance(ends[1].winners, A.Call)
    assert isinstance(ends[2].winners, A.Name)
    assert ends[3].winners is None


@pytest.mark.parametrize("expr", ["true", "n", "nums", '"A"', "hand(0)", "[1 for p in players]"])
def test_end_game_winners_must_be_players(expr):
    text = rules(turn=f"if n > 5:\n      end game with winners {expr}")
    assert_error(text, "RL103", "end game with winners")


def test_end_game_with_winners_in_a_trigger_and_an_action():
    assert_clean(rules(decls='when c enters hand(p):\n  end game with winner p\n'
                             'action win "win":\n  end game with winners [p for p in players if p != me]'))


# ================================================================ random
def test_random_statements_parse():
    text = rules(turn="let x = random players\n"
                      "    let o = random order of players\n"
                      "    set order = random order of [p for p in players]\n"
                      "    set n = random [1, 2, 3]")
    assert_clean(text)
    # the four statements, with their kinds
    module = module_of(text)
    play = [i for i in module.items if hasattr(i, "body") and any(isinstance(s, A.Turn) for s in i.body)]
    turn = next(s for s in play[0].body if isinstance(s, A.Turn))
    kinds = [(type(s).__name__, s.order) for s in turn.body[:4]]
    assert kinds == [("LetRandom", False), ("LetRandom", True), ("SetRandom", True), ("SetRandom", False)]


def test_random_order_of_a_list_of_the_wrong_type_is_rl103():
    text = rules(turn="set nums = random order of players")
    assert_error(text, "RL103", "set nums = random order of players")
    text = rules(turn="set n = random order of [1, 2]")
    assert_error(text, "RL103", "set n = random order of")


def test_random_pick_of_the_wrong_type_is_rl103():
    text = rules(turn="set n = random players")
    assert_error(text, "RL103", "set n = random players")


def test_random_of_a_non_collection_is_rl103():
    text = rules(turn="let x = random 5")
    assert_error(text, "RL103", "let x = random 5")
    text = rules(turn="let x = random order of n")
    assert_error(text, "RL103", "let x = random order of n")


def test_random_let_types_its_name():
    # o is a list of players: indexing it gives a player, not an int
    assert_clean(rules(turn="let o = random order of players\n    set order = o"))
    text = rules(turn="let o = random order of players\n    set nums = o")
    assert_error(text, "RL103", "set nums = o")
    text = rules(turn="let x = random players\n    set n = x")
    assert_error(text, "RL103", "set n = x")


@pytest.mark.parametrize("stmt", ["set n = 1 + random players",
                                  "let y = [random players]",
                                  "set n = size(random order of players)",
                                  "if random players == 0:\n      pass"])
def test_random_inside_an_expression_is_rl001(stmt):
    text = rules(turn=stmt)
    diags = [d for d in diagnose(text) if d.severity == "error"]
    assert [(d.code, d.span.line) for d in diags] == [("RL001", line_of(text, stmt.splitlines()[0]))]
    assert "random" in diags[0].message
    assert "let" in diags[0].message and "set" in diags[0].message  # where it may stand


def test_other_syntax_errors_do_not_mention_random():
    text = rules(turn="set n = 1 + + 2")
    diags = [d for d in diagnose(text) if d.severity == "error"]
    assert diags and diags[0].code == "RL001"
    assert "random" not in diags[0].message


# ================================================================ set choices
def test_subsets_parameter_parses():
    text = rules(decls='action d(cs in subsets of hand(me) sized 1..2) "discard {cs}":\n  move cs to pot\n'
                       'action e(cs in subsets of pot) "take {cs}":\n  move cs to hand(me)',
                 turn="choose d, e")
    assert_clean(text)
    acts = {a.name: a for a in items(text, A.Action)}
    (d,), (e,) = acts["d"].params, acts["e"].params
    assert d.subsets and e.subsets
    assert d.min_size is not None and d.max_size is not None
    assert e.min_size is None and e.max_size is None


def test_a_set_choice_is_a_list_of_cards():
    text = rules(decls='action d(cs in subsets of hand(me)) "d {cs}":\n  set n = cs', turn="choose d")
    assert_error(text, "RL103", "set n = cs")
    assert_clean(rules(decls='action d(cs in subsets of hand(me)) "d {cs}":\n  set n = size(cs)\n'
                             '  move cs to pot', turn="choose d"))


@pytest.mark.parametrize("domain", ["5", "players", "nums"])
def test_subsets_of_a_non_card_domain_is_rl103(domain):
    text = rules(decls=f'action d(cs in subsets of {domain}) "d {{cs}}":\n  pass', turn="choose d")
    assert_error(text, "RL103", "action d(")


def test_subsets_sizes_must_be_ints():
    text = rules(decls='action d(cs in subsets of pot sized true..2) "d {cs}":\n  pass', turn="choose d")
    assert_error(text, "RL103", "action d(")


@pytest.mark.parametrize("domain", ["hand(next(me))", "hand(1)", "deck"])
def test_subsets_of_a_hidden_zone_is_rl117(domain):
    text = rules(decls=f'action d(cs in subsets of {domain}) "d {{cs}}":\n  pass', turn="choose d")
    assert_error(text, "RL117", "action d(")


@pytest.mark.parametrize("domain", ["[x for x in deck]", "[x for x in hand(1) if x != top(pot)]",
                                    "[y for y in [x for x in hand(next(me))]]"])
@pytest.mark.parametrize("kind", ["c in", "cs in subsets of"])
def test_a_list_of_a_hidden_zone_s_cards_is_rl117(domain, kind):
    """Choosing among a list of hidden cards by name tells as much as
    choosing among the zone's: refused alike."""
    text = rules(decls=f'action d({kind} {domain}) "d":\n  pass', turn="choose d")
    assert_error(text, "RL117", "action d(")
    seen = domain.replace("deck", "pot").replace("hand(1)", "hand(me)").replace("hand(next(me))", "hand(me)")
    assert_clean(rules(decls=f'action d({kind} {seen}) "d":\n  pass', turn="choose d"))


# ================================================================ invariants
def test_always_invariant_parses():
    text = rules(decls='invariant size(pot) < 9 "plain"\nalways invariant size(pot) < 5 "always"\n'
                       'always invariant n >= 0')
    assert_clean(text)
    invs = items(text, A.Invariant)
    assert [(i.always, i.message) for i in invs] == [(False, "plain"), (True, "always"), (True, None)]


def test_always_invariant_must_be_bool():
    text = rules(decls="always invariant 3")
    assert_error(text, "RL103", "always invariant 3")


# ================================================================ records and achievements
def test_record_vars_and_achievements_parse():
    text = rules(decls='record player var x: int = 0 "x text"\nrecord var y: bool = false "y text"\n'
                       'record var z: int = 3\n'
                       'achievements(p):\n  "Won": is_winner(p)\n  "Busy": x(p) > 2 and y')
    assert_clean(text)
    vs = {v.name: v for v in items(text, A.Var)}
    assert (vs["x"].record, vs["x"].kind, vs["x"].doc) == (True, "player var", "x text")
    assert (vs["y"].record, vs["y"].kind, vs["y"].doc) == (True, "var", "y text")
    assert (vs["z"].record, vs["z"].doc) == (True, None)
    assert vs["n"].record is False
    (ach,) = items(text, A.Achievements)
    assert ach.var == "p"
    assert [a.text for a in ach.items] == ["Won", "Busy"]


@pytest.mark.parametrize("decl", ['record var y: player = 0 "y"', 'record player var y: list of int = '
                                  '[1 for p in players if false]', 'record var y: set of Kind = {}'])
def test_record_var_of_another_type_is_rl103(decl):
    text = rules(decls="enum Kind: K1, K2\n" + decl)
    assert ("RL103", line_of(text, "record ")) in errors(text)


def test_record_card_var_is_rl109():
    text = rules(decls='record card var z: int = 0 "z"')
    assert_error(text, "RL109", "record card var")


def test_duplicate_achievement_is_rl102():
    text = rules(decls='achievements(p):\n  "X": pts(p) > 0\n  "Y": pts(p) > 1\n  "X": is_winner(p)')
    assert_error(text, "RL102", '"X": is_winner(p)')


def test_second_achievements_section_is_rl102():
    text = rules(decls='achievements(p):\n  "X": pts(p) > 0\nachievements(q):\n  "Y": is_winner(q)')
    assert_error(text, "RL102", "achievements(q)")


def test_achievement_must_be_bool():
    text = rules(decls='achievements(p):\n  "X": pts(p)')
    assert_error(text, "RL103", '"X": pts(p)')


def test_is_winner_takes_a_player():
    text = rules(decls='achievements(p):\n  "X": is_winner(true)')
    assert_error(text, "RL103", '"X"')


IS_WINNER_ELSEWHERE = {
    "turn": dict(turn="if is_winner(me):\n      set n = 1"),
    "action": dict(decls='action w "w":\n  if is_winner(me):\n    set n = 1', turn="choose w"),
    "function": dict(decls="function f(q: player) = is_winner(q)"),
    "trigger": dict(decls="after every action:\n  if is_winner(me):\n    set n = 1"),
    "trigger condition": dict(decls="when c enters hand(p) if is_winner(p):\n  pass"),
    "invariant": dict(decls="invariant all(not is_winner(p) for p in players)"),
}


@pytest.mark.parametrize("where", sorted(IS_WINNER_ELSEWHERE))
def test_is_winner_outside_the_achievements_is_rl109(where):
    text = rules(**IS_WINNER_ELSEWHERE[where])
    assert_error(text, "RL109", "is_winner")


def test_is_winner_in_the_outcome_is_rl109():
    text = rules().replace("  score pts(p)", "  score if is_winner(p) then 1 else 0")
    assert_error(text, "RL109", "is_winner")


def test_me_in_an_achievement_is_rl109():
    text = rules(decls='achievements(p):\n  "X": me == p')
    assert_error(text, "RL109", '"X"')


# ================================================================ me outside a turn
@pytest.mark.parametrize("stmt", ["reveal hand(0) to me", "set pts(me) = 1", "move top(deck) to hand(me)"])
def test_me_in_setup_is_rl109(stmt):
    text = rules(setup=stmt)
    assert_error(text, "RL109", stmt)


def test_me_in_play_outside_a_turn_is_rl109():
    text = rules().replace("play:\n  turn 0:", "play:\n  set pts(me) = 2\n  turn 0:")
    assert_error(text, "RL109", "set pts(me) = 2")


def test_me_in_the_outcome_is_rl109():
    text = rules().replace("  score pts(p)", "  score pts(p)\n  then if p == me then 1 else 0")
    assert_error(text, "RL109", "then if p == me")


def test_me_where_a_player_is_playing_is_fine():
    assert_clean(rules(turn="reveal hand(0) to me"))  # a turn block
    assert_clean(rules(decls='action g "g":\n  set pts(me) += 1', turn="choose g"))  # an action
    assert_clean(rules(decls="function mine(q: player) = q == me"))  # a function
    assert_clean(rules(decls="after every action:\n  set pts(me) += 1\n"  # triggers
                             "before every turn:\n  reveal hand(me) to me"))


def test_me_in_a_card_entry_trigger_is_rl109():
    # a card may enter a zone in setup, outside every turn: the trigger names
    # the zone's owner instead of "me"
    text = rules(decls="when c enters pot:\n  set pts(me) += 1\n")
    assert_error(text, "RL109", "set pts(me) += 1")
    assert_clean(rules(decls="when c enters hand(p):\n  set pts(p) += 1\n"))


def test_me_in_a_turn_nested_in_setup_is_fine():
    assert_clean(rules(setup="turn 1:\n    reveal hand(1) to me"))
