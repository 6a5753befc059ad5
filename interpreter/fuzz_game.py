"""One fuzzed game: play it with a given chooser and check every step.

:func:`play_game` is the fuzzer's inner loop (see :mod:`.fuzz` for the
search around it); :func:`replay` plays a finding's actions again.  What is
checked, and how often, is said in :func:`play_game`.
"""

from __future__ import annotations

from .fuzz_seats import OFFER_BATCH
from .game import Game
from .kept import Kept
from .machine import InvariantBroken
from .runtime import IllegalAction, RuleError

# Positions of one game remembered to find a repeated one (each as an int):
# memory stays bounded whatever --max-actions is; a longer game is still
# checked for every other kind.
MAX_REMEMBERED = 100_000
# The engine's own checks of a position (see play_game) run every so many
# steps, the scores at these steps.
CHECK_EVERY = 16
SCORE_STEPS = frozenset(16 ** k for k in range(1, 6)) | {0}


class _Found(Exception):
    def __init__(self, kind, message, where=None, loop_from=None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.where = where
        self.loop_from = loop_from


def crash(err: Exception) -> _Found:
    """The ``crash`` finding of an exception the engine raised."""
    return _Found("crash", f"{type(err).__name__}: {err}")


# ---------------------------------------------------------------- playing one game
def play_game(game: Game, players: int, seed: int, choose, max_actions: int, skip=(),
              on_action=None, check_cycles=True, position=None, chosen=None, seats=None):
    """Play one game; ``choose(step, n_legal) -> index`` (0 to n_legal - 1).  Returns the
    actions played (their texts are written only when asked for: see
    :func:`_action_texts`) and the state.  Raises :class:`_Found` at the first finding whose kind
    is not in ``skip``.  ``position``, a list, holds [state, legal actions]
    while ``choose`` is called (for a chooser that looks ahead); ``chosen``,
    a list, gets each index ``choose`` gave (a finding's actions so far);
    ``seats``, a :class:`.fuzz_seats.SeatLog`, is told each decision (in
    batches: see SeatLog.steps)."""
    actions = []
    try:
        state = game.new_state(seed, players)
    except RuleError as err:
        if "rule_error" in skip:
            return actions, None
        raise _Found("rule_error", err.message, _where(err.span)) from None
    except InvariantBroken as err:
        if "invariant" in skip:
            return actions, None
        raise _Found("invariant", err.message, _where(err.span)) from None
    if seats is not None:
        seats.dealt(state.m, state.inplay)
    small = set()  # the small keys of the positions so far
    seen = None  # once a small key came back: hash of a position's bytes -> its first step
    held = Kept()  # what the invariants read when they last held (Machine.holds_for)
    step = 0
    m = state.m
    invariants = "invariant" not in skip
    holds = m.holds_for(players)
    cycles = check_cycles and "cycle" not in skip and not m.positions_unique  # see Machine.positions_unique
    small_key = m.small_key_for(players) if cycles else None
    remember = MAX_REMEMBERED if cycles else 0  # the steps whose positions are remembered
    mes, legals = [], []  # for seats: who decided, out of what, at the steps not given it yet
    try:
        while True:
            if state.is_terminal:
                _at_the_end(state, step, held, holds if invariants else None, skip)
                return actions, state
            if invariants:
                # The declared invariants and the capacities are checked after
                # every step; every card in one place every CHECK_EVERY steps and
                # at the end; the scores (computable, whole numbers) at the end
                # and after steps 0, 16, 256, 4096 (a game's score can cost as
                # much as a dozen steps: Hens's largest groups).  The quick tests
                # first; only when one fails is each check made again, to say why.
                if step % CHECK_EVERY:  # most steps (no score step is one): the declared ones
                    if not holds(state, held):
                        _say_what_broke(state, True, False)
                else:
                    scores = step in SCORE_STEPS
                    if not (holds(state, held) and m.cards_in_place(state) and (not scores or _scores_ok(state, True))):
                        _say_what_broke(state, False, scores)
            if step < remember:
                # Each position is remembered by its small key (Machine.small_key_for, an int): while
                # none comes back, no position did.  Once one does, the game's positions so far are
                # made again, by a replay, and from then on each is remembered by a hash of its
                # bytes: one that comes back is compared in full with the earlier one, replayed
                # (two positions with one hash are not a cycle).
                if seen is None:
                    key = small_key(state)
                    if key not in small:
                        small.add(key)
                    else:
                        seen = _positions_before(game, players, seed, actions)
                if seen is not None:
                    now = m.position_bytes(state)
                    key = hash(now)
                    first = seen.get(key)
                    if first is None:
                        seen[key] = step
                    elif _position_after(game, players, seed, actions[:first]) == now:
                        raise _Found("cycle", f"the position after action {first} came back after action {step}: "
                                     "the players can repeat these moves forever", loop_from=first)
            if step >= max_actions:
                if "endless" in skip:
                    return actions, state
                raise _Found("endless", f"the game did not end within {max_actions} actions")
            try:
                legal = state.legal_actions()
            except RuleError as err:
                if "rule_error" in skip:
                    return actions, state
                raise _Found("rule_error", err.message, _where(err.span)) from None
            if not legal:
                if "dead_state" in skip:
                    return actions, state
                who = f"player {state.current_player + 1}"
                raise _Found("dead_state", f"{who} is to move but has no legal action", _where(_site_span(state)))
            if position is not None:
                position[:] = (state, legal)
            i = choose(step, len(legal))
            if chosen is not None:
                chosen.append(i)
            a = legal[i]
            actions.append(a)
            if on_action is not None:
                on_action(state, a)
            if seats is not None:
                mes.append(state.me)
                legals.append(legal)
                if len(legals) >= OFFER_BATCH:
                    seats.steps(m, actions[len(actions) - len(legals):], mes, legals)
                    mes, legals = [], []
            try:
                state.apply_at(i)
            except RuleError as err:
                if "rule_error" in skip:
                    return actions, state
                raise _Found("rule_error", err.message, _where(err.span)) from None
            except InvariantBroken as err:  # between two steps of the flow
                if "invariant" in skip:
                    return actions, state
                raise _Found("invariant", err.message, _where(err.span)) from None
            step += 1
    finally:
        if legals:
            seats.steps(m, actions[len(actions) - len(legals):], mes, legals)


def _at_the_end(state, step: int, held, holds, skip) -> None:
    """The checks of a finished game (raising :class:`_Found`): every
    invariant (``holds`` None: none), then the results.  Its scores are
    computed once, for both."""
    final_scores = _scores_or_error(state)
    if holds is not None:
        declared_only = bool(step % CHECK_EVERY) and not final_scores
        if not (holds(state, held) and (declared_only or state.m.cards_in_place(state))
                and _scores_ok(state, final_scores)):
            _say_what_broke(state, declared_only, final_scores)
    if "rule_error" not in skip:
        message, span = _results_error(state, final_scores)
        if message is not None:
            raise _Found("rule_error", message, _where(span))


def _say_what_broke(state, declared_only: bool, scores) -> None:
    """A quick test failed: raise the first invariant that does not hold,
    checked again one by one (none: the quick test's failure was not one)."""
    broken = state.m.broken_invariants(state, declared_only=declared_only, scores=scores)
    if broken:
        message, span = broken[0]
        raise _Found("invariant", message, _where(span))


class Staller:
    """The stalling policy: take the first legal action that has never been
    seen to draw from a hidden place (a draw pile nobody sees).  A player
    who takes only those never draws, and a game that ends only by drawing
    need not end.  What each action does is learned as the game is played
    (after each step, did the hidden places lose cards?), per action of the
    rules, not per position: no look-ahead, so it costs a few dictionary
    reads a step.  One per fuzz example: what it learned holds for the
    example's later games."""

    def __init__(self):
        self.draws = set()  # (machine id, site action uid) of the actions seen to draw
        self.hidden = {}  # machine id -> the hidden places' indices
        self.last = None  # (machine id, uid, hidden cards before) of the action taken the step before

    def __call__(self, state, legal) -> int:
        m = state.m
        key = id(m)
        hidden = self.hidden.get(key)
        if hidden is None:
            hidden = self.hidden[key] = [i for i, v in enumerate(state.vis)
                                         if not v and i not in m.stack_instances]
        now = sum(map(len, map(state.Z.__getitem__, hidden)))
        last = self.last
        if last is not None and last[0] == key and now < last[2]:
            self.draws.add((key, last[1]))
        draws = self.draws
        pick = 0
        for i, a in enumerate(legal):
            if (key, a[0]) not in draws:
                pick = i
                break
        self.last = (key, legal[pick][0], now)
        return pick

    def new_game(self) -> None:
        self.last = None


def _action_texts(state, actions) -> list:
    """The texts of actions played in ``state``'s game (an action's text
    depends only on the rules, not on the position)."""
    return [state.action_text(a) for a in actions]


def _scores_or_error(state):
    """A finished game's scores, or the :class:`RuleError` computing them."""
    try:
        return state.m.scores(state)
    except RuleError as err:
        return err


def _scores_ok(state, scores) -> bool:
    """Are the scores (True: compute them now) whole numbers that could be computed?"""
    if scores is True:
        scores = _scores_or_error(state)
    return not isinstance(scores, RuleError) and set(map(type, scores)) == {int}


def _results_error(state, scores=None):
    """(message, span) of a rule error met computing a finished game's
    results (a score that cannot be computed, a winner that cannot be
    decided), or (None, None).  ``scores``: what :func:`_scores_or_error`
    gave, if known."""
    if scores is None:
        scores = _scores_or_error(state)
    if isinstance(scores, RuleError):
        return scores.message, scores.span
    try:
        state.m.winners(state, scores)
    except RuleError as err:
        return err.message, err.span
    return None, None


def _results(state):
    """A finished game's results, or the rule error computing them, to compare two runs."""
    try:
        return state.m.results(state)
    except RuleError as err:
        return err.message


def _where(span):
    return str(span) if span is not None and getattr(span, "line", 0) else None


def _site_span(state):
    try:
        return state.m.code[state.pc][3]
    except (IndexError, AttributeError):  # pragma: no cover
        return None


def _positions_before(game: Game, players: int, seed: int, actions) -> dict:
    """{hash of a position's bytes: the first step it was seen at} for the
    positions before each of these actions of a game played from ``seed``."""
    state = game.new_state(seed, players)
    m = state.m
    seen = {}
    for step, action in enumerate(actions):
        seen.setdefault(hash(m.position_bytes(state)), step)
        state.apply(action)
    return seen


def _position_after(game: Game, players: int, seed: int, actions) -> bytes:
    """The position (as Machine.position_bytes writes it) after these
    actions of a game played from ``seed``."""
    state, _ = replay(game, players, seed, actions)
    return state.m.position_bytes(state)


def replay(game: Game, players: int, seed: int, actions) -> tuple:
    """Replay actions from a seed, each given by its text or as the action
    itself; returns (state, index of the first action that is not legal or
    None)."""
    state = game.new_state(seed, players)
    for i, action in enumerate(actions):
        try:
            if isinstance(action, str):
                state.apply_text(action)
            else:
                state.apply(action)
        except (IllegalAction, RuleError, InvariantBroken):
            return state, i
    return state, None
