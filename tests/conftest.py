"""Settings for the whole suite."""

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _saved_games_stay_out_of_home(tmp_path_factory):
    """`rulerun play` saves every game (in $XDG_STATE_HOME/rulelang/saves by
    default): during the tests, in a temporary folder."""
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))


@pytest.fixture(autouse=True, scope="session")
def _parses_stay_out_of_the_users_cache():
    """The parse cache (rulelang.ast_cache) is off for the suite: a test's
    files would fill the user's cache, and every parse is a real one (the
    cache's own tests turn it on, in a folder of their own)."""
    os.environ["RULELANG_NO_CACHE"] = "1"
