"""Running a rules file's examples (``example "TEXT":`` blocks,
docs/language.md 2.16): ``rulerun test`` shows each one's result, and the
fuzzer reports a failing one as an ``example`` finding.

An example starts a game for its player count (the fewest by default) with
the game's parameters and its own ``with`` values, before any setup (every
card in play lies in the first shared pile), or after the game's setup for
``example "TEXT" after setup:``.  Its statements run as the
whole flow (triggers fire as in play), and each expectation is evaluated
where it stands, on the position the statements before it made:

- ``expect COND``: the condition holds (for a comparison, a failure gives
  both sides' values);
- ``expect legal ACTION(ARGS) by P`` / ``expect illegal ...``: the action
  with those values is (is not) among P's legal choices of that action
  there, as if P were to choose it now (its parameters' domains and its
  requires);
- ``expect scores [...]``: the outcome's scores, seat by seat;
- ``expect winner P`` / ``expect winners [...]`` / ``expect nobody wins``:
  who wins if the game ends there (the outcome and its tie-breaks).

Nothing here is specific to a game.
"""

from __future__ import annotations

import attrs

from rulelang import ast as A
from rulelang.checker.examples import literal_value

from .checks import EVAL_ERRORS, _explain as explain
from .compiler.params import ParamError, resolve_params
from .compiler.pipeline import compile_machine
from .runtime import MAX_SEARCH, MAX_WORK, RuleError, cell_text
from .views import PLACE_TYPES


@attrs.frozen
class ExampleResult:
    text: str  # the example's text
    where: str  # FILE:LINE:COL of the example
    players: int  # its player count
    failures: tuple = ()  # (FILE:LINE:COL, why) of each expectation that failed, in order

    @property
    def passed(self) -> bool:
        return not self.failures


def run_examples(game) -> list:
    """Every example of ``game`` (an :class:`interpreter.Game`), in file
    order: a list of :class:`ExampleResult`."""
    return [run_example(game, ex) for ex in game.checked.examples]


def run_example(game, ex: A.Example) -> ExampleResult:
    g = game.checked
    n = ex.players if ex.players is not None else g.players[0]
    overrides = dict(game.overrides)
    overrides.update((s.name, literal_value(s.value)) for s in ex.params)
    try:
        params = resolve_params(g, overrides, n)
        m = compile_machine(g, params, example=ex)
    except (ParamError, RuleError) as err:
        return ExampleResult(ex.text, str(ex.span), n, ((str(ex.span), str(getattr(err, "message", err))),))
    failures = []
    reached = set()

    def on_expect(st, i, stop=False):
        reached.add(i)
        expect, parts = m.expectations[i]
        work, search = m.work_left, m.search_left
        try:
            failure = _failure(g, m, st, expect, parts)
        except RuleError as err:
            failure = f"could not be evaluated: {err.message}"
        except EVAL_ERRORS as err:
            failure = f"could not be evaluated: {explain(err)}"
        finally:
            m.work_left, m.search_left = work, search
        if failure is not None:
            failures.append((str(expect.span), failure))
            if stop:  # an action that is not legal is not taken: the example stops here
                raise _Stopped

    m.on_expect = on_expect
    try:
        st = m.new_state(0, n)
    except _Stopped:
        return ExampleResult(ex.text, str(ex.span), n, tuple(failures))
    except RuleError as err:
        failures.append((str(err.span or ex.span), f"a statement failed: {err.message}"))
        return ExampleResult(ex.text, str(ex.span), n, tuple(failures))
    if not st.is_terminal:  # pragma: no cover - the checker refuses a choice in an example
        failures.append((str(ex.span), "its statements stopped at a decision"))
    # an expectation the flow never came to says nothing: the game ended first
    failures += [(str(e.span), "never checked: the game ended before this line (an `end game` in the rules)")
                 for i, (e, _) in enumerate(m.expectations) if i not in reached]
    return ExampleResult(ex.text, str(ex.span), n, tuple(failures))


class _Stopped(Exception):
    """A ``do`` of an action that is not legal: the example goes no further."""


def _failure(g, m, st, expect: A.Expect, parts) -> str | None:
    """Why ``expect`` does not hold in ``st`` (None if it does)."""
    m.work_left, m.search_left = MAX_WORK, MAX_SEARCH
    text = _source(g, expect.value) if expect.kind == "true" else None
    if expect.kind == "true":
        whole, left, right = parts
        if whole(st):
            return None
        if left is None:
            return f"{text} is false"
        v = expect.value
        sides = [(_source(g, x), _show(g, m, x, f(st))) for x, f in ((v.left, left), (v.right, right))
                 if literal_value(x) is None and not isinstance(x, A.StrLit)]
        sides = [f"{source} is {shown}" for source, shown in sides if shown != source]  # (hand(1) is hand(1))
        return f"{text} is false" + (": " + ", ".join(sides) if sides else "")
    if expect.kind == "scores":
        want = list(parts[0](st))
        got = m.scores(st)
        return None if got == want else f"the scores are {got}, not {want}"
    if expect.kind == "winners":
        value = parts[0](st)
        want = sorted(value) if isinstance(value, list) else [value]
        got = sorted(m.winners(st))
        return None if got == want else f"the winners are {_seats(got)}, not {_seats(want)}"
    player, action, args = parts
    seat = player(st)
    values = tuple(f(st) for f in args)
    out = []
    me = st.me
    st.me = seat
    try:
        action.enumerate(st, out, 0)
    finally:
        st.me = me
    keys = {_key(m, action, choice[1:]) for choice in out}
    legal = _key(m, action, values) in keys
    if legal == (expect.kind == "legal"):
        return None
    shown = ", ".join(_show(g, m, x, v) for x, v in zip(expect.args, values))
    verdict = "is not legal" if expect.kind == "legal" else "is legal"
    return f"{expect.action}({shown}) {verdict} for player {seat + 1}"


def _key(m, action, values) -> tuple:
    """A choice as the same move whichever copy of a card it names: cards by name."""
    names = m.card_names
    return tuple(names[v] if t == "card" else tuple(sorted(names[c] for c in v)) if t == "list:card" else v
                 for (_, t, _), v in zip(action.params, values))


def _show(g, m, node, value) -> str:
    """A value as the rules language writes it: a card by its quoted name."""
    t = g.types.get(id(node), "int")
    if t == "cell":
        return cell_text(value)
    if t == "list:cell":
        return "[" + ", ".join(map(cell_text, value)) + "]"
    if t in PLACE_TYPES:  # which place: as the rules name it
        return m.place_source(t, value)
    if t.startswith("list:") and t[5:] in PLACE_TYPES:
        return "[" + ", ".join(m.place_source(t[5:], x) for x in value) + "]"
    try:
        v = m.to_python(t, value)
    except (KeyError, IndexError, TypeError):  # pragma: no cover - a value of a kind to_python does not know
        v = value
    return _written(v)


def _written(v) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(map(_written, v)) + "]"
    if isinstance(v, (set, frozenset)):
        return "{" + ", ".join(sorted(map(str, v))) + "}"
    return str(v)


def _seats(seats) -> str:
    return ", ".join(f"player {p + 1}" for p in seats) or "nobody"


def _source(g, node) -> str:
    """The rules text of an expression."""
    span = node.span
    text = g.source.of(span.file) if g.source is not None else None
    if text is None or span.line != span.end_line:
        return "the expectation"
    line = text.splitlines()[span.line - 1]
    return line[span.column - 1:span.end_column - 1]
