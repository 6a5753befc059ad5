"""Mutants of the pipeline mutation test in forked children, with limits.

A :class:`Child` runs :func:`pipeline_mutation.run_mutant` in a forked
process with a memory limit (RLIMIT_AS) and no core files; the child keeps
its phase in shared memory, so that a child killed when overdue (a hang in C
code that no alarm stops, a wait) or dead (a crash of the interpreter) is
still reported with the phase it was in.  :func:`run_isolated` runs one
mutant that way; ``bench/pipeline_mutants.py`` runs several children at once.
"""

from __future__ import annotations

import multiprocessing
import resource
import tempfile
import time

import pipeline_mutation as pm


def _child(conn, text, seed, budget, tmpdir, cell):
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = budget.memory if hard == resource.RLIM_INFINITY else min(budget.memory, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        pm.reserve_memory()
        result = pm.run_mutant(text, seed, budget, tmpdir, cell)
    except BaseException as err:  # noqa: B902 - even the harness failing is reported
        result = {"outcome": "defect", "kind": "exception", "phase": "harness", "type": type(err).__name__,
                  "message": str(err)[:2000], "where": "", "traceback": pm.tb_tail(err)}
    conn.send(result)
    conn.close()


class Child:
    """One mutant running in a forked child process."""

    def __init__(self, text, seed, budget=pm.BUDGET, tmpdir=None, tag=None):
        ctx = multiprocessing.get_context("fork")
        self.tag = tag
        self.seed = seed
        self.budget = budget
        self.cell = ctx.Array("c", 64, lock=False)
        self.conn, send = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_child, args=(send, text, seed, budget, tmpdir or tempfile.gettempdir(),
                                                     self.cell), daemon=True)
        self.started = time.monotonic()
        self.proc.start()
        send.close()

    @property
    def overdue(self) -> bool:
        return time.monotonic() - self.started > self.budget.kill_s

    def result(self) -> dict:
        """The result once ``conn`` is readable or the child ended or is overdue (then it is killed)."""
        result = None
        if self.conn.poll():
            try:
                result = self.conn.recv()
            except (EOFError, OSError):
                result = None
        if result is None:
            phase = bytes(self.cell.value).decode(errors="replace")
            alive = self.proc.is_alive()
            if alive:
                self.proc.kill()
            self.proc.join(5)
            how = (f"killed after {self.budget.kill_s} s" if alive
                   else f"died with exit code {self.proc.exitcode}")
            result = {"outcome": "defect", "kind": "killed", "phase": phase, "type": "-",
                      "message": f"the worker {how}", "where": "", "traceback": "", "games": []}
        else:
            self.proc.join(5)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join()
        self.conn.close()
        return result


def run_isolated(text: str, seed: int, budget: pm.Budget = pm.BUDGET, tmpdir=None) -> dict:
    """:func:`run_mutant` in a forked child with a memory limit, killed when overdue."""
    child = Child(text, seed, budget, tmpdir)
    deadline = child.started + budget.kill_s
    while not child.conn.poll(0.05):
        if not child.proc.is_alive() or time.monotonic() > deadline:
            break
    return child.result()
