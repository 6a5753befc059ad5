"""simulate's statistics (interpreter/stats.py): 95% intervals that hold
what they should, and a run cut short by Ctrl-C that reports its games."""

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from interpreter.cli import simulate as simulate_module
from interpreter.runner import cli
from interpreter.stats import Tally, mean_ci, wilson


def test_wilson_interval():
    lo, hi = wilson(50, 100)
    assert lo < 0.5 < hi and math.isclose(lo + hi, 1.0) and 0.09 < hi - lo < 0.2
    assert math.isclose(wilson(0, 10)[0], 0.0, abs_tol=1e-12) and math.isclose(wilson(10, 10)[1], 1.0)
    assert wilson(0, 0) == (0.0, 1.0)
    # more games, a narrower interval
    assert wilson(500, 1000)[1] - wilson(500, 1000)[0] < hi - lo


def test_mean_interval():
    values = [1, 2, 3, 4, 5]
    mean, lo, hi = mean_ci(sum(values), sum(v * v for v in values), len(values))
    assert mean == 3 and lo < 3 < hi and math.isclose(hi - 3, 1.959964 * math.sqrt(2.5 / 5))
    assert mean_ci(7, 49, 1) == (7, 7, 7)


def test_tally_counts_shared_wins_and_lengths():
    t = Tally(2)
    t.add([0], [3, 1], 10, {"draw": 4})
    t.add([0, 1], [2, 2], 20, {"draw": 6, "play": 1})
    t.add([], [0, 0], 30, {})
    t.add_capped()
    s = t.summary()
    assert s["games"] == 4 and s["ended"] == 3 and s["capped"] == 1
    assert s["seats"][0]["wins"] == 1.5 and s["seats"][1]["wins"] == 0.5
    assert s["shared_wins"] == 1 and s["no_winner"] == 1
    assert s["length"]["mean"] == 20 and s["length"]["min"] == 10 and s["length"]["max"] == 30
    assert s["actions_used"] == {"draw": 10, "play": 1}
    assert s["seats"][0]["score_min"] == 0 and s["seats"][0]["score_max"] == 3


def test_simulate_reports_intervals_in_json():
    result = CliRunner().invoke(cli, ["simulate", "examples/last_card.rules", "-n", "40", "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["games"] == 40 and data["interrupted"] is False
    for s in data["seats"]:
        lo, hi = s["win_share_ci"]
        assert lo <= s["win_share"] <= hi
        assert s["score_ci"][0] <= s["mean_score"] <= s["score_ci"][1]
    assert sum(data["wins_per_seat"]) + data["no_winner"] == 40
    assert set(data["actions_used"]) <= {"play_card", "draw", "pass_turn"} and data["actions_used"]


def test_ctrl_c_reports_the_games_finished_so_far(monkeypatch):
    real = simulate_module.play
    calls = [0]

    def play(*args, **kwargs):
        calls[0] += 1
        if calls[0] == 7:
            raise KeyboardInterrupt
        return real(*args, **kwargs)
    monkeypatch.setattr(simulate_module, "play", play)
    result = CliRunner().invoke(cli, ["simulate", "examples/last_card.rules", "-n", "100", "--seed", "1"])
    assert result.exit_code == 130
    assert "interrupted: the 6 games finished so far" in result.output and "6 games in" in result.output


def test_workers_give_the_same_figures_as_one_process():
    args = ["simulate", "games/fox_in_the_henhouse.rules", "-n", "60", "--players", "3", "--seed", "4", "--json"]
    one = json.loads(CliRunner().invoke(cli, args).output)
    two = json.loads(CliRunner().invoke(cli, args + ["--workers", "2"]).output)
    one.pop("games_per_s")
    two.pop("games_per_s")
    assert one == two


def test_a_rule_error_in_a_worker_is_reported_as_in_one_process(tmp_path):
    rules = tmp_path / "short.rules"
    rules.write_text((Path("examples") / "last_card.rules").read_text().replace(
        "action draw \"draw\":\n  require not empty(deck)\n", "action draw \"draw\":\n"))
    one = CliRunner().invoke(cli, ["simulate", str(rules), "-n", "40", "--seed", "1"])
    two = CliRunner().invoke(cli, ["simulate", str(rules), "-n", "40", "--seed", "1", "--workers", "2"])
    assert one.exit_code == two.exit_code == 1
    assert "rule error" in one.output and one.output.splitlines()[-1] == two.output.splitlines()[-1]


def test_simulate_reports_triggers_records_and_what_never_ran():
    args = ["simulate", "games/desplumados.rules", "-n", "40", "--seed", "2", "--set", "max_turns=100", "--json"]
    one = json.loads(CliRunner().invoke(cli, args).output)
    two = json.loads(CliRunner().invoke(cli, args + ["--workers", "2"]).output)
    for key in ("triggers", "records", "never_ran"):
        assert one[key] == two[key], key
    fired = {t["trigger"]: t["per_game"] for t in one["triggers"]}
    # "after every action" runs once an action: as many times a game as the game has actions
    assert fired["after every action"] == pytest.approx(one["length"]["mean"])
    assert 0 < fired['when "Moon" enters hand(p)'] <= 1  # the moon turns up at most once a game
    stolen = one["records"]["hens stolen"]
    assert len(stolen) == 3 and all(v >= 0 for v in stolen)


def test_simulate_names_a_rule_that_never_ran(tmp_path):
    rules = tmp_path / "dead.rules"
    text = (Path("examples") / "last_card.rules").read_text()
    text = text.replace("  repeat 4 times:", "  if size(table) > 10:\n    end game\n  repeat 4 times:")
    rules.write_text(text)
    out = CliRunner().invoke(cli, ["simulate", str(rules), "-n", "20", "--seed", "1"]).output
    dead = [ln for ln in out.splitlines() if ln.startswith("  ") and "never" in ln]
    assert any(":41:" in ln and "if branch taken never happened" in ln for ln in dead), out
    data = json.loads(CliRunner().invoke(cli, ["simulate", str(rules), "-n", "20", "--seed", "1", "--json"]).output)
    assert [d["what"] for d in data["never_ran"]] == ["if branch taken never happened"]


def test_simulate_counts_the_turns_of_a_game():
    """Last Card: four rounds of one turn per player."""
    data = json.loads(CliRunner().invoke(cli, ["simulate", "examples/last_card.rules", "-n", "20", "--seed", "1",
                                               "--json"]).output)
    assert data["turns"]["mean"] == 8 and data["turns"]["min"] == data["turns"]["max"] == 8
    text = CliRunner().invoke(cli, ["simulate", "examples/last_card.rules", "-n", "20", "--seed", "1"]).output
    assert "mean turns per finished game: 8.0" in text
