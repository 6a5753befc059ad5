"""A Pygments lexer for rules files, registered as ``rulelang`` (aliases
``rules``; files ``*.rules``) through the ``pygments.lexers`` entry point:

    pygmentize -l rulelang my_game.rules

The keywords are the grammar's own (:data:`rulelang.parser.KEYWORDS`), the
built-in functions and names the checker's; a name being declared (after
``zone``, ``action``, ``function``, ``var``, ...) is shown as a definition.
Every character of a well-formed file gets a token that is not an error.
:func:`textmate_grammar` gives the same words to editors that read TextMate
grammars (``python3 -m rulelang.highlight > editors/rulelang.tmLanguage.json``).
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

from .checker.model import RESERVED
from .parser import KEYWORDS

# Names that are built in, not keywords: functions and constants of the language.
BUILTINS = sorted(set(RESERVED) - set(KEYWORDS))
CONSTANTS = ("true", "false")
# A keyword that declares a name: the name after it is a definition.
DECLARING = ("zone", "action", "function", "enum", "param", "option", "var")


class RulesLexer(RegexLexer):
    name = "rulelang"
    aliases = ["rulelang", "rules"]
    filenames = ["*.rules"]
    mimetypes = ["text/x-rulelang"]
    url = "https://example.invalid/rulelang"

    tokens = {
        "root": [
            (r"[ \t\f]+", Whitespace),
            (r"\r?\n", Whitespace),
            (r"\\\r?\n", Text),
            (r"#[^\n]*", Comment.Single),
            (r'"[^"\n]*"', String.Double),
            (r"\d+", Number.Integer),
            (r"\b(player|card)(\s+)(var)(\s+)([A-Za-z_]\w*)",
             bygroups(Keyword.Declaration, Whitespace, Keyword.Declaration, Whitespace, Name.Variable)),
            (r"\b(card)(\s+)(attributes)\b", bygroups(Keyword.Declaration, Whitespace, Keyword.Declaration)),
            (r"\b(" + "|".join(DECLARING) + r")(\s+)([A-Za-z_]\w*)",
             bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (words(CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words(sorted(set(KEYWORDS) - set(CONSTANTS)), prefix=r"\b", suffix=r"\b"), Keyword),
            (words(BUILTINS, prefix=r"\b", suffix=r"(?=\s*\()"), Name.Builtin),
            (r"\b(me|player_count)\b", Name.Builtin.Pseudo),
            (r"[A-Za-z_]\w*", Name),
            (r"\.\.", Operator),
            (r"==|!=|<=|>=|\+=|-=|[<>=+\-*/%|&]", Operator),
            (r"[()\[\]{},:.]", Punctuation),
        ],
    }


def textmate_grammar() -> dict:
    """The same words as a TextMate grammar (editors/rulelang.tmLanguage.json,
    written by ``python3 -m rulelang.highlight``)."""
    keywords = sorted(set(KEYWORDS) - set(CONSTANTS))
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "rulelang",
        "scopeName": "source.rulelang",
        "fileTypes": ["rules"],
        "patterns": [{"include": f"#{k}"} for k in ("comment", "string", "number", "declaration", "constant",
                                                     "keyword", "builtin", "operator")],
        "repository": {
            "comment": {"name": "comment.line.number-sign.rulelang", "match": "#.*$"},
            "string": {"name": "string.quoted.double.rulelang", "match": '"[^"\\n]*"'},
            "number": {"name": "constant.numeric.integer.rulelang", "match": "\\b[0-9]+\\b"},
            "declaration": {
                "match": "\\b(" + "|".join(DECLARING) + ")\\s+([A-Za-z_][A-Za-z0-9_]*)",
                "captures": {"1": {"name": "storage.type.rulelang"}, "2": {"name": "entity.name.function.rulelang"}}},
            "constant": {"name": "constant.language.rulelang", "match": "\\b(" + "|".join(CONSTANTS) + ")\\b"},
            "keyword": {"name": "keyword.control.rulelang", "match": "\\b(" + "|".join(keywords) + ")\\b"},
            "builtin": {"name": "support.function.builtin.rulelang",
                        "match": "\\b(" + "|".join(BUILTINS) + ")(?=\\s*\\()"},
            "operator": {"name": "keyword.operator.rulelang",
                         "match": "\\.\\.|==|!=|<=|>=|\\+=|-=|[<>=+\\-*/%|&]"},
        },
    }


if __name__ == "__main__":
    import json

    print(json.dumps(textmate_grammar(), indent=2))


__all__ = ["RulesLexer", "BUILTINS", "textmate_grammar"]
