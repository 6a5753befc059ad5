"""Mutation score of the fuzz harness: how many small rules changes does it flag?

    python bench/mutants.py [--games G ...] [--max-mutants N] [--examples E]
                            [--max-actions A] [--seed S] [--vary P ...]
                            [--jobs J] [--timeout T] [--json] [--list-survivors]

For each game in ``games/``, makes mutants of its rules file, each one small
change to one line of rules code (an action, a function, ``setup``,
``play`` or ``outcome``; never a comment, a string, the cards table, the
deck or a declaration, except the ``players`` line; never an ``example``,
which is the rules' oracle, as a test suite is a program's):

- ``delete-effect``: delete a ``move``/``set``/``deal``/``shuffle``/``swap``
  statement (replaced by ``pass`` when it is the only statement of its block,
  so that the block stays a block);
- ``delete-require``: delete a ``require`` line (likewise);
- ``flip-compare``: ``<`` <-> ``>=``, ``<=`` <-> ``>``, ``==`` <-> ``!=``;
- ``int+1`` / ``int-1``: an integer constant, including ``deal N``, the ends
  of ranges ``a..b`` and the ``players`` line;
- ``swap-zone``: one zone name in a statement replaced by another zone of the
  same shape (per player or not), and, where a statement names two zones,
  the two exchanged;
- ``negate``: ``require X`` -> ``require not (X)`` (and the same for the
  condition of ``if``/``elif``/``while``);
- ``and-to-or``: one ``and`` replaced by ``or``;
- ``turn-seat``: ``turn X:`` -> ``turn 0:`` (one player takes those turns:
  the slip the ``seat`` finding and ``turns_taken`` invariants are for).

Mutants whose text repeats another's, or whose syntax tree equals the
original's (the tree ignores layout and comments), are not made.  Up to
``--max-mutants`` are sampled per game with ``--seed``.  Each is written to a
temporary file and checked with :func:`rulelang.check_file`: one with an
error is "rejected by the checker".  The rest are fuzzed with a fixed budget
(all player counts, ``--examples``, ``--max-actions``, ``--seed``, the
fuzzer's default drawing of options and small parameters): a mutant with a
finding the original does not have (by kind, and for ``unused`` by the rule
that never ran) is "flagged" (its finding kinds are recorded).  A mutant with
none is played beside the original by ``rulerun diff`` (``interpreter.diff``,
the same budget): if no difference shows, it is "equivalent" (the change
does not change the game, as far as that search can tell) and set aside;
else it "survived".  A survivor is either a change the fuzzer cannot see without an
oracle (a different score, a different but still well-formed game) or a gap:
``--list-survivors`` prints each one's changed line for a person to judge.
The share reported is flagged / (flagged + survived).  Mutants the fuzzer fails on (an
exception out of ``fuzz()``) or that run past ``--timeout`` are counted apart.

As a hint for that judgement, the original is fuzzed the same way, and each
survivor's ``report.unused`` (actions never played, branches never taken) is
compared with the original's: a survivor that leaves code unused that the
original's run used has changed the game in a way a person reading
``rulerun fuzz``'s coverage would notice.

Every game is fuzzed at its parameters' defaults; ``--vary`` names parameters
to draw within their ranges instead (for the games that declare them).  The
results do not depend on ``--jobs``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import signal
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rulelang  # noqa: E402
from interpreter import load  # noqa: E402
from interpreter.fuzz import KINDS, fuzz  # noqa: E402

RULE_BLOCKS = {"action", "function", "setup", "play", "outcome"}
EFFECTS = {"move", "set", "deal", "shuffle", "swap"}
FLIP = {"<": ">=", ">=": "<", "<=": ">", ">": "<=", "==": "!=", "!=": "=="}
OPERATORS = ("delete-effect", "delete-require", "flip-compare", "int+1", "int-1", "swap-zone", "negate",
             "and-to-or", "turn-seat")

_TOKEN = re.compile(r'(?P<str>"[^"\n]*")|(?P<comment>#.*)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<int>[0-9]+)'
                    r'|(?P<op>==|!=|<=|>=|\.\.|\+=|-=|[<>])|(?P<other>\S)')


def tokens(line: str):
    """The code tokens of one line: (kind, start, end, text); strings are
    kept (so that nothing inside them is mutated), the comment is dropped."""
    out = []
    for m in _TOKEN.finditer(line):
        kind = m.lastgroup
        if kind == "comment":
            break
        out.append((kind, m.start(), m.end(), m.group()))
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _is_code(line: str) -> bool:
    s = line.strip()
    return bool(s) and not s.startswith("#")


def _code_end(line: str) -> int:
    """Where the line's code ends (before a comment and trailing blanks)."""
    toks = tokens(line)
    return toks[-1][2] if toks else 0


def _zones(lines):
    """Zone name -> per player?"""
    zones = {}
    for line in lines:
        m = re.match(r"zone\s+([A-Za-z_][A-Za-z0-9_]*)\s*:(.*)", line)
        if m:
            opts = m.group(2).split("#")[0]
            zones[m.group(1)] = bool(re.search(r"\bper\s+player\b", opts))
    return zones


def _regions(lines):
    """For each line, the kind of top-level item it belongs to (its first word)."""
    out, current = [], None
    for line in lines:
        if _is_code(line) and _indent(line) == 0:
            current = line.split()[0].rstrip(":").split("(")[0]
        out.append(current)
    return out


def _only_statement(lines, i) -> bool:
    """Is line i the only statement of its block (so deleting it would leave
    the block empty)?"""
    ind = _indent(lines[i])
    prev = next((j for j in range(i - 1, -1, -1) if _is_code(lines[j])), None)
    nxt = next((j for j in range(i + 1, len(lines)) if _is_code(lines[j])), None)
    opens = prev is not None and _indent(lines[prev]) < ind and lines[prev][:_code_end(lines[prev])].endswith(":")
    closes = nxt is None or _indent(lines[nxt]) < ind
    return opens and closes


def _replace(line, start, end, new):
    return line[:start] + new + line[end:]


def line_mutations(lines, i, zones, region):
    """(operator, new line or None to delete) for line i."""
    line = lines[i]
    if line.rstrip().endswith("\\") or (i and lines[i - 1].rstrip().endswith("\\")):
        return  # a continued line: leave it alone
    toks = tokens(line)
    if not toks:
        return
    if region == "players":
        for kind, s, e, text in toks:
            if kind == "int":
                v = int(text)
                yield "int+1", _replace(line, s, e, str(v + 1))
                if v > 0:
                    yield "int-1", _replace(line, s, e, str(v - 1))
        return
    first = toks[0][3]
    pad = line[:_indent(line)]
    end = _code_end(line)
    # deletions
    if first in EFFECTS or first == "require":
        op = "delete-require" if first == "require" else "delete-effect"
        yield op, (pad + "pass" + line[end:] if _only_statement(lines, i) else None)
    # one player takes the turns
    if first == "turn" and line[:end].endswith(":") and line[toks[0][2]:end - 1].strip() != "0":
        yield "turn-seat", f"{pad}turn 0:{line[end:]}"
    # negations of a statement's condition
    if first == "require":
        cond = line[toks[0][2]:end].strip()
        yield "negate", f"{pad}require not ({cond}){line[end:]}"
    elif first in ("if", "elif", "while") and line[:end].endswith(":"):
        cond = line[toks[0][2]:end - 1].strip()
        yield "negate", f"{pad}{first} not ({cond}):{line[end:]}"
    # token-level changes
    present = []
    for n, (kind, s, e, text) in enumerate(toks):
        after_dot = n > 0 and toks[n - 1][3] == "."
        if kind == "op" and text in FLIP:
            yield "flip-compare", _replace(line, s, e, FLIP[text])
        elif kind == "int":
            v = int(text)
            yield "int+1", _replace(line, s, e, str(v + 1))
            yield "int-1", _replace(line, s, e, str(v - 1))
        elif kind == "name" and text == "and":
            yield "and-to-or", _replace(line, s, e, "or")
        elif kind == "name" and text in zones and not after_dot:
            present.append((s, e, text))
            for other, per_player in zones.items():
                if other != text and per_player == zones[text]:
                    yield "swap-zone", _replace(line, s, e, other)
    names = sorted({t for _, _, t in present})
    for a_i, a in enumerate(names):
        for b in names[a_i + 1:]:
            if zones[a] != zones[b]:
                continue
            new = line
            for s, e, t in reversed(present):
                if t in (a, b):
                    new = _replace(new, s, e, b if t == a else a)
            yield "swap-zone", new


def make_mutants(text: str):
    """Every distinct mutant of a rules text, in file order: dicts with op,
    line (1-based), before, after (None when deleted), deleted and text.
    Two mutants are the same when their syntax trees are (the tree ignores
    comments and layout); one whose tree is the original's is not made."""
    lines = text.split("\n")
    zones = _zones(lines)
    regions = _regions(lines)

    def key(t):
        module, _ = rulelang.parse(t)
        return ("tree", repr(module)) if module is not None else ("text", t)

    seen = {key(text)}
    out = []
    for i, line in enumerate(lines):
        region = regions[i]
        if not _is_code(line) or region not in RULE_BLOCKS | {"players"}:
            continue
        for op, new in line_mutations(lines, i, zones, region):
            if new == line:
                continue
            mutated = "\n".join(lines[:i] + ([] if new is None else [new]) + lines[i + 1:])
            k = key(mutated)
            if k in seen:
                continue  # the original, or a mutant already made, written differently
            seen.add(k)
            out.append({"op": op, "line": i + 1, "before": line.strip(), "deleted": new is None,
                        "after": None if new is None else new.strip(), "text": mutated})
    return out


# ---------------------------------------------------------------- judging one mutant
class _Timeout(BaseException):
    """Raised by the alarm; not an Exception, so the fuzzer does not take it for a crash."""


_ALARMED = [False]


def _alarm(signum, frame):
    _ALARMED[0] = True
    raise _Timeout()


def _unused_keys(unused, deleted_line):
    """The fuzz report's "never happened" lines as (line in the original
    file, what); a deletion shifts the mutant's later lines up by one."""
    out = set()
    for entry in unused:
        m = re.search(r":(\d+):\d+: (.*)$", entry)
        if not m:
            continue
        line = int(m.group(1))
        if deleted_line is not None and line >= deleted_line:
            line += 1
        out.add((line, m.group(2)))
    return out


def finding_keys(findings, deleted_line) -> set:
    """What tells findings apart: the kind, and for a rule that never ran,
    the rule (its line in the original file)."""
    out = set()
    for f in findings:
        if f.kind == "unused":
            for line, what in _unused_keys([f"{f.where}: {f.message.split(' in ')[0]}"], deleted_line):
                out.add(("unused", line, what))
        else:
            out.add((f.kind,))
    return out


def judge(job):
    """Check, then fuzz, one mutant; returns a JSON-able result."""
    m, opts = job
    path = Path(opts["tmpdir"]) / f"{m['game']}-m{m['id']}.rules"
    path.write_text(m["text"])
    out = {k: m[k] for k in ("id", "op", "line", "before", "after")}
    t0 = time.perf_counter()
    _ALARMED[0] = False
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(opts["timeout"])
    try:
        game, diags, _ = rulelang.check_file(path)
        errors = [d for d in diags if d.severity == "error"]
        if game is None or errors:
            d = errors[0] if errors else None
            out.update(status="rejected", why=f"{d.message} [{d.code}]" if d else "did not check")
            return out
        try:
            report = fuzz(path, players="all", examples=opts["examples"], max_actions=opts["max_actions"],
                          seed=opts["seed"], vary=opts["vary"], time_limit=opts["timeout"] / 2)
        except Exception as err:  # noqa: BLE001 - checks but cannot be loaded or fuzzed: say so
            if _ALARMED[0]:  # Hypothesis caught the alarm and failed in its own way
                raise _Timeout() from None
            out.update(status="error", why=f"{type(err).__name__}: {err}")
            return out
        deleted = m["line"] if m.get("deleted") else None
        keys = finding_keys(report.findings, deleted)
        new = keys - set(map(tuple, opts.get("base_keys", ())))
        kinds = sorted({k[0] for k in new}, key=KINDS.index)
        where = str(path)
        status = "flagged" if kinds else "survived"
        if status == "survived" and m["id"]:  # does the change change the game at all?
            from interpreter.diff import diff
            try:
                d = diff(opts["original"], path, examples=opts["examples"], max_actions=opts["max_actions"],
                         seed=opts["seed"])
                status = "survived" if d.difference is not None else "equivalent"
            except ValueError:  # no player count suits both: not the same game
                status = "survived"
        out.update(status=status, kinds=kinds, keys=sorted(keys),
                   findings=[f"{f.kind} ({f.players}p): {f.message}"
                             + (f" at line {f.where.rsplit(':', 2)[1]}" if f.where and f.where.startswith(where)
                                else "") for f in report.findings],
                   games=report.games, actions=report.actions,
                   unused=sorted(_unused_keys(report.unused, m["line"] if m.get("deleted") else None)))
        return out
    except _Timeout:
        out.update(status="timeout", why=f"checking and fuzzing took over {opts['timeout']} s")
        return out
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        out["seconds"] = round(time.perf_counter() - t0, 3)
        path.unlink(missing_ok=True)


def run_game(stem, args, pool, tmpdir):
    path = ROOT / "games" / f"{stem}.rules"
    t0 = time.perf_counter()
    text = path.read_text()
    every = make_mutants(text)
    picked = every if len(every) <= args.max_mutants else random.Random(args.seed).sample(every, args.max_mutants)
    picked.sort(key=lambda m: (m["line"], OPERATORS.index(m["op"]), m["after"] or ""))
    for n, m in enumerate(picked, 1):
        m["id"], m["game"] = n, stem
    declared = {name for name, *_ in load(path).param_info()}
    opts = {"examples": args.examples, "max_actions": args.max_actions, "seed": args.seed,
            "vary": tuple(v for v in args.vary if v in declared), "timeout": args.timeout, "tmpdir": tmpdir}
    # The original, fuzzed the same way: it must survive, and its unused code
    # is what a survivor's is compared with.
    original = {"id": 0, "game": stem, "op": "original", "line": 0, "before": None, "after": None, "text": text}
    base = judge((original, opts))
    keep = Path(tmpdir) / f"{stem}-original.rules"
    keep.write_text(text)
    opts = dict(opts, base_keys=base.get("keys", []), original=str(keep))
    jobs = [(m, opts) for m in picked]
    results = list(pool.map(judge, jobs)) if pool is not None else [judge(j) for j in jobs]
    base_unused = {tuple(u) for u in base.get("unused", ())}
    for r in results:
        if r["status"] == "survived":
            r["new_unused"] = [f"line {line}: {what}" for line, what in sorted({tuple(u) for u in r["unused"]}
                                                                               - base_unused)]
    seconds = time.perf_counter() - t0
    count = Counter(r["status"] for r in results)
    fuzzed = count["flagged"] + count["survived"]  # the equivalent ones set aside
    kinds = Counter(k for r in results if r["status"] == "flagged" for k in r["kinds"])
    by_op = {}
    for r in results:
        by_op.setdefault(r["op"], Counter())[r["status"]] += 1
    return {
        "game": stem, "generated": len(every), "mutants": len(picked), "rejected": count["rejected"],
        "errors": count["error"], "timeouts": count["timeout"], "fuzzed": fuzzed, "flagged": count["flagged"],
        "survived": count["survived"], "equivalent": count["equivalent"],
        "survived_new_unused": sum(1 for r in results if r.get("new_unused")),
        "flagged_share": round(count["flagged"] / fuzzed, 4) if fuzzed else None,
        "by_kind": {k: kinds[k] for k in KINDS if kinds[k]},
        "by_operator": {op: dict(by_op[op]) for op in OPERATORS if op in by_op},
        "seconds": round(seconds, 1), "examples": args.examples, "max_actions": args.max_actions,
        "seed": args.seed, "vary": list(opts["vary"]), "original": base, "results": results,
    }


def _diff(r):
    before = f"      - {r['before']}"
    after = "      + (deleted)" if r["after"] is None else f"      + {r['after']}"
    return f"{before}\n{after}"


def print_game(g, list_survivors):
    share = f"{100 * g['flagged_share']:.0f}%" if g["flagged_share"] is not None else "-"
    vary = f"  vary={','.join(g['vary'])}" if g["vary"] else ""
    print(f"{g['game']}  examples={g['examples']}  max_actions={g['max_actions']}  seed={g['seed']}"
          f"  players=all{vary}")
    base = g["original"]
    if base["status"] not in ("survived", "equivalent"):
        print(f"  the original's own findings (a mutant is flagged for others): "
              f"{'; '.join(base.get('findings', ())) or base.get('why', '')}")
    print(f"  mutants made          {g['mutants']:4d}   (sampled from {g['generated']} distinct)")
    print(f"  rejected by checker   {g['rejected']:4d}")
    if g["errors"]:
        print(f"  fuzzer raised         {g['errors']:4d}   (checked, but fuzz() failed: listed below)")
    if g["timeouts"]:
        print(f"  timed out             {g['timeouts']:4d}")
    print(f"  equivalent (diff)     {g['equivalent']:4d}   (set aside: no difference from the original found)")
    print(f"  fuzzed, not equivalent {g['fuzzed']:3d}")
    print(f"  flagged               {g['flagged']:4d}   ({share} of those)")
    if g["by_kind"]:
        print("    by kind             " + ", ".join(f"{k} {n}" for k, n in g["by_kind"].items()))
    print(f"  survived              {g['survived']:4d}   ({g['survived_new_unused']} of them left code unused"
          " that the original's run used)")
    print("  by operator           flagged/fuzzed  rejected")
    for op, c in g["by_operator"].items():
        fz = c.get("flagged", 0) + c.get("survived", 0)
        print(f"    {op:16s}    {c.get('flagged', 0):3d}/{fz:<3d}        {c.get('rejected', 0):3d}")
    print(f"  time                  {g['seconds']:.1f} s")
    for r in g["results"]:
        if r["status"] in ("error", "timeout"):
            print(f"  {r['status']}: m{r['id']} line {r['line']} [{r['op']}]: {r['why']}")
    if list_survivors:
        surv = [r for r in g["results"] if r["status"] == "survived"]
        if surv:
            print("  survivors:")
        for r in surv:
            print(f"    m{r['id']} line {r['line']} [{r['op']}]")
            print(_diff(r))
            for u in r.get("new_unused", ()):
                print(f"        unused now: {u}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", nargs="*", help="game file stems (default: every games/*.rules)")
    ap.add_argument("--max-mutants", type=int, default=60, help="mutants per game, sampled (default 60)")
    ap.add_argument("--examples", type=int, default=30, help="fuzz examples per mutant (default 30)")
    ap.add_argument("--max-actions", type=int, default=3000, help="fuzz max actions per game (default 3000)")
    ap.add_argument("--seed", type=int, default=0, help="seed for sampling mutants and for the fuzzer")
    ap.add_argument("--vary", nargs="*", default=[],
                    help="parameters the fuzzer draws within their ranges, for the games that declare them "
                         "(default: none, every game at its defaults)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2; 1: no pool)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per mutant before it counts as timed out "
                    "(the fuzzer gets half of it)")
    ap.add_argument("--json", action="store_true", help="print one JSON object per game, with every mutant")
    ap.add_argument("--list-survivors", action="store_true", help="print each surviving mutant's changed line")
    args = ap.parse_args(argv)

    available = sorted(p.stem for p in (ROOT / "games").glob("*.rules"))
    stems = args.games or available
    unknown = [s for s in stems if s not in available]
    if unknown:
        ap.error(f"unknown game(s): {', '.join(unknown)} (known: {', '.join(available)})")

    pool = ProcessPoolExecutor(max_workers=args.jobs) if args.jobs > 1 else None
    try:
        with tempfile.TemporaryDirectory(prefix="rulelang-mutants-") as tmpdir:
            for stem in stems:
                g = run_game(stem, args, pool, tmpdir)
                if args.json:
                    print(json.dumps(g), flush=True)
                else:
                    print_game(g, args.list_survivors)
                    sys.stdout.flush()
    finally:
        if pool is not None:
            pool.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
