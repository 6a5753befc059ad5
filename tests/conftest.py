"""Settings for the whole suite."""

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _saved_games_stay_out_of_home(tmp_path_factory):
    """`rulerun play` saves every game (in $XDG_STATE_HOME/rulelang/saves by
    default): during the tests, in a temporary folder."""
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
