"""What many games say about a game: win shares, scores and lengths, with
95% confidence intervals, so that an effect can be told from noise.

:class:`Tally` takes one finished game at a time (``add``) and gives the
figures (``summary``) at any point: ``rulerun simulate`` prints them when
the games are done, or when it is interrupted, from the games finished so
far.
"""

from __future__ import annotations

import math

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


def wilson(k: float, n: int) -> tuple:
    """The 95% Wilson interval of a share k/n (k may be fractional: shared wins)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + Z95 ** 2 / n
    centre = (p + Z95 ** 2 / (2 * n)) / d
    half = Z95 * math.sqrt(max(p * (1 - p) / n + Z95 ** 2 / (4 * n * n), 0.0)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(total: float, squares: float, n: int) -> tuple:
    """(mean, low, high): the mean and its 95% interval (normal approximation)."""
    if n == 0:
        return (0.0, 0.0, 0.0)
    mean = total / n
    if n == 1:
        return (mean, mean, mean)
    var = max(squares - n * mean * mean, 0.0) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


class Tally:
    """Running sums over finished games: each number is kept as a count, a
    total and a total of squares, so no game's details are stored."""

    def __init__(self, players: int):
        self.n = players
        self.games = 0
        self.capped = 0
        self.wins = [0.0] * players  # a win shared by k players counts 1/k for each
        self.shared = 0  # games won by more than one player
        self.nobody = 0  # games with no winner
        self.scores = [[0.0, 0.0] for _ in range(players)]  # total, total of squares
        self.score_range = [[math.inf, -math.inf] for _ in range(players)]
        self.length = [0.0, 0.0]
        self.length_range = [math.inf, -math.inf]
        self.turns = [0.0, 0.0]
        self.turns_range = [math.inf, -math.inf]
        self.actions = {}  # action name -> times played

    def add(self, winners, scores, length: int, used: dict, turns: int = 0) -> None:
        self.games += 1
        for w in winners:
            self.wins[w] += 1 / len(winners)
        if len(winners) > 1:
            self.shared += 1
        elif not winners:
            self.nobody += 1
        for p, s in enumerate(scores):
            acc = self.scores[p]
            acc[0] += s
            acc[1] += s * s
            r = self.score_range[p]
            r[0], r[1] = min(r[0], s), max(r[1], s)
        self.length[0] += length
        self.length[1] += length * length
        self.length_range = [min(self.length_range[0], length), max(self.length_range[1], length)]
        self.turns[0] += turns
        self.turns[1] += turns * turns
        self.turns_range = [min(self.turns_range[0], turns), max(self.turns_range[1], turns)]
        for name, k in used.items():
            self.actions[name] = self.actions.get(name, 0) + k

    def add_capped(self) -> None:
        self.capped += 1

    def summary(self) -> dict:
        """The figures as JSON-ready numbers (shares in 0..1)."""
        n = self.games
        seats = []
        for p in range(self.n):
            mean, lo, hi = mean_ci(*self.scores[p], n)
            wlo, whi = wilson(self.wins[p], n)
            seats.append({"seat": p + 1, "wins": round(self.wins[p], 9),
                          "win_share": self.wins[p] / n if n else 0.0, "win_share_ci": [wlo, whi],
                          "mean_score": mean, "score_ci": [lo, hi],
                          "score_min": self.score_range[p][0] if n else None,
                          "score_max": self.score_range[p][1] if n else None})
        tmean, tlo, thi = mean_ci(*self.turns, n)
        mean, lo, hi = mean_ci(*self.length, n)
        return {"games": n + self.capped, "ended": n, "capped": self.capped, "seats": seats,
                "shared_wins": self.shared, "shared_share_ci": list(wilson(self.shared, n)),
                "no_winner": self.nobody,
                "length": {"mean": mean, "ci": [lo, hi], "min": self.length_range[0] if n else None,
                           "max": self.length_range[1] if n else None},
                "turns": {"mean": tmean, "ci": [tlo, thi], "min": self.turns_range[0] if n else None,
                          "max": self.turns_range[1] if n else None},
                "actions_used": dict(sorted(self.actions.items(), key=lambda kv: -kv[1]))}



class Paired:
    """The difference B - A of a number measured on the same games (same
    seeds, same bots: common random numbers), with its 95% interval."""

    def __init__(self):
        self.n = 0
        self.a = 0.0
        self.b = 0.0
        self.d = [0.0, 0.0]  # total and total of squares of the differences

    def add(self, a: float, b: float) -> None:
        self.n += 1
        self.a += a
        self.b += b
        d = b - a
        self.d[0] += d
        self.d[1] += d * d

    def summary(self) -> dict:
        mean, lo, hi = mean_ci(self.d[0], self.d[1], self.n)
        n = self.n or 1
        return {"a": self.a / n, "b": self.b / n, "difference": mean, "ci": [lo, hi],
                "significant": self.n > 1 and (lo > 0 or hi < 0)}


__all__ = ["Tally", "Paired", "wilson", "mean_ci"]
