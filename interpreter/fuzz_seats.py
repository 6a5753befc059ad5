"""Who decides: what each seat was offered and took in a fuzz run, and the
``seat`` finding.

A rules slip can give every turn of a round to one player, or every
player's choice to one of them, and still make a game that runs and ends.
The fuzzer keeps, per player count and seat, the decisions the seat had,
the choices (``choose`` statements) it reached, the actions it was offered
and those it took.  At the end of the run it flags, for each player count
it played often enough:

- a seat that never had a decision while the others did;
- with three or more players, a choice that every other seat reached
  several times and this one never did.  (With two players a choice one
  seat never gets may be a dealer's: it is reported, not flagged.)
"""

from __future__ import annotations

MIN_GAMES = 10  # games at a player count before its seats are judged
MIN_REACHED = 3  # times each other seat reached a choice before a seat that never did is flagged


class SeatLog:
    def __init__(self):
        self.games = {}  # player count -> games played
        self.seats = {}  # (player count, seat) -> [decisions, {site: times}, {action: times}, set of offered uids]
        self.sites = {}  # (machine id, site) -> (where, "choose a, b, ...")
        self.machines = {}  # id -> machine, to name the offered actions

    def game(self, players: int) -> None:
        self.games[players] = self.games.get(players, 0) + 1

    def record(self, state, a) -> None:
        """A decision of the seat to move: the action it took (and, from the
        state's legal actions, what it was offered)."""
        m = state.m
        key = (state.n, state.me)
        entry = self.seats.get(key)
        if entry is None:
            entry = self.seats[key] = [0, {}, {}, set()]
        entry[0] += 1
        sa = m.site_actions[a[0]]
        site = (id(m), sa.site)
        if site not in self.sites:
            self.sites[site] = (str(sa.site_span), "choose " + ", ".join(x.action.name for x in m.sites[sa.site]))
        where = self.sites[site]
        entry[1][where] = entry[1].get(where, 0) + 1
        name = sa.action.name
        entry[2][name] = entry[2].get(name, 0) + 1
        if state._legal is not None:
            entry[3].update(x[0] for x in state._legal)
        if site[0] not in self.machines:
            self.machines[site[0]] = m

    def offered(self, entry) -> list:
        names = set()
        for m in self.machines.values():
            names.update(m.site_actions[u].action.name for u in entry[3] if u < len(m.site_actions))
        return sorted(names)

    def report(self) -> list:
        """Per player count and seat: decisions, choices reached, actions offered and taken."""
        out = []
        for (n, seat), (decisions, sites, taken, _) in sorted(self.seats.items()):
            out.append({"players": n, "seat": seat + 1, "decisions": decisions,
                        "choices": {f"{w} ({what})": c for (w, what), c in sorted(sites.items())},
                        "offered": self.offered(self.seats[(n, seat)]), "took": dict(sorted(taken.items()))})
        return out

    def findings(self) -> list:
        """[(players, message, where)] for each seat left out (see the module doc)."""
        out = []
        single = {}  # choice -> {player count: times per game}, for a choice only one seat reaches
        for n, games in sorted(self.games.items()):
            if games < MIN_GAMES or n < 2:
                continue
            seats = {s: self.seats.get((n, s)) or [0, {}, {}, set()] for s in range(n)}
            deciding = [s for s in range(n) if seats[s][0]]
            if not deciding:
                continue
            idle = [s for s in range(n) if not seats[s][0]]
            if idle:
                others = ", ".join(f"player {o + 1} {seats[o][0]}" for o in deciding)
                out.append((n, f"{_players(idle)} never {'has' if len(idle) == 1 else 'have'} a decision in "
                               f"{n}-player games (in {games} games; the others decided: {others} times)", None))
                continue
            for where in sorted(set().union(*(seats[s][1] for s in range(n)))):
                counts = [seats[s][1].get(where, 0) for s in range(n)]
                left = [s for s in range(n) if not counts[s]]
                if n >= 3 and len(left) == 1 and all(c >= MIN_REACHED for c in counts if c):
                    out.append((n, f"{_players(left)} never reaches the choice \"{where[1]}\" that every other "
                                   f"player reaches in {n}-player games ({games} games; the others: "
                                   + ", ".join(str(c) for c in counts if c) + " times)", where[0]))
                if len(left) == n - 1:
                    single.setdefault(where, {})[n] = (left, counts[[s for s in range(n) if counts[s]][0]] / games)
        # A choice one seat makes for everyone: only that seat reaches it, as often per game as
        # there are players (a dealer's choice comes as often whatever the count)
        for where, by_count in single.items():
            if len(by_count) < 2:
                continue
            per_player = [rate / n for n, (_, rate) in by_count.items()]
            rates = [rate for _, rate in by_count.values()]
            if max(per_player) <= 1.25 * min(per_player) and max(rates) > 1.25 * min(rates):
                n = max(by_count)
                chooser = [s for s in range(n) if s not in by_count[n][0]][0]
                out.append((n, f"only player {chooser + 1} reaches the choice \"{where[1]}\", as many times a game "
                               f"as there are players ({', '.join(f'{r:.1f} with {k}' for k, (_, r) in sorted(by_count.items()))}): "
                               "one player decides for everyone", where[0]))
        seen = set()  # one finding per choice (and one for seats that never decide), at the first count
        return [f for f in out if not (f[2] in seen or seen.add(f[2]))]


def _players(seats) -> str:
    if len(seats) == 1:
        return f"player {seats[0] + 1}"
    names = [str(s + 1) for s in seats]
    return "players " + ", ".join(names[:-1]) + " and " + names[-1]


__all__ = ["SeatLog", "MIN_GAMES", "MIN_REACHED"]
