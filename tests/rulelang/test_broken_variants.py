"""Broken variants of games/emu_ranchers.rules: each is one small textual edit
of the real file (read at test time), and each asserts the exact code, line and
column of the first error, computed from the edited text so that unrelated
edits of the game file do not break the tests.

If an anchor below is no longer in the game file, the test fails with
"anchor ... not found": pick another anchor line, don't loosen the assertion.
"""

from __future__ import annotations

import re
from pathlib import Path

from rulelang import ast as A
from rulelang import check, check_file, parse

GAME = Path(__file__).resolve().parents[2] / "games" / "emu_ranchers.rules"
FILE = str(GAME)


def source() -> str:
    return GAME.read_text(encoding="utf-8")


# ------------------------------------------------------------------ editing
def replace_once(text: str, old: str, new: str) -> str:
    n = text.count(old)
    assert n == 1, f"anchor {old!r} found {n} times in {GAME.name}; the test needs a new anchor"
    return text.replace(old, new)


def replace_line(text: str, pattern: str, new_line: str) -> str:
    """Replace the one line matching the regex ``pattern`` (whole line, indentation kept out of it)."""
    lines = text.split("\n")
    hits = [i for i, line in enumerate(lines) if re.fullmatch(pattern, line)]
    assert len(hits) == 1, f"line pattern {pattern!r} matched {len(hits)} lines in {GAME.name}"
    lines[hits[0]] = new_line
    return "\n".join(lines)


def insert_after(text: str, anchor_line: str, new_line: str) -> str:
    return replace_once(text, anchor_line + "\n", anchor_line + "\n" + new_line + "\n")


def insert_before(text: str, anchor_line: str, new_line: str) -> str:
    return replace_once(text, anchor_line + "\n", new_line + "\n" + anchor_line + "\n")


def line_of(text: str, needle: str) -> int:
    """1-based number of the only line containing ``needle``."""
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(hits) == 1, f"{needle!r} is on lines {hits}"
    return hits[0]


def col_of(text: str, line: int, needle: str) -> int:
    """1-based column of ``needle`` on ``line``."""
    idx = text.splitlines()[line - 1].find(needle)
    assert idx >= 0, f"{needle!r} not on line {line}"
    return idx + 1


def where(text: str, line_needle: str, col_needle: str | None = None) -> tuple[int, int]:
    line = line_of(text, line_needle)
    return line, col_of(text, line, col_needle if col_needle is not None else line_needle)


# ------------------------------------------------------------------ checking
def diagnose(text: str):
    module, diags = parse(text, FILE)
    if module is None:
        return diags
    _, diags = check(module)
    return diags


def errors_of(diags):
    return [d for d in diags if d.severity == "error"]


def assert_first_error(text: str, code: str, line: int, col: int, *, message: str = ""):
    diags = diagnose(text)
    errors = errors_of(diags)
    assert errors, "expected an error, got " + repr(diags)
    first = errors[0]
    got = (first.code, first.span.line, first.span.column)
    assert got == (code, line, col), "\n".join(d.render(text) for d in errors)
    assert message in first.message
    assert_rendered(first, text, line, col)
    return first, diags


def assert_rendered(diag, text: str, line: int, col: int):
    out = diag.render(text).splitlines()
    assert f"emu_ranchers.rules:{line}:{col}: {diag.severity}: " in out[0]
    assert out[0].endswith(f"[{diag.code}]")
    src_line = text.splitlines()[line - 1].expandtabs(1)
    assert out[1] == "    " + src_line
    caret = out[2]
    assert caret.startswith("    ") and set(caret[4:].strip()) == {"^"}
    assert caret[4:].index("^") == col - 1, f"caret at {caret[4:].index('^') + 1}, not {col}"


# ------------------------------------------------------------------ the real file
def test_real_file_checks_without_errors():
    game, diags, text = check_file(GAME)
    errors = errors_of(diags)
    assert not errors, "\n".join(d.render(text) for d in errors)
    assert game is not None
    assert game.title == "Emu Ranchers"
    assert game.players == (2, 2)
    assert {"draw_pile", "discard_pile", "hand", "birds"} <= set(game.zones)
    assert {"hatch", "grow", "grow_wild", "discard", "draw"} <= set(game.actions)
    rows = next(item for item in game.module.items if isinstance(item, A.Cards)).rows
    assert len(rows) >= 36  # the Decktet's aces, numbers and crowns at least
    assert len(game.cards) == sum(row.copies for row in rows)


# ------------------------------------------------------------------ syntax
def test_missing_colon_after_action_header():
    header = 'action draw "draw from the pile"'
    text = replace_once(source(), header + ":\n", header + "\n")
    line = line_of(text, header)
    # reported at the end of the header line, where the ":" should be
    assert_first_error(text, "RL001", line, len(header) + 1, message='expected ":"')


def test_unindent_to_no_outer_level():
    text = replace_once(source(), "  require not empty(discard_pile)\n", " require not empty(discard_pile)\n")
    line, col = where(text, " require not empty(discard_pile)", "require")
    assert col == 2
    assert_first_error(text, "RL002", line, col, message="unindent")


def test_unexpected_indentation():
    text = replace_once(source(), "  move c to discard_pile\n", "    move c to discard_pile\n")
    line, col = where(text, "move c to discard_pile", "move")
    # on the indented line itself, not at the end of the line before it
    assert_first_error(text, "RL002", line, col, message="unexpected indentation")


def test_unexpected_character():
    text = replace_once(source(), "require bird_value(b) < 0", "require bird_value(b) < 0 @")
    line, col = where(text, "bird_value(b) < 0 @", "@")
    assert_first_error(text, "RL001", line, col, message="unexpected character '@'")


# ------------------------------------------------------------------ names and types
def test_unknown_name_with_did_you_mean():
    text = replace_once(source(), "move top(draw_pile) to hand(me)", "move top(draw_pil) to hand(me)")
    line, col = where(text, "draw_pil)", "draw_pil")
    first, _ = assert_first_error(text, "RL101", line, col, message='unknown name "draw_pil"')
    assert 'did you mean "draw_pile"' in first.message
    assert (first.span.end_line, first.span.end_column) == (line, col + len("draw_pil"))


def test_unknown_card_attribute_with_did_you_mean():
    text = replace_once(source(), "require follows(b, c.rank)", "require follows(b, c.rnk)")
    line, col = where(text, "c.rnk", "c.rnk")
    first, _ = assert_first_error(text, "RL105", line, col, message='no attribute "rnk"')
    assert 'did you mean "rank"' in first.message


def test_wrong_number_of_arguments():
    text = replace_once(source(), "require follows(b, c.rank)", "require follows(b)")
    line, col = where(text, "require follows(b)", "follows")
    assert_first_error(text, "RL104", line, col, message='"follows" takes 2 argument(s), not 1')


def test_type_mismatch_int_where_bool_expected():
    text = replace_once(source(), "require c.kind in {Pawn, Court}", "require c.rank")
    line, col = where(text, "require c.rank", "c.rank")
    assert_first_error(text, "RL103", line, col, message="should be true/false, not a number")


def test_type_mismatch_augmented_assignment():
    old = "set score(p) += sum(bird_value(b) for b in birds(p))"
    text = replace_once(source(), old, "set score(p) += true")
    line, col = where(text, "set score(p) += true", "true")
    assert_first_error(text, "RL103", line, col, message="should be a number, not true/false")


def test_duplicate_zone():
    text = insert_after(source(), "zone birds: stacks, per player, public", "zone hand: pile, public")
    line, col = where(text, "zone hand: pile, public", "hand")
    first, _ = assert_first_error(text, "RL102", line, col, message='"hand" is defined twice')
    first_line = line_of(text, "zone hand: pile, per player")
    assert any(f"emu_ranchers.rules:{first_line}:" in n for n in first.notes)


# ------------------------------------------------------------------ declarations
def test_card_row_with_too_few_values():
    text = replace_line(source(), r'\s*"Author"\s+2\s+Number\s+\{Moons, Knots\}\s*', '  "Author"  2  {Moons, Knots}')
    line, col = where(text, '"Author"')
    assert_first_error(text, "RL106", line, col, message='card "Author" has 2 values')


def test_card_row_with_unknown_enum_member():
    text = replace_line(source(), r'\s*"Author"\s+2\s+Number\s+\{Moons, Knots\}\s*', '  "Author"  2  Numbr  {Moons, Knots}')
    line, col = where(text, '"Author"', "Numbr")
    first, _ = assert_first_error(text, "RL106", line, col, message='"Numbr" is not a Kind')
    assert 'did you mean "Number"' in first.message


def test_card_row_with_huge_value():
    text = replace_line(source(), r'\s*"Author"\s+2\s+Number\s+\{Moons, Knots\}\s*',
                        '  "Author"  99999999999999999999  Number  {Moons, Knots}')
    line, col = where(text, '"Author"', "9999")
    assert_first_error(text, "RL116", line, col, message="number too large")


def test_bad_zone_option_with_did_you_mean():
    text = replace_once(source(), "zone hand: pile, per player, owner", "zone hand: pile, per player, ownr")
    line, col = where(text, "zone hand:", "ownr")
    first, _ = assert_first_error(text, "RL107", line, col, message='unknown zone option "ownr"')
    assert 'did you mean "owner"' in first.message


def test_param_default_outside_its_range():
    text = replace_line(source(), r"param years: int in 1\.\.20 = 4 .*", 'param years: int in 1..20 = 40  "years"')
    line, col = where(text, "param years", "40")
    assert_first_error(text, "RL110", line, col, message="outside the range 1..20")


def test_missing_outcome_section():
    src = source()
    text = src[: src.index("\noutcome(") + 1]
    first, diags = assert_first_error(text, "RL108", 1, 1, message='no "outcome" section')
    assert [d.code for d in errors_of(diags)] == ["RL108"]


# ------------------------------------------------------------------ statements and actions
def test_unknown_action_in_choose():
    text = replace_once(source(), "choose draw, take_discard", "choose draw, take_discrd")
    line, col = where(text, "choose draw, take_discrd", "take_discrd")
    first, diags = assert_first_error(text, "RL112", line, col, message='unknown action "take_discrd"')
    assert 'did you mean "take_discard"' in first.message
    # take_discard is now offered nowhere: a warning, reported as well (earlier in the file)
    warns = [d for d in diags if d.severity == "warning"]
    assert [(d.code, d.span.line) for d in warns] == [("RL114", line_of(text, "action take_discard"))]


def test_require_outside_an_action():
    anchor = "    set seat = next(first_player, year)"
    text = insert_before(source(), anchor, "    require year > 0")
    line, col = where(text, "require year > 0", "require")
    assert_first_error(text, "RL109", line, col, message="require belongs in an action")


def test_function_called_in_a_var_default():
    # the checker used to crash here (KeyError: functions are checked after vars)
    text = replace_once(source(), "var growing: bool = false", "var growing: bool = follows(0, 0)")
    line, col = where(text, "var growing", "follows")
    assert_first_error(text, "RL109", line, col, message="functions cannot be called before the game starts")


def test_recursion_between_functions():
    # direction -> follows -> direction
    old = "sign(b[1].value - b[0].value)"
    text = replace_once(source(), old, old + " * (if follows(b, 1) then 1 else -1)")
    line, col = where(text, "function direction(", "direction")
    first, diags = assert_first_error(text, "RL111", line, col, message='function "direction" calls itself')
    assert [d.code for d in errors_of(diags)] == ["RL111"]


def test_action_text_names_a_non_parameter():
    text = replace_once(source(), '"grow bird {b} with {c} as {r}"', '"grow bird {b} with {c} as {rank}"')
    # reported at the action's name
    line, col = where(text, "action grow_wild(", "grow_wild")
    first, _ = assert_first_error(text, "RL115", line, col, message='names "{rank}", which is not a parameter')


# ------------------------------------------------------------------ all errors at once
def test_several_independent_errors_are_all_reported():
    text = source()
    text = replace_once(text, "move top(draw_pile) to hand(me)", "move top(draw_pil) to hand(me)")
    text = replace_once(text, "zone hand: pile, per player, owner", "zone hand: pile, per player, ownr")
    text = replace_once(text, "require follows(b, c.rank)", "require follows(b, c.rnk)")
    text = replace_line(text, r'\s*"Author"\s+2\s+Number\s+\{Moons, Knots\}\s*', '  "Author"  2  Numbr  {Moons, Knots}')
    text = replace_once(text, "choose draw, take_discard", "choose draw, take_discrd")
    expected = [
        ("RL106", where(text, '"Author"', "Numbr")),
        ("RL107", where(text, "zone hand:", "ownr")),
        ("RL105", where(text, "c.rnk", "c.rnk")),
        ("RL101", where(text, "draw_pil)", "draw_pil")),
        ("RL112", where(text, "take_discrd", "take_discrd")),
    ]
    errors = errors_of(diagnose(text))
    got = [(d.code, (d.span.line, d.span.column)) for d in errors]
    assert got == expected, "\n".join(d.render(text) for d in errors)


def test_check_file_reports_on_the_file_it_read(tmp_path):
    text = replace_once(source(), "move top(draw_pile) to hand(me)", "move top(draw_pil) to hand(me)")
    path = tmp_path / "emu_ranchers.rules"
    path.write_text(text, encoding="utf-8")
    game, diags, read = check_file(path)
    assert read == text
    line, col = where(text, "draw_pil)", "draw_pil")
    errors = errors_of(diags)
    assert [(d.code, d.span.line, d.span.column) for d in errors] == [("RL101", line, col)]
    assert errors[0].span.file == str(path)
    assert_rendered(errors[0], read, line, col)


def test_crlf_variant_reports_the_same_place():
    text = replace_once(source(), "require follows(b, c.rank)", "require follows(b, c.rnk)")
    line, col = where(text, "c.rnk", "c.rnk")
    assert_first_error(text.replace("\n", "\r\n"), "RL105", line, col)
