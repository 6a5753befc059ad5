"""How an error in evaluating the rules becomes a rule error that names
the line of the rules it came from.

- :func:`guarded`: a value computed outside the flow (a parameter's
  default at load time, the variables' defaults and the deck of a new
  state);
- :func:`failed`: a generated function of the flow, from the line it failed
  at (the table :func:`.source.marked` fills from the marks of its lines).
"""

from __future__ import annotations

from ..machine import EVAL_ERRORS, _explain
from ..runtime import RuleError

# EVAL_ERRORS: the VM turns these into RuleErrors for the flow's steps; the
# values computed outside it (parameter defaults at load time, and variable
# defaults and the deck in new_state) are guarded by guarded().


def guarded(f, what, span):
    """``f``, raising a RuleError (with the span of the rules) where it would raise a Python error."""
    def guarded(st):
        try:
            return f(st)
        except EVAL_ERRORS as err:
            raise RuleError(f"{what} cannot be computed: {_explain(err)}", span) from None
    return guarded


ERRORS = EVAL_ERRORS + (RuleError,)  # what a statement's span is given to (see at)


def at(err, span):
    """A rule error at ``span`` for an error raised by one step of a block."""
    if isinstance(err, RuleError):
        return err if err.span is not None else RuleError(err.message, span)
    return RuleError(_explain(err), span)


def failed(st, err, where) -> None:
    """A generated function failed with ``err`` (in its ``except
    BaseException`` clause, which raises it again after): the state stands
    at the pc of the line it failed at, if the function sets one, and an
    error of evaluation there is raised as a rule error naming that line's
    statement (``where``: line -> (pc, span), filled by
    :func:`.source.marked`; every line of a function's body is in it, its
    first mark standing for the whole body)."""
    pc, span = where.get(err.__traceback__.tb_lineno, (None, None))
    if pc is not None:
        st.pc = pc
    if span is not None and isinstance(err, ERRORS):
        raise at(err, span) from None
