"""The language server (rulelang/lsp.py, ``rulerun lsp``), driven through the
protocol over stdio as an editor drives it, on the four games.  Skipped
without pygls (the optional extra "lsp")."""

from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls")
from lsprotocol import types as T  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402

from interpreter.game import load  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = ["emu_ranchers", "fox_in_the_henhouse", "desplumados", "hens"]


async def session(script):
    """Start ``rulerun lsp``, initialise it, run ``script(client, diagnostics)``, shut it down."""
    client = LanguageClient("test", "1")
    diagnostics = {}

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(ls, params):
        diagnostics.setdefault(params.uri, []).append((time.perf_counter(), params.diagnostics))

    await client.start_io(sys.executable, "-m", "interpreter.runner", "lsp")
    try:
        await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(),
                                                         root_uri=from_fs_path(str(ROOT))))
        client.initialized(T.InitializedParams())
        return await script(client, diagnostics)
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()


def open_doc(client, path, text=None):
    uri = from_fs_path(str(path))
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        uri=uri, language_id="rulelang", version=1, text=text if text is not None else path.read_text())))
    return uri


async def wait_for(diagnostics, uri, count=1, timeout=10.0):
    end = time.perf_counter() + timeout
    while len(diagnostics.get(uri, [])) < count:
        if time.perf_counter() > end:
            raise AssertionError(f"no diagnostics for {uri}")
        await asyncio.sleep(0.01)
    return diagnostics[uri][count - 1]


def position_of(text, word, nth=0):
    """(line, column) of the ``nth`` whole-word ``word`` in the code of ``text`` (0-based; comments left out)."""
    def in_code(m):  # not in a comment, nor in a string
        before = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        return "#" not in before and before.count('"') % 2 == 0
    m = [m for m in re.finditer(rf"\b{re.escape(word)}\b", text) if in_code(m)][nth]
    line = text.count("\n", 0, m.start())
    return line, m.start() - (text.rfind("\n", 0, m.start()) + 1)


@pytest.mark.parametrize("game", GAMES)
def test_a_game_opens_clean_and_an_edit_is_diagnosed(game):
    """(How fast: bench/lsp_latency.py; a test does not time.)"""
    path = ROOT / "games" / f"{game}.rules"
    text = path.read_text()

    async def script(client, diagnostics):
        uri = open_doc(client, path)
        _, first = await wait_for(diagnostics, uri)
        assert [d for d in first if d.severity == T.DiagnosticSeverity.Error] == []
        # an edit: an invariant about a zone that does not exist
        broken = text + '\ninvariant size(nosuch_zone_name(0)) >= 0 "a zone that is not declared"\n'
        sent = time.perf_counter()
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[T.TextDocumentContentChangeWholeDocument(text=broken)]))
        at, second = await wait_for(diagnostics, uri, 2)
        return at - sent, second

    _, diags = asyncio.run(session(script))
    assert any(d.code == "RL101" and "nosuch_zone_name" in d.message for d in diags), diags


def test_hover_definition_references_symbols_and_completion():
    path = ROOT / "games" / "hens.rules"
    text = path.read_text()

    async def script(client, diagnostics):
        uri = open_doc(client, path)
        await wait_for(diagnostics, uri)
        doc = T.TextDocumentIdentifier(uri=uri)
        use = position_of(text, "barnyard", 3)
        hover = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=T.Position(*use)))
        definition = await client.text_document_definition_async(T.DefinitionParams(text_document=doc, position=T.Position(*use)))
        refs = await client.text_document_references_async(T.ReferenceParams(
            text_document=doc, position=T.Position(*use), context=T.ReferenceContext(include_declaration=True)))
        symbols = await client.text_document_document_symbol_async(T.DocumentSymbolParams(text_document=doc))
        completion = await client.text_document_completion_async(T.CompletionParams(text_document=doc, position=T.Position(*use)))
        param_hover = await client.text_document_hover_async(
            T.HoverParams(text_document=doc, position=T.Position(*position_of(text, "rounds", 1))))
        card_at = text.index('"Cemani 1"', text.index("play:")) if '"Cemani 1"' in text[text.index("play:"):] \
            else text.index('"Cemani 1"')
        line = text.count("\n", 0, card_at)
        card_hover = await client.text_document_hover_async(T.HoverParams(
            text_document=doc, position=T.Position(line, card_at - text.rfind("\n", 0, card_at) - 1 + 2)))
        return hover, definition, refs, symbols, completion, param_hover, card_hover

    hover, definition, refs, symbols, completion, param_hover, card_hover = asyncio.run(session(script))
    assert "**card** `Cemani 1`" in card_hover.contents.value and "breed Cemani" in card_hover.contents.value
    assert "zone" in hover.contents.value and "zone barnyard: grid 4 by 3" in hover.contents.value
    decl_line, decl_col = position_of(text, "barnyard", 0)
    location = definition if isinstance(definition, T.Location) else definition[0]
    assert (location.range.start.line, location.range.start.character) == (decl_line, decl_col)
    words = [text.split("\n")[r.range.start.line][r.range.start.character:r.range.end.character] for r in refs]
    code = [re.sub(r'"[^"]*"', "", line.split("#", 1)[0]) for line in text.split("\n")]  # hens.rules: no "#" in a string
    assert set(words) == {"barnyard"} and len(refs) == sum(len(re.findall(r"\bbarnyard\b", c)) for c in code)
    names = {s.name for s in symbols}
    assert {"barnyard", "place_hen", "rounds", "first"} <= names
    examples = [s for s in symbols if s.detail == "example"]  # the outline lists the file's examples too
    assert len(examples) == text.count("\nexample ") and \
        'example "goal card 1: no coop scores 3, no flock larger than three costs 2"' in {s.name for s in examples}
    assert all(text.split("\n")[s.range.start.line].startswith("example ") for s in examples)
    labels = {i.label for i in completion.items}
    assert {"barnyard", "place_hen", "zone", "neighbours"} <= labels
    assert "rounds in a game" in param_hover.contents.value


def test_rename_changes_every_use_and_nothing_else(tmp_path):
    path = tmp_path / "last_card.rules"
    text = (ROOT / "examples" / "last_card.rules").read_text()
    path.write_text(text)

    async def script(client, diagnostics):
        uri = open_doc(client, path)
        await wait_for(diagnostics, uri)
        doc = T.TextDocumentIdentifier(uri=uri)
        edit = await client.text_document_rename_async(T.RenameParams(
            text_document=doc, position=T.Position(*position_of(text, "table", 2)), new_name="pile_on_table"))
        refused = None
        try:
            await client.text_document_rename_async(T.RenameParams(
                text_document=doc, position=T.Position(*position_of(text, "table", 2)), new_name="deck"))
        except Exception as e:  # noqa: BLE001 - the server's error response
            refused = str(e)
        return edit, uri, refused

    edit, uri, refused = asyncio.run(session(script))
    lines = text.split("\n")
    for e in sorted(edit.changes[uri], key=lambda e: (e.range.start.line, -e.range.start.character)):
        r = e.range
        line = lines[r.start.line]
        lines[r.start.line] = line[:r.start.character] + e.new_text + line[r.end.character:]
    renamed = "\n".join(lines)
    assert "pile_on_table" in renamed and "# card lower than the one on top of the table" in renamed
    from rulelang import check
    from rulelang.parser import parse
    module, diags = parse(renamed)
    game, cdiags = check(module)
    assert not [d for d in cdiags if d.severity == "error"] and "pile_on_table" in game.zones
    assert "table" not in game.zones
    assert refused is not None and "not a free name" in refused


def test_local_names_complete_and_rename_within_their_declaration(tmp_path):
    """An action's parameter: offered by completion inside the action, and
    renamed in its parameter list, its body and its text ("{c}"), nowhere else."""
    path = ROOT / "games" / "emu_ranchers.rules"
    text = path.read_text()
    lines = text.split("\n")
    grow = next(i for i, ln in enumerate(lines) if ln.startswith("action grow("))

    async def script(client, diagnostics):
        uri = open_doc(client, path)
        await wait_for(diagnostics, uri)
        doc = T.TextDocumentIdentifier(uri=uri)
        completion = await client.text_document_completion_async(
            T.CompletionParams(text_document=doc, position=T.Position(grow + 2, 4)))
        edit = await client.text_document_rename_async(T.RenameParams(
            text_document=doc, position=T.Position(grow + 1, lines[grow + 1].index("c.")), new_name="card_in_hand"))
        return completion, edit, uri

    completion, edit, uri = asyncio.run(session(script))
    local = {i.label for i in completion.items if i.detail == "local"}
    assert local == {"b", "c"}
    renamed = list(lines)
    for e in sorted(edit.changes[uri], key=lambda e: (e.range.start.line, -e.range.start.character)):
        r = e.range
        renamed[r.start.line] = renamed[r.start.line][:r.start.character] + e.new_text + \
            renamed[r.start.line][r.end.character:]
    assert {e.range.start.line for e in edit.changes[uri]} <= set(range(grow, grow + 6))
    new_text = "\n".join(renamed)
    assert '"grow bird {b} with {card_in_hand}"' in new_text
    renamed_file = tmp_path / "emu.rules"
    renamed_file.write_text(new_text)
    a, b = load(path).new_state(1, 2), load(renamed_file).new_state(1, 2)
    assert [a.action_text(x) for x in a.legal_actions()] == [b.action_text(x) for x in b.legal_actions()]


def test_references_reach_into_the_file_a_variant_extends():
    path = ROOT / "games" / "variants" / "hens_larger_grid.rules"
    text = path.read_text()
    base = (ROOT / "games" / "hens.rules").read_text()

    async def script(client, diagnostics):
        uri = open_doc(client, path)
        _, first = await wait_for(diagnostics, uri)
        doc = T.TextDocumentIdentifier(uri=uri)
        refs = await client.text_document_references_async(T.ReferenceParams(
            text_document=doc, position=T.Position(*position_of(text, "barnyard")),
            context=T.ReferenceContext(include_declaration=True)))
        return first, refs

    first, refs = asyncio.run(session(script))
    assert [d for d in first if d.severity == T.DiagnosticSeverity.Error] == []
    files = {Path(r.uri).name for r in refs}
    assert files == {"hens_larger_grid.rules", "hens.rules"}
    in_base = [r for r in refs if r.uri.endswith("/hens.rules")]
    code = [re.sub(r'"[^"]*"', "", line.split("#", 1)[0]) for line in base.split("\n")]
    assert len(in_base) == sum(len(re.findall(r"\bbarnyard\b", c)) for c in code)
