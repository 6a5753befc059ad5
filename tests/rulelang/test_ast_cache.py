"""The parse cache (rulelang.ast_cache): a file read again unchanged is not
parsed again, and is read back exactly as it was parsed; anything that
could change the tree (the text, the name, the limits) parses it again; a
damaged entry, a folder that cannot be written or RULELANG_NO_CACHE
leave parsing as it was."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rulelang import ast_cache, lalr, parser
from rulelang.visit import walk

ROOT = Path(__file__).resolve().parents[2]
HENS = ROOT / "games" / "hens.rules"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache folder of the test's own; the number of parses made."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("RULELANG_NO_CACHE", raising=False)
    monkeypatch.setattr(ast_cache, "_state", {})
    parses = []
    real = lalr.parse_text

    def counting(text, file, start):
        parses.append(file)
        return real(text, file, start)
    monkeypatch.setattr(lalr, "parse_text", counting)
    return tmp_path / "cache" / "rulelang", parses


def entries(folder: Path) -> list:
    return sorted(p.name for p in folder.glob("ast-*.pickle")) if folder.is_dir() else []


def spans(module) -> list:
    # the nodes compare without their spans: compare those on their own
    return [(type(x).__name__, x.span) for x in walk(module) if hasattr(x, "span")]


def test_a_file_read_again_is_not_parsed_again_and_comes_back_whole(cache, tmp_path):
    folder, parses = cache
    path = tmp_path / "hens.rules"
    path.write_text(HENS.read_text(encoding="utf-8"), encoding="utf-8")
    first, diags, text = parser.parse_file(path)
    assert diags == [] and parses == [str(path)] and len(entries(folder)) == 1
    again, diags2, text2 = parser.parse_file(path)
    assert parses == [str(path)]  # read from the cache
    assert diags2 == [] and text2 == text
    assert again == first and spans(again) == spans(first) and str(again.file) == str(path)
    fresh, _ = lalr.parse_text(text, str(path), "start")
    assert again == fresh and spans(again) == spans(fresh)


def test_a_changed_file_or_another_name_is_parsed_again(cache, tmp_path):
    folder, parses = cache
    path = tmp_path / "g.rules"
    text = HENS.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    parser.parse_file(path)
    path.write_text(text.replace('game "Hens"', 'game "Hens, at home"'), encoding="utf-8")
    module, diags, _ = parser.parse_file(path)
    assert len(parses) == 2 and diags == [] and module.items[0].title == "Hens, at home"
    other = tmp_path / "copy.rules"  # the same text under another name: its spans name it
    other.write_text(text, encoding="utf-8")
    module, _, _ = parser.parse_file(other)
    assert len(parses) == 3 and module.span.file == str(other)
    assert len(entries(folder)) == 3


def test_a_file_with_errors_is_never_stored(cache, tmp_path):
    folder, parses = cache
    path = tmp_path / "bad.rules"
    path.write_text('game "x"\nplayers 2\nzone deck pile\n', encoding="utf-8")
    for _ in range(2):
        module, diags, _ = parser.parse_file(path)
        assert module is None and diags and diags[0].severity == "error"
    assert len(parses) == 2 and entries(folder) == []


def test_the_limits_are_part_of_the_key(cache, tmp_path, monkeypatch):
    _, parses = cache
    path = tmp_path / "g.rules"
    path.write_text(HENS.read_text(encoding="utf-8"), encoding="utf-8")
    assert parser.parse_file(path)[1] == []
    monkeypatch.setattr(parser, "MAX_TOKENS", 60)  # a parse that succeeded before must fail now
    module, diags, _ = parser.parse_file(path)
    assert module is None and [d.code for d in diags] == ["RL004"] and len(parses) == 2


def test_a_damaged_entry_is_parsed_again_and_replaced(cache, tmp_path):
    folder, parses = cache
    path = tmp_path / "g.rules"
    path.write_text(HENS.read_text(encoding="utf-8"), encoding="utf-8")
    first, _, _ = parser.parse_file(path)
    (entry,) = folder.glob("ast-*.pickle")
    for damage in (entry.read_bytes()[:1000], b"not a pickle at all", b""):
        entry.write_bytes(damage)
        module, diags, _ = parser.parse_file(path)
        assert diags == [] and module == first and spans(module) == spans(first)
    assert len(parses) == 4
    parser.parse_file(path)  # the last parse stored a sound entry again
    assert len(parses) == 4


def test_no_cache_when_turned_off_or_the_folder_cannot_be_written(cache, tmp_path, monkeypatch):
    folder, parses = cache
    path = tmp_path / "g.rules"
    path.write_text(HENS.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setenv("RULELANG_NO_CACHE", "1")
    for _ in range(2):
        assert parser.parse_file(path)[1] == []
    assert len(parses) == 2 and entries(folder) == []
    monkeypatch.delenv("RULELANG_NO_CACHE")
    blocker = tmp_path / "a file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # the folder would have to be made inside a file
    monkeypatch.setattr(ast_cache, "_state", {})
    for _ in range(2):
        assert parser.parse_file(path)[1] == []
    assert len(parses) == 4 and ast_cache.cache_folder() is None


def test_the_cache_keeps_a_bounded_number_of_entries(cache, tmp_path, monkeypatch):
    """Past MAX_ENTRIES, a store removes the older half: the newest stay."""
    folder, parses = cache
    monkeypatch.setattr(ast_cache, "MAX_ENTRIES", 4)
    text = HENS.read_text(encoding="utf-8")
    paths = [tmp_path / f"g{i}.rules" for i in range(7)]
    counts = []
    for i, path in enumerate(paths):
        path.write_text(text, encoding="utf-8")
        parser.parse_file(path)
        newest = max(folder.glob("ast-*.pickle"), key=lambda p: p.stat().st_mtime_ns)
        os.utime(newest, ns=((i + 1) * 10**9,) * 2)  # ages apart, whatever the clock's resolution
        counts.append(len(entries(folder)))
    assert counts == [1, 2, 3, 4, 2, 3, 4]
    assert len(parses) == 7
    parser.parse_file(paths[-1])  # among the newest: read back
    assert len(parses) == 7
    parser.parse_file(paths[0])  # among the oldest: removed, parsed again
    assert len(parses) == 8


def test_a_check_of_a_cached_file_does_not_load_lark(tmp_path):
    """What the cache is for: ``rulerun check`` of a file read before
    imports neither Lark nor the builder."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    env.pop("RULELANG_NO_CACHE", None)
    code = ("import sys\nfrom interpreter.cli import main\n"
            f"try:\n    main(['check', {str(HENS)!r}])\nexcept SystemExit:\n    pass\n"
            "print('LOADED', [m for m in ('lark', 'rulelang.lalr', 'rulelang.builder') if m in sys.modules])")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
            for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert "hens.rules: ok" in run.stdout
    assert "LOADED ['lark', 'rulelang.lalr', 'rulelang.builder']" in runs[0].stdout
    assert "LOADED []" in runs[1].stdout


def test_every_module_of_the_front_end_is_in_the_key(cache):
    """A change to any module of the package (here the builder's spans and
    the names a declaration may not take, which live outside the parser)
    changes the digest, and a process that saw the old files stores nothing."""
    import rulelang
    here = Path(rulelang.__file__).parent
    before = ast_cache._front_digest()
    for name in ("syntax_errors.py", "checker/model.py", "grammar.lark"):
        path = here / name
        info = path.stat()
        try:
            os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))
            assert ast_cache._digest_now() != before, name
        finally:
            os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert ast_cache._digest_now() == before


def test_nothing_is_stored_once_the_front_end_changed_under_the_process(cache, tmp_path, monkeypatch):
    folder, parses = cache
    path = tmp_path / "g.rules"
    path.write_text(HENS.read_text(encoding="utf-8"), encoding="utf-8")
    ast_cache._front_digest()  # what this process saw first
    monkeypatch.setattr(ast_cache, "_digest_now", lambda: b"the files changed since")
    assert parser.parse_file(path)[1] == []
    assert entries(folder) == []


def test_the_cache_folder_must_be_the_users_own(tmp_path, monkeypatch):
    monkeypatch.setattr(ast_cache, "_state", {})
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # ignored, as the XDG rules say
    assert ast_cache.cache_folder() == tmp_path / "home" / ".cache" / "rulelang"
    assert not (tmp_path / "relative").exists()
    shared = tmp_path / "shared"
    (shared / "rulelang").mkdir(parents=True)
    os.chmod(shared / "rulelang", 0o777)  # others could put a pickle there
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    monkeypatch.setattr(ast_cache, "_state", {})
    assert ast_cache.cache_folder() is None
    monkeypatch.setattr(ast_cache, "_state", {})
    monkeypatch.delenv("XDG_CACHE_HOME")

    def no_home():
        raise RuntimeError("Could not determine home directory.")
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert ast_cache.cache_folder() is None
    module, diags, _ = parser.parse_file(HENS)  # and the parser's own table cache goes without
    assert module is not None and diags == []


def test_an_entry_that_cannot_be_written_is_no_error(cache, tmp_path, monkeypatch):
    folder, _ = cache
    path = tmp_path / "g.rules"
    path.write_text(HENS.read_text(encoding="utf-8"), encoding="utf-8")

    def unpicklable(*args, **kwargs):
        raise TypeError("cannot pickle this")
    monkeypatch.setattr(ast_cache.pickle, "dumps", unpicklable)
    module, diags, _ = parser.parse_file(path)
    assert module is not None and diags == [] and entries(folder) == []


def test_a_hit_keeps_an_entry_and_a_stale_temporary_file_goes(cache, tmp_path, monkeypatch):
    folder, parses = cache
    monkeypatch.setattr(ast_cache, "MAX_ENTRIES", 4)
    text = HENS.read_text(encoding="utf-8")
    paths = [tmp_path / f"g{i}.rules" for i in range(5)]
    for i, path in enumerate(paths[:4]):
        path.write_text(text, encoding="utf-8")
        parser.parse_file(path)
        newest = max(folder.glob("ast-*.pickle"), key=lambda p: p.stat().st_mtime_ns)
        os.utime(newest, ns=((i + 1) * 10**9,) * 2)
    left = folder / "ast-left.pickle.1.2.tmp"  # a run stopped while writing it
    left.write_bytes(b"half")
    os.utime(left, ns=(10**9, 10**9))
    parser.parse_file(paths[0])  # the oldest entry is read again: now the most recently used
    assert len(parses) == 4
    paths[4].write_text(text, encoding="utf-8")
    parser.parse_file(paths[4])  # a fifth entry: the three least recently used go
    assert not left.exists() and len(entries(folder)) == 2
    parser.parse_file(paths[0])
    assert len(parses) == 5  # kept
    parser.parse_file(paths[1])
    assert len(parses) == 6  # removed

