"""Shrinking a finding of the fuzzer (:mod:`.fuzz`) and writing it out: the
action trace is shortened greedily while the same kind of finding still
occurs, each step tried as the first legal action and steps dropped, and the
trace is written as action texts, replayable with ``rulerun replay``.

A finding met on a machine shared by drawn settings (:mod:`.fuzz_late`) is
shrunk on the game compiled for its setting, as a user loads it and as
``rulerun replay`` replays it.  When that game does not meet it on the same
choices, a fault of the rules (a rule error, say, which the two can meet in
another order) is no finding; a crash, an engine bug, is reported as met, on
the shared machine, and says so, as does a game that replayed otherwise
there (which is found by a replay of its own, not played again here).
"""

from __future__ import annotations

import time

from .fuzz_game import _Found, crash, play_game
from .fuzz_late import SettingGame
from .fuzz_report import Finding


class Shrinking:
    """The fuzzer's shrinking, as methods of it: they read its ``max_actions``
    and ``check_cycles`` and count what they play in its ``played_actions``."""

    max_actions: int
    check_cycles: bool
    played_actions: int

    def attempt(self, game, players, seed, cs, kind, skip):
        """The finding of this kind that playing the choices ``cs`` meets, or None."""
        def choose(step, n):
            return cs[step] % n if step < len(cs) else 0
        played = []  # the actions this attempt played, checked as the search's are: counted with them
        try:
            play_game(game, players, seed, choose, self.max_actions, skip, None, self.check_cycles,
                      chosen=played)
        except _Found as f:
            if f.kind == kind:
                return f
        except Exception as err:  # noqa: BLE001 - an engine bug: this finding if a crash is sought
            if kind == "crash":
                return crash(err)
            return None
        finally:
            self.played_actions += len(played)
        return None

    def minimise(self, inputs, found, skip, budget_s=5.0, confirm=False):
        """Greedily shorten the action trace while the same kind of finding
        still occurs: try each step as the first legal action, and drop steps.
        ``confirm``: None if the trace as it is does not meet it (on another
        machine than the search's)."""
        game, players, params, seed, choices = inputs
        kind = found.kind

        def attempt(cs):
            return self.attempt(game, players, seed, cs, kind, skip)

        best = list(choices)
        best_found = attempt(best)
        if best_found is None:
            if confirm:
                return None
            best_found = found
        if kind in ("endless", "nondeterminism", "crash"):
            return best, best_found
        deadline = time.perf_counter() + budget_s
        improved = True
        while improved and time.perf_counter() < deadline:
            improved = False
            for i in range(len(best)):
                if time.perf_counter() >= deadline:
                    break
                for cand in (best[:i] + best[i + 1:], best[:i] + [0] + best[i + 1:]):
                    if cand == best:
                        continue
                    f = attempt(cand)
                    if f is not None:
                        trace = _trace_len(game, players, seed, cand, self.max_actions, skip, self.check_cycles)
                        self.played_actions += trace or 0
                        if trace is not None and (trace < len(best) or (trace == len(best) and cand < best)):
                            best, best_found = cand[:trace], f
                            improved = True
                            break
        return best, best_found

    def finding(self, inputs, found, skip) -> Finding | None:
        """The finding, shrunk and written out.  One met on a machine shared
        by settings (.fuzz_late) is shrunk on the game compiled for its
        setting; None when that game does not meet it on the same choices (a
        product past the bound, say, that the compile leaves unchecked): that
        setting then plays its own compile.  A crash it does not meet, and a
        game that replayed otherwise, are the shared machine's: reported as
        met there."""
        game, players, params, seed, choices = inputs
        shrunk, shared = None, False  # shared: reported as met on the shared machine
        if isinstance(game, SettingGame):
            if found.kind == "nondeterminism" and not game.owner.disagreed:
                shared = True  # (found by a replay of its own: not played again on the compile)
            else:
                own = (game.compiled(), players, params, seed, choices)
                if found.kind == "nondeterminism":  # (played on its own compile: see SettingGame)
                    inputs = own
                else:
                    # (once every setting plays its own compile, what is met is that compile's: not
                    # confirmed again, so a search never comes back with the same unconfirmed finding)
                    shrunk = self.minimise(own, found, skip, confirm=not game.owner.disagreed)
                    if shrunk is not None:
                        inputs = own
                    elif found.kind == "crash":
                        shared = True
                    else:
                        game.play_compiled()
                        return None
        if shrunk is None:
            shrunk = self.minimise(inputs, found, skip)
        choices, found = shrunk
        game, players, params, seed, _ = inputs
        texts = _texts(game, players, seed, choices, self.max_actions, skip, self.check_cycles)
        message = found.message + (SHARED if shared else "")
        return Finding(found.kind, message, players, params, seed, texts, found.where, found.loop_from)


SHARED = (" (an engine bug met on the machine the fuzzer shares between drawn settings, which reads "
          "the parameters from the state; rulerun replay loads the game compiled for these parameters, "
          "which may not meet it)")


def _trace_len(game, players, seed, choices, max_actions, skip, check_cycles):
    out = []

    def choose(step, n):
        i = choices[step] % n if step < len(choices) else 0
        out.append(i)
        return i
    try:
        play_game(game, players, seed, choose, max_actions, skip, None, check_cycles)
    except _Found:
        return len(out)
    except Exception:  # noqa: BLE001
        return None
    return None


def _texts(game, players, seed, choices, max_actions, skip, check_cycles):
    texts = []

    def choose(step, n):
        return choices[step] % n if step < len(choices) else 0

    def on_action(state, a):
        texts.append(state.action_text(a))
    try:
        play_game(game, players, seed, choose, max_actions, skip, on_action, check_cycles)
    except _Found:
        pass
    except Exception:  # noqa: BLE001 - a crash finding: the texts so far are the trace
        pass
    return texts
