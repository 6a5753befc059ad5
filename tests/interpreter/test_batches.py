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
