"""Ctrl-C with workers behaves as in one process: simulate reports the
games finished so far and exits 130, fuzz exits 130, and no worker process
is left behind.  A real SIGINT to a real ``rulerun`` process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads a process's children from /proc")


def children(pid: int) -> set:
    """The process ids below ``pid``, however deep."""
    out = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids = (task / "children").read_text().split()
        except OSError:
            continue
        for k in map(int, kids):
            out |= {k} | children(k)
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def cpu_seconds(pids) -> float:
    """The processor time the processes ``pids`` have used."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def interrupted(args: list, workers_expected: int) -> subprocess.CompletedProcess:
    """Run ``rulerun ARGS``, wait until its workers are up, press Ctrl-C."""
    p = subprocess.Popen([sys.executable, "-m", "interpreter.cli", *args], cwd=ROOT, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while len(children(p.pid)) < workers_expected and time.monotonic() < deadline:
            time.sleep(0.1)
        while cpu_seconds(children(p.pid)) < 5 and time.monotonic() < deadline:  # some work done
            time.sleep(0.1)
        kids = children(p.pid)
        assert len(kids) >= workers_expected
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    deadline = time.monotonic() + 10
    while any(map(alive, kids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [k for k in kids if alive(k)], "a worker outlived Ctrl-C"
    return subprocess.CompletedProcess(args, p.returncode, out, err)


def dask_missing() -> bool:
    import importlib.util
    return importlib.util.find_spec("distributed") is None


@pytest.mark.parametrize("backend", [
    ["--workers", "2"],
    pytest.param(["--cluster", "local:2"], marks=pytest.mark.skipif(dask_missing(), reason="needs dask.distributed"))],
    ids=["processes", "local-cluster"])
def test_ctrl_c_stops_simulate_s_workers_and_reports_the_games_so_far(backend):
    result = interrupted(["simulate", "games/emu_ranchers.rules", "-n", "1000000", "--seed", "1", *backend], 2)
    assert result.returncode == 130, result.stderr
    assert "interrupted: the" in result.stdout and "games finished so far" in result.stdout
    assert "Traceback" not in result.stderr


def test_ctrl_c_stops_fuzz_s_workers():
    result = interrupted(["fuzz", "games/fox_in_the_henhouse.rules", "--examples", "100000", "--workers", "2"], 2)
    assert result.returncode == 130, (result.stdout, result.stderr)
    assert "interrupted" in result.stderr and "Traceback" not in result.stderr
