"""simulate --plot: the figures drawn into an image (matplotlib, the
optional extra "plot"; the drawing test is skipped without it)."""

from __future__ import annotations

import builtins

import pytest
from click.testing import CliRunner

from interpreter.runner import cli


def test_simulate_draws_its_figures(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "emu.png"
    r = CliRunner().invoke(cli, ["simulate", "games/emu_ranchers.rules", "-n", "30", "--seed", "1",
                                 "--plot", str(out)])
    assert r.exit_code == 0, r.output
    assert f"figures drawn in {out}" in r.output
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    svg = tmp_path / "fox.svg"
    r = CliRunner().invoke(cli, ["simulate", "games/fox_in_the_henhouse.rules", "-n", "10", "--players", "3",
                                 "--plot", str(svg), "--json"])
    assert r.exit_code == 0 and svg.read_text().lstrip().startswith("<?xml")


def test_without_matplotlib_plot_is_refused_before_the_games(tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    r = CliRunner().invoke(cli, ["simulate", "games/emu_ranchers.rules", "-n", "5", "--plot", str(tmp_path / "x.png")])
    assert r.exit_code == 2 and "needs matplotlib" in r.output and "rulelang[plot]" in r.output
    assert "games in" not in r.output


def test_a_plot_that_cannot_be_written_is_bad_input(tmp_path):
    pytest.importorskip("matplotlib")
    r = CliRunner().invoke(cli, ["simulate", "examples/last_card.rules", "-n", "5",
                                 "--plot", str(tmp_path / "no" / "such" / "dir" / "x.png")])
    assert r.exit_code == 2 and "--plot" in r.output and "Traceback" not in r.output
