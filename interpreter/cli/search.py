"""The search commands: ``rulerun fuzz`` (look for dead states, endless games,
broken invariants and rule errors), ``rulerun replay`` (re-run a saved
finding) and ``rulerun explore`` (walk every position of a small game).
Their engines, :mod:`interpreter.fuzz` and :mod:`interpreter.explore`, are
imported inside the commands to keep ``rulerun --help`` fast.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..runtime import RuleError
from .common import _load_game, _new_state, _num_players, _params_text, _plural, _progress, _rule_failure
from .group import RULES_FILE, _Failure, _parse_sets, _usage_error, cli


@cli.command("fuzz")
@click.argument("file", type=RULES_FILE)
@click.option("--players", "-p", default="all", show_default=True,
              help="A player count, or 'all' for every count the game allows.")
@click.option("--examples", type=click.IntRange(min=1), default=None,
              help="Examples per search (each kind of finding gets its own search; an example plays "
                   "games until it has 1,000 actions). Default: 100, or as many as --time allows.")
@click.option("--time", "time_limit", type=click.FloatRange(min=0.1), default=None, metavar="SECONDS",
              help="Stop searching after this many seconds and report what was found.")
@click.option("--max-actions", type=click.IntRange(min=1), default=5000, show_default=True,
              help="A game longer than this is reported as endless.")
@click.option("--vary", multiple=True, metavar="PARAM",
              help="Draw this parameter within its declared range (repeatable). Every option and every "
                   "parameter with a range of at most 21 values is drawn anyway, half the time at its default.")
@click.option("--fixed", multiple=True, metavar="PARAM",
              help="Keep this option or parameter at its default (repeatable; 'all': draw none but --vary's).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the search.")
@click.option("--set", "params", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
              help="Fix a game parameter or option (repeatable).")
@click.option("--no-cycles", is_flag=True, help="Do not look for repeated positions (faster).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: the whole report.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Write a replay file for each finding into this folder.")
@click.option("--workers", "-j", type=click.IntRange(min=1), default=None,
              help="Search in batches of 25 examples over this many processes; the same batches, so the "
                   "same findings, whatever the number.")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Search in batches on a Dask cluster (its scheduler's address, or local:N); needs "
                   "dask.distributed: pip install 'rulelang[dask]'.")
def fuzz_cmd(file, players, examples, time_limit, max_actions, vary, fixed, seed, params, no_cycles, as_json,
             out, workers, cluster):
    """Search for dead states, endless games, broken invariants and rule errors.

    Plays many games with choices drawn by Hypothesis, checks every step,
    shrinks each finding to a short list of actions, and reports what in
    the rules never ran.  Exits 0 with no finding, 1 with findings.

    \b
    Examples:
      rulerun fuzz games/fox_in_the_henhouse.rules --examples 50 --players 4
      rulerun fuzz games/desplumados.rules --time 5
      rulerun fuzz games/emu_ranchers.rules --vary upkeep --fixed years
      rulerun fuzz examples/last_card_stuck.rules --out findings/
      rulerun replay findings/last_card_stuck-dead_state-2p-0.json
      rulerun fuzz games/emu_ranchers.rules --examples 200 --workers 2
    """
    from ..fuzz import RUN_KINDS, fuzz, save_replay

    game = _load_game(file, params)  # reports bad files and parameters first
    if players != "all":
        try:
            players = int(players)
        except ValueError:
            raise _usage_error(f"--players takes a number or 'all', not {players!r}") from None
        _num_players(game, players)
    if out:  # before the search: a path that cannot be a directory is bad input, not a lost run
        try:
            Path(out).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise _usage_error(f"--out {out}: cannot make that directory: {e.strerror or e}") from None
    progress, stop = _progress("fuzzing", as_json)
    try:
        options = dict(players=players, examples=examples, max_actions=max_actions, vary=vary, seed=seed,
                       params=params, progress=progress, check_cycles=not no_cycles, time_limit=time_limit,
                       vary_small="all" not in fixed, fixed=tuple(f for f in fixed if f != "all"))
        if workers is None and cluster is None:
            report = fuzz(file, **options)
        else:
            if workers is not None and cluster is not None:
                raise _usage_error("--workers and --cluster: choose one (a cluster has workers of its own)")
            from ..fuzz_batches import fuzz_in_batches
            report = fuzz_in_batches(file, workers=workers or 1, cluster=cluster, **options)
    except ValueError as e:
        raise _usage_error(str(e)) from None
    except RuleError as e:
        raise _rule_failure(e, file) from None
    finally:
        stop()
    # a seat finding is judged on the whole run, not one game: it has no replay
    replays = {i: str(save_replay(f, file, out)) for i, f in enumerate(report.findings)
               if out and f.kind not in RUN_KINDS}
    if as_json:
        d = report.to_dict()
        d["replays"] = list(replays.values())
        click.echo(json.dumps(d))
    else:
        click.echo(f"{game.title} ({file}): {report.games} games, {report.actions} actions in "
                   f"{report.seconds:.1f} s ({report.actions_per_s:.0f} actions/s)"
                   + (", stopped at the time limit" if report.out_of_time else ""))
        if not report.findings:
            click.echo("no finding")
        for i, f in enumerate(report.findings):
            click.echo("")
            click.echo(f"finding {i + 1}: {f.kind}: {f.message}")
            if f.where:
                click.echo(f"  at {f.where}")
            if f.kind in RUN_KINDS:
                continue
            click.echo(f"  players {f.players}, seed {f.seed}" + (f", {_params_text(f.params)}" if f.params else ""))
            for k, text in enumerate(f.actions, 1):
                mark = "  <- the position repeats from here" if f.loop_from is not None and k == f.loop_from + 1 else ""
                click.echo(f"  {k:4}  {text}{mark}")
            if i in replays:
                click.echo(f"  replay: rulerun replay {replays[i]}")
        if report.unused and not any(f.kind == "unused" for f in report.findings):
            click.echo("")
            click.echo("never happened in these games (dead rules, or rules that need other parameters):")
            for u in report.unused:
                click.echo(f"  {u}")
        if report.only_under:
            click.echo("")
            click.echo("happened only with a parameter drawn away from its default:")
            for u in report.only_under:
                click.echo(f"  {u}")
    if report.findings:
        raise _Failure(f"{_plural(len(report.findings), 'finding')}", 1, quiet=True)


@cli.command("replay")
@click.argument("replay_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--rules", type=RULES_FILE, default=None,
              help="The rules file (default: the one the replay names).")
@click.option("--quiet", "-q", is_flag=True, help="Do not print each action.")
@click.option("--set", "params", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
              help="Replay with this setting changed from the recorded one (repeatable): does the "
                   "finding still happen, does the game still fit?")
def replay_cmd(replay_file, rules, quiet, params):
    """Re-run a finding saved by 'rulerun fuzz --out' and show the state at it,
    or play again a game log written by 'rulerun FILE --log'.

    A finding: exits 1 if it happens again, 0 if it does not (fixed rules).
    A game log: every step is checked; exits 0 if the game comes out the
    same, 1 at the first step that no longer fits (the rules have changed),
    2 for a log that cannot be read (the message names the line).

    \b
    Examples (after 'rulerun fuzz examples/last_card_stuck.rules --out findings/'
    and 'rulerun examples/last_card.rules --seed 3 --log last_card.jsonl'):
      rulerun replay findings/last_card_stuck-dead_state-2p-0.json
      rulerun replay last_card.jsonl
    """
    from pathlib import Path

    from ..fuzz import ReplayError, load_replay
    from ..gamelog import is_log

    if is_log(replay_file):
        return _replay_log(replay_file, rules, quiet, params)

    try:
        rules_file, f = load_replay(replay_file)
    except ReplayError as e:
        raise _usage_error(str(e)) from None
    if rules is None:
        candidates = [Path(rules_file), Path(replay_file).parent / rules_file]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise _usage_error(f"cannot find the rules file {rules_file!r}; give it with --rules FILE")
        rules = str(found)
    game = _load_game(rules, {**{k: str(v) for k, v in f.params.items()}, **params})
    state = _new_state(game, f.seed, _num_players(game, f.players), rules)
    click.echo(f"{game.title} ({rules}): replaying {f.kind}, players {f.players}, seed {f.seed}")
    seen = {state.key(): 0}
    again = None
    for k, text in enumerate(f.actions, 1):
        who = "chance" if state.current_player < 0 else f"P{state.current_player + 1}"
        if not quiet:
            click.echo(f"  {k:4}  {who}: {text}")
        legal = {state.action_text(a): a for a in state.legal_actions()}
        if text not in legal:
            raise _Failure(f"the replay does not fit these rules: action {k}, {text!r}, is not legal here", 1)
        try:
            state.apply(legal[text])
        except RuleError as e:
            again = ("rule_error", f"{e.span}: {e.message}" if e.span else e.message)
            break
        key = state.key()
        if key in seen and again is None:
            again = ("cycle", f"the position after action {seen[key]} came back after action {k}")
        seen.setdefault(key, k)
    click.echo("")
    click.echo("the state at the finding (every card, hidden or not):")
    for line in state.debug_text().splitlines():
        click.echo(f"  {line}")
    if again is None:
        broken = state.m.broken_invariants(state)
        if broken:
            message, span = broken[0]
            again = ("invariant", f"{span}: {message}" if span else message)
        elif not state.is_terminal:
            try:
                if not state.legal_actions():
                    again = ("dead_state", f"player {state.current_player + 1} is to move but has no legal action")
            except RuleError as e:
                again = ("rule_error", f"{e.span}: {e.message}" if e.span else e.message)
        if again is None and f.kind == "endless" and not state.is_terminal:
            again = ("endless", f"after {len(f.actions)} actions the game has not ended")
    click.echo("")
    if again is None:
        click.echo(f"not reproduced: the recorded {f.kind} does not happen with these rules")
        click.echo(f"(recorded: {f.message})")
        return
    click.echo(f"reproduced: {again[0]}: {again[1]}")
    raise _Failure("the finding happens again", 1, quiet=True)


def _replay_log(log_file, rules, quiet, params=None):
    from pathlib import Path

    from ..gamelog import LogError, read_log, rules_hash
    try:
        header, actions, end = read_log(log_file)
    except LogError as e:
        raise _usage_error(str(e)) from None
    if rules is None:
        candidates = [Path(header["rules"]), Path(log_file).parent / header["rules"]]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise _usage_error(f"cannot find the rules file {header['rules']!r}; give it with --rules FILE")
        rules = str(found)
    game = _load_game(rules, {**{k: str(v) for k, v in header["params"].items()}, **(params or {})})
    changed = rules_hash(game.checked.source or Path(rules).read_text(encoding="utf-8")) != header.get("sha256")
    n = _num_players(game, header["players"])
    state = _new_state(game, header["seed"], n, rules)
    click.echo(f"{game.title} ({rules}): replaying {log_file}, players {n}, seed {header['seed']}"
               + (" (the rules file has changed since the log was written)" if changed else ""))
    for k, (seat, text, line) in enumerate(actions, 1):
        if not quiet:
            click.echo(f"  {k:4}  P{seat}: {text}")
        try:
            legal = {state.action_text(a): a for a in state.legal_actions()}
            if state.is_terminal or seat != state.current_player + 1 or text not in legal:
                now = "the game is over" if state.is_terminal else \
                    f"player {state.current_player + 1} is to move; legal: " + "; ".join(list(legal)[:8])
                raise _Failure(f"{log_file}:{line}: step {k} no longer fits these rules: player {seat} "
                               f"{text!r} ({now})", 1)
            state.apply(legal[text])
        except RuleError as e:
            raise _rule_failure(e, rules, f" (step {k} of {log_file})") from None
    if end is None:
        click.echo(f"the log stops after {_plural(len(actions), 'action')} without the game's end "
                   "(cut short); every step fitted")
        return
    if "error" in end:
        click.echo(f"the game ended with a rule error: {end['error']}")
        return
    if not state.is_terminal:
        raise _Failure(f"{log_file}: after every logged step the game is not over, but the log says it ended", 1)
    scores, winners = state.scores(), [w + 1 for w in state.winners()]
    if scores != end.get("scores") or winners != end.get("winners"):
        raise _Failure(f"{log_file}: the game ends with scores {scores} and winners {winners}, "
                       f"not {end.get('scores')} and {end.get('winners')} as logged", 1)
    click.echo(f"the same game: {_plural(len(actions), 'action')}, scores {scores}, "
               f"winners {', '.join(f'P{w}' for w in winners) or 'none'}")


@cli.command("explore")
@click.argument("file", type=RULES_FILE)
@click.option("--players", "-p", type=int, default=None, help="Number of players (default: the fewest).")
@click.option("--max-states", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Stop after this many distinct positions.")
@click.option("--max-memory", type=click.IntRange(min=16), default=None, metavar="MB",
              help="Stop when the walk has taken this much memory (default: half the machine's, "
                   "at most 4096).")
@click.option("--set", "params", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
              help="Set a game parameter (e.g. one that makes the deck smaller).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def explore_cmd(file, players, max_states, max_memory, params, as_json):
    """Walk every reachable position of a small game, chance included.

    Within the bound this proves there is no dead state, or shows the
    shortest way into one.  Exits 1 if a dead state or a rule error is
    found, else 0.

    \b
    Example:
      rulerun explore examples/last_card.rules
      rulerun explore games/fox_in_the_henhouse.rules --players 2 --set seasons=1 --set days=1
    """
    from ..explore import explore

    game = _load_game(file, params)
    n = _num_players(game, players)
    progress, stop = _progress("exploring", as_json, unit="positions")
    try:
        r = explore(file, n, max_states, params, progress=progress and (lambda k: progress(k, 0)),
                    max_memory_mb=max_memory)
    finally:
        stop()
    if as_json:
        click.echo(json.dumps(r.to_dict()))
    else:
        click.echo(f"{game.title} ({file}), {n} players: {r.states} positions ({r.terminal} final), "
                   f"{r.edges} moves, depth {r.depth}, in {r.seconds:.1f} s ({r.states_per_s:.0f} positions/s, "
                   f"{r.memory_mb:.0f} MB, about {r.bytes_per_state / 1024:.1f} KB a position)")
        for path in r.dead_states:
            click.echo("dead state after: " + (" / ".join(path) or "the start"))
        for message, where, path in r.rule_errors:
            click.echo(f"rule error{' at ' + where if where else ''}: {message}")
            click.echo("  after: " + (" / ".join(path) or "the start"))
        if not r.dead_states and not r.rule_errors:
            if r.complete:
                click.echo(f"proved: none of the {r.states} reachable positions is a dead state")
            elif r.stopped_by == "max_memory":
                click.echo(f"no dead state among the first {r.states} positions (stopped at the memory bound, "
                           f"{r.max_memory_mb} MB; raise --max-memory or make the game smaller with --set)")
            else:
                click.echo(f"no dead state among the first {r.states} positions (the bound was reached; "
                           "raise --max-states or make the game smaller with --set)")
    if r.dead_states or r.rule_errors:
        raise _Failure("dead states or rule errors found", 1, quiet=True)
