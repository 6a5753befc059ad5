"""The parse cache: a rules file parsed once is read back, unchanged, from
a pickle of its AST, as Python reads a module's compiled bytecode back
instead of compiling it again.

Parsing (Lark, the post-lexer, the builder) is most of the time that
``rulerun check`` spends on a game, and loading Lark a good part of the rest:
a cached file needs neither.  An entry is found by a digest of all that
decides the tree: the file's name (spans carry it) and text, the front
end's limits, the source of the modules that build the tree (the grammar,
the builder, the AST classes...) and Lark's version.  Change any and the
digest changes: the file is parsed again, and only a parse with no
diagnostics is stored.  An entry that cannot be read back whole is ignored.

Where: ``$XDG_CACHE_HOME/rulelang`` (default ``~/.cache/rulelang``), beside
Lark's own cache of the parse tables.  Nothing is cached when that folder
cannot be written, or when ``RULELANG_NO_CACHE`` is set to anything but
an empty string.  At most :data:`MAX_ENTRIES` files are kept: a store beyond
that removes the oldest half.  Only :func:`rulelang.parser.parse_file` uses
the cache; a text an editor holds (the language server) is parsed every time.

The entries are pickles, read only from that folder of the user's own, as
Python's bytecode caches and Lark's table cache are: a rules file is still
just text, and sharing one shares no cache.  (A pickle from anywhere else
must never be put there: loading a pickle can run code.)
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from pathlib import Path

MAX_ENTRIES = 256
PREFIX = "ast-"
SUFFIX = ".pickle"

# The modules whose source decides the tree a text parses to.
_FRONT_FILES = ("grammar.lark", "parser.py", "lalr.py", "builder.py", "builder_examples.py", "ast.py",
                "ast_decls.py", "diagnostics.py", "ast_cache.py")

_state = {}  # "folder": Path | None, "front": bytes (the front end's digest), computed once


def cache_folder() -> Path | None:
    """The folder of rulelang's caches, made if need be; None if it cannot
    be written (then nothing is cached)."""
    if "folder" not in _state:
        _state["folder"] = _writable(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rulelang")
    return _state["folder"]


def _writable(folder: Path) -> Path | None:
    import tempfile
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=folder, delete=True)
        probe.close()
    except OSError:
        return None
    return folder


def _enabled() -> bool:
    return not os.environ.get("RULELANG_NO_CACHE")


def _front_digest() -> bytes:
    """A digest of the front end's own source and of Lark's version (read
    from its files, without importing it)."""
    front = _state.get("front")
    if front is None:
        h = hashlib.sha256(repr(sys.version_info[:2]).encode())
        here = Path(__file__).resolve().parent
        for name in _FRONT_FILES:
            h.update((here / name).read_bytes())
        from importlib.util import find_spec
        spec = find_spec("lark")
        if spec is not None and spec.origin:
            h.update(Path(spec.origin).read_bytes())  # lark/__init__.py: its __version__
        front = _state["front"] = h.digest()
    return front


def _key(name: str, text: str, limits: tuple) -> str:
    h = hashlib.sha256(_front_digest())
    h.update(repr(limits).encode())
    h.update(name.encode("utf-8", "surrogatepass") + b"\0")
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def load(name: str, text: str, limits: tuple):
    """The module parsed from ``text`` (a file named ``name``) before, or
    None if the cache has no sound entry for it."""
    if not _enabled():
        return None
    try:
        folder = cache_folder()
        if folder is None:
            return None
        key = _key(name, text, limits)
        path = folder / f"{PREFIX}{key[:40]}{SUFFIX}"
        with open(path, "rb") as f:
            stored_key, module = pickle.load(f)
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a damaged or foreign entry: parse again (and replace it)
        return None
    from . import ast as A
    if stored_key != key or not isinstance(module, A.Module):
        return None
    return module


def store(name: str, text: str, limits: tuple, module) -> None:
    """Keep ``module``, parsed from ``text``, for the next :func:`load`
    (quietly nothing if it cannot be written)."""
    if not _enabled():
        return
    try:
        folder = cache_folder()
        if folder is None:
            return
        key = _key(name, text, limits)
        data = pickle.dumps((key, module), protocol=pickle.HIGHEST_PROTOCOL)
        path = folder / f"{PREFIX}{key[:40]}{SUFFIX}"
        temp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        temp.write_bytes(data)
        os.replace(temp, path)  # whole or not at all, even with two runs at once
        _prune(folder)
    except (OSError, pickle.PicklingError, RecursionError, ValueError):
        return


def _prune(folder: Path) -> None:
    """Past MAX_ENTRIES entries, remove the older half (by last change)."""
    entries = [e for e in os.scandir(folder) if e.name.startswith(PREFIX) and e.name.endswith(SUFFIX)]
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort(key=lambda e: e.stat().st_mtime_ns)
    for e in entries[:len(entries) - MAX_ENTRIES // 2]:
        try:
            os.remove(e.path)
        except OSError:
            pass


__all__ = ["cache_folder", "load", "store", "MAX_ENTRIES"]
