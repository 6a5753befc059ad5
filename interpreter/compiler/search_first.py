"""``can(a, b...)``: an action's search written again as a test.

``can`` asks whether an action has any legal choice now.  The listing's
search (:func:`.searches.enumerator`) adds each choice to a list; the test
is the same function, line for line, where adding a choice returns True
and every other way out returns False.  It goes through the same values in
the same order, charges the same budget as far as it goes, and fails with
the same errors where it gets that far; it only stops at the first choice
instead of raising out of the list it adds to (:class:`.helpers._FirstOnly`,
which a search no can() of the rules asks about still uses: a ``can``
compiled after the game, by ``Game.evaluate``).  A raise and its catch cost
Python about half a microsecond, where the test of a one-card draw costs a
fifth of that.  What a search adds is a tuple of its loop variables, which
cannot fail: returning instead of making it changes nothing else.
"""

from __future__ import annotations

import re

_OUT = re.compile(r"\bout\b")


def first_source(lines, name: str):
    """The test's source (a function ``name(st, out, uid)`` returning a
    bool; ``out`` unread) from the search's ``lines``, or None where a line
    uses the list otherwise than to add to it (then ``can`` raises out of
    the search, as before)."""
    head, *body = lines
    if not head.startswith("def ") or not head.endswith("(st, out, uid):"):
        return None
    out = [f"def {name}(st, out, uid):"]
    for line in body:
        text = line.lstrip(" ")
        pad = line[:len(line) - len(text)]
        if text.startswith("out.append(") and text.endswith(")"):
            out.append(f"{pad}return True")
        elif text.startswith("out += "):
            out += [f"{pad}if {text[len('out += '):]}:", f"{pad}    return True"]
        elif text == "return":
            out.append(f"{pad}return False")
        elif _OUT.search(text):
            return None
        else:
            out.append(line)
    if out[-1] != "    return True":
        out.append("    return False")
    return "\n".join(out) + "\n"
