"""What a person types at ``rulerun play``: an action's number or text, or a
command; and the help text.  (The session itself is :mod:`interpreter.play`.)"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

COMMANDS = {"help": "help", "?": "help", "show": "show", "log": "log", "quit": "quit", "exit": "quit"}


@dataclass(frozen=True)
class Choice:
    """What a line of input means: an action ``index`` (0-based), a
    ``command`` (help, show, log, quit) or an ``error`` to show before
    asking again."""

    index: int | None = None
    command: str | None = None
    error: str | None = None
    arg: str | None = None  # the card named after "card"


def parse_choice(line: str, texts: Sequence[str]) -> Choice:
    """Read one answer against the legal actions' ``texts``: a number 1..k,
    a command, or an action's text (case-insensitive, spaces collapsed);
    the start of a text is enough when only one action's text begins so.
    Identical texts (copies of one card) count as one."""
    k = len(texts)
    said = " ".join(line.split())
    low = said.lower()
    if not said:
        return Choice(error=f"Type a number from 1 to {k}, the text of an action, or help.")
    if low in COMMANDS:
        return Choice(command=COMMANDS[low])
    if low.startswith("card ") and not any(" ".join(t.split()).lower().startswith(low) for t in texts):
        return Choice(command="card", arg=said[5:].strip())
    if re.fullmatch(r"[+-]?\d+", said):
        n = int(said)
        if 1 <= n <= k:
            return Choice(index=n - 1)
        return Choice(error=f"There is no action {n}: choose a number from 1 to {k}.")
    norm = [" ".join(t.split()).lower() for t in texts]
    exact = [i for i, t in enumerate(norm) if t == low]
    if exact:
        return Choice(index=exact[0])
    matches = [i for i, t in enumerate(norm) if t.startswith(low)]
    if not matches:
        return Choice(error=f"No action reads or starts with {said!r}. "
                            f"Type a number from 1 to {k}, or help.")
    if len({norm[i] for i in matches}) == 1:
        return Choice(index=matches[0])
    width = len(str(k))
    listing = "\n".join(f"  {i + 1:>{width}}  {texts[i]}" for i in matches)
    return Choice(error=f"{said!r} could be any of {len(matches)} actions:\n{listing}\n"
                        "Type more of the text, or the number.")


HELP = """\
Choose an action by its number ({range}), or type its text. Upper or lower case
does not matter, and the start of the text is enough when only one action
begins that way{example}.

Commands:
  show   show the table and your actions again
  card NAME   what a card is: its attributes (the start of its name is enough)
  log    the moves so far, as you saw them
  help   this text
  quit   end the game now
End of input (Ctrl-D) also ends the game; Ctrl-C interrupts it.
To pick an action whose text is a command word, type its number."""


def _range(k: int) -> str:
    return "1" if k == 1 else f"1-{k}"


def _prefix_example(texts: Sequence[str]) -> str:
    """' (e.g. "hatch M" for "hatch Market")': a short prefix that picks one
    of ``texts``, or '' if none is shorter than its text."""
    norm = [t.lower() for t in texts]
    for t in texts:
        for n in range(3, len(t)):
            prefix = t[:n]
            if prefix.endswith(" "):
                continue
            if len({x for x in norm if x.startswith(prefix.lower())}) == 1:
                return f' (e.g. "{prefix}" for "{t}")'
    return ""


__all__ = ["Choice", "parse_choice", "COMMANDS", "HELP"]
