"""The ``same_deal`` finding: rules that draw at random, yet deal every game
alike.

A shuffle left out, or one that shuffles the wrong pile (the discard pile
where the draw pile was meant), still makes a game that runs, ends and
scores: only every game starts with the same hands.  Before its search the
fuzzer starts a game on a few seeds, for each player count, and compares
what the seats hold privately at the first decision (the cards a seat sees
that another does not), whoever holds which (a first player drawn at
random passes the same hands round).  When the rules have a ``shuffle`` or
a ``random`` step, some seat holds a private card, and every seed deals the
very same hands, that is the finding.  It has no trace: ``rulerun
run --seed N`` on two seeds shows the same hands.
"""

from __future__ import annotations

from rulelang import ast as A
from rulelang.visit import walk

from .compiler import ParamError
from .machine import InvariantBroken
from .runtime import RuleError
from .views import card_names

SEEDS = 4  # games started; all alike is the finding


def draws_at_random(game) -> bool:
    """Does the rules file shuffle or draw at random anywhere?"""
    return any(isinstance(x, (A.Shuffle, A.SetRandom, A.LetRandom)) for x in walk(game.checked.module))


def private_cards(state) -> tuple:
    """For each seat, the names of the cards it sees that some other seat
    does not (sorted), where the game first waits for a decision."""
    n = state.num_players
    views = [state.observation(p)["zones"] for p in range(n)]
    out = []
    for p in range(n):
        mine = []
        for zone, content in views[p].items():
            seen = list(card_names(content))
            others = [list(card_names(views[q][zone])) for q in range(n) if q != p]
            for i, name in enumerate(seen):
                if name is not None and any(len(o) == len(seen) and o[i] is None for o in others):
                    mine.append(name)
        out.append(tuple(sorted(mine)))
    return tuple(out)


def same_deal(game, players: int, seeds: int = SEEDS) -> str | None:
    """The finding's message if every one of ``seeds`` games deals each seat
    the same private cards (see the module's docstring), else None."""
    if not draws_at_random(game):
        return None
    game = game.with_knowledge()  # (the fuzzer's games keep none: what each seat sees is read here)
    first = None
    for seed in range(seeds):
        try:
            state = game.new_state(seed, players)
        except (RuleError, InvariantBroken, ParamError):  # other findings say why
            return None
        if state.is_terminal:
            return None
        deal = tuple(sorted(private_cards(state)))  # the same hands, whoever holds which
        if not any(deal):  # nothing dealt yet at the first decision
            return None
        if first is None:
            first = deal
        elif deal != first:
            return None
    held = "; ".join(", ".join(cards) for cards in first if cards)
    return (f"every game deals the same cards ({seeds} seeds, {players} players: {held}), though the rules "
            "draw at random: is a shuffle missing, or shuffling another pile than the one dealt from?")


__all__ = ["same_deal", "private_cards", "draws_at_random", "SEEDS"]
