"""``rulerun play``: people at the terminal against bots (the session itself
is :mod:`interpreter.play`), saved as it goes and resumed with ``--resume``.

A saved game is a game log (:mod:`interpreter.gamelog`) whose header also
names the seats played by people; every action is written and flushed as
it is played, so a game stopped by Ctrl-C, ``quit`` or a closed terminal
keeps every move.  ``--resume FILE`` reads it, plays its actions again
(checking each), and goes on writing to the same file.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import click

from ..runtime import DeadState, IllegalAction, RuleError
from .common import (_dead_state_failure, _load_game, _new_state, _num_players, _params_text, _plural, _rule_failure,
                     _seed, make_agents)
from .group import RULES_FILE, _Failure, _usage_error, bot_option, cli, game_options


def save_folder() -> Path:
    """Where games are saved unless --save says otherwise:
    ``$XDG_STATE_HOME/rulelang/saves`` (``~/.local/state/rulelang/saves``)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "rulelang" / "saves"


def _new_save_path(rules_path: str) -> Path:
    folder = save_folder()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"{Path(rules_path).stem}-{stamp}.jsonl"
    k = 1
    while path.exists():
        k += 1
        path = folder / f"{Path(rules_path).stem}-{stamp}-{k}.jsonl"
    return path


@cli.command("play")
@click.argument("file", type=RULES_FILE, required=False)
@game_options
@click.option("--human", "humans", type=click.IntRange(min=1), multiple=True, metavar="SEAT",
              help="A seat (1-based) played by a person at the terminal (repeatable; default: 1).")
@bot_option
@click.option("--save", "save_file", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Keep the game in FILE as it is played (default: a new file in "
                   "$XDG_STATE_HOME/rulelang/saves, named at the start).")
@click.option("--no-save", is_flag=True, help="Do not keep the game.")
@click.option("--resume", "resume_file", type=click.Path(exists=True, dir_okay=False), default=None,
              metavar="FILE", help="Go on with a saved game (FILE is shown when a game starts and when it stops).")
def play_cmd(file, players, seed, params, humans, bots, save_file, no_save, resume_file):
    """Play a game yourself: people at the terminal against bots.

    The seats given with --human are played by people, the others by bots
    (random unless --bot says otherwise; seeded as in 'run').  On your turn
    you see only what your seat may see: your cards, the others' visible
    cards, how many cards lie face down, the variables; then your legal
    actions, numbered.  Answer with a number or the text of an action (any
    case; its start is enough when only one action begins that way).
    Commands: help, show, log, card NAME, quit.

    With several people at one terminal the screen is cleared and a "pass
    to player N" gate shown between different people's turns.

    The game is saved as it goes, one line per action: stop it any way you
    like (quit, Ctrl-C, closing the terminal) and 'rulerun play --resume
    FILE' goes on from the last move; the rules file, its settings, the
    seats and the bots come from the saved game.  (The save holds the game
    seed, which tells the shuffles: do not read it during the game.)  A
    random game seed is printed only when the game is over.

    Exit codes: 0 at the end of the game, on quit or at the end of input;
    1 a rule error or a dead state (or a saved game the rules no longer
    fit); 2 bad input; 130 on Ctrl-C.

    \b
    Examples:
      rulerun play games/emu_ranchers.rules
      rulerun play games/fox_in_the_henhouse.rules --players 3 --human 2
      rulerun play games/fox_in_the_henhouse.rules --players 4 --human 1 --human 3
      rulerun play games/fox_in_the_henhouse.rules --players 2 --bot 2=mcts
      rulerun play games/fox_in_the_henhouse.rules --save my-game.jsonl
      rulerun play --resume my-game.jsonl
    """
    if resume_file is not None:
        if players is not None or seed is not None or params or humans or bots or save_file or no_save:
            raise _usage_error("--resume takes the players, seed, settings, seats and bots from the saved "
                               "game: give it alone (and, if the rules file has moved, FILE)")
        return _resume(resume_file, file)
    if file is None:
        raise _usage_error("give the rules file to play (or --resume SAVED_GAME)")
    game = _load_game(file, params)
    n = _num_players(game, players)
    seats = sorted(set(humans or (1,)))
    for s in seats:
        if s > n:
            raise _usage_error(f"--human {s}: there is no seat {s} in a {n}-player game "
                               f"(seats are 1 to {n})")
    for s in bots:
        if s >= n or s + 1 in seats:
            raise _usage_error(f"--bot {s + 1}: " + ("that seat is played by a person" if s < n
                                                     else f"there is no seat {s + 1} in a {n}-player game"))
    given = seed is not None
    seed = _seed(seed)
    state = _new_state(game, seed, n, file)
    human = [s - 1 for s in seats]
    writer, saved = None, None
    if not no_save:
        saved = Path(save_file) if save_file is not None else _new_save_path(file)
        writer = _open_save(saved, file, game, n, seed, bots, human)
    _header(game, file, n, human, bots, seed if given else None, saved)
    agents = make_agents(seed, n, bots)
    return _play(state, game, file, human, agents, seed, writer, saved)


def _open_save(path: Path, rules_path, game, n, seed, bots, human):
    from ..gamelog import LogWriter
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        kinds = ["human" if p in human else bots.get(p, "random") for p in range(n)]
        return LogWriter(path, rules_path, game.checked.source or Path(rules_path).read_text(encoding="utf-8"),
                         dict(game.overrides), seed, n, kinds, human)
    except OSError as e:
        raise _usage_error(f"cannot save the game in {path}: {e.strerror or e} (--save FILE elsewhere, "
                           "or --no-save)") from None


def _header(game, file, n, human, bots, seed, saved) -> None:
    bot_seats = [p for p in range(n) if p not in human]
    click.echo(f"{game.title} ({file})")
    click.echo(f"players: {n}  you: {', '.join(f'P{p + 1}' for p in human)}  "
               f"bots: {', '.join(f'P{p + 1}' + (f' ({bots[p]})' if p in bots else '') for p in bot_seats) or 'none'}"
               + (f"  seed: {seed}" if seed is not None else ""))
    click.echo(f"params: {_params_text(game.params_for(n))}")
    if saved is not None:
        click.echo(f"saving to {saved}")
    click.echo("Type help at the prompt for how to answer.")


def _play(state, game, file, human, agents, seed, writer, saved, done=()):
    """Run the session (after playing ``done``, the texts of a resumed game's actions)."""
    from ..play import Session
    session = Session(state, human, agents, title=game.title, seed=seed,
                      on_action=writer.action if writer is not None else None)
    finished = False
    try:
        if done:
            session.catch_up(done)
            click.echo(f"resumed after {_plural(len(done), 'action')}")
        code = session.run()
        finished = state.is_terminal
        if finished and writer is not None:
            try:
                writer.end(state.scores(), state.winners())
            except RuleError as e:
                writer.end(error=e.message)
        return code
    except IllegalAction as e:
        raise _Failure(f"the saved game no longer fits the rules after {_plural(session.moves, 'action')}: {e}",
                       1) from None
    except RuleError as e:
        raise _rule_failure(e, file, f" (game seed {seed}, after {_plural(len(state.history), 'action')})") from None
    except DeadState as e:
        raise _dead_state_failure(e, seed) from None
    finally:
        if writer is not None:
            writer.close()
            if not finished and saved is not None:
                click.echo(f"saved in {saved}: 'rulerun play --resume {saved}' goes on from here")


def _resume(path, rules):
    """Go on with the game saved in ``path`` (``rules``: the rules file, if not where the save says)."""
    from ..bots import make_bot
    from ..gamelog import LogError, LogWriter, read_log, rules_hash
    try:
        header, actions, end = read_log(path, cut_off_ok=True)
    except LogError as e:
        raise _usage_error(str(e)) from None
    if end is not None:
        raise _usage_error(f"the game saved in {path} is over: 'rulerun replay {path}' shows it")
    if rules is None:
        candidates = [Path(header["rules"]), Path(path).parent / header["rules"]]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise _usage_error(f"cannot find the rules file {header['rules']!r}: give it, "
                               f"'rulerun play FILE --resume {path}'")
        rules = str(found)
    n = header["players"]
    kinds = header.get("bots")
    if not isinstance(kinds, list) or len(kinds) != n or not all(isinstance(k, str) for k in kinds):
        raise _usage_error(f"{path}:1: the header's 'bots' is missing or malformed")
    human = [p for p in range(n) if kinds[p] == "human"]
    if not human:
        raise _usage_error(f"{path}: no seat of this game is played by a person: 'rulerun replay {path}' shows it")
    bots = {p: k for p, k in enumerate(kinds) if k not in ("human", "random")}
    for p, k in bots.items():
        try:
            make_bot(k, 0)
        except ValueError as e:
            raise _usage_error(f"{path}:1: seat {p + 1}: {e}") from None
    game = _load_game(rules, {k: str(v) for k, v in header["params"].items()})
    n = _num_players(game, n)
    seed = header["seed"]
    state = _new_state(game, seed, n, rules)
    if rules_hash(game.checked.source or Path(rules).read_text(encoding="utf-8")) != header.get("sha256"):
        click.echo(f"note: {rules} has changed since the game was saved", err=True)
    _drop_cut_off_line(path)
    writer = LogWriter.append_to(path, len(actions))
    _header(game, rules, n, human, bots, None, Path(path))
    # the bots go on from seeds of their own: the game itself is the same, whatever they would have chosen
    agents = make_agents(f"{seed}:resumed at {len(actions)}", n, bots)
    return _play(state, game, rules, human, agents, seed, writer, Path(path), [text for _, text, _ in actions])


def _drop_cut_off_line(path) -> None:
    """A save whose last line was cut off while being written: that line goes,
    so that the next one starts on a line of its own."""
    import json
    text = Path(path).read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        last = text[text.rfind("\n") + 1:]
        try:
            json.loads(last)
            text += "\n"  # whole, but for its end of line
        except ValueError:
            text = text[: len(text) - len(last)]
        Path(path).write_text(text, encoding="utf-8")
