"""Where simulate's games are played (interpreter/batches.py): in this
process, in local processes or on a Dask cluster, the figures are the same,
and a worker that dies loses no game.  The Dask tests start a cluster on
the loopback interface; they are skipped without dask.distributed (the
optional extra "dask")."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import batch_jobs
from interpreter.batches import backend
from interpreter.runner import cli


def simulate(*extra):
    args = ["simulate", "games/fox_in_the_henhouse.rules", "-n", "60", "--players", "3", "--seed", "4", "--json"]
    result = CliRunner().invoke(cli, args + list(extra))
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    data.pop("games_per_s")
    return data


def test_the_back_ends_give_results_in_the_order_of_the_jobs():
    with backend() as run:
        assert list(run.map(batch_jobs.double, range(10))) == [2 * k for k in range(10)]
    with backend(workers=2) as run:
        assert list(run.map(batch_jobs.double, range(10))) == [2 * k for k in range(10)]


def test_a_local_process_that_dies_loses_no_job(tmp_path):
    marker = str(tmp_path / "died")
    with backend(workers=2) as run:
        results = list(run.map(batch_jobs.die_once, [(marker, k) for k in range(8)]))
    assert results == [2 * k for k in range(8)] and (tmp_path / "died").exists()


def test_workers_and_cluster_are_one_or_the_other():
    r = CliRunner().invoke(cli, ["simulate", "examples/last_card.rules", "-n", "5", "--workers", "2",
                                 "--cluster", "local:2"])
    assert r.exit_code == 2 and "choose one" in r.output
    r = CliRunner().invoke(cli, ["simulate", "examples/last_card.rules", "-n", "5", "--cluster", "local:many"])
    assert r.exit_code == 2 and "local:N" in r.output


def test_a_local_dask_cluster_gives_the_same_figures_as_one_process():
    pytest.importorskip("distributed")
    assert simulate("--cluster", "local:2") == simulate()


def test_a_dask_worker_that_dies_loses_no_job(tmp_path):
    pytest.importorskip("distributed")
    import cloudpickle
    cloudpickle.register_pickle_by_value(batch_jobs)  # the workers need not import the tests
    marker = str(tmp_path / "died")
    with backend(cluster="local:2") as run:
        results = list(run.map(batch_jobs.die_once, [(marker, k) for k in range(8)]))
    assert results == [2 * k for k in range(8)] and (tmp_path / "died").exists()


def fuzz_json(*extra):
    args = ["fuzz", "tests/fuzz_targets/one_chooser.rules", "--examples", "50", "--json"]
    result = CliRunner().invoke(cli, args + list(extra))
    data = json.loads(result.output)
    data.pop("seconds"), data.pop("actions_per_s")
    return result.exit_code, data


def test_fuzz_in_batches_finds_the_same_whatever_runs_them():
    """The planted fault of one_chooser.rules (one player makes every
    player's choice) is found by the merged seat log; the batches are the
    same in this process, over two processes and on a Dask cluster."""
    code, one = fuzz_json("--workers", "1")
    assert code == 1 and "seat" in [f["kind"] for f in one["findings"]], one["findings"]
    assert fuzz_json("--workers", "2") == (code, one)
    pytest.importorskip("distributed")
    assert fuzz_json("--cluster", "local:2") == (code, one)


def test_merging_batches_keeps_one_finding_a_kind_and_what_never_ran_anywhere():
    from interpreter.fuzz_batches import merge_reports
    from interpreter.fuzz_report import Finding, Report

    def report(findings, counts, games):
        r = Report("x.rules", findings, games, 10 * games, 1.0)
        r.coverage = [{"kind": "branch", "what": w, "where": f"x.rules:{i}:1", "count": c}
                      for i, (w, c) in enumerate(counts.items(), 1)]
        r.never = [(f"{w} never happened", f"x.rules:{i}:1") for i, (w, c) in enumerate(counts.items(), 1) if not c]
        r.seat_log = {"games": {2: games}, "runs": {}, "seats": {}}
        r.settings = [{"players": 2, "params": {}, "games": games - 1, "actions": 10 * games - 3},
                      {"players": 2, "params": {"x": games}, "games": 1, "actions": 3}]
        return r

    dead_a = Finding("dead_state", "stuck", 2, {}, 5, ["a"], None)
    dead_b = Finding("dead_state", "stuck too", 2, {}, 9, ["b", "c"], None)
    rule = Finding("rule_error", "oops", 2, {}, 1, ["d"], None)
    merged = merge_reports("x.rules", [report([dead_a], {"if": 0, "else": 3}, 4),
                                       report([dead_b, rule], {"if": 0, "else": 0}, 6)], 2.5)
    assert [(f.kind, f.message) for f in merged.findings if f.kind != "unused"] == [("dead_state", "stuck"),
                                                                                   ("rule_error", "oops")]
    assert merged.games == 10 and merged.actions == 100 and merged.seconds == 2.5
    assert [c["count"] for c in merged.coverage] == [0, 3]
    assert merged.settings == [{"players": 2, "params": {}, "games": 8, "actions": 94},
                               {"players": 2, "params": {"x": 4}, "games": 1, "actions": 3},
                               {"players": 2, "params": {"x": 6}, "games": 1, "actions": 3}]
    assert merged.never == [("if never happened", "x.rules:1:1")]  # "else" ran in the first batch
    assert [f.where for f in merged.findings if f.kind == "unused"] == ["x.rules:1:1"]
