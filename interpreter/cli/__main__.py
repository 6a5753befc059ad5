"""``python -m interpreter.cli``: the same as ``rulerun``."""

from . import main

main()
