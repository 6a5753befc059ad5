"""Mutation test of the whole pipeline, at scale: no rules file may crash, hang or fool the tool.

    python3 bench/pipeline_mutants.py --count 100000 --workers 2 --seed S --out DIR
                                      [--quick] [--fresh] [--progress SECONDS]

Mutant ``i`` of seed ``S`` is :func:`pipeline_mutation.make_mutant` of
``S << 32 | i`` (a game of ``games/`` or a file of ``tests/fuzz_targets/``
damaged by the operators of ``tests/mutation_ops.py``); each runs in a
forked child with a memory limit (RLIMIT_AS) through load, every player
count, random games with a step cap, observations, clones, resamples, the
scores and the record (:func:`pipeline_mutation.run_mutant`; see that
module for the outcomes).  A child past its time is killed; the next mutant
gets a new child.  At most ``--workers`` children run at once.

Progress goes to stdout every ``--progress`` seconds; at the end (or on
Ctrl-C) a table of the outcomes.  Each distinct defect -- (kind, phase,
exception type, message without numbers and names) -- is written once into
``DIR/defects/``: ``NNN-KIND-PHASE.rules`` (the mutant, as UTF-8 with
surrogatepass) and ``NNN-KIND-PHASE.json`` (the exception, message,
traceback tail, phase, seed, base file, operators, and how often it
occurred).  ``DIR/state.json`` keeps the counts and the mutants done (saved every 10 s,
and on Ctrl-C or ``kill -TERM``, which stop the run and print the table): the
same command again resumes where it stopped (``--fresh`` starts over), and
``python3 bench/pipeline_mutants.py --out DIR --report`` prints the table of
a run, finished or still going.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from multiprocessing.connection import wait
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))

import pipeline_mutation as pm  # noqa: E402
import pipeline_workers as pw  # noqa: E402
from rulelang import parse  # noqa: E402


def mutant_seed(seed: int, i: int) -> int:
    return seed << 32 | i


class Run:
    """The state of a run, kept in DIR/state.json."""

    def __init__(self, out: Path, seed: int, count: int, budget: str):
        self.out = out
        self.seed, self.count, self.budget = seed, count, budget
        self.next = 0  # every mutant below this one is started
        self.done = set()  # mutants done at or above ``low``
        self.low = 0  # every mutant below this one is done
        self.counts = Counter()
        self.defects = {}  # key (as a string) -> {"file", "count", "first"}
        self.seconds = 0.0

    @property
    def path(self) -> Path:
        return self.out / "state.json"

    def load(self) -> bool:
        if not self.path.exists():
            return False
        data = json.loads(self.path.read_text())
        if (data["seed"], data["budget"]) != (self.seed, self.budget):
            sys.exit(f"{self.out} holds a run with seed {data['seed']} and budget {data['budget']}: "
                     "use another --out or --fresh")
        self.low = self.next = data["low"]
        self.done = set(data["done"])
        self.counts = Counter(data["counts"])
        self.defects = data["defects"]
        self.seconds = data.get("seconds", 0.0)
        return True

    def save(self) -> None:
        data = {"seed": self.seed, "count": self.count, "budget": self.budget, "low": self.low,
                "done": sorted(self.done), "counts": dict(self.counts), "defects": self.defects,
                "seconds": round(self.seconds, 1)}
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1))
        tmp.replace(self.path)

    def finish(self, i: int, result: dict, base: str, ops: list, text: str) -> None:
        self.done.add(i)
        while self.low in self.done:
            self.done.remove(self.low)
            self.low += 1
        if result["outcome"] != "defect":
            self.counts[result["outcome"]] += 1
            return
        self.counts["DEFECT " + result["kind"]] += 1
        key = json.dumps(pm.defect_key(result))
        known = self.defects.get(key)
        if known:
            known["count"] += 1
            return
        stem = f"{len(self.defects) + 1:03d}-{result['kind']}-{result['phase'] or 'unknown'}"
        folder = self.out / "defects"
        folder.mkdir(exist_ok=True)
        (folder / f"{stem}.rules").write_bytes(text.encode("utf-8", errors="surrogatepass"))
        info = dict(result, key=pm.defect_key(result), seed=self.seed, mutant=i, run_seed=mutant_seed(self.seed, i),
                    base=base, operators=ops, budget=self.budget, diff=pm.mutant_diff(base, text),
                    rerun=f"pm.run_mutant(text, {mutant_seed(self.seed, i)}, pm.{self.budget.upper()})")
        (folder / f"{stem}.json").write_text(json.dumps(info, indent=1, ensure_ascii=False))
        self.defects[key] = {"file": f"defects/{stem}.rules", "count": 1, "first": i}
        print(f"  new defect {stem}: {result['type']}: {result['message'][:200]}", flush=True)

    def table(self) -> str:
        total = sum(self.counts.values())
        lines = [f"{total} mutants (seed {self.seed}, {self.budget} budget, {self.seconds:.0f} s)"]
        order = [k for k in pm.ALLOWED] + sorted(k for k in self.counts if k.startswith("DEFECT"))
        for k in order:
            n = self.counts.get(k, 0)
            lines.append(f"  {k:<22} {n:>8}  {100 * n / max(1, total):6.2f}%")
        lines.append(f"{len(self.defects)} distinct defects:")
        for key, d in sorted(self.defects.items(), key=lambda kv: kv[1]["file"]):
            kind, phase, typ, pattern = json.loads(key)
            lines.append(f"  {d['file']:<48} x{d['count']:<6} {typ}: {pattern[:110]}")
        return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--quick", action="store_true", help="the test suite's small budget (fewer steps and counts)")
    ap.add_argument("--fresh", action="store_true", help="start over, forgetting an earlier run in --out")
    ap.add_argument("--report", action="store_true", help="print the table of the run in --out and stop")
    ap.add_argument("--progress", type=float, default=30.0, help="seconds between progress lines")
    args = ap.parse_args(argv)
    budget_name = "quick" if args.quick else "budget"
    budget = pm.QUICK if args.quick else pm.BUDGET
    if args.report:
        data = json.loads((args.out / "state.json").read_text())
        run = Run(args.out, data["seed"], data["count"], data["budget"])
        run.load()
        print(run.table())
        return 0
    if args.fresh and args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    run = Run(args.out, args.seed, args.count, budget_name)
    if run.load():
        print(f"resuming at mutant {run.low} ({sum(run.counts.values())} done)", flush=True)
    run.count = max(run.count, args.count)
    parse("", "warm.rules")  # the parser's tables, built once before the forks
    # Ctrl-C, and kill -TERM (a background job under nohup ignores SIGINT): stop, save, print the counts
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    tmpdir = tempfile.mkdtemp(prefix="pipeline-mutants-")
    running = {}  # conn -> (index, base, ops, text, child)
    started = time.monotonic()
    seconds0 = run.seconds
    last_print = last_save = started
    try:
        while run.next < run.count or running:
            while len(running) < args.workers and run.next < run.count:
                i = run.next
                run.next += 1
                if i in run.done:
                    continue
                base, text, ops = pm.make_mutant(mutant_seed(run.seed, i))
                child = pw.Child(text, mutant_seed(run.seed, i), budget, tmpdir)
                running[child.conn] = (i, base, ops, text, child)
            ready = wait(list(running) + [c.proc.sentinel for *_, c in running.values()], timeout=0.5)
            for conn, (i, base, ops, text, child) in list(running.items()):
                if conn in ready or child.proc.sentinel in ready or child.overdue:
                    del running[conn]
                    run.finish(i, child.result(), base, ops, text)
            now = time.monotonic()
            run.seconds = seconds0 + now - started
            if now - last_print >= args.progress:
                last_print = now
                total = sum(run.counts.values())
                defects = sum(v for k, v in run.counts.items() if k.startswith("DEFECT"))
                print(f"[{run.seconds:7.0f} s] {total}/{run.count} mutants, {defects} defects "
                      f"({len(run.defects)} distinct); " + ", ".join(f"{k} {v}" for k, v in run.counts.most_common()),
                      flush=True)
            if now - last_save >= 10:
                last_save = now
                run.save()
    except KeyboardInterrupt:
        print("\ninterrupted: the counts so far", flush=True)
        for *_, child in running.values():
            child.proc.kill()
            child.proc.join()
        run.next = run.low  # the mutants under way run again on resume
    finally:
        run.save()
        shutil.rmtree(tmpdir, ignore_errors=True)
    print(run.table(), flush=True)
    return 1 if run.defects else 0


if __name__ == "__main__":
    sys.exit(main())
