"""Hens for bench/differential.py (see there): games/hens.rules against
../shared/baseline/hens.py.

The interpreter is loaded with ``explicit_chance=True``.  Its setup's
shuffles are resolved arbitrarily and overwritten after the baseline's
``new_game``; its ``set first = random players`` is resolved to the
baseline's first player, so the deal loop and every later ``for p in
players from first`` run in the baseline's order.  The deal, by card id
(copies of a card are distinct cards in the interpreter, equal ints in the
baseline): the goal card in ``goal`` (the other nine in ``goals``), the deck
in the baseline's order (its top is the end of its list), the hands.

Action texts, baseline tuple -> rules file:

    ('draw_deck',)          draw from the deck
    ('draw_pile', q)        draw the top of player {q+1}'s discards
    ('hen', c, (x, y))      place {name} at (x, y)
    ('coop', c, (x, y))     place {name} as a coop at (x, y)
    ('discard', c)          discard {name}
    ('rooster', (x, y))     put the rooster at (x, y)

Names are "Breed N" ("Modern Game N").  After every step the whole
position is compared: the deck in order, the hands, the discard piles in
order, each barnyard cell by cell with its face (a coop is face down), the
roosters (by cell, once revealed), whose turn it is, and each player's
score as it would be if the game ended now (so the scoring of partial
barnyards is compared at every step, not only on the final full grids).
At the end: the scores, the winners (tie-breaks; solo with or without a
target); where scores disagree, the score parts of each barnyard
(largest group, rooster's group, medals, coops, goals) and the tie-break
values, computed by the baseline's ``score_breakdown`` and by the rules
file's own functions (``game.evaluate``).

Options: ``--solo-target T`` (the baseline's ``solo_target`` and the rules
file's ``param solo_target``; without it the baseline has no target and the
rules file has its default 0, "any score"); ``--rounds R`` and
``--rooster-round K``, ``--hand-size H``, ``--draws D`` (the rules'
params; the baseline's module constants ROUNDS, ROOSTER_ROUND, HAND_SIZE,
DRAWS are set for the run), e.g. to end games on partial barnyards;
``--no-step-scores`` to skip the per-step score comparison;
``--all-parts`` to compare, after every step, each barnyard's score parts,
tie-break values and the points of all ten goal cards (about 7 times
slower); ``--weighted`` to lay hens rather than coops.
"""

from __future__ import annotations

from interpreter.runtime import cell_xy

BASELINE = "hens"
RULES = "hens.rules"
PLAYERS = (1, 2, 3, 4)


def add_arguments(ap):
    ap.add_argument("--solo-target", type=int, default=None,
                    help="solo target score (baseline solo_target, rules param solo_target)")
    ap.add_argument("--rounds", type=int, default=None, help="rounds in a game (default 12)")
    ap.add_argument("--rooster-round", type=int, default=None, help="round after which roosters are placed (default 6)")
    ap.add_argument("--hand-size", type=int, default=None, help="cards dealt to each player (default 4)")
    ap.add_argument("--draws", type=int, default=None, help="cards drawn a turn (default 2)")
    ap.add_argument("--no-step-scores", action="store_true",
                    help="compare scores at the end only, not after every step")
    ap.add_argument("--all-parts", action="store_true",
                    help="after every step, compare every score part and tie-break value and all ten "
                         "goal cards' points (not only the drawn one's) for every barnyard")


_CONF = {}


def options(args):
    _CONF["step_scores"] = not args.no_step_scores
    _CONF["all_parts"] = args.all_parts
    opts = {}
    if args.solo_target is not None:
        opts["solo_target"] = args.solo_target
    for param in CONSTANTS:
        if getattr(args, param) is not None:
            opts[param] = getattr(args, param)
    return opts


def load_game(load, path, opts):
    return load(path, explicit_chance=True, **opts)


# ---------------------------------------------------------------- cards
_NAMES = {}


def names(B):
    """Baseline card id -> rules file card name."""
    if not _NAMES:
        for k, c in enumerate(B.CARDS):
            _NAMES[k] = f"{c[0]} {c[2]}"
    return _NAMES


def check_chart(B, m):
    """The rules file's card chart against the baseline's csv (same rows,
    same order, then the ten goal cards)."""
    errs = []
    N = names(B)
    attrs = {a: v for a, (v, _) in m.card_attrs.items()}
    rules_names = list(dict.fromkeys(m.card_names))
    want = [N[k] for k in range(B.NUM_CARDS)] + [f"Goal {g}" for g in range(1, 11)]
    if rules_names != want:
        errs.append(f"card names differ: {rules_names} vs {want}")
    for k, (breed, _, num, eggs, medals, copies) in enumerate(B.CARDS):
        name = N[k]
        cids = m.card_ids(name)
        if len(cids) != copies:
            errs.append(f"{name}: {len(cids)} copies in the rules file, {copies} in the csv")
        for c in cids:
            got = (attrs["number"][c], attrs["eggs"][c], attrs["medals"][c])
            if got != (num, eggs, medals):
                errs.append(f"{name}: number, eggs, medals {got} in the rules file, {(num, eggs, medals)} in the csv")
                break
    return errs


# ---------------------------------------------------------------- actions
def cell_str(cell):
    return f"({cell[0]}, {cell[1]})"


def base_text(B, b, a):
    N = names(B)
    tag = a[0]
    if tag == "draw_deck":
        return "draw from the deck"
    if tag == "draw_pile":
        return f"draw the top of player {a[1] + 1}'s discards"
    if tag == "hen":
        return f"place {N[a[1]]} at {cell_str(a[2])}"
    if tag == "coop":
        return f"place {N[a[1]]} as a coop at {cell_str(a[2])}"
    if tag == "discard":
        return f"discard {N[a[1]]}"
    if tag == "rooster":
        return f"put the rooster at {cell_str(a[1])}"
    raise ValueError(a)


def legal(B, b, st):
    out = {}
    for a in B.legal_actions(b):
        t = base_text(B, b, a)
        if t in out:
            raise ValueError(f"two baseline actions read {t!r}")
        out[t] = [a]
    return out


def interp_text(text):
    return text


# ---------------------------------------------------------------- positions
def _base_grid(B, grid):
    N = names(B)
    return {cell: (N[v % B.COOP], v >= B.COOP) for cell, v in grid.items()}


def project(B, b):
    N = names(B)
    n = b.n
    out = {
        "deck": [N[c] for c in b.deck],
        "hands": [sorted(N[c] for c in b.hands[p]) for p in range(n)],
        "discards": [[N[c] for c in b.piles[p]] for p in range(n)],
        "barnyards": [_base_grid(B, b.grids[p]) for p in range(n)],
        "roosters": list(b.roosters),
        "to_move": None if B.is_terminal(b) else b.player,
    }
    if _CONF.get("step_scores", True):
        out["scores"] = [int(x) for x in B.returns(b)]
    if _CONF.get("all_parts"):
        for p in range(n):
            out.update({f"P{p + 1} {k}": v for k, v in base_parts(B, b.grids[p], b.roosters[p]).items()})
    return out


def base_parts(B, grid, rooster):
    """Score parts, tie-break values and every goal card's points of one
    barnyard, by the baseline."""
    bar = B.Barnyard(grid, rooster)
    parts = B._score_parts(bar, None)
    key = B.ranking_key(grid, rooster, None)
    out = {"largest_group": parts["largest_group"], "rooster_group": parts["rooster_group"],
           "medals": parts["medals"], "coops": parts["coops"],
           "largest size": key[1], "second size": key[2], "medal count": key[3]}
    for k in range(1, 11):
        (_, f1), (_, f2) = B.GOAL_CARDS[k]
        out[f"goal {k}"] = f1(bar) + f2(bar)
    return out


PART_EXPRS = (("largest_group", "top_eggs({p})"), ("rooster_group", "rooster_eggs({p})"),
              ("medals", "2 * (medals({p}) / 3)"), ("coops", "-coops({p})"),
              ("largest size", "top_size({p})"), ("second size", "second_size({p})"),
              ("medal count", "medals({p})")) + tuple((f"goal {k}", f"goal_points({k}, {{p}})") for k in range(1, 11))
_FNS = {}


def compiled(game, st, text):
    """game.evaluate without re-parsing: the expression compiled once per machine."""
    m = game.machine_for(st.num_players)
    key = (id(m), text)
    f = _FNS.get(key)
    if f is None:
        from rulelang.checker import check_expression
        from rulelang.parser import parse_expression

        from interpreter.compiler import expression_function
        e, _ = parse_expression(text)
        t, _ = check_expression(game.checked, e)
        fn = expression_function(game.checked, m, e)
        need = game.checked.nscratch  # (an expression binds only scratch slots: see Game.evaluate)

        def f(state, fn=fn, t=t, need=need):
            if len(state.S) < need:
                state.S.extend([0] * (need - len(state.S)))
            return m.to_python(t, fn(state))
        _FNS[key] = f
    return f(st)


def interp_parts(st, p):
    game = _GAME[0]
    return {name: compiled(game, st, expr.format(p=p)) for name, expr in PART_EXPRS}


def _interp_grid(st, p):
    inst = st.m.zone_instance(st, "barnyard", p)
    names_ = st.m.card_names
    return {cell_xy(st.P[c]): (names_[c], bool(st.F[c])) for c in st.Z[inst]}


def _interp_rooster(st, p):
    inst = st.m.zone_instance(st, "barnyard", p)
    cells = [cell_xy(st.P[c]) for c in st.Z[inst] if st.card_var("rooster", c)]
    if len(cells) > 1:
        return cells
    return cells[0] if cells else None


def project_state(st):
    n = st.num_players
    z = st.zone_cards
    out = {
        "deck": z("deck"),
        "hands": [sorted(z("hand", p)) for p in range(n)],
        "discards": [z("discards", p) for p in range(n)],
        "barnyards": [_interp_grid(st, p) for p in range(n)],
        "roosters": [_interp_rooster(st, p) for p in range(n)],
        "to_move": None if st.is_terminal else st.current_player,
    }
    if _CONF.get("step_scores", True):
        out["scores"] = list(st.scores())
    if _CONF.get("all_parts"):
        for p in range(n):
            out.update({f"P{p + 1} {k}": v for k, v in interp_parts(st, p).items()})
    return out


# ---------------------------------------------------------------- the game
# rules file param -> the baseline's module constant (read when used)
CONSTANTS = {"rounds": "ROUNDS", "rooster_round": "ROOSTER_ROUND", "hand_size": "HAND_SIZE", "draws": "DRAWS"}
_SET = {}


def _set_constants(B, opts):
    if not _SET:
        _SET.update({c: getattr(B, c) for c in CONSTANTS.values()})
    for param, const in CONSTANTS.items():
        setattr(B, const, opts.get(param, _SET[const]))


_CHECKED = set()
_GAME = []


def start(B, game, seed, players, opts):
    _set_constants(B, opts)
    b = B.new_game(seed, players, solo_target=opts.get("solo_target"))
    st = game.new_state(seed, players)
    if id(st.m) not in _CHECKED:
        _CHECKED.add(id(st.m))
        errs = check_chart(B, st.m)
        if errs:
            raise ValueError("card chart: " + "; ".join(errs))
    # The setup's chance events: the shuffles (arbitrary: overwritten by the
    # deal) and, last, "set first = random players": the baseline's first player.
    probe = st.clone()
    events = 0
    while probe.is_chance_node:
        probe.apply(0)
        events += 1
    for i in range(events):
        st.apply(b.first_player if i == events - 1 else 0)
    if st.get_var("first") != b.first_player:
        raise ValueError(f"first player {st.get_var('first')} vs baseline {b.first_player}")
    _GAME[:] = [game]
    deal(B, b, st)
    return b, st


def deal(B, b, st):
    N = names(B)
    m = st.m
    free = {}

    def ids(cards):
        out = []
        for c in cards:
            name = N[c]
            if name not in free:
                free[name] = list(m.card_ids(name))
            out.append(free[name].pop())
        return out

    goal = m.card_ids(f"Goal {b.goal_card}")
    st.put([m.card_ids(f"Goal {g}")[0] for g in range(1, 11) if g != b.goal_card], "goals")
    st.put(goal, "goal")
    st.put(ids(b.deck), "deck")
    for p in range(b.n):
        st.put(ids(b.hands[p]), "hand", p)
    left = {k: v for k, v in free.items() if v}
    if left:
        raise ValueError(f"cards not placed: {left}")
    if st.current_player != b.player:
        raise ValueError(f"to move {st.current_player} vs baseline {b.player}")


def sync(B, b, st, memo):
    pass  # one deal, at the start


def result(B, b):
    w = B.winners(b)
    if b.n == 1:
        return "solo: " + ("won" if w else "lost")
    return f"{b.n}p: " + ("one winner" if len(w) == 1 else f"{len(w)} share the win")


PARTS = (("largest_group", "top_eggs({p})"),
         ("rooster_group", "rooster_eggs({p})"),
         ("medals", "2 * (medals({p}) / 3)"),
         ("coops", "-coops({p})"),
         ("goals", "goal_score({p})"))
TIEBREAKS = (("largest size", "top_size({p})"),
             ("second size", "second_size({p})"),
             ("medals", "medals({p})"))




def breakdown(B, b, st, game, p):
    """Per-part comparison of player p's score: [(part, baseline, rules)]."""
    bp = B.score_breakdown(b.grids[p], b.roosters[p], b.goal_card)
    base = dict(bp)
    base["goals"] = base.pop("first_goal") + base.pop("second_goal")
    rows = []
    for name, expr in PARTS:
        rows.append((name, base[name], game.evaluate(st, expr.format(p=p))))
    key = B.ranking_key(b.grids[p], b.roosters[p], b.goal_card)
    for (name, expr), v in zip(TIEBREAKS, key[1:]):
        rows.append((name, v, game.evaluate(st, expr.format(p=p))))
    return rows


def final(B, b, st):
    bs = [int(x) for x in B.returns(b)]
    rs = list(st.scores())
    msgs = []
    if bs != rs:
        msgs.append(f"scores differ: baseline {bs} vs rules file {rs} (goal card {b.goal_card})")
    bw, rw = sorted(B.winners(b)), sorted(st.winners())
    if bw != rw:
        msgs.append(f"winners differ: baseline {[p + 1 for p in bw]} vs rules file {[p + 1 for p in rw]}"
                    f" (scores {bs})")
    if not msgs:
        return None
    game = _GAME[0] if _GAME else None
    if game is not None:
        for p in range(b.n):
            rows = breakdown(B, b, st, game, p)
            bad = [f"{k}: baseline {x} vs rules {y}" for k, x, y in rows if x != y]
            if bad:
                msgs.append(f"P{p + 1} " + "; ".join(bad) + f"\n    barnyard {sorted(b.grids[p].items())}"
                            f" rooster {b.roosters[p]}")
    return "\n  ".join(msgs)


def weight(text):
    """--weighted: hens rather than coops (random play lays about half its
    cards as coops), so that big flocks, full lines, corners, rainbows and
    the rooster's tie with the largest group are reached and compared."""
    if " as a coop at " in text:
        return 0.05
    if text.startswith("place "):
        return 1
    return 1
