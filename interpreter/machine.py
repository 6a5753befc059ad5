"""The compiled machine: code, tables and closures for one rules file.

Built by :mod:`interpreter.compiler` (a package); read by :class:`interpreter.runtime.State`.
Nothing here knows the rules language's syntax.
"""

from __future__ import annotations


from .runtime import (CHANCE, DECIDE, EXEC, JF, JMP, MAX_AUTO_STEPS, MAX_SEARCH, MAX_VALUE, MAX_WORK,
                      RANDOM, IllegalAction, RuleError, State,
                      _mix)
from .checks import EVAL_ERRORS, InvariantBroken, MachineChecks, _explain
from .views import MachineViews

def _went_round(span):
    raise RuleError(f"the flow went round {MAX_AUTO_STEPS} times without a decision; "
                    "a loop without a choose never ends", span)


class SiteAction:
    """One action offered at one choose: how to enumerate it and where its effects start."""

    __slots__ = ("uid", "action", "body_pc", "site_span", "site", "sealed")

    def __init__(self, uid, action, body_pc, site_span, site=0, sealed=None):
        self.uid = uid
        self.action = action
        self.body_pc = body_pc
        self.site_span = site_span
        self.site = site  # the index of its choose
        self.sealed = sealed  # a choice made in secret: the slot of the pending choices (see simultaneous)


class ActionDef:
    """An action: parameters, the enumerator, the preamble lets, the text template."""

    __slots__ = ("name", "params", "enumerate", "first", "lets", "template", "span", "reads")

    def __init__(self, name, params, enumerate, lets, template, span, reads=None):
        self.reads = reads  # what its search reads of the state, if little (compiler.search_reads), or None
        self.name = name
        self.params = params  # list of (slot, type, name)
        self.enumerate = enumerate  # (state, out, uid) -> None: adds (uid, values...) of each legal choice
        # (state, None, 0) -> bool: is there a legal choice? The search written as a test, for
        # an action that a can() of the rules file asks about (compiler.search_first), else None
        self.first = getattr(enumerate, "first", None)
        self.lets = lets  # [(slot, closure)] recomputed on apply
        self.template = template
        self.span = span


class ZoneDef:
    __slots__ = ("name", "index", "kind", "per_player", "visibility", "base")

    def __init__(self, name, index, kind, per_player, visibility, base):
        self.name = name
        self.index = index
        self.kind = kind
        self.per_player = per_player
        self.visibility = visibility
        self.base = base  # its first place in st.Z (see runtime's layout)

    def instances(self, stride: int) -> range:
        """Its places in st.Z: one per seat up to ``stride``, or one."""
        return range(self.base, self.base + (stride if self.per_player else 1))


class Machine(MachineViews, MachineChecks):
    def __init__(self):
        self.title = ""
        self.players = (2, 2)
        self.stride = 2  # the most players: places and player variables kept per seat
        self.nplaces = 0  # places in st.Z: one per seat of each per-player zone, one for each shared zone
        self.inst_zone = ()  # place -> the index of its zone
        self.inst_owner = ()  # place -> its seat (0 for a shared zone's)
        self.code = []  # (op, a, b, span)
        self.flow_fns = []  # pc -> the generated function that runs the flow from there, or None (see run)
        self.action_steps = []  # uid -> (state, action) -> None: plays a site action to the next stop (State.apply)
        self.legal_at = []  # pc -> (state) -> the legal actions of the choice at pc (runtime.no_choice elsewhere)
        self.rounds_left = MAX_AUTO_STEPS
        self.sites = []  # site index -> list of SiteAction
        self.site_actions = []  # uid -> SiteAction
        self.action_defs = {}  # name -> ActionDef, every action of the rules (a can() finds them here)
        self.zones = []  # ZoneDef
        self.card_names = []
        self.card_name_ids = []
        self.card_attrs = {}  # name -> (tuple of values, type)
        self.enum_members = {}  # enum name -> members
        self.nslots = 0
        self.shuffle_slot = 0  # where a shuffle counts the cards left to place
        self.scratch = []  # the scratch slots every state of this machine shares (.compiler.slots)
        self.var_names = []  # (name, type, index)
        self.pvar_names = []  # (name, type, base)
        self.cvar_names = []  # (name, type, base)
        self.internal_vars = frozenset()  # names declared "internal": bookkeeping the table view leaves out
        self.var_defaults = None  # (state) -> list V
        self.cvar_defaults = None  # (state) -> list C
        self.deck = None  # (state) -> list of card ids in play
        self.start_zone = 0
        self.winners_index = 0  # st.V[winners_index]: seats named by "end game with winners", or None
        self.turns_base = None  # st.V[turns_base + p]: the turns seat p has taken (if the rules read them)
        self.score_fn = None
        self.tiebreaks = []
        self.nobody_wins = None  # "nobody wins if COND": a function of the state, or None
        self.frozen_memo = {}  # what the results' functions keep while the state is still (see scores)
        self.outcome_slot = 0
        self.heuristic_fn = None  # the rules' heuristic(p), if they declare one (see heuristics)
        self.heuristic_slot = 0
        self.heuristic_span = None
        self.outcome_span = None
        self.explicit_chance = False
        self.params = {}
        self.stack_instances = ()
        self.grid_instances = frozenset()  # grids: their cards' cells are in st.P
        self.grid_boxes = {}  # a grid's place -> its box: (width, height, either way)
        self.face_down = False  # does any move lay a card face down?
        # Who knows which card (st.K) is kept up to date: only observations, knows()
        # and resample() read it, so a machine compiled with knowledge=False (for
        # bots that read neither, and the fuzzer) leaves it out of every move
        self.knowledge = True
        self.recompile = None  # (**options) -> the same game compiled again with other options (the compiler's)
        self._without_knowledge = None
        self._vis_cache = {}
        self._start_cache = {}  # (player count, cards in play) -> the first loc and K (see new_state)
        self._never_offered = {}  # cards in play -> the actions none of them can make legal (never_offered)
        self.cvar_bases = []
        self.generated_sources = []
        self.namespace = None  # the generated code's Namespace (the fuzzer's invariant check is written in it)
        self.cvar_initial = ()
        self.flow_slots = ()
        # No while loop anywhere, save those proven to make progress
        # (compiler.progress): every other loop (for, repeat, a deal, the
        # triggers of a card, a round of secret choices) counts its rounds in
        # a flow slot, from 0 at each entry, and only an outer loop's round
        # enters it again.  So where the flow stands (pc and those counts)
        # differs at every decision of a game, and no position can come back:
        # the fuzzer does not look for a repeated one (fuzz_game.play_game).
        self.positions_unique = False
        # The flow slots holding the items a for loop (or a round of secret
        # choices) goes through: set when the loop starts, and told apart by
        # the loop's count and where the flow stands, so the fuzzer's small
        # key leaves them out (Checks.small_key_for).
        self.list_slots = frozenset()
        self.list_lets = frozenset()  # the flow slots a let sets to a list (another value before it runs)
        self._position_getters = {}  # player count -> (Z -> the places in use, L -> the flow slots' values)
        self.invariants = []  # (closure, message, span): checked at decision points
        self.expectations = []  # an example's machine: (Expect, closures) (interpreter/examples.py)
        self.on_expect = None  # (state, index in expectations, stop) -> None: called where an expectation stands
        self.invariant_reads = []  # for each: (zone instances, reads card vars, reads cells/faces) if that is all, or None
        self.invariant_seats = []  # for each: None, or checked seat by seat (see reads.seat_split):
        # (the body's function, the seat's slot, instances read for all, zones read as the seat's, card vars, cells)
        self.invariant_vars = []  # for each kept one: the indices in V of the variables it reads
        self.invariant_stacks = []  # for each: None, or checked stack by stack (see reads.stack_split):
        # (the body's function, the stack's slot, reads the card variables of the stack's own cards
        # only), the body of the seat split's if there is one
        self.invariant_cards = []  # for each: None, or checked card by card (see reads.card_split):
        # (the body's function, the card's slot), as invariant_stacks
        self._hold_plans = {}  # player count -> the fuzzer's check of the invariants (Checks.holds_for)
        self._small_keys = {}  # player count -> the fuzzer's small key of a position (Checks.small_key_for)
        self.records = []  # (name, doc, type, V index, per player): the game's record
        self.achievements = []  # (text, function, span), read with achievement_slot = the player
        self.achievement_slot = 0
        self.sealed_slots = ()  # the slots of the choices made in secret and not yet carried out
        # {id(pile): (pile, its cards without identical copies, their groups or None)}, while a choice is
        # searched; outside a search, the last pile told apart (copies.dedupe, read by copies.subsets)
        self.domain_cache = None
        self.last_told_apart = None
        self.copy_plans = {}  # the names of a pile's cards, in order -> how its copies group (copies.dedupe)
        # does a search ever keep something there (a game with copies of a card, a set choice, a grid)?
        self.shares_domains = True
        # budgets, refilled where an evaluation starts (a step of play, a listing of legal actions, the results)
        self.search_left = MAX_SEARCH
        self.work_left = MAX_WORK
        self.always_invariants = []  # (closure, message, span): checked after every step too
        self.capacities = []  # (zone index, name, per player, kind, capacity, span)
        self.capacities_per_step = False  # checked after each step that can fill a zone (check_invariants)
        self.never_actions = []  # (action name, span of a require that is always false)
        self.branch_conds = {}  # id(condition function of a JF) -> its AST node (static checks)
        self.coverage_points = []  # (kind, what, span)
        self.coverage_counts = []
        self.late_indices = ()  # where st.V holds the parameters read from the state (.compiler.late)

    # ------------------------------------------------------------ new states
    def new_state(self, seed: int = 0, num_players: int | None = None, late=()) -> State:
        """A new game.  ``late``: [(index in st.V, value)] of the parameters this
        machine reads from the state (see :mod:`.compiler.late`), set before
        anything else is worked out."""
        lo, hi = self.players
        n = lo if num_players is None else num_players
        if not isinstance(n, int) or not lo <= n <= hi:
            raise ValueError(f"{self.title} is for {lo} to {hi} players, not {num_players}"
                             if lo != hi else f"{self.title} is for {lo} players, not {num_players}")
        st = State.__new__(State)
        st.m = self
        st.n = n
        st.rng = _mix(seed)
        st.Z = [[] for _ in range(self.nplaces)]
        st.L = [0] * self.nslots
        st.S = self.scratch
        st.me = 0
        st.pc = 0
        st.is_terminal = False
        st.chance_n = 0
        st._played = None  # (earlier, last action), see State.history
        st._legal = None
        st.V = []
        st.C = []
        st.cshared = st.pshared = False  # (see State.clone)
        st.loc = [-1] * len(self.card_names)
        st.K = [0] * len(self.card_names)
        st.P = [0] * len(self.card_names)
        st.F = [False] * len(self.card_names)
        st.vis = self.visibility(n)
        st.inplay = ()
        st.V = self.var_defaults(st)
        for i, v in late:
            st.V[i] = v
        st.C = self.cvar_defaults(st)
        self.cvar_initial = tuple(st.C)
        inplay = st.inplay = tuple(self.deck(st))
        st.Z[self.start_zone].extend(inplay)
        key = (n, inplay)  # where the cards in play start, and who sees them there: the same game after game
        start = self._start_cache.get(key)
        if start is None:
            seen = st.vis[self.start_zone]
            loc, K = st.loc, st.K
            for c in inplay:
                loc[c] = self.start_zone
                K[c] = seen
            if len(self._start_cache) >= 64:
                self._start_cache.clear()
            start = self._start_cache[key] = (tuple(loc), tuple(K))
        st.loc, st.K = list(start[0]), list(start[1])
        self.run(st)
        return st

    def visibility(self, n: int) -> tuple:
        """For each zone instance, the bit mask of seats that see its cards."""
        cache = self._vis_cache
        if n not in cache:
            everyone = (1 << n) - 1
            vis = []
            for z in self.zones:
                for p in range(self.stride if z.per_player else 1):
                    if z.visibility == "public":
                        vis.append(everyone)
                    elif z.visibility == "owner":
                        vis.append((1 << p) if z.per_player and p < n else 0)
                    else:
                        vis.append(0)
            cache[n] = tuple(vis)
        return cache[n]

    def without_knowledge(self) -> "Machine":
        """This game keeping no knowledge: this machine if it keeps none,
        else the same rules compiled again with ``knowledge=False`` (once).
        Both lay a state out alike (slots, places, pcs, actions, coverage
        probes), so a state can move over to it (``State.resample``, for a
        search that plays its samples and never observes them); what it
        counts (coverage, turns) it counts apart."""
        if not self.knowledge or self.recompile is None:  # (a machine not built by the compiler: itself)
            return self
        twin = self._without_knowledge
        if twin is None:
            twin = self._without_knowledge = self.recompile(knowledge=False)
        return twin

    # ------------------------------------------------------------ the VM
    def run(self, st: State, fresh: bool = True) -> None:
        """Run automatic steps until a decision, a chance event (explicit
        mode) or the end: the flow's generated functions where there are
        (:mod:`interpreter.compiler.flowgen`), the code op by op elsewhere.
        The rounds of loops between two decisions are counted in
        ``rounds_left``: a generated function's own loops count there too.
        ``fresh``: the budgets start full (not when an action's step, which
        filled them, hands over to the VM)."""
        code = self.code
        fns = self.flow_fns
        pc = st.pc
        if fresh:
            self.work_left = MAX_WORK
            self.rounds_left = MAX_AUTO_STEPS
        try:
            while True:
                f = fns[pc]
                if f is not None:
                    st.pc = pc  # a failing step puts its own pc there
                    pc = f(st)  # (it counts the rounds of the loops it goes round)
                    if pc < 0:
                        return
                    continue
                st.pc = pc
                op, a, b, _ = code[pc]
                if op == EXEC:
                    a(st)
                    pc += 1
                elif op == JF:
                    pc = pc + 1 if a(st) else b
                elif op == JMP:  # every loop jumps back: count its rounds here
                    if a <= pc:
                        self.rounds_left -= 1
                        if self.rounds_left < 0:
                            st.pc = a
                            _went_round(code[a][3])
                    pc = a
                elif op == DECIDE:
                    return
                elif op == RANDOM:
                    k = a.count(st)
                    if k <= 0:
                        pc = a.skip(st, pc)
                        continue
                    if self.explicit_chance:
                        st.chance_n = k
                        return
                    pc = a.sample(st, k, pc)
                else:  # END
                    st.is_terminal = True
                    return
        except RuleError as err:
            if err.span is None:
                raise self.placed(st, err) from None
            raise
        except EVAL_ERRORS as err:
            raise self.placed(st, err) from None

    def placed(self, st: State, err) -> RuleError:
        """A failure of a step of the flow as a rule error at that step's
        line (``st.pc``): an error of an expression, or a rule error that has
        no line of its own.  (Machine.run and an action's generated step.)"""
        span = self.code[st.pc][3]
        if isinstance(err, RuleError):
            return RuleError(err.message, span)
        return RuleError(_explain(err), span)

    def resolve_chance(self, st: State, outcome: int) -> None:
        op, a, b, span = self.code[st.pc]
        st.chance_n = 0
        st.pc = a.resolve(st, outcome, st.pc)

    def forget_unseen(self, st: State, card: int, inst: int, blind: int) -> None:
        """A card chosen by name from place ``inst``, where the seats in
        ``blind`` could not see it, that is still out of their sight, could
        have been any card of that place: they forget where each of those
        cards is (unless they see it now).  An action's step
        (:func:`interpreter.compiler.flowgen.generate_step`) does this once
        its flow has stopped, card by card in the order of the parameters,
        written inline (:func:`~interpreter.compiler.flowgen.forget_source`);
        this method is the plain version, which a test holds it to."""
        if not self.knowledge:
            return  # nobody's knowledge is kept
        K = st.K
        down = st.F if self.face_down else None  # who sees a card where it lies: nobody, face down
        blind &= ~(0 if down is not None and down[card] else st.vis[st.loc[card]])
        if not blind:
            return  # the chosen card is in plain sight now: nothing to guess
        place = st.Z[inst]  # what is left of the place it was chosen from, and the card
        cards = [c for s in place for c in s] if inst in self.stack_instances else place
        keep = ~(blind & ~st.vis[inst])  # (every card of the place lies there: seen by who sees it)
        if down is None:
            for c in cards:
                K[c] &= keep
        else:
            for c in cards:
                K[c] &= ~blind if down[c] else keep
        K[card] &= ~blind

    def enumerate_site(self, st: State) -> tuple:
        """The legal actions at the choice where ``st`` stands: each offered
        action's search in turn, by a function generated for that choice
        (:func:`interpreter.compiler.sites.generate_site`)."""
        return self.legal_at[st.pc](st)

    def never_offered(self, inplay: tuple) -> frozenset:
        """The uids of the site actions that no card of ``inplay`` (the
        cards of a game) can ever make legal: a card parameter whose test
        of what is printed on a card (a table every value passes, see
        :func:`.compiler.card_tables.param_card_test`) no card in play passes.
        (Exact: its search finds no value of that parameter, whatever
        the position.)  For the fuzzer's seat log, which need not look
        for them among the actions offered.  Kept by the cards in play."""
        never = self._never_offered.get(inplay)
        if never is None:
            out = []
            for sa in self.site_actions:
                for table in getattr(sa.action.enumerate, "card_tables", ()):
                    if not any(map(table.__getitem__, inplay)):
                        out.append(sa.uid)
                        break
            never = frozenset(out)
            if len(self._never_offered) < 64:  # (one deck per player count, as a rule)
                self._never_offered[inplay] = never
        return never

    # ------------------------------------------------------------ scenarios
    def zone_instance(self, st, zone: str, player=None) -> int:
        for z in self.zones:
            if z.name == zone:
                if z.per_player:
                    if player is None or not 0 <= player < st.n:
                        raise ValueError(f"zone {zone!r} belongs to each player: give player=0..{st.n - 1}")
                    return z.base + player
                if player is not None:
                    raise ValueError(f"zone {zone!r} is shared: give no player")
                return z.base
        raise ValueError(f"no zone named {zone!r}")

    def card_ids(self, name: str) -> list:
        ids = [i for i, n in enumerate(self.card_names) if n == name]
        if not ids:
            raise ValueError(f"no card named {name!r}")
        return ids

    # ------------------------------------------------------------ outcome
    def heuristics(self, st) -> list:
        """The rules' ``heuristic(p)`` for each player (the scores when they
        declare none): how well each stands, for the greedy bot."""
        if self.heuristic_fn is None:
            return self.scores(st)
        return self._per_player(st, self.heuristic_fn, self.heuristic_slot, "the heuristic", self.heuristic_span)

    def _per_player(self, st, fn, slot, what: str, span) -> list:
        """``fn`` for each player (bound in ``slot``), on a state that does not change meanwhile."""
        self.work_left = MAX_WORK
        self.frozen_memo.clear()  # kept for this state only
        out = []
        try:
            for p in range(st.n):
                st.L[slot] = p
                out.append(fn(st))
        except EVAL_ERRORS as err:
            raise RuleError(f"{what} cannot be computed: {_explain(err)}", span) from None
        return out

    def scores(self, st) -> list:
        out = self._per_player(st, self.score_fn, self.outcome_slot, "the score", self.outcome_span)
        for v in out:
            if not -MAX_VALUE <= v <= MAX_VALUE:
                raise RuleError(f"a score of {v} is beyond the bound on numbers (-10^15 to 10^15)",
                                self.outcome_span)
        return out

    def results(self, st) -> tuple:
        """(scores, winners), each score computed once."""
        scores = self.scores(st)
        return scores, self.winners(st, scores)

    def winners(self, st, scores=None) -> list:
        """The winners; ``scores``, if given, are this state's scores
        (:meth:`scores`), not computed again."""
        self.work_left = MAX_WORK
        named = st.V[self.winners_index]
        if named is not None:  # "end game with winners ..."
            return list(named)
        self.frozen_memo.clear()
        slot = self.outcome_slot
        if self.nobody_wins is not None:
            st.L[slot] = 0
            try:
                if self.nobody_wins(st):
                    return []
            except EVAL_ERRORS as err:
                raise RuleError(f"the winner cannot be decided: {_explain(err)}", self.outcome_span) from None
        keys = []
        slot = self.outcome_slot
        try:
            for p in range(st.n):
                st.L[slot] = p
                key = [self.score_fn(st) if scores is None else scores[p]]
                for sign, f in self.tiebreaks:
                    key.append(sign * f(st))
                keys.append(tuple(key))
        except EVAL_ERRORS as err:
            raise RuleError(f"the winner cannot be decided: {_explain(err)}", self.outcome_span) from None
        best = max(keys)
        return [p for p in range(st.n) if keys[p] == best]


__all__ = ["Machine", "SiteAction", "ActionDef", "ZoneDef", "CHANCE", "RuleError", "IllegalAction", "InvariantBroken"]
