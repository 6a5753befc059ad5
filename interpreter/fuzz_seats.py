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
- with three or more players whose seats reach most choices alike, a
  choice only one seat ever reaches (a choice made for another player);
- a choice only one seat reaches, where that seat decides as many times in
  a row as there are players, at every count played (at least two counts,
  or three players or more): one player deciding for everyone.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from itertools import chain, compress, count, islice, repeat
from operator import add, eq, itemgetter, mul, sub

_first = itemgetter(0)

MIN_GAMES = 10  # games at a player count before its seats are judged
# Steps whose legal actions are kept before what they offered is noted: a
# batch costs less than a look at each step, and a short one lets its lists
# die young (512 kept them long enough for the garbage collector to walk
# them again and again, and cost more than it saved)
OFFER_BATCH = 64
MIN_REACHED = 3  # times each other seat reached a choice before a seat that never did is flagged


class SeatLog:
    def __init__(self):
        self.games = {}  # player count -> games played
        self.seats = {}  # (player count, seat) -> [decisions, {site: times}, {action: times}, set of offered uids]
        self.sites = {}  # (machine id, site) -> (where, "choose a, b, ...")
        self.machines = {}  # id -> machine, to name the offered actions
        self.actions = {}  # (machine id, site action uid) -> (choice, action name)
        self.runs = {}  # (player count, choice) -> the most decisions one seat made in a row
        # What steps() is told, before _fold() names it: a game's steps are
        # listed and counted when the next game starts (_flush).  A step is
        # keyed by one int, its choice's site times the player count plus the
        # seat (site * n + seat), quicker to count and compare than a pair
        self._taken = {}  # (player count, machine) -> {site action uid * player count + seat: times}
        self._offered = {}  # (player count, seat, machine) -> uids offered
        self._runs = {}  # (player count, machine, site) -> the most decisions one seat made in a row
        self._not_offered = {}  # (player count, machine) -> {site * n + seat: its actions not offered yet}
        self._site_base = {}  # (machine, player count) -> site * player count, by site action uid
        self._site_keys = {}  # (machine, player count) -> site * n + seat, by uid * n + seat
        self._site_uids = {}  # (machine, site) -> (its site actions' uids, are they in order?)
        self._n = self._m = None  # the player count and machine of the game being played
        self._uids, self._mes = [], []  # its steps: the site action taken, by whom
        self._legals = []  # ... the legal lists of its last steps, not noted yet (see _note_offers)
        self._missing = {}  # ... its machine's at its player count (see _offer)
        self._base = None  # ... its machine's _site_base at its player count
        self._site_key = None  # ... and its _site_keys
        # (player count, machine) -> the actions no game's cards can make legal (see dealt)
        self._never = {}

    def game(self, players: int) -> None:
        self._flush()
        self.games[players] = self.games.get(players, 0) + 1
        self._n, self._m = players, None

    def dealt(self, m, inplay) -> None:
        """The game being played (of machine ``m``) has the cards ``inplay``:
        an action that none of them can make legal (Machine.never_offered) is
        not looked for among the actions offered, at no step of any game at
        this count (an action no game of a variant's deck can take, left
        unused, was looked for in every list offered: a twentieth of the
        fuzzer's time).  The offered actions noted stay exact: one that a
        later game's cards make possible is looked for again from then on."""
        key = (self._n, m)
        never = m.never_offered(inplay)
        known = self._never.get(key)
        if known is None:
            self._never[key] = never
        elif not known <= never:  # some action possible now: every choice is looked at again
            self._never[key] = known & never
            self._not_offered.get(key, {}).clear()

    def steps(self, m, actions, mes, legals) -> None:
        """Decisions of a game of machine ``m`` (the next ones, from the
        first): the actions taken, the seats that took them, the legal
        actions each was taken from.  The fuzzer's games pass theirs in
        batches (``fuzz_game.play_game``, every OFFER_BATCH steps and at the
        end)."""
        if m is not self._m:
            self._start(m)
        if mes and not 0 <= min(mes) <= max(mes) < self._n:  # (a step's key is site * n + seat)
            raise ValueError(f"SeatLog.steps: a seat out of 0..{self._n - 1}: {sorted(set(mes))}")
        self._uids += map(_first, actions)
        self._mes += mes
        self._legals += legals
        if len(self._legals) >= OFFER_BATCH:
            self._note_offers()

    def _start(self, m) -> None:
        """The machine of the game being played is ``m`` (known at its first step)."""
        self._flush()
        self._m = m
        n = self._n
        if n is None:  # pragma: no cover - a caller's slip
            raise ValueError("SeatLog.steps: call game(players) when a game starts")
        base = self._site_base.get((m, n))
        if base is None:
            base = self._site_base[(m, n)] = [sa.site * n for sa in m.site_actions]
            # and a step's site and seat by its action and seat: uid * n + seat -> site * n + seat
            self._site_keys[(m, n)] = [b + seat for b in base for seat in range(n)]
        self._base = base
        self._site_key = self._site_keys[(m, n)]
        self._missing = self._not_offered.setdefault((n, m), {})

    def _keys(self, uids, mes) -> list:
        """The steps' keys (site * n + seat) of the game being played."""
        return list(map(add, map(self._base.__getitem__, uids), mes))

    def _note_offers(self) -> None:
        """Note the actions offered at the steps listed since the last call:
        per choice and seat, only those not offered there before are looked
        for, in all of its steps' legal actions at once."""
        legals = self._legals
        if not legals:
            return
        self._legals = []
        k = len(legals)  # they are the game's last k steps
        keys = self._keys(self._uids[-k:], self._mes[-k:])
        for key in set(keys):
            missing = self._missing.get(key)
            if missing is None or missing:
                self._offer(key, list(compress(legals, map(eq, keys, repeat(key)))), missing)

    def _offer(self, key, legals, missing) -> None:
        """Note the actions offered to a seat at a site (``key``: site * n +
        seat), in the lists ``legals``, where ``missing`` are those of its
        actions not offered yet (None: not known yet)."""
        m, (site, me) = self._m, divmod(key, self._n)
        everything = self._site_uids.get((m, site))
        if everything is None:
            uids = [sa.uid for sa in m.sites[site]]
            everything = self._site_uids[(m, site)] = (frozenset(uids), uids == sorted(uids))
        if missing is not None and everything[1]:
            # the legal actions run through the site's actions in the order of their uids: an
            # action is in a list if its uid's first and last places there differ (bisection,
            # with no value compared: (uid,) sorts before every action of uid, (uid + 1,) after)
            new = [u for u in missing
                   if any(map(sub, map(bisect_left, legals, repeat((u + 1,))), map(bisect_left, legals, repeat((u,)))))]
            if not new:
                return
        else:
            new = set(map(_first, chain.from_iterable(legals)))
        offered = self._offered.get((self._n, me, m))
        if offered is None:
            offered = self._offered[(self._n, me, m)] = set()
        offered.update(new)
        self._missing[key] = tuple(sorted(everything[0] - offered - self._never.get((self._n, m), frozenset())))

    def _flush(self) -> None:
        """Count the steps listed since the last call (a game's, or the part of it played so far)."""
        self._note_offers()
        uids, mes = self._uids, self._mes
        if not uids:
            return
        n, m = self._n, self._m
        taken = self._taken.get((n, m))
        if taken is None:
            taken = self._taken[(n, m)] = Counter()
        steps = list(map(add, map(mul, uids, repeat(n)), mes))  # uid * n + seat
        taken.update(steps)
        # the longest run of one seat's decisions at one site: found from the steps that
        # repeat the one before (few), at C speed for the others; a site reached with no
        # such step has a run of 1, noted from the counts when they are folded (_fold)
        keys = list(map(self._site_key.__getitem__, steps))  # site * n + seat
        runs = self._runs
        run, last = 1, -2
        for i in compress(count(1), map(eq, islice(keys, 1, None), keys)):  # step i repeats step i - 1
            run = run + 1 if i == last + 1 else 2
            last = i
            at = (n, m, keys[i] // n)
            if run > runs.get(at, 0):
                runs[at] = run
        self._uids, self._mes = [], []

    def _fold(self) -> None:
        """Name what steps() was told: per seat, the choices reached and the
        actions taken and offered; per choice, the longest run of one seat."""
        self._flush()
        for (n, m), counts in self._taken.items():
            for key, times in counts.items():
                uid, me = divmod(key, n)
                where, name = self._action(m, uid)
                entry = self.seats.get((n, me))
                if entry is None:
                    entry = self.seats[(n, me)] = [0, {}, {}, set()]
                entry[0] += times
                entry[1][where] = entry[1].get(where, 0) + times
                entry[2][name] = entry[2].get(name, 0) + times
                self.runs.setdefault((n, where), 1)  # (a choice reached: a run of one at least)
        for (n, me, m), uids in self._offered.items():
            self.machines.setdefault(id(m), m)
            self.seats.setdefault((n, me), [0, {}, {}, set()])[3].update(uids)
        for (n, m, site), run in self._runs.items():
            where = self._site(m, site)
            if run > self.runs.get((n, where), 0):
                self.runs[(n, where)] = run
        self._taken, self._offered, self._runs = {}, {}, {}

    def _site(self, m, site) -> tuple:
        """(where, "choose a, b, ...") of a choice of machine ``m``."""
        key = (id(m), site)
        if key not in self.sites:
            sas = m.sites[site]
            self.sites[key] = (str(sas[0].site_span), "choose " + ", ".join(x.action.name for x in sas))
        self.machines.setdefault(id(m), m)
        return self.sites[key]

    def _action(self, m, uid) -> tuple:
        """(choice, action name) of a site action: the choice as (where, "choose a, b, ...")."""
        known = self.actions.get((id(m), uid))
        if known is None:
            sa = m.site_actions[uid]
            known = self.actions[(id(m), uid)] = (self._site(m, sa.site), sa.action.name)
        return known

    def taken(self) -> dict:
        """Action name -> times played, over every seat and player count."""
        self._fold()
        out = {}
        for entry in self.seats.values():
            for name, n in entry[2].items():
                out[name] = out.get(name, 0) + n
        return out

    def offered(self, entry) -> list:
        names = {u for u in entry[3] if isinstance(u, str)}  # names: from another process (absorb)
        for m in self.machines.values():
            names.update(m.site_actions[u].action.name for u in entry[3]
                         if isinstance(u, int) and u < len(m.site_actions))
        return sorted(names)

    def portable(self) -> dict:
        """What was logged, as plain data (the offered actions by name), for :meth:`absorb`
        in another process."""
        self._fold()
        seats = {k: [v[0], dict(v[1]), dict(v[2]), self.offered(v)] for k, v in self.seats.items()}
        return {"games": dict(self.games), "runs": dict(self.runs), "seats": seats}

    def absorb(self, data: dict) -> None:
        """Add another run's log (:meth:`portable`) to this one."""
        self._fold()
        for n, g in data["games"].items():
            self.games[n] = self.games.get(n, 0) + g
        for k, r in data["runs"].items():
            self.runs[k] = max(self.runs.get(k, 0), r)
        for key, (d, sites, taken, offered) in data["seats"].items():
            entry = self.seats.setdefault(key, [0, {}, {}, set()])
            entry[0] += d
            for w, c in sites.items():
                entry[1][w] = entry[1].get(w, 0) + c
            for a, c in taken.items():
                entry[2][a] = entry[2].get(a, 0) + c
            entry[3].update(offered)

    def report(self) -> list:
        """Per player count and seat: decisions, choices reached, actions offered and taken."""
        self._fold()
        out = []
        for (n, seat), (decisions, sites, taken, _) in sorted(self.seats.items()):
            out.append({"players": n, "seat": seat + 1, "decisions": decisions,
                        "choices": {f"{w} ({what})": c for (w, what), c in sorted(sites.items())},
                        "offered": self.offered(self.seats[(n, seat)]), "took": dict(sorted(taken.items()))})
        return out

    def findings(self) -> list:
        """[(players, message, where)] for each seat left out (see the module doc)."""
        self._fold()
        out = []
        single = {}  # choice -> {player count: (the seat that reaches it, most decisions in a row there)}
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
            choices = sorted(set().union(*(seats[s][1] for s in range(n))))
            # most choices reached by every seat: a game whose seats are alike
            alike = 2 * sum(1 for w in choices if all(seats[s][1].get(w) for s in range(n))) >= len(choices)
            for where in choices:
                counts = [seats[s][1].get(where, 0) for s in range(n)]
                left = [s for s in range(n) if not counts[s]]
                if n >= 3 and alike and len(left) == n - 1 and max(counts) >= MIN_REACHED:
                    out.append((n, f"only player {counts.index(max(counts)) + 1} ever reaches the choice "
                                   f"\"{where[1]}\" in {n}-player games ({games} games, {max(counts)} times), "
                                   "though the players reach most choices alike", where[0]))
                if n >= 3 and len(left) == 1 and all(c >= MIN_REACHED for c in counts if c):
                    out.append((n, f"{_players(left)} never reaches the choice \"{where[1]}\" that every other "
                                   f"player reaches in {n}-player games ({games} games; the others: "
                                   + ", ".join(str(c) for c in counts if c) + " times)", where[0]))
                if len(left) == n - 1:
                    chooser = [s for s in range(n) if counts[s]][0]
                    single.setdefault(where, {})[n] = (chooser, self.runs.get((n, where), 0))
        # A choice one seat makes for everyone: only that seat reaches it, and it decides there
        # as many times in a row as there are players (a dealer's choice comes once a round;
        # a turn of several decisions at one choice, as often whatever the count)
        for where, by_count in single.items():
            counts = sorted(by_count)
            if all(by_count[n][1] == n for n in counts) and (len(counts) >= 2 or counts[0] >= 3):
                n = counts[-1]
                runs = ", ".join(f"{by_count[k][1]} with {k} players" for k in counts)
                out.append((n, f"only player {by_count[n][0] + 1} reaches the choice \"{where[1]}\", and decides "
                               f"there as many times in a row as there are players ({runs}): one player "
                               "decides for everyone", where[0]))
        seen = set()  # one finding per choice (and one for seats that never decide), at the first count
        return [f for f in out if not (f[2] in seen or seen.add(f[2]))]


def _players(seats) -> str:
    if len(seats) == 1:
        return f"player {seats[0] + 1}"
    names = [str(s + 1) for s in seats]
    return "players " + ", ".join(names[:-1]) + " and " + names[-1]


__all__ = ["SeatLog", "MIN_GAMES", "MIN_REACHED"]
