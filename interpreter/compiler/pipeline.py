"""The compiling stage in order: checked AST -> :class:`~interpreter.machine.Machine`."""

from __future__ import annotations

from functools import partial

from rulelang import ast as A
from rulelang.checker import CheckedGame

from ..machine import Machine
from .actions import ActionCompiler
from .examples import compile_expectations
from .expressions import Expressions
from .flow import FlowCompiler
from .flowgen import install as install_flow
from .layout import Layout, compile_start
from .params import resolve_params
from .reads import card_split, nesting, seat_split, stack_split, variables_read, zone_reads
from .tree import all_blocks, walk


def compile_game(g: CheckedGame, overrides=None, explicit_chance=False, num_players=None,
                 coverage=False, check_invariants=False, knowledge=True) -> Machine:
    """Resolve the parameters, then compile the game for them."""
    params = resolve_params(g, overrides or {}, num_players)
    return compile_machine(g, params, explicit_chance, coverage, check_invariants, knowledge=knowledge)


def compile_machine(g: CheckedGame, params: dict, explicit_chance=False, coverage=False,
                    check_invariants=False, example=None, knowledge=True) -> Machine:
    """The machine for ``params``.  With ``example`` (an :class:`A.Example`),
    its statements are the whole flow (no setup, no decision) and its
    expectations are compiled into ``m.expectations``.  ``knowledge=False``:
    the machine does not keep who knows which card (see Machine.knowledge)."""
    m = Machine()
    m.explicit_chance = explicit_chance
    m.knowledge = knowledge
    m.title = g.title or g.file
    m.players = g.players
    # the state's own slots: the checker's (those of the examples only in an example's
    # machine: a game's states do not carry them), then one for shuffles
    m.shuffle_slot = g.nslots if example is not None else g.nslots_play
    m.nslots = m.shuffle_slot + 1
    m.scratch = [0] * g.nscratch
    m.params = dict(params)
    # 1. where everything lives
    layout = Layout(g)
    layout.fill(m)
    bodies = [g.setup, g.play] + [a.body for a in g.actions.values()] + [t.body for t in g.triggers] + \
        ([example.body] if example is not None else [])  # (an example may lay a card face down itself)
    m.face_down = any(isinstance(s, A.Move) and s.face_down for body in bodies for b in all_blocks(body)
                      for s in b)
    action_defs = m.action_defs
    exprs = Expressions(g, params, layout, action_defs)
    compile_start(g, m, exprs)
    # 2. each action's search for its legal parameter values
    actions = ActionCompiler(exprs, m, layout.has_copies)
    m.shares_domains = layout.has_copies or bool(m.grid_instances) or \
        any(p.subsets for a in g.actions.values() for p in a.params)
    for name, a in g.actions.items():
        action_defs[name] = actions.compile_action(a)
    # 3. invariants: declared ones, then the zones' capacities (before the flow, which checks
    # them after each step in a machine that checks invariants)
    def instances(zones) -> tuple:  # every instance of these zones
        return tuple(i for z in sorted(zones) for i in m.zones[z].instances(m.stride))
    for inv in g.invariants:
        entry = (exprs.fn(inv.cond), inv.message or "invariant broken", inv.span)
        m.invariants.append(entry)
        # the places it reads, if that is all and it costs more to evaluate than to compare them:
        # see Machine.invariants_hold
        costly = nesting(g, inv.cond) >= 1 or any(isinstance(x, A.Call) and x.func == "all_cards"
                                                  for x in walk(inv.cond))
        variables = variables_read(g, inv.cond) if costly else None
        reads = zone_reads(g, inv.cond, variables=True) if variables is not None else None
        m.invariant_reads.append(None if reads is None else (instances(reads[0]), reads[1], reads[2]))
        m.invariant_vars.append(() if reads is None else tuple(sorted(
            index for kind, name in variables for index in (
                [layout.var_index[name]] if kind == "var" else
                range(layout.pvar_base[name], layout.pvar_base[name] + m.stride)))))
        split = seat_split(g, inv.cond, variables=True) if reads is not None else None
        m.invariant_seats.append(None if split is None else (
            exprs.fn(split[0]), split[1], instances(split[2]), tuple(sorted(split[3])), split[4], split[5]))
        # ... and stack by stack, when it is all(BODY for b in a zone of stacks) reading b alone
        stacked = None if reads is None else stack_split(g, inv.cond) if split is None else \
            stack_split(g, split[0], split[1])
        m.invariant_stacks.append(None if stacked is None else (exprs.fn(stacked[0]), stacked[1], stacked[2]))
        # ... or card by card, when it is all(BODY for h in a grid) reading h and its neighbours alone
        carded = None if reads is None or stacked is not None else card_split(g, inv.cond) if split is None else \
            card_split(g, split[0], split[1])
        m.invariant_cards.append(None if carded is None else (exprs.fn(carded[0]), carded[1]))
        if inv.always:
            m.always_invariants.append(entry)
    for z in g.zones.values():
        if z.capacity is not None:
            cap = z.capacity if isinstance(z.capacity, int) else params[z.capacity]
            m.capacities.append((z.index, z.name, z.per_player, z.kind, cap, z.span))
    # 4. the flow: setup then play, then the end
    check_invariants = check_invariants and (any(inv.always for inv in g.invariants) or any(
        z.capacity is not None for z in g.zones.values()))
    m.capacities_per_step = check_invariants  # right after each move (flow_cards)
    if example is not None:  # before the flow, which checks each where it stands
        m.expectations = compile_expectations(example, exprs, action_defs)
    flow = FlowCompiler(g, m, exprs, action_defs, coverage, check_invariants)
    if example is None:
        flow.compile(g.setup, g.play)
    else:
        flow.compile(g.setup if example.after_setup else (), example.body)
    m.flow_slots = tuple(sorted(flow.flow_slots))
    m.positions_unique = flow.while_loops == 0
    m.list_slots = frozenset(flow.list_slots)
    m.list_lets = frozenset(flow.list_lets)
    install_flow(m, exprs.ns)
    # 5. the outcome
    o = g.outcome
    m.outcome_slot = g.outcome_slot
    m.outcome_span = o.span
    # the results are computed on a state that does not change meanwhile: Machine.scores and
    # Machine.winners clear the table of values their functions keep (Expressions.fn)
    m.score_fn = exprs.fn(o.score, frozen=True)
    m.tiebreaks = [(1 if hilo == "highest" else -1, exprs.fn(e, frozen=True)) for hilo, e in o.tiebreaks]
    m.nobody_wins = exprs.fn(o.nobody, frozen=True) if o.nobody is not None else None
    if g.heuristic is not None:  # what the greedy bot maximises
        m.heuristic_slot = g.heuristic_slot
        m.heuristic_span = g.heuristic.span
        m.heuristic_fn = exprs.fn(g.heuristic.value, frozen=True)
    m.frozen_memo = exprs.frozen_memo
    # 6. the game's record: counters, flags and achievements
    records = [(v, name, layout.var_index[name], False) for name, v in g.vars.items() if v.record]
    records += [(v, name, layout.pvar_base[name], True) for name, v in g.player_vars.items() if v.record]
    for v, name, index, per_player in sorted(records, key=lambda r: (r[0].span.line, r[0].span.column)):
        m.records.append((name, v.doc, g.types[id(v)], index, per_player))
    if g.achievements is not None:
        m.achievement_slot = g.achievement_slot
        for item in g.achievements.items:
            m.achievements.append((item.text, exprs.fn(item.cond), item.span))
    m.generated_sources = exprs.ns.sources
    m.namespace = exprs.ns
    m.recompile = partial(compile_machine, g, params, explicit_chance, coverage, check_invariants, example)
    return m


def expression_function(g: CheckedGame, m: Machine, e):
    """A function state -> value for an expression checked against ``g``,
    reading the tables of the compiled machine ``m`` (for Game.evaluate)."""
    return Expressions(g, m.params, Layout(g), m.action_defs).fn(e)
