"""What a fuzz run reports: its findings, the coverage of the rules, and
replay files (a finding saved as JSON, to be played again by ``rulerun
replay``).  See :mod:`.fuzz` for the search itself."""

from __future__ import annotations

import json
from pathlib import Path

import attrs


REPLAY_VERSION = 1


@attrs.define
class Finding:
    kind: str
    message: str
    players: int
    params: dict
    seed: int
    actions: list  # the actions' text forms, in order; the finding is after the last
    where: str | None = None  # FILE:LINE:COL of the rule concerned, when known
    loop_from: int | None = None  # for a cycle: the step where the repeated position first stood

    def to_dict(self) -> dict:
        return attrs.asdict(self)

    def replay_dict(self, rules_file: str) -> dict:
        return {"rulelang_replay": REPLAY_VERSION, "rules": rules_file, "finding": self.to_dict()}


@attrs.define
class Report:
    rules: str
    findings: list
    games: int = 0  # the games the search played
    actions: int = 0  # every action played and checked: the search's, and those of shrinking its findings
    seconds: float = 0.0  # the time they took (not the loading)
    coverage: list = attrs.Factory(list)  # dicts: kind, what, where, count
    unused: list = attrs.Factory(list)  # descriptions of what never ran
    out_of_time: bool = False  # the run stopped at its time limit
    only_under: list = attrs.Factory(list)  # rules that ran only with a drawn parameter off its default
    seats: list = attrs.Factory(list)  # per player count and seat: decisions, choices, offered, took
    never: list = attrs.Factory(list)  # (what, where) of each rule that never ran: the "unused" findings
    seat_log: dict = attrs.Factory(dict)  # SeatLog.portable(): to merge runs made elsewhere (fuzz_batches)
    # the search's games per player count and drawn setting ({} for the game as written):
    # dicts players, params, games, actions (not the games of shrinking a finding)
    settings: list = attrs.Factory(list)

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict:
        return {"rules": self.rules, "ok": self.ok, "games": self.games, "actions": self.actions,
                "seconds": round(self.seconds, 3), "actions_per_s": round(self.actions_per_s, 1),
                "findings": [f.to_dict() for f in self.findings], "coverage": self.coverage,
                "unused": self.unused, "out_of_time": self.out_of_time, "only_under": self.only_under,
                "seats": self.seats, "settings": self.settings}



def coverage_report(fz, report) -> None:
    """Fill ``report.coverage``, ``report.unused`` and ``report.only_under``
    from the fuzzer's machines and counts."""
    from .fuzz_params import only_under_a_setting
    from .usage import GUARD, coverage_counts

    # a trigger's body is laid out at every place it can fire: its copies count as one;
    # each point's count is kept per setting of the drawn parameters
    points = {}
    for varied, game in fz.games.items():
        if game is None:
            continue
        for key, c in coverage_counts(game).items():
            by_setting = points.setdefault(key, {})
            by_setting[varied] = by_setting.get(varied, 0) + c
    for (kind, what, where), by_setting in points.items():
        n = sum(by_setting.values())
        report.coverage.append({"kind": kind, "what": what, "where": where, "count": n})
        if not n:
            report.unused.append(f"{where}: {what} never happened")
            if what != GUARD:  # an "if" always true is a guard, not a dead rule
                report.never.append((f"{what} never happened", where))
    if fz.vary_names:
        report.only_under = only_under_a_setting(points, fz.defaults)
    game = fz.games[()]
    if game.checked.achievements is not None:
        for item in game.checked.achievements.items:
            n = fz.achieved.get(item.text, 0)
            report.coverage.append({"kind": "achievement", "what": f'achievement "{item.text}" reached',
                                    "where": str(item.span), "count": n})
            if not n:
                report.unused.append(f'{item.span}: achievement "{item.text}" was never reached')
                report.never.append((f'achievement "{item.text}" was never reached', str(item.span)))
    chosen = fz.seats.taken()
    for name, a in game.checked.actions.items():
        n = chosen.get(name, 0)
        report.coverage.append({"kind": "action", "what": f"action {name} played", "where": str(a.span),
                                "count": n})
        if not n:
            report.unused.append(f"{a.span}: action {name} was never played")
            report.never.append((f"action {name} was never played", str(a.span)))



# ---------------------------------------------------------------- replay files
def save_replay(finding: Finding, rules_file: str, out_dir) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = Path(rules_file).stem
    path = out / f"{stem}-{finding.kind}-{finding.players}p-{finding.seed}.json"
    path.write_text(json.dumps(finding.replay_dict(rules_file), indent=2) + "\n")
    return path


class ReplayError(Exception):
    """A replay file that cannot be read or does not fit its rules file."""


def load_replay(path) -> tuple[str, Finding]:
    """Read a replay file; returns (rules file, finding)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise ReplayError(f"cannot read {path}: {err.strerror or err}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ReplayError(f"{path} is not a replay file (not JSON: {err})") from None
    except RecursionError:
        raise ReplayError(f"{path} is not a replay file (nested too deeply)") from None
    if not isinstance(data, dict) or data.get("rulelang_replay") != REPLAY_VERSION:
        raise ReplayError(f"{path} is not a rulelang replay file (version {REPLAY_VERSION})")
    try:
        f = data["finding"]
        if not isinstance(f.get("actions"), list) or not all(isinstance(a, str) for a in f["actions"]):
            raise ValueError("actions must be a list of action texts")
        if not isinstance(f.get("params", {}), dict):
            raise ValueError("params must be an object")
        finding = Finding(str(f["kind"]), str(f["message"]), int(f["players"]), dict(f["params"]),
                          int(f["seed"]), [str(a) for a in f["actions"]], f.get("where"), f.get("loop_from"))
        return str(data["rules"]), finding
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise ReplayError(f"{path}: a field is missing or malformed ({err})") from None
