"""What the fuzzer's and ``diff``'s searches ask of Hypothesis, in one place.

:func:`search_settings` is the settings of both: no example database, no
deadline, no health check (a game is not a unit test), generating and
shrinking only.

:func:`own_draws_only` keeps a search from drawing the literals of the
Python modules of the process.  Hypothesis (6.131 and later) draws, now and
then, a number or string written in the source of every module it takes for
the user's own (one neither in the standard library nor in site-packages),
which it reads when first imported and caches in ``.hypothesis/constants``
under the directory it was imported from.  For a search over a rules file
that is harmful three ways:

- the same ``--seed`` would draw other games, and so give another report,
  depending on how rulelang was installed (from a wheel its modules are in
  site-packages, editable they are not) and on what else the process had
  imported (a user's own script, the ``rulerun`` launcher itself);
- the first run in a directory parses the engine's source, 0.3 s and more;
- that directory is left with a ``.hypothesis`` folder it never asked for.

The engine's literals say nothing about a rules file, so nothing is lost.
Hypothesis has no setting for it (its issue 4627), so for the length of a
search the function that gathers the literals answers "none", and the cache
of the values it allowed is emptied before and after, so that a search never
sees what another test of the process gathered, nor leaves it its own.  With
a Hypothesis that does not gather them, there is nothing to do.
"""

from __future__ import annotations

from contextlib import contextmanager


def search_settings(seed: int, examples: int):
    """The decorator giving a search its seed and settings (see the module doc)."""
    from hypothesis import HealthCheck, Phase, settings
    from hypothesis import seed as hseed

    chosen = settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck),
                      phases=[Phase.generate, Phase.shrink], report_multiple_bugs=False, print_blob=False)
    return lambda run: hseed(seed)(chosen(run))


@contextmanager
def own_draws_only():
    """Within it, Hypothesis draws no literal of the process's modules (see the module doc)."""
    try:
        from hypothesis.internal.conjecture import providers
        gather, cache, empty = providers._get_local_constants, providers.CONSTANTS_CACHE.cache, providers.Constants()
    except (ImportError, AttributeError):  # pragma: no cover - a Hypothesis that gathers none
        yield
        return
    cache.clear()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = gather
        cache.clear()
