"""A newly opened file's edit cache (the indexer's chunk cache) is filled once its
diagnostics are out, not before: the publish goes first, the fill follows on the loop,
and an edit then reuses the untouched statements."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from cairn.lsp.server import build_server
from cairn.store import init_store

TEXT = "".join(f"ALTER TABLE t{i} ADD COLUMN c{i} integer;\n-- note {i}\n" for i in range(40))


class Sink:
    """The server's stdout: each write, with what the open document's cache held then."""

    def __init__(self) -> None:
        self.writes: list[tuple[bytes, int]] = []
        self.watch: object = None

    def write(self, data: bytes) -> None:
        doc = getattr(self.watch, "doc", None)
        cached = len(doc._chunks.entries) if doc is not None else -1
        self.writes.append((data, cached))

    def close(self) -> None:
        return None


def test_the_publish_goes_out_before_the_cache_is_filled(tmp_path: Path) -> None:
    init_store(tmp_path)
    path = tmp_path / "db" / "001.sql"
    path.parent.mkdir()
    path.write_text(TEXT, "utf-8")
    uri = path.as_uri()
    server = build_server()
    server._settled = True  # no gc.freeze() in the test process
    sink = Sink()
    server.protocol.set_writer(sink)  # type: ignore[arg-type]

    async def scenario() -> None:
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}},
        }
        server.protocol.handle_message(server.protocol.structure_message(initialize))
        server.documents.open(uri, TEXT, 1)
        opened = server.documents.get(uri)
        assert opened is not None and opened.doc is not None
        sink.watch = opened
        for _ in range(500):
            if any(b"publishDiagnostics" in data for data, _ in sink.writes):
                break
            await asyncio.sleep(0.01)
        published = [cached for data, cached in sink.writes if b"publishDiagnostics" in data]
        assert published == [0]  # sent while nothing was cached yet
        await asyncio.sleep(0)  # the loop's next step
        assert opened.doc is not None and len(opened.doc._chunks.entries) >= 40
        before = {s.entity: s for s in opened.doc.symbols}
        opened.doc.edit(0, 26, 0, 28, "cx")
        after = {s.entity: s for s in opened.doc.symbols}
        assert "t0.cx" in after and "t0.c0" not in after
        assert after["t39.c39"] is before["t39.c39"]  # reused, not indexed again

    try:
        asyncio.run(scenario())
    finally:
        server.hub.shutdown()
    body = sink.writes[-1][0].split(b"\r\n\r\n", 1)[1]
    assert json.loads(body)["params"]["uri"] == uri
