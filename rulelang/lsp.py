"""The language server for rules files (``rulerun lsp``, over stdio; pygls,
the optional extra ``lsp``).

It answers from :class:`rulelang.symbols.SymbolIndex`, built again from a
document's text at each change (a few tens of milliseconds on the largest
game):

- diagnostics: the checker's, with their codes, as the file is edited;
- hover on a declared name: its kind, its declaring line and its text;
- completion: the declared names, the local names of the declaration
  around the cursor, the keywords and the built-in functions;
- go to definition, find references (in the open file), document symbols;
- rename of a declared name (every use in the file) or of a local one (a
  parameter, ``let`` or loop variable: every use in its declaration), and
  nothing else (a word in a string or a comment is not a use).
"""

from __future__ import annotations

try:
    from lsprotocol import types as T
    from pygls.lsp.server import LanguageServer
except ImportError as err:  # pragma: no cover - the extra is missing
    raise ImportError("the language server needs pygls: pip install 'rulelang[lsp]'") from err

from . import ast as A
from .checker.model import RESERVED
from .parser import KEYWORDS
from .symbols import SymbolIndex

server = LanguageServer("rulelang", "0.1.0")
_indexes = {}  # uri -> SymbolIndex of the text last seen

_SYMBOL_KIND = {"zone": T.SymbolKind.Array, "action": T.SymbolKind.Method, "function": T.SymbolKind.Function,
                "enum": T.SymbolKind.Enum, "attribute": T.SymbolKind.Field, "param": T.SymbolKind.Constant,
                "option": T.SymbolKind.Boolean}


def _path(uri: str) -> str:
    from pygls.uris import to_fs_path
    return to_fs_path(uri) or uri


def _index(uri: str) -> SymbolIndex:
    index = _indexes.get(uri)
    if index is None:
        doc = server.workspace.get_text_document(uri)
        index = _indexes[uri] = SymbolIndex(doc.source, _path(uri))
    return index


def _refresh(uri: str) -> None:
    doc = server.workspace.get_text_document(uri)
    index = _indexes[uri] = SymbolIndex(doc.source, _path(uri))
    here = _path(uri)
    diagnostics = []
    for d in index.diagnostics:
        span = d.span
        if span.file != here:  # a problem in a file this one extends: shown at its first line
            start, end = T.Position(0, 0), T.Position(0, 1)
            message = f"{span}: {d.message}"
        else:
            start = T.Position(max(span.line - 1, 0), max(span.column - 1, 0))
            end_line = max(span.end_line - 1, start.line)
            end = T.Position(end_line, max(span.end_column - 1, start.character + 1) if end_line == start.line
                             else max(span.end_column - 1, 0))
            message = d.message
        diagnostics.append(T.Diagnostic(
            range=T.Range(start, end), message=message, code=d.code, source="rulelang",
            severity=T.DiagnosticSeverity.Error if d.severity == "error" else T.DiagnosticSeverity.Warning))
    server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls, params: T.DidOpenTextDocumentParams):
    _refresh(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls, params: T.DidChangeTextDocumentParams):
    _refresh(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls, params: T.DidSaveTextDocumentParams):
    _refresh(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls, params: T.DidCloseTextDocumentParams):
    _indexes.pop(params.text_document.uri, None)


def _location(decl) -> T.Location:
    import os

    from pygls.uris import from_fs_path
    span = decl.span
    start = T.Position(span.line - 1, span.column - 1)
    return T.Location(uri=from_fs_path(os.path.abspath(span.file)),
                      range=T.Range(start, T.Position(span.line - 1, span.column - 1 + len(decl.name))))


@server.feature(T.TEXT_DOCUMENT_HOVER)
def hover(ls, params: T.HoverParams):
    index = _index(params.text_document.uri)
    name = index.name_at(params.position.line, params.position.character)
    decl = index.declaration(name) if name else None
    if decl is None:
        return None
    text = f"**{decl.kind}** `{decl.name}`\n\n```rulelang\n{decl.line}\n```"
    if decl.kind == "card":  # its attributes, named
        attrs = [a for it in index.module.items if type(it).__name__ == "Attrs" for a in it.attrs]
        row = next((r for it in index.module.items if type(it).__name__ == "Cards" for r in it.rows
                    if r.name == decl.name), None)
        if row is not None and attrs:
            text += "\n\n" + ", ".join(f"{a.name} {_value(v)}" for a, v in zip(attrs, row.values))
    if decl.doc:
        text += f"\n\n{decl.doc}"
    if decl.span.file != index.path:
        text += f"\n\n(declared in {decl.span.file})"
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text))


def _value(v) -> str:
    """A card table's value as written."""
    if v.kind == "set":
        return "{" + ", ".join(v.value) + "}"
    return str(v.value)


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
def definition(ls, params: T.DefinitionParams):
    index = _index(params.text_document.uri)
    name = index.name_at(params.position.line, params.position.character)
    decl = index.declaration(name) if name else None
    return _location(decl) if decl is not None else None


@server.feature(T.TEXT_DOCUMENT_REFERENCES)
def references(ls, params: T.ReferenceParams):
    """The uses in this file and, for a variant, in each file it extends."""
    import os

    from pygls.uris import from_fs_path
    uri = params.text_document.uri
    index = _index(uri)
    name = index.name_at(params.position.line, params.position.character)
    if not name or index.declaration(name) is None:
        return []
    out = [T.Location(uri=uri, range=T.Range(T.Position(ln, a), T.Position(ln, b))) for ln, a, b in index.uses(name)]
    for file, text in index.sources.files.items():
        if file == index.path:
            continue
        other = SymbolIndex(text, file)
        other_uri = from_fs_path(os.path.abspath(file))
        out += [T.Location(uri=other_uri, range=T.Range(T.Position(ln, a), T.Position(ln, b)))
                for ln, a, b in other.uses(name)]
    return out


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def symbols(ls, params: T.DocumentSymbolParams):
    index = _index(params.text_document.uri)
    out = []
    for decl in index.declarations.values():
        if decl.span.file != index.path or decl.kind.startswith("member"):
            continue
        where = _location(decl).range
        out.append(T.DocumentSymbol(name=decl.name, detail=decl.kind, range=where, selection_range=where,
                                    kind=_SYMBOL_KIND.get(decl.kind, T.SymbolKind.Variable)))
    # the file's examples (docs/language.md, 2.16), by their text
    for it in getattr(index.module, "items", ()):
        if isinstance(it, A.Override):
            it = it.item
        if isinstance(it, A.Example) and it.span.file == index.path:
            start = T.Position(it.span.line - 1, it.span.column - 1)
            where = T.Range(start, T.Position(it.span.line - 1, it.span.column - 1 + len("example")))
            out.append(T.DocumentSymbol(name=f'example "{it.text}"', detail="example", range=where,
                                        selection_range=where, kind=T.SymbolKind.Event))
    return out


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["."]))
def completion(ls, params: T.CompletionParams):
    index = _index(params.text_document.uri)
    items = [T.CompletionItem(label=d.name, detail=d.kind, kind=T.CompletionItemKind.Variable)
             for d in index.declarations.values()]
    items += [T.CompletionItem(label=n, detail="local", kind=T.CompletionItemKind.Variable)
              for n in index.locals_at(params.position.line)]
    items += [T.CompletionItem(label=k, kind=T.CompletionItemKind.Keyword) for k in sorted(KEYWORDS)]
    items += [T.CompletionItem(label=b, kind=T.CompletionItemKind.Function) for b in sorted(set(RESERVED) - KEYWORDS)]
    return T.CompletionList(is_incomplete=False, items=items)


@server.feature(T.TEXT_DOCUMENT_RENAME)
def rename(ls, params: T.RenameParams):
    uri = params.text_document.uri
    index = _index(uri)
    line = params.position.line
    name = index.name_at(line, params.position.character)
    decl = index.declaration(name) if name else None
    local = name is not None and decl is None and name in index.locals_at(line)
    if not local and (decl is None or decl.span.file != index.path or decl.kind == "card"):
        return None
    new = params.new_name
    if not new.isidentifier() or new in KEYWORDS or new in index.declarations or new in RESERVED \
            or new in index.locals_at(line):
        raise ValueError(f'cannot rename "{name}" to "{new}": not a free name (a keyword, a built-in, '
                         "or a name already declared)")
    spans = index.local_uses(name, line) if local else index.uses(name)
    edits = [T.TextEdit(range=T.Range(T.Position(ln, a), T.Position(ln, b)), new_text=new) for ln, a, b in spans]
    return T.WorkspaceEdit(changes={uri: edits})


def main() -> None:
    server.start_io()


__all__ = ["server", "main"]
