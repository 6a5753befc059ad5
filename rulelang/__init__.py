"""rulelang: the front end of the rules language (grammar, parser, AST, checker).

Text -> AST (:mod:`rulelang.parser`) -> checked game (:mod:`rulelang.checker`).
"""

from .diagnostics import Diagnostic, RulesError, Span
from .parser import parse, parse_file
from .checker import CheckedGame, check
from .checker.core import sort_diagnostics
from .variants import RulesText, load_module


def check_file(path):
    """Parse and check a rules file (and the file it extends, if it is a
    variant): returns (checked game or None, diagnostics, source text: a
    :class:`RulesText`, which also holds the text of every file extended)."""
    module, diags, text = load_module(path)
    if module is None:
        return None, diags, text
    game, cdiags = check(module)
    game.source = text
    return game, sort_diagnostics(diags + cdiags, module.file), text


def load_checked(path):
    """Parse and check a file; raise :class:`RulesError` if it has errors."""
    game, diags, text = check_file(path)
    errors = [d for d in diags if d.severity == "error"]
    if errors or game is None:
        raise RulesError(errors, text)
    return game


__all__ = ["Diagnostic", "RulesError", "Span", "parse", "parse_file", "check", "check_file",
           "load_checked", "CheckedGame", "RulesText", "load_module"]
