"""A fuzz run cut into batches, played wherever :mod:`interpreter.batches`
plays them (this process, local processes, a Dask cluster), and their
reports merged into one.

The batches are the same whatever the back end and however many workers
run them: batch k searches ``EXAMPLES_PER_BATCH`` examples (the last one
what is left) from its own seed, ``seed * 1000 + k``.  So a run with
``--workers 2`` finds what the same run with ``--workers 1`` or on a
cluster finds; a run without those options is one search, as before.

Merged: a finding of each kind, the first in batch order (its trace is
that batch's own, shrunk there); the counts of games, actions and rule
passes, summed; who decided what (the ``seat`` finding) judged on every
batch's games together; a rule that never ran in any batch is ``unused``.
"""

from __future__ import annotations

import time

from .fuzz import KINDS, ONCE_KINDS, RUN_KINDS, fuzz, run_findings
from .fuzz_report import Report
from .fuzz_seats import SeatLog

EXAMPLES_PER_BATCH = 25
DEFAULT_EXAMPLES = 100


def _fuzz_batch(job) -> Report:
    path, kwargs = job
    return fuzz(path, **kwargs)


def fuzz_in_batches(path, workers: int = 1, cluster: str | None = None, examples: int | None = None,
                    seed: int = 0, kinds=KINDS, time_limit: float | None = None, progress=None,
                    **kwargs) -> Report:
    """Fuzz ``path`` in batches on the back end ``workers``/``cluster`` name
    (see :func:`interpreter.batches.backend`); the other arguments are
    :func:`interpreter.fuzz.fuzz`'s.  With ``time_limit``, each batch gets
    its share of the time (the batches then depend on the machine's speed)."""
    from .batches import backend

    total = examples if examples is not None else DEFAULT_EXAMPLES
    sizes = [min(EXAMPLES_PER_BATCH, total - k) for k in range(0, total, EXAMPLES_PER_BATCH)]
    parallel = max(1, workers)
    share = None if time_limit is None else time_limit * parallel / len(sizes)
    # the rules' examples and the deal do not depend on the seed: the first batch judges them
    jobs = [(str(path), dict(kwargs, examples=size, seed=seed * 1000 + k, time_limit=share,
                             kinds=tuple(x for x in kinds if k == 0 or x not in ONCE_KINDS)))
            for k, size in enumerate(sizes)]
    start = time.perf_counter()
    reports = []
    with backend(workers, cluster) as run:
        for report in run.map(_fuzz_batch, jobs):
            reports.append(report)
            if progress is not None:
                progress(sum(r.games for r in reports), sum(r.actions for r in reports))
    return merge_reports(str(path), reports, time.perf_counter() - start, set(KINDS) - set(kinds))


def merge_reports(path: str, reports: list, seconds: float, skip=()) -> Report:
    """One report of several batches' (see the module's docstring)."""
    findings, kinds = [], set()
    for r in reports:
        for f in r.findings:
            if f.kind not in RUN_KINDS and f.kind not in kinds:
                kinds.add(f.kind)
                findings.append(f)
    merged = Report(path, findings, sum(r.games for r in reports), sum(r.actions for r in reports), seconds,
                    out_of_time=any(r.out_of_time for r in reports))
    counts, order = {}, []
    for r in reports:
        for c in r.coverage:
            key = (c["kind"], c["what"], c["where"])
            if key not in counts:
                order.append(key)
                counts[key] = 0
            counts[key] += c["count"]
    merged.coverage = [{"kind": k, "what": w, "where": at, "count": counts[(k, w, at)]} for k, w, at in order]
    # never ran in any batch: in every batch's list (counts only add up)
    merged.never = [x for x in reports[0].never if all(x in r.never for r in reports[1:])] if reports else []
    merged.unused = [line for line in (reports[0].unused if reports else [])
                     if all(line in r.unused for r in reports[1:])]
    merged.only_under = list(dict.fromkeys(x for r in reports for x in r.only_under))
    settings = {}
    for r in reports:
        for one in r.settings:
            key = (one["players"], tuple(one["params"].items()))
            if key not in settings:
                settings[key] = {**one, "games": 0, "actions": 0}
            settings[key]["games"] += one["games"]
            settings[key]["actions"] += one["actions"]
    merged.settings = list(settings.values())
    seats = SeatLog()
    for r in reports:
        seats.absorb(r.seat_log)
    merged.seats = seats.report()
    merged.seat_log = seats.portable()
    fewest = min((s["players"] for s in merged.seats), default=1)
    merged.findings += run_findings(seats, merged.never, merged.games, fewest, set(skip))
    # judged by the first batch alone (fuzz_in_batches)
    merged.findings[:0] = [f for f in (reports[0].findings if reports else []) if f.kind in ONCE_KINDS]
    return merged


__all__ = ["fuzz_in_batches", "merge_reports", "EXAMPLES_PER_BATCH"]
