"""Any rules file as an OpenSpiel game (``pyspiel``, the optional extra
``openspiel``).

    from interpreter.adapters.openspiel import load_openspiel
    game = load_openspiel("games/fox_in_the_henhouse.rules", players=2, days=1)
    state = game.new_initial_state()      # a pyspiel.State: legal_actions(), apply_action(), ...

:func:`load_openspiel` registers the game with pyspiel under a name of its
own (``register_openspiel`` gives the name, for ``pyspiel.load_game``) and
returns it.  What OpenSpiel gets:

- **the game type** from the rules: sequential (a round of secret choices
  is played one seat after another, each unseen by the others), explicit
  chance (each shuffle is a chain of uniform picks, as
  ``load(..., explicit_chance=True)`` exposes them), imperfect information
  when some zone is not public or some choice is secret, terminal rewards;
- **utilities**: by default the win share, 1/k to each of k winners and 0
  to the others (a game with no winner gives 0 to all; general sum, 0..1);
  ``utility="score"`` gives the scores (general sum, within the language's
  bound on numbers);
- **actions** as integers: action i is the i-th legal action in the
  engine's stable order, the same in every state a player cannot tell apart
  and in every process (``action_to_string`` gives its text);
  ``num_distinct_actions`` is the most a decision may offer
  (``max_legal_actions``; going past it is an error that says so);
- **a game length** bound: after ``max_game_length`` player actions a game
  is cut off as finished with no winner (the fuzzer finds rules that need
  not end);
- **observations** from what each seat may know (``State.observation``):
  a string, and a tensor of card counts per place (each distinct card name,
  and the cards that seat cannot see) with the seat, the seat to move and
  the numeric variables; the **information state** string adds a
  fingerprint of everything that seat observed after every step (perfect
  recall), and its tensor adds a fixed-size memory: for each place and card
  name whether that seat ever saw such a card there, and the actions each
  seat has taken (a summary of the past for learning, not a full record:
  two histories may share a tensor, never a string);
- ``resample_from_infostate`` from the engine's own ``resample``: the cards
  a seat does not know dealt at random, never peeking.  Such a world may be
  one the rules could not reach (the order of a hidden pile is not kept:
  a card put at the bottom of the deck may be dealt anywhere); where a rule then
  cannot be carried out, that sampled game ends with no result.

Nothing here is specific to a game: every number comes from the rules file.
"""

from __future__ import annotations

import hashlib
import random
import re

try:
    import numpy as np
    import pyspiel
except ImportError as err:  # pragma: no cover - the extra is missing
    raise ImportError("the OpenSpiel adapter needs open_spiel: pip install 'rulelang[openspiel]'") from err

from ..game import load
from .encoding import DEFAULT_MAX_LEGAL, TensorLayout, legal_actions
from ..runtime import CHANCE, MAX_VALUE, TERMINAL, IllegalAction, RuleError

DEFAULT_MAX_GAME_LENGTH = 5000


# ---------------------------------------------------------------- the game
def register_openspiel(path, players: int | None = None, utility: str = "win",
                       max_legal_actions: int = DEFAULT_MAX_LEGAL,
                       max_game_length: int = DEFAULT_MAX_GAME_LENGTH, **params) -> str:
    """Register the rules file (with ``params``, for ``players`` seats: the
    fewest the game allows by default) with pyspiel; returns the short name
    to give ``pyspiel.load_game``."""
    if utility not in ("win", "score"):
        raise ValueError('utility is "win" (the win share) or "score"')
    ours = load(path, params, explicit_chance=True)
    n = ours.min_players if players is None else players
    if not ours.min_players <= n <= ours.max_players:
        raise ValueError(f"{ours.title} is for {ours.min_players} to {ours.max_players} players, not {n}")
    digest = hashlib.sha256(repr((str(path), n, utility, max_legal_actions, max_game_length,
                                  sorted(params.items()))).encode()).hexdigest()[:10]
    stem = re.sub(r"\W+", "_", str(path).rsplit("/", 1)[-1].rsplit(".", 1)[0]).strip("_") or "game"
    short = f"rulelang_{stem}_{n}p_{digest}"
    if short in _REGISTERED:
        return short
    machine = ours.machine_for(n)
    hidden = any(z["visibility"] != "public" for z in ours.new_state(0, n).zone_layout()) \
        or bool(getattr(machine, "has_secret_choices", False))
    game_type = pyspiel.GameType(
        short_name=short,
        long_name=f"{ours.title} ({n} players, rulelang)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=(pyspiel.GameType.Information.IMPERFECT_INFORMATION if hidden
                     else pyspiel.GameType.Information.PERFECT_INFORMATION),
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=n,
        min_num_players=n,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={})
    cards = len(machine.card_names)
    game_info = pyspiel.GameInfo(
        num_distinct_actions=max_legal_actions,
        max_chance_outcomes=max(cards, n, 2),
        num_players=n,
        min_utility=0.0 if utility == "win" else float(-MAX_VALUE),
        max_utility=1.0 if utility == "win" else float(MAX_VALUE),
        utility_sum=None,
        max_game_length=max_game_length)

    # a class of its own per registration: pyspiel may make the game again from
    # the class alone (cls(params)), so what it needs is on the class
    cls = type(f"RulesGame_{digest}", (RulesGame,), {
        "GAME_TYPE": game_type, "GAME_INFO": game_info, "OURS": ours, "PLAYERS": n, "UTILITY": utility,
        "MAX_LENGTH": max_game_length, "LAYOUT": TensorLayout(ours, n),
        "INFO_LAYOUT": TensorLayout(ours, n, memory=True)})
    globals()[cls.__name__] = cls  # found by name when pickled (within this process)
    pyspiel.register_game(game_type, cls)
    _REGISTERED.add(short)
    return short


_REGISTERED = set()


def load_openspiel(path, players: int | None = None, **kwargs):
    """The rules file as a pyspiel game (see :func:`register_openspiel`)."""
    return pyspiel.load_game(register_openspiel(path, players, **kwargs))


class RulesGame(pyspiel.Game):
    """The base of each registered game's class (see :func:`register_openspiel`)."""

    def __init__(self, params=None):
        super().__init__(self.GAME_TYPE, self.GAME_INFO, params or {})

    # Read from the class: pyspiel may hand a state a game object made
    # without this __init__ (seen in random_sim_test), so nothing is kept on
    # the instance.
    ours = property(lambda self: type(self).OURS)
    players = property(lambda self: type(self).PLAYERS)
    utility = property(lambda self: type(self).UTILITY)
    max_length = property(lambda self: type(self).MAX_LENGTH)
    layout = property(lambda self: type(self).LAYOUT)
    info_layout = property(lambda self: type(self).INFO_LAYOUT)

    def new_initial_state(self):
        # pyspiel asks for many (a tensor's shape is measured on one): the
        # first is kept on the class and copied
        cls = type(self)
        first = cls.__dict__.get("_FIRST")
        if first is None:
            first = cls._FIRST = RulesState(self, self.ours.new_state(0, self.players))
        return first.copy_for(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _Observer(self, perfect_recall=recall)


# ---------------------------------------------------------------- states
class RulesState(pyspiel.State):
    """A pyspiel state around an engine state.  The engine's own generator
    never decides anything here: every chance event is a chance node."""

    def __init__(self, game, ours, memory=None, moves=0, sampled=False):
        super().__init__(game)
        self._game = game
        self.engine = _Engine(type(game), ours)
        # A state drawn by resample_from_infostate may be a world the rules could not
        # have reached (the order of a hidden pile is not remembered): a rule that
        # cannot be carried out there ends it with no result, where in a real
        # game it is an error.
        self.sampled = sampled
        self.broken = None
        self.moves = moves  # player actions so far (the length bound)
        if memory is None:
            self.memory = _Memory(game.players)
            self._observe()
        else:
            self.memory = memory.copy()

    @property
    def s(self):
        """The engine's state."""
        return self.engine.st

    prints = property(lambda self: self.memory.prints)
    seen = property(lambda self: self.memory.seen)
    acted = property(lambda self: self.memory.acted)

    def observation(self, p: int) -> dict:
        """What seat ``p`` observes now (the engine's observation, computed
        once per state)."""
        now = self.memory.now
        if now is None:
            now = self.memory.now = [self.s.observation(q) for q in range(self._game.players)]
        return now[p]

    def _observe(self) -> None:
        """Add what each seat observes now to its memory."""
        layout = self._game.info_layout
        self.memory.now = None
        for p in range(self._game.players):
            obs = self.observation(p)
            self.prints[p] = hashlib.blake2b((self.prints[p] + "\0" + repr(obs)).encode(),
                                             digest_size=12).hexdigest()
            self.seen[p] = layout.remember(self.seen[p], obs)

    def current_player(self):
        if self._cut_off():
            return pyspiel.PlayerId.TERMINAL
        p = self.s.current_player
        if p == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if p == CHANCE:
            return pyspiel.PlayerId.CHANCE
        return p

    def _cut_off(self) -> bool:
        return self.broken is not None or (self.moves >= self._game.max_length and not self.s.is_terminal)

    def _legal_actions(self, player):
        return list(range(len(legal_actions(self.s, self._game.num_distinct_actions()))))

    def chance_outcomes(self):
        return self.s.chance_outcomes()

    def _apply_action(self, action):
        self.memory.now = None
        try:
            if self.s.is_chance_node:
                self.s.apply(action)
            else:
                mover = self.s.current_player
                self.s.apply_at(action)
                self.moves += 1
                self.acted[mover] += 1
        except RuleError as err:
            if not self.sampled:
                raise
            self.broken = err.message
            return
        self._observe()

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance outcome {action}"
        legal = self.s.legal_actions()
        if not 0 <= action < len(legal):  # (not a list's index from the end)
            raise IllegalAction(f"{action!r} is not the index of a legal action here (0..{len(legal) - 1})")
        return self.s.action_text(legal[action])

    def is_terminal(self):
        return self.s.is_terminal or self._cut_off()

    def returns(self):
        n = self._game.players
        if not self.is_terminal():
            return [0.0] * n
        if self._cut_off():
            return [0.0] * n
        if self._game.utility == "score":
            return [float(x) for x in self.s.scores()]
        winners = self.s.winners()
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one: the cards it does
        not know dealt at random (the engine's resample)."""
        seed = int(probability_sampler() * (1 << 31))
        return RulesState(self._game, self.s.resample(player_id, random.Random(seed)), self.memory, self.moves,
                          sampled=True)

    def copy_for(self, game) -> "RulesState":
        """A copy of this state, a state of ``game``."""
        copy = RulesState(game, self.s.clone(), self.memory, self.moves, self.sampled)
        copy.broken = self.broken
        copy.memory.now = self.memory.now  # the same state: the same observations
        return copy

    def __deepcopy__(self, memo):
        return self.copy_for(self._game)

    def __str__(self):
        return self.s.debug_text()


class _Memory:
    """The information state's memory, per seat: a fingerprint of every
    observation so far (``prints``), the (place, card) cells ever seen
    (``seen``), and the actions each seat has taken (``acted``); with what
    each seat observes now (``now``, computed when first asked).  pyspiel
    copies a state by deep-copying its attributes: this copies as cheaply
    as it can (its parts are replaced, never changed in place)."""

    __slots__ = ("prints", "seen", "acted", "now")

    def __init__(self, n: int = 0, prints=None, seen=None, acted=None):
        self.prints = prints if prints is not None else [""] * n
        self.seen = seen if seen is not None else [frozenset()] * n
        self.acted = acted if acted is not None else [0] * n
        self.now = None

    def copy(self) -> "_Memory":
        return _Memory(0, list(self.prints), list(self.seen), list(self.acted))

    def __deepcopy__(self, memo):
        copy = self.copy()
        copy.now = self.now
        return copy

    def __reduce__(self):
        return _Memory, (0, self.prints, self.seen, self.acted)


class _Engine:
    """The engine's state inside a pyspiel state.  pyspiel serialises a
    Python state as its history and its ``__dict__``, pickled: this is
    pickled as the engine's own history, played again on a new state (its
    compiled code is not something to pickle)."""

    __slots__ = ("game_class", "st")

    def __init__(self, game_class, st):
        self.game_class = game_class
        self.st = st

    def __reduce__(self):
        return _engine_again, (self.game_class, list(self.st.history))

    def __deepcopy__(self, memo):  # a copy (pyspiel's clone): the engine's own, cheap
        return _Engine(self.game_class, self.st.clone())

    def __copy__(self):
        return _Engine(self.game_class, self.st.clone())


def _engine_again(game_class, history):
    st = game_class.OURS.new_state(0, game_class.PLAYERS)
    for a in history:
        st.apply(a)
    return _Engine(game_class, st)


# ---------------------------------------------------------------- observations
class _Observer:
    def __init__(self, game, perfect_recall: bool):
        self.game = game
        self.recall = perfect_recall
        self.layout = game.info_layout if perfect_recall else game.layout
        self.tensor = np.zeros(self.layout.size, np.float32)
        self.dict = self.layout.views(self.tensor)

    def set_from(self, state, player):
        self.layout.fill(self.dict, state.observation(player), player)
        if self.recall:
            self.layout.fill_memory(self.dict, state.seen[player], state.acted)

    def string_from(self, state, player):
        s = state.s
        mover = s.current_player
        head = f"P{player + 1}; " + ("game over" if state.is_terminal() else
                                     "chance" if mover == CHANCE else f"P{mover + 1} to move")
        text = head + "\n" + s.observation_text(player)
        if self.recall:
            text += f"\nmemory {state.prints[player]}"
        return text


__all__ = ["register_openspiel", "load_openspiel", "RulesGame", "RulesState"]
