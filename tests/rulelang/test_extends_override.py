"""Variants (docs/language.md, section 2.15): a file that extends another and
says only what it changes.  What is merged, and what a mistake in a variant
is told (RL118, naming the file it is in, with "did you mean")."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulelang
from interpreter.game import load
from interpreter.gamelog import rules_hash
from rulelang import check, check_file, parse

BASE = '''game "Base"
players 2
param rounds: int in 1..9 = 3 "rounds"
option bonus: bool = false "a bonus point"
card attributes: rank: int
cards:
  "One" 1
  "Two" 2 * 2
  "Three" 3
zone deck: pile, hidden
zone hand: pile, per player, owner
zone table: pile, public

action draw "draw":
  require not empty(deck)
  move top(deck) to hand(me)

action wait "wait":
  pass

when "Three" enters hand(p):
  move top(hand(p)) to table

play:
  shuffle deck
  repeat rounds times:
    for p in players:
      turn p:
        choose draw, wait

outcome(p):
  score size(hand(p)) + (if bonus then 1 else 0)
'''


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def base(tmp_path):
    return write(tmp_path, "base.rules", BASE)


def variant(tmp_path, text, name="variant.rules"):
    return write(tmp_path, name, 'extends "base.rules"\n' + text)


def errors(diags):
    return [d for d in diags if d.severity == "error"]


def only_error(path):
    game, diags, text = check_file(path)
    errs = errors(diags)
    assert len(errs) == 1, [d.render(text) for d in errs]
    return errs[0], text


# ---------------------------------------------------------------- what is merged
def test_a_new_default_keeps_the_parameter_s_type_range_and_text(tmp_path, base):
    path = variant(tmp_path, "override param rounds = 5\noverride option bonus = true\n")
    game = load(path)
    info = {name: rest for name, *rest in game.param_info()}
    assert game.params["rounds"] == 5 and game.params["bonus"] is True
    assert game.with_params(rounds="9").params["rounds"] == 9
    with pytest.raises(Exception, match="rounds"):
        game.with_params(rounds="10")  # the base's range, 1..9, still holds
    assert "rounds" in str(info["rounds"])


def test_an_override_replaces_in_place_and_a_new_declaration_is_added(tmp_path, base):
    path = variant(tmp_path, '''override game "Base, with passing"
override action wait "sit out":
  require empty(deck)
  pass

action give(c in hand(me)) "give {c} away":
  move c to table

override play:
  shuffle deck
  repeat rounds times:
    for p in players:
      turn p:
        choose draw, wait, give
''')
    game = load(path)
    assert game.title == "Base, with passing"
    state = game.new_state(1, 2)
    texts = [state.action_text(a) for a in state.legal_actions()]
    assert texts == ["draw"]  # "sit out" waits for an empty deck; nothing in hand to give
    offered = set()
    while not state.is_terminal:  # drawing every turn: a card in hand can be given
        legal = state.legal_actions()
        offered.update(state.action_text(a).split(" ")[0] for a in legal)
        state.apply(legal[0])
    assert offered == {"draw", "give", "sit"}  # "sit out" once the deck is empty: "wait" is gone
    # the actions keep the base's order, the new one after them
    assert list(game.checked.actions) == ["draw", "wait", "give"]


def test_override_cards_changes_the_rows_it_names_and_cards_adds(tmp_path, base):
    path = variant(tmp_path, 'override cards:\n  "Two" 2 * 3\ncards:\n  "Four" 4\n')
    game = load(path)
    names = list(dict.fromkeys(c[0] for c in game.checked.cards))
    assert names == ["One", "Two", "Three", "Four"]
    copies = [c[0] for c in game.checked.cards]
    assert copies.count("Two") == 3 and copies.count("One") == 1


def test_a_trigger_is_overridden_by_its_card_and_zone(tmp_path, base):
    path = variant(tmp_path, 'override when "Three" enters hand(p):\n  pass\n')
    game = load(path)
    assert len(game.checked.triggers) == 1
    assert game.checked.triggers[0].span.file == str(path)


def test_a_variant_of_a_variant(tmp_path, base):
    variant(tmp_path, "override param rounds = 5\n", name="middle.rules")
    top = write(tmp_path, "top.rules", 'extends "middle.rules"\noverride option bonus = true\n')
    game = load(top)
    assert game.params["rounds"] == 5 and game.params["bonus"] is True


def test_the_base_is_found_relative_to_the_variant(tmp_path, base):
    path = write(tmp_path, "house/mine.rules", 'extends "../base.rules"\noverride param rounds = 1\n')
    game, diags, text = check_file(path)
    assert errors(diags) == [] and game.params["rounds"].default.value == 1
    assert set(text.files) == {str(path), str(base)}


# ---------------------------------------------------------------- what a mistake is told
def test_an_override_of_something_the_base_lacks_says_did_you_mean(tmp_path, base):
    d, text = only_error(variant(tmp_path, "override param rouns = 5\n"))
    assert d.code == "RL118" and 'did you mean "rounds"' in d.message and d.span.file.endswith("variant.rules")
    assert d.span.line == 2
    d, _ = only_error(variant(tmp_path, 'override action wiat "wait":\n  pass\n'))
    assert 'no such action; did you mean "wait"' in d.message
    d, _ = only_error(variant(tmp_path, 'override cards:\n  "Tow" 2\n'))
    assert 'card "Tow"' in d.message and 'did you mean "Two"' in d.message
    d, _ = only_error(variant(tmp_path, "override deck:\n  cards where true\n"))
    assert "the deck block" in d.message and "leave out `override`" in d.message


def test_declaring_again_without_override_is_an_error_naming_the_base_line(tmp_path, base):
    d, text = only_error(variant(tmp_path, 'zone table: pile, hidden\n'))
    assert d.code == "RL118" and "already declared in the base" in d.message and "base.rules:12" in d.message
    rendered = d.render(text)
    assert "variant.rules:2:" in rendered and "zone table: pile, hidden" in rendered
    d, _ = only_error(variant(tmp_path, 'cards:\n  "One" 1\n'))
    assert "already in the base" in d.message and "override cards:" in d.message


def test_a_missing_base_names_the_nearest_file(tmp_path, base):
    path = write(tmp_path, "v.rules", 'extends "bsae.rules"\n')
    d, _ = only_error(path)
    assert d.code == "RL118" and "no such file" in d.message and 'did you mean "base.rules"' in d.message


def test_a_file_cannot_extend_itself(tmp_path):
    write(tmp_path, "a.rules", 'extends "b.rules"\n')
    b = write(tmp_path, "b.rules", 'extends "a.rules"\n')
    d, _ = only_error(b)
    assert "cannot extend itself" in d.message and "a.rules" in d.message


def test_extends_comes_first_and_override_needs_it(tmp_path):
    game, diags = None, check_file(write(tmp_path, "x.rules", BASE + 'override param rounds = 2\n'))[1]
    assert [d.code for d in errors(diags)] == ["RL118"] and "extends no other" in errors(diags)[0].message
    module, diags = parse('game "x"\nextends "y.rules"\n')
    assert module is None and diags[0].code == "RL001"
    # a module that was parsed but not read from its file cannot be checked as a variant
    module, diags = parse('extends "base.rules"\noverride param rounds = 2\n')
    _, diags = check(module)
    assert {d.code for d in errors(diags)} >= {"RL118"}


def test_a_problem_in_the_base_names_the_base_file_and_shows_its_line(tmp_path, base):
    # a zone an action of the base needs, overridden into another kind
    path = variant(tmp_path, "override zone deck: stacks, hidden\n")
    game, diags, text = check_file(path)
    errs = errors(diags)
    assert errs and all(d.span.file == str(base) for d in errs), [d.render(text) for d in errs]
    rendered = errs[0].render(text)
    assert rendered.startswith(f"{base}:") and BASE.splitlines()[errs[0].span.line - 1].strip() in rendered


def test_a_broken_base_is_reported_under_its_own_name(tmp_path):
    write(tmp_path, "base.rules", BASE.replace("players 2", "players two"))
    path = variant(tmp_path, "override param rounds = 1\n")
    game, diags, text = check_file(path)
    assert game is None and diags[0].span.file.endswith("base.rules") and diags[0].code == "RL001"
    assert any("extends" in n for n in diags[0].notes)
    with pytest.raises(rulelang.RulesError) as err:
        load(path)
    assert "base.rules:2:" in str(err.value)


def test_a_log_fingerprint_covers_the_base(tmp_path, base):
    path = variant(tmp_path, "override param rounds = 5\n")
    before = rules_hash(check_file(path)[2])
    base.write_text(BASE.replace('"rounds"', '"rounds of play"'), encoding="utf-8")
    assert rules_hash(check_file(path)[2]) != before
    plain = check_file(base)[2]
    assert rules_hash(plain) == rules_hash(base.read_text(encoding="utf-8"))  # one file: its text, as before


def test_a_deck_is_added_then_overridden(tmp_path, base):
    variant(tmp_path, "deck:\n  cards where card.rank < 3\n", name="small.rules")
    smaller = write(tmp_path, "smaller.rules", 'extends "small.rules"\noverride deck:\n  cards where card.rank == 1\n')
    for path, expected in ((tmp_path / "small.rules", ["One", "Two", "Two"]), (smaller, ["One"])):
        game, diags, text = check_file(path)
        assert errors(diags) == [], [d.render(text) for d in diags]
        state = load(path).new_state(0, 2)
        assert sorted(state.m.card_names[c] for c in state.inplay) == expected
