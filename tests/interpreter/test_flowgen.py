"""The flow as generated Python (interpreter/compiler/flowgen.py) plays
exactly as the VM running the code op by op, keeps the VM's bound on loops
without a decision, and names the line of a failing step."""

import random
import re
from pathlib import Path

import pytest

from interpreter import load
from interpreter.compiler import flowgen, pipeline, sites
from interpreter.checks import InvariantBroken
from interpreter.runtime import DECIDE, MAX_AUTO_STEPS, MAX_SEARCH, MAX_WORK, RuleError

ROOT = Path(__file__).resolve().parents[2]
GAMES = sorted((ROOT / "games").glob("*.rules"))
TARGETS = [ROOT / "tests" / "fuzz_targets" / name for name in (
    "bidding_war_ok.rules", "market_swap_ok.rules", "waiting_game_ok.rules", "jester_trap_ok.rules",
    "house_option_ok.rules", "late_bonus_ok.rules")]


def loaded(path, plain=False, **options):
    """The game, its machine for every player count made now; ``plain``:
    with every generated flow function switched off (the VM runs each op)."""
    install = pipeline.install_flow

    def op_by_op(m, ns):
        install(m, ns)
        m.flow_fns = [None] * len(m.code)
    pipeline.install_flow = op_by_op if plain else install
    try:
        game = load(path, **options)
        lo, hi = game.machine.players
        for n in range(lo, hi + 1):
            game.machine_for(n)
    finally:
        pipeline.install_flow = install
    return game


def playout(game, seed, players):
    """(every legal-action list, the final position, the scores) of a random game."""
    state = game.new_state(seed, players)
    rnd = random.Random(seed)
    seen = []
    while not state.is_terminal and len(seen) < 2000:
        legal = state.legal_actions()
        seen.append(legal)
        state.apply(legal[rnd.randrange(len(legal))])
    return seen, state.key(), state.scores(), [state.observation(p) for p in range(players)]


@pytest.mark.parametrize("path", GAMES + TARGETS, ids=lambda p: p.stem)
def test_generated_flow_plays_as_the_op_by_op_vm(path):
    generated, plain = loaded(path), loaded(path, plain=True)
    lo, hi = generated.machine.players
    for players in sorted({lo, hi}):
        for seed in range(3):
            assert playout(generated, seed, players) == playout(plain, seed, players)
    assert any(f is not None for f in generated.machine.flow_fns)  # some were generated and used
    assert "def _flow" in generated.generated_source()


def _listed_search_by_search(state):
    """A choice's legal actions as each offered action's own search lists
    them, one after another (the machine's budget of a listing, refilled
    first), and the budget they leave."""
    m = state.m
    site = m.code[state.pc][1]
    m.domain_cache = {} if m.shares_domains else None
    m.search_left, m.work_left = MAX_SEARCH, MAX_WORK
    out = []
    try:
        for sa in m.sites[site]:
            sa.action.enumerate(state, out, sa.uid)
    finally:
        m.domain_cache = None
    return tuple(out), m.search_left


@pytest.mark.parametrize("path", GAMES + TARGETS, ids=lambda p: p.stem)
def test_a_listing_with_its_searches_written_in_lists_what_they_list(path):
    # a choice's listing writes its actions' searches in place (sites.site_body), their
    # budget in one local: the same actions, in the same order, the same budget left
    game = load(path)
    lo, hi = game.machine.players
    for players in sorted({lo, hi}):
        for seed in range(3):
            state = game.new_state(seed, players)
            rnd = random.Random(seed)
            listings = {}
            while not state.is_terminal and state.m.code[state.pc][0] == DECIDE:
                m, pc = state.m, state.pc
                if pc not in listings:  # (the listing itself, not kept under a key: see site_cache)
                    listings[pc] = sites.generate_site(m, m.namespace, m.code[pc][1], m.code[pc][3])
                legal = listings[pc](state)
                assert (legal, m.search_left) == _listed_search_by_search(state)
                state.apply(legal[rnd.randrange(len(legal))])
            source = "".join(state.m.generated_sources)
            assert "        uid = " in source  # (written in, not called)
            # and an action's step writes in the flow that follows it, not a call to it
            steps = [part for part in source.split("\ndef ") if part.startswith("_step")]
            assert steps and all("            while True:" in part and "](st)" not in part for part in steps)
            if path.stem == "emu_ranchers":  # grow's search stops early when no card can grow a bird
                assert "        while True:" in source


HEAD = '''game "Loops"
players 2
cards:
  "A"
  "B"
zone deck: pile, public
zone hand: pile, per player, public
var x: int = 0
var y: int = 0
action take "take":
  move top(deck) to hand(me)
action wait "wait":
  pass
outcome(p):
  score x
'''


def run_flow(tmp_path, play):
    path = tmp_path / "loops.rules"
    path.write_text(HEAD + play)
    game = load(path)
    return game, path


def rule_error(tmp_path, play):
    game, _ = run_flow(tmp_path, play)
    with pytest.raises(RuleError) as info:
        state = game.new_state(0)
        while not state.is_terminal:
            state.apply(state.legal_actions()[0])
    return info.value


def test_a_loop_without_a_choice_is_a_rule_error_at_its_line(tmp_path):
    err = rule_error(tmp_path, "play:\n  while x >= 0:\n    set y += 1\n")
    assert "went round" in err.message and "never ends" in err.message
    assert err.span.line == HEAD.count("\n") + 2


def test_nested_loops_share_one_bound(tmp_path):
    # a million rounds in all, though neither loop alone goes round a million times
    play = "play:\n  repeat 1001 times:\n    repeat 1000 times:\n      set y += 1\n"
    err = rule_error(tmp_path, play)
    assert "went round" in err.message
    game, _ = run_flow(tmp_path, "play:\n  repeat 999 times:\n    repeat 1000 times:\n      set y += 1\n")
    assert game.new_state(0).is_terminal
    assert 999 * 1000 + 999 <= MAX_AUTO_STEPS


def test_a_loop_whose_choice_is_never_reached_is_caught_too(tmp_path):
    # the loop holds a choice, so it goes back to the VM at every round: the VM counts those
    err = rule_error(tmp_path, "play:\n  while true:\n    set y += 1\n    if y < 0:\n"
                               "      turn 0:\n        choose take\n")
    assert "went round" in err.message
    assert err.span.line == HEAD.count("\n") + 2


def test_a_failing_step_names_its_own_line(tmp_path):
    # the error comes after a loop, a branch and a turn in the same generated function
    play = ('play:\n'
            '  for p in players:\n'
            '    set y += 1\n'
            '  turn 0:\n'
            '    choose wait\n'
            '  if y == 2:\n'
            '    set x = 1\n'
            '  repeat 2 times:\n'
            '    move top(deck) to hand(0)\n'
            '  move top(deck) to hand(1)\n')
    err = rule_error(tmp_path, play)
    assert err.span.line == HEAD.count("\n") + 10
    assert "empty" in err.message


def test_turns_and_loops_with_choices_resume_where_they_stopped(tmp_path):
    play = ('play:\n'
            '  repeat 3 times as r:\n'
            '    for p in players from next(0, r):\n'
            '      turn p:\n'
            '        choose take, wait\n'
            '      set x += 1\n'
            '      if x == 4:\n'
            '        set y = r\n'
            '  end game\n')
    game, _ = run_flow(tmp_path, play)
    state = game.new_state(0)
    movers = []
    while not state.is_terminal:
        movers.append(state.current_player)
        state.apply(state.legal_actions()[-1])  # always wait: the deck lasts
    assert movers == [0, 1, 1, 0, 0, 1]
    assert state.get_var("x") == 6 and state.get_var("y") == 1


def test_a_generated_function_depends_on_where_it_starts_not_on_the_order_play_reached_it():
    # (a source compiled once is kept for the next machine of the same rules)
    def functions(seed):
        game = load(ROOT / "games" / "desplumados.rules")
        state = game.new_state(seed, 4)
        rnd = random.Random(seed)
        while not state.is_terminal:
            legal = state.legal_actions()
            state.apply(legal[rnd.randrange(len(legal))])
        defs = "\n".join(state.m.generated_sources).split("def ")
        return {d.split("(")[0]: d.rstrip() for d in defs if d.startswith(("_flow", "_step", "_site"))}
    one, two = functions(1), functions(2)
    shared = set(one) & set(two)
    assert len(shared) >= 10
    assert all(one[name] == two[name] for name in shared)


@pytest.mark.parametrize("coverage", [True, "lines"])
def test_coverage_counts_the_same_through_generated_functions(coverage):
    path = ROOT / "games" / "fox_in_the_henhouse.rules"
    generated = loaded(path, coverage=coverage, check_invariants=True)
    plain = loaded(path, plain=True, coverage=coverage, check_invariants=True)
    for game in (generated, plain):
        for seed in range(3):
            playout(game, seed, 2)
    counts = generated.machine.coverage_counts
    assert counts == plain.machine.coverage_counts
    assert sum(1 for c in counts if c) > len(counts) // 2  # most branches, loops and choices ran


def test_a_state_stopped_by_a_rule_error_lists_no_action_but_says_why(tmp_path):
    game, _ = run_flow(tmp_path, "play:\n  turn 0:\n    choose wait\n  repeat 3 times:\n"
                                 "    move top(deck) to hand(0)\n  turn 1:\n    choose wait\n")
    state = game.new_state(0)
    with pytest.raises(RuleError):
        state.apply(state.legal_actions()[0])
    with pytest.raises(RuleError) as info:
        state.legal_actions()
    assert "rule error" in info.value.message


# ------------------------------------------------------------ found by a review (each failed before its fix)
def outcome(tmp_path, play, plain, head=HEAD, **options):
    """Play the first legal action until the end: ("ok", x, y) or (error type, message, line, st.pc)."""
    path = tmp_path / ("plain.rules" if plain else "generated.rules")
    path.write_text(head + play)
    state = None
    try:
        state = loaded(path, plain, **options).new_state(0)
        while not state.is_terminal:
            state.apply(state.legal_actions()[0])
        return "ok", state.get_var("x"), state.get_var("y")
    except (RuleError, InvariantBroken) as err:
        return type(err).__name__, err.message, err.span.line, state.pc if state is not None else None


def nested(depth, body, indent=2):
    lines = []
    for k in range(depth):
        lines.append(" " * (indent + 2 * k) + "repeat 1 times:")
    lines += [" " * (indent + 2 * depth) + line for line in body]
    return "play:\n" + "\n".join(lines) + "\n  turn 0:\n    choose wait\n"


def test_loops_nested_deeper_than_python_nests_blocks_still_play(tmp_path):
    play = nested(18, ["set y += 1"])
    assert outcome(tmp_path, play, False) == outcome(tmp_path, play, True) == ("ok", 0, 1)


def test_nested_loops_are_written_once_not_once_per_way_of_trying(tmp_path, monkeypatch):
    writes = [0]
    out = flowgen._Writer.out

    def counted(self, depth, line):
        writes[0] += 1
        out(self, depth, line)
    monkeypatch.setattr(flowgen._Writer, "out", counted)
    play = nested(14, [f"if y > {j}:\n" + " " * 32 + "set x += 1" for j in range(60)])
    assert outcome(tmp_path, play, False) == ("ok", 0, 0)
    # about 2**14 times the body's lines before the fix; each set is written inline (a few lines)
    assert writes[0] < 15000


@pytest.fixture
def small_bound(monkeypatch):
    """A bound of 1,000 loop rounds between two decisions (instead of a million)."""
    import interpreter.machine as machine
    monkeypatch.setattr(machine, "MAX_AUTO_STEPS", 1000)


@pytest.mark.parametrize("plain", [False, True])
def test_chance_steps_in_a_loop_do_not_count_as_rounds(tmp_path, small_bound, plain):
    body = "  repeat {n} times:\n    let a = random [1, 2]\n    set y += 1\n    let b = random [1, 2]\n"
    assert outcome(tmp_path, "play:\n" + body.format(n=900), plain) == ("ok", 0, 900)
    err = outcome(tmp_path, "play:\n" + body.format(n=1200), plain)
    assert err[0] == "RuleError" and "went round" in err[1]
    assert err[2] == HEAD.count("\n") + 2  # the loop's line, not a random pick's


@pytest.mark.parametrize("plain", [False, True])
def test_a_branch_in_a_loop_is_not_a_round(tmp_path, small_bound, plain):
    play = "play:\n  while y < 900:\n    if y >= 0:\n      set y += 1\n    else:\n      set x += 1\n"
    assert outcome(tmp_path, play, plain) == ("ok", 0, 900)


def test_an_invariant_broken_between_two_steps_leaves_the_state_at_that_step(tmp_path):
    head = HEAD.replace("outcome(p):", 'always invariant x < 3 "x small"\noutcome(p):')
    play = ("play:\n  turn 0:\n    choose wait\n  repeat 2 times:\n    set y += 1\n  set x = 5\n  set y += 1\n"
            "  turn 0:\n    choose wait\n")
    generated = outcome(tmp_path, play, False, head, check_invariants=True)
    assert generated[0] == "InvariantBroken" and generated[3] is not None
    assert generated == outcome(tmp_path, play, True, head, check_invariants=True)


# ------------------------------------------------------------ an action's step (flowgen.generate_step)
@pytest.mark.parametrize("plain", [False, True])
def test_an_action_s_own_failing_effect_names_its_line(tmp_path, plain):
    # the third take finds the deck empty: the error is the action's move, and the state stays there
    play = "play:\n  repeat 3 times:\n    turn 0:\n      choose take\n"
    err = outcome(tmp_path, play, plain)
    assert err[0] == "RuleError" and "empty" in err[1]
    assert err[2] == HEAD[:HEAD.index("  move top(deck)")].count("\n") + 1
    assert err == outcome(tmp_path, play, not plain)


@pytest.mark.parametrize("plain", [False, True])
def test_a_loop_after_an_action_has_the_bound_of_one_step(tmp_path, small_bound, plain):
    # the rounds after an action count from zero, as after the game's start
    body = "play:\n  turn 0:\n    choose wait\n  repeat {n} times:\n    set y += 1\n"
    assert outcome(tmp_path, body.format(n=900), plain) == ("ok", 0, 900)
    err = outcome(tmp_path, body.format(n=1200), plain)
    assert err[0] == "RuleError" and "went round" in err[1]
    assert err[2] == HEAD.count("\n") + 4  # the loop's line


@pytest.mark.parametrize("plain", [False, True])
def test_the_rounds_a_step_went_round_count_on_in_the_vm(tmp_path, small_bound, plain):
    # the step's own loop (written in the step, counted in a local) goes round 600 times;
    # the loop after it holds a choice, so the VM goes round it, counting on from there
    body = ("play:\n  turn 0:\n    choose wait\n  repeat 600 times:\n    set y += 1\n"
            "  while y < {n}:\n    set y += 1\n    if y < 0:\n      turn 0:\n        choose wait\n")
    assert outcome(tmp_path, body.format(n=900), plain) == ("ok", 0, 900)
    err = outcome(tmp_path, body.format(n=1100), plain)
    assert err[0] == "RuleError" and "went round" in err[1]
    assert err[2] == HEAD.count("\n") + 6  # the while loop's line


@pytest.mark.parametrize("plain", [False, True])
def test_a_for_loop_s_start_written_inline_turns_as_the_vm_s(tmp_path, plain):
    play = ("play:\n  repeat 3 times as r:\n    for p in players from next(0, r + 1):\n"
            "      set y = y * 10 + (if p == 0 then 1 else 2)\n  turn 0:\n    choose wait\n")
    assert outcome(tmp_path, play, plain) == ("ok", 0, 211221)  # seat 2 first, then seat 1, then seat 2
    err = outcome(tmp_path, "play:\n  for p in players from [q for q in players][y + 5]:\n    set y += 1\n", plain)
    assert err[0] == "RuleError" and err[2] == HEAD.count("\n") + 2  # the loop's own line


# the repeat alone, fused into a block with the step before, or after a loop (the flow's own
# line then: its pc set as the loop is left)
REPEAT_BEFORE = ["", "  set x = 1\n", "  while x < 1:\n    set x += 1\n"]
PARAM_HEAD = HEAD + "param reps: int = 2\n"


@pytest.mark.parametrize("before", REPEAT_BEFORE)
def test_a_repeat_s_start_written_inline_counts_as_the_vm_s(tmp_path, before):
    """``repeat N times`` starts with N and round 0 written in the
    generated flow (not a call), N a number written out, a parameter's
    value or an expression; a count that fails names the loop's line, and
    leaves the VM's pc."""
    lines = before.count("\n")
    for count, rounds in (("3", 3), ("y + 2", 2), ("x * 2 + 1", 3 if before else 1), ("reps", 2)):
        play = (f"play:\n{before}  repeat {count} times as r:\n    set y = y * 10 + r + 1\n"
                "  turn 0:\n    choose wait\n")
        results = [outcome(tmp_path, play, plain, PARAM_HEAD) for plain in (False, True)]
        assert results[0] == results[1] == ("ok", 1 if before else 0, int("123"[:rounds]))
        source = "".join(load(tmp_path / "generated.rules").new_state(0).m.generated_sources)
        assert re.search(r"L\[\d+\] = 0\n", source)  # round 0 set in place
    play = f"play:\n{before}  repeat 10 / y times:\n    set y += 1\n"
    err, vm = (outcome(tmp_path, play, plain) for plain in (False, True))
    assert err == vm and err[0] == "RuleError" and "division by zero" in err[1]
    assert err[2] == HEAD.count("\n") + 2 + lines  # the loop's own line


def test_a_repeat_of_a_huge_parameter_loads_and_goes_round_too_often(tmp_path):
    """A count too large for Python to write in decimal is written in hex."""
    path = tmp_path / "huge.rules"
    path.write_text(PARAM_HEAD + "play:\n  repeat reps times:\n    set y += 1\n  turn 0:\n    choose wait\n")
    game = load(path, reps=10 ** 5000)
    with pytest.raises(RuleError, match="went round"):
        game.new_state(0)


def test_a_step_whose_flow_is_written_in_sets_its_pc_only_where_it_stops_or_fails(tmp_path):
    """A step (an action and the flow after it, written in) does not set
    st.pc before its flow: the flow sets it where it stops, and a failing
    step sets it to that step's pc, as the VM does."""
    play = "play:\n  turn 0:\n    choose wait\n  set y = 10 / x\n  turn 0:\n    choose wait\n"
    results = [outcome(tmp_path, play, plain) for plain in (False, True)]
    assert results[0] == results[1] and results[0][:3] == ("RuleError", "division by zero", HEAD.count("\n") + 4)
    state = load(tmp_path / "generated.rules").new_state(0)
    with pytest.raises(RuleError):
        state.apply(state.legal_actions()[0])
    steps = [src for src in state.m.generated_sources if src.startswith("def _step")]
    assert steps and all(re.search(r"^    st\.pc = \d+$", src, re.M) is None for src in steps)
    path = tmp_path / "stops.rules"
    path.write_text(HEAD + play.replace("10 / x", "x + 1"))
    states = [loaded(path, plain).new_state(0) for plain in (False, True)]
    for state in states:
        state.apply(state.legal_actions()[0])
    assert states[0].get_var("y") == 1 and states[0].pc == states[1].pc  # the second choice's, as the VM's


@pytest.mark.parametrize("first", ["", "  turn 0:\n    choose wait\n", "  turn 0:\n    choose pick\n"],
                         ids=["flow", "step", "step forgetting"])  # in the game's first flow, or after an action
@pytest.mark.parametrize("ends", [True, False])
def test_a_loop_the_game_may_end_in_is_written_as_a_loop_and_ends_as_the_vm_s(tmp_path, first, ends):
    """A loop with no decision that may end the game is a Python loop (not
    handed back to the VM at each round); in a step, the step returns from
    inside the loops, or, where the players must then forget where the
    card it names went, the end is raised out of the loops around it and
    the step stops there, as the VM does."""
    play = (f"play:\n{first}  repeat 5 times as r:\n    set y = y * 10 + r\n    repeat 2 times:\n"
            f"      set x += 1\n      if x == {3 if ends else 99}:\n        end game\n  turn 0:\n    choose wait\n")
    head = HEAD + 'action pick(c in deck) "pick {c}":\n  pass\n'
    results = [outcome(tmp_path, play, plain, head) for plain in (False, True)]
    expected = ("ok", 3, 1) if ends else ("ok", 10, 1234)  # (ended at x == 3, in round 1; or all five rounds)
    assert results[0] == results[1] == expected
    game = loaded(tmp_path / "generated.rules")
    state = game.new_state(0)
    while not state.is_terminal:
        state.apply(state.legal_actions()[0])
    source = "\n".join(game.machine.generated_sources)
    flows = [part for part in source.split("\ndef ") if part.startswith("_step0(" if first else "_flow0(")]
    # the loops written (the step's own while True besides), the end inside them
    assert flows and all(part.count("while True:") >= 2 + bool(first) for part in flows)
    forgets = "pick" in first
    ends_with = r"raise _k\d+" if forgets else r"return" if first else r"return -1"
    assert all(re.search(r"is_terminal = True\n\s+" + ends_with + "\n", part) for part in flows)
    if first:  # the step writes its flow in (no call); the end is raised and caught only where it forgets
        assert all("](st)" not in part for part in flows)
        assert all(bool(re.search(r"except _k\d+:\n\s+pc = -1\n", part)) == forgets for part in flows)


RANKED = HEAD.replace('cards:\n  "A"\n  "B"\n', 'card attributes: rank: int\ncard var value: int = 0\ncards:\n'
                      '  "A" 7\n  "B" RANK_B\n')


@pytest.mark.parametrize("plain", [False, True])
@pytest.mark.parametrize("rank_b, stored, expected", [(3, "c.rank", ("ok", 0, 10)),
                                                      (10**12, "c.rank * 2000", "RuleError")])
def test_a_for_loop_over_cards_sets_what_the_vm_sets_and_a_number_past_the_bound_fails(
        tmp_path, plain, rank_b, stored, expected):
    # the loop is a Python for over its items; a card's rank stored needs no check (every rank
    # is small), 2000 times a rank of 10**12 is past the bound of stored numbers and fails
    play = (f"play:\n  for c in all_cards():\n    set c.value = {stored}\n"
            "  set y = sum(c.value for c in all_cards())\n  turn 0:\n    choose wait\n")
    head = RANKED.replace("RANK_B", str(rank_b))
    result = outcome(tmp_path, play, plain, head)
    assert result[0] == expected if isinstance(expected, str) else result == expected
    if not plain and stored == "c.rank":  # the rank stored as it is read, with no check between
        source = "".join(load(tmp_path / "generated.rules").new_state(0).m.generated_sources)
        assert "for L[" in source and re.search(r"st\.C\[L\[\d+\]\] = _t\d+\[L\[\d+\]\]", source)


def test_a_turn_s_start_written_in_a_fused_block_sets_the_seat_and_names_its_line(tmp_path):
    """A turn that starts right after other steps is written in with them
    (not called): it keeps the seat before it, takes its seat's turn, and a
    seat that cannot be worked out is a rule error at the turn's line."""
    game, _ = run_flow(tmp_path, "play:\n  set y = 1\n  turn [p for p in players][y]:\n    choose wait\n  set x = 5\n")
    state = game.new_state(0)
    assert state.current_player == 1
    block = [src for src in game.machine.generated_sources if src.startswith("def _b") and "st.V[1] = 1" in src]
    assert block and "= st.me\n" in block[0]  # (written in: the seat before the turn kept in a slot)
    state.apply(state.legal_actions()[0])
    assert state.is_terminal and state.get_var("x") == 5
    err = rule_error(tmp_path, "play:\n  set y = 2\n  turn [p for p in players][y]:\n    choose wait\n")
    assert err.span.line == HEAD.count("\n") + 3
