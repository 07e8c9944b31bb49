"""Bad input never takes the server down: it answers with an error or nothing and keeps
serving. Each test ends by proving the server still works."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import shutil
from concurrent.futures import Future

import pytest
from lsp_helpers import (
    Sample,
    cairn_diagnostics,
    hover_at,
    initialize,
    make_sample,
    open_doc,
    wait_for,
)
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcMethodNotFound
from pytest_lsp import LanguageClient

MIGRATION = "db/migrations/0042_email_verified.sql"


async def still_serving(client: LanguageClient, sample: Sample) -> None:
    """The server answers a real hover with the real card."""
    uri = sample.uri(MIGRATION)
    if uri not in client.diagnostics:
        open_doc(client, sample.root / MIGRATION, "sql")
    await wait_for(lambda: bool(cairn_diagnostics(client, uri)), client)
    hover = await hover_at(client, uri, 1, 33)
    assert hover is not None and "corporate domains" in hover


def send_raw(client: LanguageClient, body: bytes) -> None:
    """Bytes straight onto the server's stdin, bypassing the client's serializer."""
    assert client._server is not None and client._server.stdin is not None
    client._server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)


async def test_malformed_json_and_invalid_utf8_are_ignored(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root)
    send_raw(client, b'{"jsonrpc": "2.0", "id": 99, "method": "textDocument/hover", "par')
    send_raw(client, b'{"jsonrpc": "2.0", "method": "x", "params": "\xff\xfe\xc3("}')
    send_raw(client, b"\x00\x01binary garbage\x80")
    await still_serving(client, sample)


async def test_unknown_methods_get_method_not_found(client: LanguageClient, sample: Sample) -> None:
    await initialize(client, sample.root)
    with pytest.raises(JsonRpcMethodNotFound):
        await client.protocol.send_request_async("cairn/doesNotExist", {"x": 1})
    client.protocol.notify("cairn/unknownNotification", {"x": 1})
    await still_serving(client, sample)


async def test_requests_with_wrong_params_get_an_error(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root)
    # The client would refuse to serialise this, so it goes out raw; the server's answer
    # is routed to a future registered under the request's id.
    answer: Future[object] = Future()
    client.protocol._request_futures["bad-1"] = answer
    send_raw(
        client,
        b'{"jsonrpc": "2.0", "id": "bad-1", "method": "textDocument/hover",'
        b' "params": {"textDocument": {"uri": 42}, "position": "here"}}',
    )
    with pytest.raises(JsonRpcException, match="invalid params for textDocument/hover"):
        await asyncio.wait_for(asyncio.wrap_future(answer), 15)
    # A hover on a document that was never opened: nothing, not an error.
    none = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=sample.uri("nowhere.sql")),
            position=types.Position(line=0, character=0),
        )
    )
    assert none is None
    await still_serving(client, sample)


async def test_binary_lone_surrogates_and_huge_files_are_skipped(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root, options={"debounceMs": 20, "maxFileBytes": 100_000})
    binary = sample.root / "db" / "dump.sql"
    binary.write_bytes(b"CREATE TABLE users (email_verified int);\x00\x01\x02" * 10)
    huge = sample.root / "db" / "huge.sql"
    huge.write_text("ALTER TABLE users ADD COLUMN email_verified boolean;\n" * 5000)
    odd = sample.root / "db" / "odd.sql"
    odd.write_text("-- x\nALTER TABLE users ADD COLUMN email_verified boolean;\n")
    uris = []
    for path in (binary, huge):
        uri = path.as_uri()
        uris.append(uri)
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri,
                    language_id="sql",
                    version=1,
                    text=path.read_bytes().decode("utf-8", "replace"),
                )
            )
        )
    # A lone surrogate (what a client sends for undecodable bytes) before the column.
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=odd.as_uri(),
                language_id="sql",
                version=1,
                text="-- \ud800\nALTER TABLE users ADD COLUMN email_verified boolean;\n",
            )
        )
    )
    await wait_for(lambda: all(u in client.diagnostics for u in [*uris, odd.as_uri()]), client)
    assert [list(client.diagnostics[u]) for u in uris] == [[], []]
    [diag] = client.diagnostics[odd.as_uri()]
    assert diag.range.start.line == 1 and diag.data["entity"] == "users.email_verified"
    assert any("larger than maxFileBytes" in m.message for m in client.log_messages)
    await still_serving(client, sample)


async def test_edits_faster_than_analysis_publish_only_the_newest_version(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root, options={"debounceMs": 50})
    path = sample.root / "db" / "typing.sql"
    path.write_text("")
    uri = open_doc(client, path, "sql")
    text = "ALTER TABLE users ADD COLUMN email_verified boolean;"
    for version, ch in enumerate(text, start=2):
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line=0, character=version - 2),
                            end=types.Position(line=0, character=version - 2),
                        ),
                        text=ch,
                    )
                ],
            )
        )
    final = len(text) + 1
    versions: list[int | None] = []

    async def on_publish() -> None:
        while not cairn_diagnostics(client, uri):
            params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            if params.uri == uri:
                versions.append(params.version)

    await asyncio.wait_for(on_publish(), 15)
    [diag] = cairn_diagnostics(client, uri)
    assert versions[-1] == final
    assert diag.range == types.Range(
        start=types.Position(line=0, character=29), end=types.Position(line=0, character=43)
    )
    await still_serving(client, sample)


async def test_a_deleted_cairn_folder_clears_diagnostics_and_keeps_serving(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root, options={"debounceMs": 20, "pollIntervalMs": 250})
    uri = open_doc(client, sample.root / MIGRATION, "sql")
    await still_serving(client, sample)  # past the start-up bootstrap: the server has the document
    shutil.rmtree(sample.root / ".cairn")
    await wait_for(lambda: cairn_diagnostics(client, uri) == [], client)
    with pytest.raises(JsonRpcException, match="does not exist"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="cairn.log",
                arguments=[{"entity": "users.email", "type": "add", "reason": "x"}],
            )
        )
    # `git checkout .cairn` brings it back: the server recovers by itself.
    restored = make_sample(sample.root.parent / "restored")
    shutil.copytree(restored.root / ".cairn", sample.root / ".cairn")
    await wait_for(lambda: bool(cairn_diagnostics(client, uri)), client)


async def test_a_locked_log_refuses_writes_quickly_and_reads_go_on(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root)
    await still_serving(client, sample)
    before = (sample.root / ".cairn" / "decisions.jsonl").read_text()
    fd = os.open(sample.root / ".cairn" / "lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(JsonRpcException, match="another process is writing"):
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(
                    command="cairn.log",
                    arguments=[{"entity": "users.email", "type": "add", "reason": "x"}],
                )
            )
        await still_serving(client, sample)
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    assert (sample.root / ".cairn" / "decisions.jsonl").read_text() == before
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="cairn.log",
            arguments=[{"entity": "users.email", "type": "add", "reason": "Now it works."}],
        )
    )
    assert (
        json.loads((sample.root / ".cairn" / "decisions.jsonl").read_text().splitlines()[-1])["id"]
        == result["id"]
    )


async def test_a_log_growing_behind_another_writers_lock_still_gets_a_hover(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root, options={"debounceMs": 20, "pollIntervalMs": 0})
    await still_serving(client, sample)
    log = sample.root / ".cairn" / "decisions.jsonl"
    fd = os.open(sample.root / ".cairn" / "lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        # What `git pull` does to the log while an import holds the lock: it grows.
        with log.open("a") as fh:
            fh.write(log.read_text().splitlines()[-1] + "\n")  # a duplicate line: harmless
        hover = await asyncio.wait_for(hover_at(client, sample.uri(MIGRATION), 1, 33), 15)
        # The store catches readers up without the write lock (since df6cb26), so the
        # card comes back while the other process still holds it.
        assert hover is not None
        assert "Verification mails bounced" in hover
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    await still_serving(client, sample)


async def test_a_request_nested_200000_deep_is_dropped_and_serving_goes_on(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root)
    depth = 200_000  # far past what Python's JSON reader can nest (RecursionError)
    params = b"[" * depth + b"]" * depth
    send_raw(
        client, b'{"jsonrpc":"2.0","id":77,"method":"textDocument/hover","params":%s}' % params
    )
    send_raw(client, b'{"jsonrpc":"2.0","method":"$/x","params":{"a":%s}}' % params)
    await still_serving(client, sample)
    await wait_for(lambda: any("nested deeper" in m.message for m in client.log_messages), client)
