"""A game's record: the counters and flags a rules file declares with
``record`` (per player or for the whole table), and the achievements of its
``achievements(p):`` section, each a condition on a finished game.

``rulerun`` prints the record at the end of a game; ``simulate`` counts how
often each achievement was reached; the fuzzer lists the achievements no
game reached.
"""

from __future__ import annotations

from .machine import EVAL_ERRORS, _explain
from .runtime import MAX_WORK, RuleError


def game_record(st) -> dict:
    """``{"counters": {name: value or [value per seat]}, "achievements":
    {text: [seats that reached it]}}`` for the state ``st`` (meant for a
    finished game)."""
    m = st.m
    m.work_left = MAX_WORK
    counters = {}
    for name, _doc, typ, index, per_player in m.records:
        if per_player:
            counters[name] = [m.to_python(typ, st.V[index + p]) for p in range(st.n)]
        else:
            counters[name] = m.to_python(typ, st.V[index])
    reached = {}
    slot = m.achievement_slot
    kept = st.L[slot]  # reading the record changes nothing
    for text, f, span in m.achievements:
        seats = []
        for p in range(st.n):
            st.L[slot] = p
            try:
                if f(st):
                    seats.append(p)
            except EVAL_ERRORS as err:
                raise RuleError(f"the achievement cannot be decided: {_explain(err)}", span) from None
        reached[text] = seats
    st.L[slot] = kept
    return {"counters": counters, "achievements": reached}


def record_lines(st) -> list:
    """The record as lines of text for people (empty when the rules keep none)."""
    m = st.m
    if not m.records and not m.achievements:
        return []
    rec = game_record(st)
    lines = []
    for name, doc, _typ, _index, per_player in m.records:
        value = rec["counters"][name]
        label = doc or name
        if per_player:
            lines.append(f"{label}: " + ", ".join(f"P{p + 1} {_text(v)}" for p, v in enumerate(value)))
        else:
            lines.append(f"{label}: {_text(value)}")
    for text, seats in rec["achievements"].items():
        who = ", ".join(f"P{p + 1}" for p in seats) if seats else "nobody"
        lines.append(f"achievement \"{text}\": {who}")
    return lines


def _text(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)
