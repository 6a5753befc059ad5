"""CPU time of short `rulerun` commands, as whole processes.

    python bench/startup.py [--repeat R]

Runs ``rulerun --help`` and ``rulerun check`` on each game in ``games/``
R times (after one untimed run, which writes the bytecode caches a user's
second run finds) and reports the median user + system CPU time of the
process, children included.  Targets: ``--help`` under 0.2 s, ``check``
under 0.3 s.  Reads nothing outside the project.

The ``rulerun`` run is the script installed beside this Python (what pip
writes into a virtual environment's ``bin``), not the first one on PATH: a
version manager's shim (pyenv's is a bash script that runs ``pyenv exec``)
costs a tenth of a second of its own.  The first line shows the floor on
this machine, a bare ``python -c pass``, to read the others against.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cpu_of(cmd, env) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _installed_script(name: str) -> str | None:
    """The console script pip installed beside this interpreter, else the
    first on PATH that is not a shim, else None."""
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which(name)
    if found and "shims" not in Path(found).parts:
        return found
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per command (default 7)")
    args = ap.parse_args(argv)
    exe = _installed_script("rulerun")
    base = [exe] if exe else [sys.executable, "-m", "interpreter.cli"]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's machine keeps its bytecode caches
    commands = [("rulerun --help", ["--help"], 0.2)]
    for path in sorted((ROOT / "games").glob("*.rules")):
        commands.append((f"rulerun check games/{path.name}", ["check", str(path)], 0.3))
    print(f"{'command':48} {'CPU s':>7}  target")
    cpu_of([sys.executable, "-c", "pass"], env)
    floor = statistics.median(cpu_of([sys.executable, "-c", "pass"], env) for _ in range(args.repeat))
    print(f"{'python -c pass (the floor here)':48} {floor:7.3f}")
    worst = 0.0
    for label, extra, target in commands:
        cpu_of(base + extra, env)  # untimed: bytecode caches
        t = statistics.median(cpu_of(base + extra, env) for _ in range(args.repeat))
        worst = max(worst, t / target)
        print(f"{label:48} {t:7.3f}  < {target} {'ok' if t < target else 'OVER'}")
    return 0 if worst < 1 else 1


if __name__ == "__main__":
    sys.exit(main())
