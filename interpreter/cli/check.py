"""``rulerun check`` (report the errors and warnings of a rules file) and
``rulerun params`` (list the parameters and options it declares).
"""

from __future__ import annotations

import click

from ..runtime import RuleError
from .common import _load_game, _num_players, _plural, _print_diagnostics, _value_text
from .group import RULES_FILE, _Failure, _parse_sets, _usage_error, cli


@cli.command("check")
@click.argument("file", type=RULES_FILE)
@click.option("--set", "params", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
              help="Check with a parameter or option set (repeatable): the warnings that depend on "
                   "the values (a choice never reached, a requirement always false) are for these.")
def check_cmd(file, params):
    """Check a rules file: syntax, names, types; then compile it.

    Prints each problem as FILE:LINE:COL with the source line to stderr.
    Exits 0 and prints 'FILE: ok' if there are no errors (warnings are
    shown but allowed), 1 if there are errors, 2 for a bad --set.

    \b
    Examples:
      rulerun check games/emu_ranchers.rules
      rulerun check games/emu_ranchers.rules --set excuse=true --set years=1
    """
    import rulelang

    from ..compiler import ParamError, compile_game
    from ..static import check_machine
    try:
        checked, diags, text = rulelang.check_file(file)
    except OSError as e:
        raise _usage_error(f"cannot read {file}: {e.strerror or e}") from None
    errors = [d for d in diags if d.severity == "error"]
    if errors or checked is None:
        _print_diagnostics(diags, text)
        raise _Failure(f"{file} has {_plural(max(len(errors), 1), 'error')}", 1)
    try:
        machine = compile_game(checked, params)
    except RuleError as e:
        _print_diagnostics(diags, text)
        click.echo(f"{e.span if e.span is not None else file}: error: {e.message}", err=True)
        raise _Failure(f"{file} does not compile", 1) from None
    except ParamError as e:
        _print_diagnostics(diags, text)
        if params:  # a bad --set is bad input
            raise _usage_error(str(e)) from None
        click.echo(f"{file}: error: {e}", err=True)
        raise _Failure(f"{file} does not compile", 1) from None
    warnings = list(diags) + check_machine(machine, checked)
    _print_diagnostics(warnings, text)  # at most MAX_SHOWN_DIAGNOSTICS of them, then "... and N more"
    click.echo(f"{file}: ok" + (f" ({_plural(len(warnings), 'warning')})" if warnings else ""))


@cli.command("params")
@click.argument("file", type=RULES_FILE)
@click.option("--players", type=int, default=None, help="Show the defaults for this many players.")
@click.option("--set", "params", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
              help="Show the values with these settings (repeatable): a default that depends on "
                   "another parameter follows it.")
def params_cmd(file, players, params):
    """List the parameters and options a rules file declares.

    Shows each one's name, kind (param or option), type, default value and
    description.  A default that depends on the number of players is shown
    for each count (or for --players N only).  Change them with --set
    NAME=VALUE when running or simulating.

    \b
    Examples:
      rulerun params games/emu_ranchers.rules
      rulerun params games/desplumados.rules --players 5
      rulerun params games/desplumados.rules --set capacity=6
    """
    from ..compiler import ParamError
    game = _load_game(file, params)
    if players is not None:
        _num_players(game, players)  # a count the game allows, or a usage error
    try:
        info = game.param_info(players)
        by_players = {} if players is not None else game.param_values_by_players()
    except ParamError as e:
        raise _usage_error(str(e)) from None
    except RuleError as e:
        click.echo(f"{e.span if e.span is not None else file}: error: {e.message}", err=True)
        raise _Failure(f"{file} does not compile", 1) from None
    if not info:
        click.echo(f"{game.title} ({file}) declares no parameters")
        return
    rows = [("name", "kind", "type", "value" if params else "default", "description")]
    rows += [(name, kind, str(typ), _by_count(by_players[name]) if name in by_players else _value_text(value),
              doc or "") for name, kind, typ, value, doc in info]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    click.echo(f"{game.title} ({file}): set with --set NAME=VALUE")
    click.echo("")
    for r in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4])


def _by_count(values: dict) -> str:
    """``{3: 5, 4: 5, 5: 4}`` as "5 (3-4 players), 4 (5 players)"."""
    runs = []  # [value, first count, last count]
    for n, v in values.items():
        if runs and runs[-1][0] == v and runs[-1][2] == n - 1:
            runs[-1][2] = n
        else:
            runs.append([v, n, n])
    return ", ".join(f"{_value_text(v)} ({a}{'' if a == b else f'-{b}'} players)" for v, a, b in runs)


@cli.command("fmt")
@click.argument("files", nargs=-1, required=True, type=RULES_FILE)
@click.option("--check", "check_only", is_flag=True,
              help="Change nothing: list the files not in the canonical layout, exit 1 if any.")
@click.option("--write", "-w", is_flag=True, help="Rewrite the files in place instead of printing them.")
def fmt_cmd(files, check_only, write):
    """Print rules files in the canonical layout.

    Only the white space between words changes: indentation (two spaces a
    block), spacing, the columns of card tables, parameter texts and
    trailing comments.  Every comment is kept; the file means what it
    meant, and formatting it again changes nothing.  A file with syntax
    errors is left alone (its errors are shown).

    \b
    Examples:
      rulerun fmt examples/last_card.rules
      rulerun fmt --check games/emu_ranchers.rules games/fox_in_the_henhouse.rules
      rulerun fmt --write examples/last_card.rules
    """
    from pathlib import Path

    import rulelang
    from rulelang.format import format_text, same_words

    unformatted, broken, changed = [], 0, 0
    for file in files:
        try:
            text = Path(file).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as e:
            raise _usage_error(f"cannot read {file}: {getattr(e, 'strerror', None) or e}") from None
        module, diags = rulelang.parse(text, file)
        if module is None:
            _print_diagnostics(diags, text)
            broken += 1
            continue
        formatted = format_text(text)
        if not same_words(text, formatted):  # pragma: no cover - a formatter bug, never a changed meaning
            raise _Failure(f"{file}: the formatter would change the file's words; left alone (please report)", 1)
        if check_only:
            if formatted != text:
                unformatted.append(file)
                click.echo(f"{file}: not formatted")
        elif write:
            if formatted != text:
                Path(file).write_text(formatted, encoding="utf-8")
                click.echo(f"{file}: formatted")
                changed += 1
        else:
            click.echo(formatted, nl=False)
    if broken:
        raise _Failure(f"{_plural(broken, 'file')} with syntax errors left alone", 1)
    if unformatted:
        raise _Failure(f"{_plural(len(unformatted), 'file')} not formatted ('rulerun fmt --write' formats them)", 1,
                       quiet=True)
    if check_only:
        click.echo(f"{_plural(len(files), 'file')} in the canonical layout")
    elif write:
        click.echo(f"{_plural(len(files), 'file')} in the canonical layout ({changed} rewritten)")


@cli.command("lsp")
def lsp_cmd():
    """Run the language server for rules files, over stdio.

    An editor starts it (editors/vscode holds a client for VS Code) and gets
    the checker's diagnostics as you type, hover, completion, go to
    definition, find references, document symbols and rename.  Needs pygls:
    pip install 'rulelang[lsp]'.
    """
    try:
        from rulelang.lsp import main
    except ImportError as e:
        raise _usage_error(str(e)) from None
    main()


@cli.command("test")
@click.argument("file", type=RULES_FILE)
@click.option("--set", "params", metavar="NAME=VALUE", multiple=True, callback=_parse_sets,
              help="Run the examples with a parameter or option set (repeatable); an example's own "
                   "`with` lines still win.")
def test_cmd(file, params):
    """Run the examples a rules file declares (its `example` blocks).

    Each example builds a position with statements, then states what must
    hold there: a condition, the scores, the winners, whether an action is
    legal.  Prints one line per example, and under a failing one each
    expectation that does not hold, with its FILE:LINE:COL.  Exits 0 when
    every example holds, 1 when one fails (or the file declares none).

    \b
    Examples:
      rulerun test games/emu_ranchers.rules
      rulerun test games/emu_ranchers.rules --set upkeep=20
    """
    from ..examples import run_examples

    game = _load_game(file, params)
    results = run_examples(game)
    if not results:
        raise _Failure(f"{file} declares no example (see docs/language.md, section 2.16)", 1)
    for r in results:
        click.echo(f"{'ok  ' if r.passed else 'FAIL'} {r.text}  ({r.where})")
        for where, why in r.failures:
            click.echo(f"       {where}: {why}")
    failed = sum(not r.passed for r in results)
    if failed:
        raise _Failure(f"{_plural(failed, 'example')} of {len(results)} failed", 1, quiet=True)
    click.echo(f"{_plural(len(results), 'example')} passed")
