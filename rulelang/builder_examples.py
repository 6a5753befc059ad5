"""Building ``example`` declarations (docs/language.md, 2.16): a mixin of
the AST builder (:mod:`rulelang.builder`), one method per grammar rule."""

from __future__ import annotations

from . import ast as A


class ExampleBuilder:
    """The example rules of the grammar, as AST nodes (needs the builder's
    ``_span``, ``_tspan`` and ``file``)."""

    # the builder's own helpers, read when called (rulelang.builder imports this module)
    @staticmethod
    def _text(tok) -> str:
        from .builder import _strip
        return _strip(tok)

    @staticmethod
    def _number(tok, file) -> int:
        from .builder import _int
        return _int(tok, file)

    def example_decl(self, meta, c):
        players = None
        params, body = [], []
        after_setup = c[1] is not None
        for x in c[2:]:
            if isinstance(x, tuple) and x and x[0] == "players":
                players = x[1]
            elif isinstance(x, A.Setting):
                params.append(x)
            else:
                body.append(x)
        expects = tuple(x if isinstance(x, A.Expect) else x.check for x in body if isinstance(x, (A.Expect, A.Do)))
        return A.Example(self._text(c[0]), players, tuple(params), tuple(body), expects, after_setup,
                         span=self._span(meta))

    def example_players(self, meta, c):
        return ("players", self._number(c[0], self.file))

    def example_with(self, meta, c):
        return A.Setting(str(c[0]), c[1], span=self._tspan(c[0]))

    def expect_true(self, meta, c):
        return A.Expect("true", c[0], span=self._span(meta))

    def expect_legal(self, meta, c):
        legality, action, *args, player = c
        args = tuple(x for x in args if x is not None)
        return A.Expect(str(legality), player, str(action), args, span=self._span(meta))

    def expect_scores(self, meta, c):
        return A.Expect("scores", c[0], span=self._span(meta))

    def expect_winners(self, meta, c):
        return A.Expect("winners", c[1], span=self._span(meta))

    def do_line(self, meta, c):
        action, *args, player = c
        args = tuple(x for x in args if x is not None)
        span = self._span(meta)
        return A.Do(A.Expect("legal", player, str(action), args, span=span), span=span)

    def expect_nobody(self, meta, c):
        return A.Expect("winners", None, span=self._span(meta))
