"""Does the way an action is written change its speed?  The planner's yardstick.

    python bench/planner.py [GAME ...] [-n N] [--players P] [--repeat R] [--show]

For each game in ``games/``, writes variants of the rules file that mean
the same game but are written differently, as an author might:

* **permuted**: an action's parameters in another order (every order for
  up to three parameters, a fixed sample of six beyond);
* **inlined**: a call to a user function inside an action's ``require``
  replaced by the function's body, its parameters replaced by the
  arguments (what an author who does not write helper functions would
  write).

It plays N uniformly random games of the original file and records each
game's actions as texts; then, for the original and every variant, times
replaying those same games (listing the legal actions and applying the
chosen one at every step), R times alternating, and reports each
variant's time as a ratio to the original's (median of the repeats).  At
every step the variant's legal actions must read the same as the
original's, in any order: a variant that differs is reported as an error.

The target: every ratio within 1/1.2 .. 1.2.  Reads nothing outside the
project.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rulelang  # noqa: E402
from rulelang import ast as A  # noqa: E402
from interpreter import load  # noqa: E402
from interpreter.compiler.tree import walk  # noqa: E402

GAMES = {"emu_ranchers": 2, "fox_in_the_henhouse": 4, "desplumados": 4, "hens": 4}


def offsets(text: str):
    """(line, column) -> offset in ``text`` (both 1-based)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return lambda line, col: starts[line - 1] + col - 1


def span_range(off, span):
    return off(span.line, span.column), off(span.end_line, span.end_column)


def param_range(off, p):
    """Where a parameter is written: from its name to the end of its domain."""
    start, end = span_range(off, p.span)
    for x in walk([p.domain, p.high, p.min_size, p.max_size]):
        span = getattr(x, "span", None)
        if span is not None and span.line > 1 or getattr(span, "column", 1) > 1:
            end = max(end, span_range(off, span)[1])
    return start, end


def permuted_variants(text: str, checked):
    """(label, text) for each other order of each action's parameters."""
    off = offsets(text)
    for a in checked.actions.values():
        k = len(a.params)
        if k < 2 or any(p.span.line != a.params[0].span.line for p in a.params):
            continue
        ranges = [param_range(off, p) for p in a.params]
        pieces = [text[s:e] for s, e in ranges]
        orders = [o for o in itertools.permutations(range(k)) if o != tuple(range(k))]
        if len(orders) > 6:
            orders = random.Random(k).sample(orders, 6)
        for order in orders:
            # a parameter's domain may name an earlier one: keep only orders that respect that
            names = [a.params[i].name for i in order]
            if any(any(isinstance(x, A.Name) and x.id in names[j + 1:] for x in walk(
                    [a.params[i].domain, a.params[i].high, a.params[i].min_size, a.params[i].max_size]))
                   for j, i in enumerate(order)):
                continue
            edits = [(ranges[0][0], ranges[-1][1], ", ".join(pieces[i] for i in order))]
            # the rules' examples that name the action give its values in the new order too
            for x in walk(checked.examples):
                if getattr(x, "action", None) == a.name and len(getattr(x, "args", ()) or ()) == k:
                    spans = [span_range(off, v.span) for v in x.args]
                    args = [text[s:e] for s, e in spans]
                    edits.append((spans[0][0], spans[-1][1], ", ".join(args[i] for i in order)))
            out = text
            for s, e, new in sorted(edits, reverse=True):
                out = out[:s] + new + out[e:]
            yield f"{a.name}({', '.join(names)})", out


def inlined_variants(text: str, checked):
    """(label, text) for each call to a user function in an action's
    requires, written out in place."""
    off = offsets(text)
    for a in checked.actions.values():
        for item in a.body:
            if not isinstance(item, A.Require):
                continue
            for call in walk(item.cond):
                if not isinstance(call, A.Call) or checked.res.get(id(call), ("",))[0] != "func":
                    continue
                f = checked.functions[call.func]
                if f.lets:
                    continue
                slots = {s: i for i, (s, _) in enumerate(checked.func_slots[call.func][0])}
                args = [text.__getitem__(slice(*span_range(off, x.span))) for x in call.args]
                body_s, body_e = span_range(off, f.body.span)
                edits = []
                for x in walk(f.body):
                    r = checked.res.get(id(x))
                    if isinstance(x, A.Name) and r and r[0] == "slot" and r[1] in slots:
                        s, e = span_range(off, x.span)
                        edits.append((s - body_s, e - body_s, f"({args[slots[r[1]]]})"))
                body = text[body_s:body_e]
                for s, e, new in sorted(edits, reverse=True):
                    body = body[:s] + new + body[e:]
                cs, ce = span_range(off, call.span)
                yield f"{a.name}: {call.func}(...) inlined", text[:cs] + "(" + body + ")" + text[ce:]


def record(game, players, n, seed):
    rnd = random.Random(seed).random
    games = []
    for g in range(n):
        s = game.new_state(g, players)
        texts = []
        while not s.is_terminal:
            acts = s.legal_actions()
            a = acts[int(rnd() * len(acts))]
            texts.append(s.action_text(a))
            s.apply(a)
        games.append(texts)
    return games


def translate(game, players, games):
    """Each recorded game as the game's own action tuples; None and a
    message if the legal actions read differently somewhere."""
    out = []
    for g, texts in enumerate(games):
        s = game.new_state(g, players)
        tuples = []
        for t in texts:
            by_text = {s.action_text(a): a for a in s.legal_actions()}
            if t not in by_text:
                return None, f"game {g} step {len(tuples)}: no legal action reads {t!r}"
            tuples.append(by_text[t])
            s.apply(by_text[t])
        out.append(tuples)
    return out, ""


def replay_time(game, players, tuples):
    t0 = time.perf_counter()
    for g, acts in enumerate(tuples):
        s = game.new_state(g, players)
        for a in acts:
            s.legal_actions()
            s.apply(a)
    return time.perf_counter() - t0


def legal_sets_agree(a, b, players, games) -> str:
    for g, texts in enumerate(games):
        sa, sb = a.new_state(g, players), b.new_state(g, players)
        for i, t in enumerate(texts):
            la = sorted(sa.action_text(x) for x in sa.legal_actions())
            lb = sorted(sb.action_text(x) for x in sb.legal_actions())
            if la != lb:
                return f"game {g} step {i}: legal actions differ"
            for s in (sa, sb):
                s.apply(next(x for x in s.legal_actions() if s.action_text(x) == t))
    return ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games", nargs="*", help="game file stems (default: the four games)")
    ap.add_argument("-n", type=int, default=30, help="games recorded per game (default 30)")
    ap.add_argument("--players", type=int, default=None, help="player count (default: per game)")
    ap.add_argument("--repeat", type=int, default=5, help="alternating timings per variant (default 5)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", action="store_true", help="print each variant's changed lines")
    args = ap.parse_args(argv)
    worst = 1.0
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for stem in args.games or GAMES:
            path = ROOT / "games" / f"{stem}.rules"
            text = path.read_text()
            checked = rulelang.load_checked(path)
            players = args.players or GAMES.get(stem, 2)
            base = load(path)
            games = record(base, players, args.n, args.seed)
            base_tuples, _ = translate(base, players, games)
            print(f"{stem} ({players} players, {args.n} games, {sum(map(len, games))} actions)")
            variants = list(permuted_variants(text, checked)) + list(inlined_variants(text, checked))
            for i, (label, vtext) in enumerate(variants):
                vpath = Path(tmp) / f"{stem}_{i}.rules"
                vpath.write_text(vtext)
                if args.show:
                    changed = [ln for ln in vtext.splitlines() if ln not in text.splitlines()]
                    print("   ", "\n    ".join(changed))
                try:
                    vgame = load(vpath)
                except rulelang.RulesError as err:
                    print(f"  {label:52} does not check: {err}")
                    failed = True
                    continue
                problem = legal_sets_agree(base, vgame, players, games)
                tuples, msg = translate(vgame, players, games) if not problem else (None, problem)
                if tuples is None:
                    print(f"  {label:52} ERROR {msg}")
                    failed = True
                    continue
                ratios = []
                for _ in range(args.repeat):
                    tb = replay_time(base, players, base_tuples)
                    tv = replay_time(vgame, players, tuples)
                    ratios.append(tv / tb)
                r = statistics.median(ratios)
                worst = max(worst, r, 1 / r)
                print(f"  {label:52} {r:5.2f}x the original's time")
    print(f"widest spread: {worst:.2f}x (target <= 1.2x)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
