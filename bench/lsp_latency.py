"""How long the language server takes to publish diagnostics after an edit,
on each game (median of repeats), driven over stdio as an editor drives it.

    python3 bench/lsp_latency.py            # needs pygls (the "lsp" extra)
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "rulelang"))

from lsprotocol import types as T  # noqa: E402

import test_lsp as t  # noqa: E402 - the test's client session


def main() -> int:
    for path in sorted((ROOT / "games").glob("*.rules")):
        text = path.read_text()

        async def script(client, diagnostics, text=text, path=path):
            uri = t.open_doc(client, path)
            await t.wait_for(diagnostics, uri)
            times = []
            for k in range(2, 12):
                edited = text + f"\n# edit {k}\n"
                sent = time.perf_counter()
                client.text_document_did_change(T.DidChangeTextDocumentParams(
                    text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=k),
                    content_changes=[T.TextDocumentContentChangeWholeDocument(text=edited)]))
                at, _ = await t.wait_for(diagnostics, uri, k)
                times.append(at - sent)
            return times

        times = asyncio.run(t.session(script))
        print(f"{path.name:28} {len(text):6} chars  diagnostics after an edit: median "
              f"{1000 * statistics.median(times):.0f} ms, max {1000 * max(times):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
