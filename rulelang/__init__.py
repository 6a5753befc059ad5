"""rulelang: the front end of the rules language (grammar, parser, AST, checker).

Text -> AST (:mod:`rulelang.parser`) -> checked game (:mod:`rulelang.checker`).
"""

from .diagnostics import Diagnostic, RulesError, Span
from .parser import parse, parse_file
from .checker import CheckedGame, check


def check_file(path):
    """Parse and check a rules file: returns (checked game or None, diagnostics, source text)."""
    module, diags, text = parse_file(path)
    if module is None:
        return None, diags, text
    game, cdiags = check(module)
    return game, cdiags, text


def load_checked(path):
    """Parse and check a file; raise :class:`RulesError` if it has errors."""
    game, diags, text = check_file(path)
    errors = [d for d in diags if d.severity == "error"]
    if errors or game is None:
        raise RulesError(errors, text)
    return game


__all__ = ["Diagnostic", "RulesError", "Span", "parse", "parse_file", "check", "check_file",
           "load_checked", "CheckedGame"]
