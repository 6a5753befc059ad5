"""The parse cache: a rules file parsed once is read back, unchanged, from
a pickle of its AST, as Python reads a module's compiled bytecode back
instead of compiling it again.

Parsing (Lark, the post-lexer, the builder) is most of the time that
``rulerun check`` spends on a game, and loading Lark a good part of the rest:
a cached file needs neither.  An entry is found by a digest of all that
decides the tree: the file's name (spans carry it) and text, the front
end's limits, every module of the front end (the grammar, the builder,
the AST classes, the names a declaration may not take...: each one's
size and time of last change, as for Python's bytecode) and Lark's
version.  Change any and the digest changes: the file is parsed
again, and only a parse with no diagnostics is stored.  An entry that
cannot be read back whole is ignored.

Where: ``$XDG_CACHE_HOME/rulelang`` (default ``~/.cache/rulelang``; a
relative ``XDG_CACHE_HOME`` is ignored), beside Lark's own cache of the
parse tables.  Nothing is cached when that folder cannot be written or is
not the user's own (another owner, or writable by others), or when
``RULELANG_NO_CACHE`` is set to anything but an empty string.  At most
:data:`MAX_ENTRIES` files are kept: a store beyond that removes the less
recently used half.  Only :func:`rulelang.parser.parse_file` uses the
cache; a text an editor holds (the language server) is parsed every time.

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
import threading
from pathlib import Path

MAX_ENTRIES = 256
PREFIX = "ast-"
SUFFIX = ".pickle"
STALE_TEMP_S = 3600  # a temporary file this old was left by a run that stopped while writing it

_state = {}  # "folder": Path | None, "front": bytes (the front end's digest), computed once


def cache_folder() -> Path | None:
    """The folder of rulelang's caches, made if need be; None (nothing is
    cached) if it cannot be written or is not the user's own: it must belong
    to the user and be writable by nobody else, as it holds pickles."""
    if "folder" not in _state:
        _state["folder"] = _own_folder()
    return _state["folder"]


def _own_folder() -> Path | None:
    import tempfile
    base = os.environ.get("XDG_CACHE_HOME", "")
    try:
        # a relative XDG_CACHE_HOME is to be ignored (the XDG base directory rules)
        root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
        folder = root / "rulelang"
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if hasattr(os, "getuid"):
            info = folder.stat()
            if info.st_uid != os.getuid() or info.st_mode & 0o022:
                return None
        probe = tempfile.NamedTemporaryFile(dir=folder, delete=True)
        probe.close()
    except (OSError, RuntimeError, KeyError):  # cannot be written; no home folder (RuntimeError)
        return None
    return folder


def _enabled() -> bool:
    return not os.environ.get("RULELANG_NO_CACHE")


def _front_digest() -> bytes:
    """A digest of the front end's own files (the grammar and every module
    of this package) and of Lark's version, as this process first saw them."""
    front = _state.get("front")
    if front is None:
        front = _state["front"] = _digest_now()
    return front


def _digest_now() -> bytes:
    """The digest of the front end's files as they are now on disk: each
    one's name, size and time of last change, as Python tells a stale
    bytecode cache (and Lark's version, read from its files without
    importing it)."""
    h = hashlib.sha256(repr(sys.version_info[:2]).encode())
    here = Path(__file__).resolve().parent
    folders = [here] + sorted(p for p in here.iterdir() if p.is_dir() and (p / "__init__.py").is_file())
    for folder in folders:
        for e in sorted(os.scandir(folder), key=lambda e: e.name):
            if e.name.endswith(".py") or e.name.endswith(".lark"):
                info = e.stat()
                h.update(f"{folder.name}/{e.name} {info.st_size} {info.st_mtime_ns}\n".encode())
    from importlib.util import find_spec
    spec = find_spec("lark")
    if spec is not None and spec.origin:
        h.update(Path(spec.origin).read_bytes())  # lark/__init__.py: its __version__
    return h.digest()


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
    try:
        os.utime(path)  # the entries are pruned least recently used first
    except OSError:
        pass
    return module


def store(name: str, text: str, limits: tuple, module) -> None:
    """Keep ``module``, parsed from ``text``, for the next :func:`load`
    (quietly nothing if it cannot be written).  Nothing is kept if the
    front end's files changed since this process first read them: the code
    that parsed ``module`` may then be neither the old files nor the new."""
    if not _enabled():
        return
    try:
        folder = cache_folder()
        if folder is None or _digest_now() != _front_digest():
            return
        key = _key(name, text, limits)
        data = pickle.dumps((key, module), protocol=pickle.HIGHEST_PROTOCOL)
        path = folder / f"{PREFIX}{key[:40]}{SUFFIX}"
        temp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        temp.write_bytes(data)
        os.replace(temp, path)  # whole or not at all, even with two runs at once
        _prune(folder)
    except Exception:  # noqa: BLE001 - a cache that cannot be written is no cache, never an error
        return


def _prune(folder: Path) -> None:
    """Past MAX_ENTRIES entries, remove the less recently used half; and any
    temporary file a run left behind."""
    import time
    entries, gone = [], []
    old = time.time() - STALE_TEMP_S
    for e in os.scandir(folder):
        if not e.name.startswith(PREFIX):
            continue
        if e.name.endswith(SUFFIX):
            entries.append(e)
        elif e.name.endswith(".tmp") and e.stat().st_mtime < old:
            gone.append(e)
    if len(entries) > MAX_ENTRIES:
        entries.sort(key=lambda e: e.stat().st_mtime_ns)
        gone += entries[:len(entries) - MAX_ENTRIES // 2]
    for e in gone:
        try:
            os.remove(e.path)
        except OSError:
            pass


__all__ = ["cache_folder", "load", "store", "MAX_ENTRIES"]
