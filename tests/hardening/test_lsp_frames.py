"""Item 4: one header cannot kill or deafen the language server. Frames over the limit
are skipped without being read into memory, logged, and the server keeps answering
(e2e against the real `cairn serve`)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.lsp.frames import SKIPPED_FRAME, FrameReader
from cairn.lsp.settings import Settings

from .lsp_raw import REASON, RawServer, frame, make_project


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RawServer]:
    running = RawServer(make_project(tmp_path / "shop"))
    yield running
    running.close()


def test_the_hover_works_to_begin_with(server: RawServer) -> None:
    assert REASON in server.hover()


@pytest.mark.parametrize(
    "header",
    [
        b"Content-Length: 99999999999\r\n\r\n",  # MemoryError before
        b"Content-Length: 1000000000\r\n\r\n",  # deaf before: waited for 10^9 bytes
        b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n",  # int() refuses 5,000 digits
        b"Content-Length: 67108865\r\n\r\n{}",  # one byte over the default limit
    ],
    ids=["1e11", "1e9", "5000-digits", "limit+1"],
)
def test_an_absurd_length_is_refused_and_the_server_keeps_serving(
    server: RawServer, header: bytes
) -> None:
    server.send(header)
    assert REASON in server.hover()
    assert REASON in server.hover()
    assert "refused an LSP message" in server.logged()
    assert server.proc.poll() is None
    err = server.close()
    assert "MemoryError" not in err and "Traceback" not in err


def test_a_body_shorter_than_declared_does_not_swallow_what_follows(server: RawServer) -> None:
    server.send(b'Content-Length: 5000\r\n\r\n{"jsonrpc": "2.0", "method": "x"}')
    assert REASON in server.hover()
    assert "ended after" in server.logged()


def test_garbage_before_a_header_and_an_endless_line_are_survived(server: RawServer) -> None:
    server.send(b"garbage without a newline " * 1000)  # 26 KB, longer than any header
    server.send(b"\r\nnot a header\r\n")
    assert REASON in server.hover()


def test_the_limit_is_a_setting(tmp_path: Path) -> None:
    running = RawServer(make_project(tmp_path / "shop"), {"maxMessageBytes": 100_000})
    try:
        body = b'{"jsonrpc":"2.0","method":"x","params":{"pad":"' + b"x" * 200_000 + b'"}}'
        running.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        assert REASON in running.hover()
        assert "the limit is 100,000 bytes" in running.logged()
    finally:
        running.close()
    assert Settings.from_options({"maxMessageBytes": 10})[1]  # too small: kept the default
    assert Settings().max_message_bytes == 64 * 1024 * 1024


def test_the_reader_never_holds_more_than_a_chunk_of_a_refused_body() -> None:
    """1 GB streamed through a refused frame: the buffer stays bounded."""
    sent = 0
    total = 1024**3
    peak = 0
    follow = frame({"jsonrpc": "2.0", "method": "after"})
    reports: list[str] = []

    async def read_some(n: int) -> bytes:
        nonlocal sent, peak
        peak = max(peak, len(reader._buffer))
        if sent == 0:
            sent = 1
            return b"Content-Length: %d\r\n\r\n" % total
        if sent < total:
            size = min(n, total - sent + 1)
            sent += size
            return b"x" * size
        if sent == total + 1:
            sent += 1
            return follow
        return b""

    reader = FrameReader(read_some, limit=lambda: 1024 * 1024, report=reports.append)

    async def drive() -> list[bytes]:
        got = [await reader.readline(), await reader.readline()]
        got.append(await reader.readexactly(len(SKIPPED_FRAME)))
        got.append(await reader.readline())
        return got

    header, blank, body, after = asyncio.run(drive())
    assert header == b"Content-Length: %d\r\n" % len(SKIPPED_FRAME)
    assert blank == b"\r\n" and body == SKIPPED_FRAME
    assert after.startswith(b"Content-Length:")
    assert peak <= 2 * 64 * 1024
    assert reports and "1,073,741,824 bytes" in reports[0]


def test_a_client_that_never_reads_stderr_is_still_answered(server: RawServer) -> None:
    """Fuzz finding (3): the server logs bad input on stderr (a traceback of a few KB
    for a message pygls cannot structure); with nobody reading stderr the pipe filled,
    the server blocked inside a log call and answered nothing more. RawServer never
    reads stderr until it closes, like a careless client."""
    bad = [
        frame({"jsonrpc": "2.0", "method": "textDocument/completion", "params": {}}),
        frame({"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles", "params": []}),
        b"Content-Length: 20\r\n\r\n" + b"not json at all!!!!!",
    ]
    for _ in range(150):
        server.send(b"".join(bad))
    assert REASON in server.hover()
    assert server.proc.poll() is None


def test_a_message_orjson_refuses_is_read_by_the_stdlib_and_serving_goes_on(
    server: RawServer,
) -> None:
    """`frames.decode` hands what orjson refuses (a NaN) to the stdlib, as pygls would
    read it; the notification is ignored and the server keeps answering."""
    body = b'{"jsonrpc":"2.0","method":"$/cairn/nothing","params":{"v":NaN}}'
    server.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    assert REASON in server.hover()
