"""What a batch of games used of the rules: how often each trigger fired,
what the record's counters came to, and which rules never ran.

The counts come from the machine's coverage probes (a game loaded with
``coverage=True``: each branch, loop, choice and trigger counts its passes,
summed over every game a machine plays).  ``rulerun simulate`` reports them;
the fuzzer reads the same counts (:func:`coverage_counts`) for its
``unused`` finding.
"""

from __future__ import annotations

from rulelang import ast as A

# An "if" with no else whose condition always held: a guard that never
# failed, not a rule that never ran.
GUARD = "if condition false (no branch taken)"


def coverage_counts(game) -> dict:
    """{(kind, what, where): count} over every machine of ``game`` (one per
    player count played); a trigger's body, laid out at every place it can
    fire, counts as one rule."""
    out = {}
    for m, counts in game.probe_counts():
        for (kind, what, span), c in zip(m.coverage_points, counts):
            key = (kind, what, where(span))
            out[key] = out.get(key, 0) + c
    return out


def where(span) -> str | None:
    return str(span) if span is not None and getattr(span, "line", 0) else None


def trigger_text(t) -> str:
    """How a report names a trigger: its first line, as written."""
    if t.event == "enter":
        card = f'"{t.card.value}"' if isinstance(t.card, A.StrLit) else (t.var or "a card")
        zone = f"{t.zone}({t.owner})" if t.owner else t.zone
        return f"when {card} enters {zone}"
    return "after every action" if t.event == "action" else "before every turn"


def turn_count(m) -> int:
    """The turns (``turn`` blocks entered) of every game machine ``m`` has
    played so far: 0 without coverage probes."""
    points = getattr(m, "turn_points", None)
    if points is None:
        points = m.turn_points = [i for i, (kind, _, _) in enumerate(m.coverage_points) if kind == "turn"]
    counts = m.coverage_counts
    return sum(counts[i] for i in points)


class Records:
    """The record's counters over finished games: a sum per counter (and per
    seat, for a player's counter); a flag counts the games it was set in."""

    def __init__(self):
        self.games = 0
        self.sums = {}  # name -> total, or [total per seat]

    def add(self, counters: dict) -> None:
        self.games += 1
        for name, value in counters.items():
            if isinstance(value, list):
                acc = self.sums.setdefault(name, [0] * len(value))
                for p, v in enumerate(value):
                    acc[p] += int(v)
            else:
                self.sums[name] = self.sums.get(name, 0) + int(value)

    def merge(self, other: "Records") -> None:
        self.games += other.games
        for name, value in other.sums.items():
            if isinstance(value, list):
                acc = self.sums.setdefault(name, [0] * len(value))
                for p, v in enumerate(value):
                    acc[p] += v
            else:
                self.sums[name] = self.sums.get(name, 0) + value


def usage_summary(game, counts: dict, actions_used: dict, records: Records, ended: int) -> dict:
    """The figures simulate reports: triggers (fired per finished game),
    records (mean per finished game, per seat for a player's), never_ran
    (what, where)."""
    fired = {}
    for (kind, what, at), c in counts.items():
        if kind == "trigger":
            fired[at] = fired.get(at, 0) + c
    triggers = [{"trigger": trigger_text(t), "where": where(t.span),
                 "per_game": fired.get(where(t.span), 0) / ended if ended else 0.0}
                for t in game.checked.triggers]
    docs = {v.name: v.doc for v in _record_vars(game)}
    out_records = {}
    for name, total in records.sums.items():
        label = docs.get(name) or name
        games = records.games or 1
        out_records[label] = ([t / games for t in total] if isinstance(total, list) else total / games)
    never = [{"what": f"{what} never happened", "where": at} for (kind, what, at), c in counts.items()
             if not c and what != GUARD]
    never += [{"what": f"action {name} was never played", "where": where(a.span)}
              for name, a in game.checked.actions.items() if not actions_used.get(name)]
    return {"triggers": triggers, "records": out_records, "never_ran": never}


def _record_vars(game):
    return [it for it in game.checked.module.items if isinstance(it, A.Var) and it.record]


def usage_lines(summary: dict, ended: int) -> list:
    """The usage figures as lines of text."""
    lines = []
    if summary["triggers"]:
        lines.append("")
        lines.append("triggers fired, per finished game: " + ", ".join(
            f"{t['trigger']} {t['per_game']:.2f}" for t in summary["triggers"]))
    if summary["records"]:
        lines.append("")
        lines.append("record, mean per finished game:")
        for label, value in summary["records"].items():
            shown = ", ".join(f"P{p + 1} {v:.2f}" for p, v in enumerate(value)) if isinstance(value, list) \
                else f"{value:.2f}"
            lines.append(f"  {label}: {shown}")
    if summary["never_ran"]:
        lines.append("")
        lines.append(f"never ran in {ended} finished games (a dead rule, or one these settings never reach):")
        for item in summary["never_ran"]:
            lines.append(f"  {item['where'] or '-'}: {item['what']}")
    return lines


__all__ = ["coverage_counts", "turn_count", "Records", "usage_summary", "usage_lines",
           "trigger_text", "GUARD"]
