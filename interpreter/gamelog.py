"""Game logs: one game as JSON Lines, to keep, share and play again.

``rulerun FILE --log GAME.jsonl`` writes one; ``rulerun replay GAME.jsonl``
plays it again and checks every step.  The first line says what was played:

    {"rulelang_log": 1, "rules": "games/emu_ranchers.rules", "sha256": "...",
     "params": {...}, "seed": 7, "players": 4, "bots": ["random", ...]}

then one line per action, in its text form, with the seat that took it:

    {"step": 1, "seat": 1, "action": "draw from the pile"}

and a last line with the result (or the rule error that stopped the game):

    {"end": true, "scores": [12, 9, 7, 3], "winners": [1]}

Seats are 1-based, as the command line shows them.  Chance needs no line of
its own: the game's generator, seeded, deals the same cards again.  A log
whose rules file has changed since (its hash differs) is still replayed,
and the first step that no longer fits is reported.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

LOG_VERSION = 1


class LogError(Exception):
    """A log that cannot be read: the message names the file and line."""


def rules_hash(text: str) -> str:
    """The fingerprint of a rules text; of a variant's, with every file it extends
    (a :class:`rulelang.RulesText`)."""
    combined = getattr(text, "combined", None)
    if combined is not None:
        text = combined()
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class LogWriter:
    """Writes a log line by line (flushed, so a game cut short keeps what was played)."""

    def __init__(self, path, rules_path: str, rules_text: str, params: dict, seed: int, players: int, bots,
                 humans=()):
        self.f = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
        header = {"rulelang_log": LOG_VERSION, "rules": str(rules_path), "sha256": rules_hash(rules_text),
                  "params": params, "seed": seed, "players": players, "bots": list(bots)}
        if humans:  # a game played at the terminal (rulerun play): its people's seats, 1-based
            header["humans"] = [h + 1 for h in humans]
        self._write(header)
        self.step = 0

    @classmethod
    def append_to(cls, path, steps: int) -> "LogWriter":
        """Go on writing a log that holds ``steps`` actions (a saved game resumed)."""
        self = cls.__new__(cls)
        self.f = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()
        self.step = steps
        return self

    def _write(self, obj) -> None:
        self.f.write(json.dumps(obj) + "\n")
        self.f.flush()

    def action(self, seat: int, text: str) -> None:
        self.step += 1
        self._write({"step": self.step, "seat": seat + 1, "action": text})

    def end(self, scores=None, winners=None, error: str | None = None) -> None:
        if error is not None:
            self._write({"end": True, "error": error})
        else:
            self._write({"end": True, "scores": list(scores), "winners": [w + 1 for w in winners]})

    def close(self) -> None:
        self.f.close()


def is_log(path) -> bool:
    """Does the file start like a game log?"""
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline(100_000)
        return '"rulelang_log"' in first
    except (OSError, UnicodeDecodeError):
        return False


def read_log(path, cut_off_ok: bool = False) -> tuple:
    """(header, [(seat, action text, line number)], end or None); LogError
    names a bad line.  ``cut_off_ok``: a last line cut off in the middle
    (the program stopped while writing it) is left out, not an error."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise LogError(f"cannot read {path}: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise LogError(f"{path}: not a text file") from None
    records = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            if cut_off_ok and n == len(lines) and n > 1:
                break
            raise LogError(f"{path}:{n}: not a line of a game log (not JSON)") from None
        if not isinstance(obj, dict):
            raise LogError(f"{path}:{n}: not a line of a game log (not an object)")
        records.append((n, obj))
    if not records or records[0][1].get("rulelang_log") != LOG_VERSION:
        raise LogError(f"{path}:1: not a rulelang game log (version {LOG_VERSION})")
    _, header = records[0]
    for key, kind in (("rules", str), ("seed", int), ("players", int), ("params", dict)):
        if not isinstance(header.get(key), kind) or isinstance(header.get(key), bool):
            raise LogError(f"{path}:1: the header's {key!r} is missing or malformed")
    actions, end = [], None
    for n, obj in records[1:]:
        if end is not None:
            raise LogError(f"{path}:{n}: a line after the end of the game")
        if obj.get("end") is True:
            end = obj
            continue
        if not isinstance(obj.get("action"), str) or not isinstance(obj.get("seat"), int) \
                or obj.get("step") != len(actions) + 1:
            raise LogError(f"{path}:{n}: expected step {len(actions) + 1} with a seat and an action")
        actions.append((obj["seat"], obj["action"], n))
    return header, actions, end


__all__ = ["LOG_VERSION", "LogError", "LogWriter", "is_log", "read_log", "rules_hash"]
