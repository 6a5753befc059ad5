"""Every library the installed commands import is installed with them.

`pip install .` (the README's first command) installs the project's
dependencies, not its extras.  A module of ``rulelang/`` or
``interpreter/`` that imports a third-party library outside a
``try``/``except ImportError`` must find it among the dependencies of
pyproject.toml; one an extra brings (matplotlib, pygls...) is imported
under such a guard, which says what to install.  (``rulerun fuzz`` once
stopped with an internal error after `pip install .`: Hypothesis was in
the test extra only.)
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rulelang", "interpreter")
# the name a distribution is imported by, where the two differ
IMPORT_NAMES = {"attrs": {"attrs", "attr"}}
# modules only ever imported after a guard of another module: (file, library) -> that guard
IMPORTED_AFTER_A_GUARD = {("interpreter/adapters/encoding.py", "numpy"): "the adapters openspiel.py and pettingzoo.py"}


def _dependencies() -> set:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = set()
    for spec in project["dependencies"]:
        dist = re.match(r"[A-Za-z0-9_.\-]+", spec).group(0).lower().replace("-", "_")
        names |= IMPORT_NAMES.get(dist, {dist})
    return names


def _guarded(node, parents) -> bool:
    """Is this import inside the body of a try whose handlers catch ImportError?"""
    child = node
    for parent in parents:
        if isinstance(parent, ast.Try) and child in parent.body:
            for handler in parent.handlers:
                caught = handler.type
                names = [caught] if not isinstance(caught, ast.Tuple) else caught.elts
                if caught is None or any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError")
                                         for n in names):
                    return True
        child = parent
    return False


def _unguarded_imports(path: Path):
    """(top-level module, line) of each absolute import not under an ImportError
    guard, nor of a library the file imports under such a guard elsewhere (an
    import in a function, after the guard at the top has said what to install)."""
    tree = ast.parse(path.read_text(), str(path))
    parents_of = {}
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            parents_of[child] = parent
    guarded, unguarded = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops = [node.module.split(".")[0]]
        else:
            continue
        chain, at = [], node
        while at in parents_of:
            at = parents_of[at]
            chain.append(at)
        if _guarded(node, chain):
            guarded.update(tops)
        else:
            unguarded += [(top, node.lineno) for top in tops]
    for top, line in unguarded:
        if top not in guarded:
            yield top, line


def test_every_unguarded_third_party_import_is_a_dependency():
    deps = _dependencies()
    ours = set(PACKAGES)
    missing = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for top, line in _unguarded_imports(path):
                if top in sys.stdlib_module_names or top in ours or top == "__future__":
                    continue
                if top not in deps and (str(path.relative_to(ROOT)), top) not in IMPORTED_AFTER_A_GUARD:
                    missing.append(f"{path.relative_to(ROOT)}:{line}: {top}")
    assert not missing, "imported without a guard, yet not a dependency in pyproject.toml:\n" + "\n".join(missing)


def test_the_check_sees_a_missing_dependency(tmp_path):
    """The scan itself: an unguarded import is reported, a guarded one is not."""
    f = tmp_path / "m.py"
    f.write_text("import sortedcontainers\ntry:\n    import matplotlib\nexcept ImportError:\n    pass\n"
                 "def g():\n    from numpy import array\n    import matplotlib.pyplot\n")
    assert sorted(top for top, _ in _unguarded_imports(f)) == ["numpy", "sortedcontainers"]
