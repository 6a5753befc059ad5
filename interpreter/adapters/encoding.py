"""What the adapters share: numbers for the legal actions, and an
observation as numbers.

- :func:`legal_actions`: action number i is the i-th legal action, in the
  engine's stable order (the same in every state a player cannot tell
  apart, and in every process); the action space has as many numbers as a
  decision may offer actions (a ceiling, ``max_legal_actions``).
- :class:`TensorLayout`: an observation as a flat array of numbers: the
  observer, the seat to move, for each place (a zone, per seat for a zone
  of each player) the count of each distinct card name there and of the
  cards the observer cannot see, and the variables that are numbers.  Built
  from ``State.observation(player)`` alone.
"""

from __future__ import annotations

import numpy as np

from ..views import card_names


# The most legal actions a decision may offer: the size of the action space.
# The four games offer at most about 150 (Hens: a hand times the open cells).
DEFAULT_MAX_LEGAL = 1024


def legal_actions(state, limit: int) -> tuple:
    """The engine's legal actions in their stable order: action number i is
    the i-th of them.  An error that says so if there are more than ``limit``."""
    legal = state.legal_actions()
    if len(legal) > limit:
        raise RuntimeError(f"{len(legal)} legal actions here, over the action space's {limit}: "
                           "make the game again with a larger max_legal_actions")
    return legal


class TensorLayout:
    """Where each piece of the observation tensor lies: for each place (a
    zone, per seat for a zone of each player) the count of each distinct
    card name there and of the cards the observer cannot see; the observer;
    the seat to move; the variables that are numbers; with ``memory``, the
    cards ever seen in each place and the actions each seat has taken (see
    :meth:`remember`)."""

    def __init__(self, ours, n, memory: bool = False):
        state = ours.new_state(0, n)
        self.names = sorted(set(state.m.card_names))
        self.column = {name: i for i, name in enumerate(self.names)}
        self.places = []  # (zone name, seat or None)
        for z in state.zone_layout():
            for p in (range(n) if z["per_player"] else (None,)):
                self.places.append((z["name"], p))
        types = state.var_types()
        obs = state.observation(0)
        self.scalars = [(k, None) for k in obs["vars"] if types.get(k) in ("int", "bool", "player")]
        self.scalars += [(k, p) for k in obs["player_vars"] if types.get(k) in ("int", "bool", "player")
                         for p in range(n)]
        self.n = n
        self.pieces = [("player", (n,)), ("to_move", (n,)),
                       ("cards", (len(self.places), len(self.names) + 1)), ("vars", (len(self.scalars),))]
        if memory:
            self.pieces += [("seen", (len(self.places), len(self.names))), ("moves", (n,))]

    @property
    def size(self) -> int:
        return sum(int(np.prod(shape)) for _, shape in self.pieces)

    def views(self, tensor) -> dict:
        """The named pieces of a flat ``tensor``, reshaped (views, not copies)."""
        out = {}
        i = 0
        for name, shape in self.pieces:
            k = int(np.prod(shape))
            out[name] = tensor[i:i + k].reshape(shape)
            i += k
        return out

    def fill(self, views: dict, obs: dict, player: int) -> None:
        """Write ``obs`` (``State.observation(player)``) into the pieces ``views``."""
        for v in views.values():
            v.fill(0)
        views["player"][player] = 1
        mover = obs.get("to_move")
        if isinstance(mover, int) and 0 <= mover < self.n:
            views["to_move"][mover] = 1
        cards = views["cards"]
        for cell in self.cells(obs):
            cards[cell] += 1
        values = views["vars"]
        for i, (name, seat) in enumerate(self.scalars):
            v = obs["vars"][name] if seat is None else obs["player_vars"][name][seat]
            values[i] = float(v) if isinstance(v, (int, float)) else 0.0

    def cells(self, obs: dict):
        """(place row, card column) for each card in ``obs``; the last
        column for each card the observer cannot see."""
        unknown, column = len(self.names), self.column
        for row, (zone, seat) in enumerate(self.places):
            content = obs["zones"][zone]
            if seat is not None:
                content = content[seat]
            for name in card_names(content):
                yield row, unknown if name is None else column[name]

    def remember(self, seen: frozenset, obs: dict) -> frozenset:
        """``seen`` (the (place row, card column) pairs an observer has ever
        seen) with what ``obs`` shows added."""
        unknown = len(self.names)
        new = {cell for cell in self.cells(obs) if cell[1] != unknown}
        return seen if new <= seen else seen | new

    def fill_memory(self, views: dict, seen, moves) -> None:
        """Write the memory pieces: the cells ever seen, the actions per seat."""
        grid = views["seen"]
        for cell in seen:
            grid[cell] = 1
        views["moves"][:] = moves


__all__ = ["legal_actions", "DEFAULT_MAX_LEGAL", "TensorLayout", "card_names"]
