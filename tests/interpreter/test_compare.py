"""rulerun compare: two rules files, or one under two settings, on the same
seeds, side by side, with the differences beyond noise marked."""

import json

from click.testing import CliRunner

from interpreter.runner import cli


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_a_shorter_game_shows_as_a_difference_beyond_noise():
    r = run("compare", "games/emu_ranchers.rules", "-n", "30", "--seed", "1", "--set-b", "years=1", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["a"]["params"]["years"] == 4 and data["b"]["params"]["years"] == 1
    length = data["rows"]["actions per game"]
    assert length["significant"] and length["difference"] < 0 and length["ci"][1] < 0
    # one year's draws are a quarter of four years'
    draws = data["rows"]["draw per game"]
    assert draws["b"] * 4 == draws["a"]


def test_the_same_game_on_both_sides_differs_in_nothing():
    r = run("compare", "examples/last_card.rules", "-n", "50", "--seed", "2", "--set-a", "unused=1")
    assert r.exit_code == 2 and "unknown parameter" in r.output  # a bad setting is bad input
    r = run("compare", "examples/last_card.rules", "examples/last_card.rules", "-n", "50", "--seed", "2", "--json")
    data = json.loads(r.output)
    assert all(row["difference"] == 0 and not row["significant"] for row in data["rows"].values())
    text = run("compare", "examples/last_card.rules", "examples/last_card.rules", "-n", "50", "--seed", "2")
    assert "no difference can be told from noise in 50 games" in text.output


def test_the_text_report_marks_what_is_significant():
    r = run("compare", "games/emu_ranchers.rules", "-n", "20", "--seed", "1", "--set-b", "years=1")
    assert r.exit_code == 0
    line = next(ln for ln in r.output.splitlines() if ln.startswith("actions per game"))
    assert line.rstrip().endswith("*")
    assert "beyond noise in 20 games" in r.output


def test_compare_needs_two_sides():
    r = run("compare", "examples/last_card.rules", "-n", "10")
    assert r.exit_code == 2 and "--set-a/--set-b" in r.output
