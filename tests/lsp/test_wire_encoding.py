"""What the server writes: orjson-encoded frames whose Content-Length counts bytes, the
same JSON pygls' encoder would write, and pygls' own path for what orjson refuses."""

from __future__ import annotations

import json
from typing import Any

from lsprotocol import types

from cairn.lsp.server import build_server


class Sink:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def close(self) -> None:
        return None


def frames(raw: bytes) -> list[Any]:
    """Split header/body frames, checking each Content-Length against the bytes."""
    out = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        body, raw = rest[:length], rest[length:]
        assert len(body) == length
        out.append(json.loads(body.decode("utf-8")))
    return out


def sent(message: Any) -> tuple[Any, bytes]:
    """The one frame written for `message`: parsed, and as bytes."""
    server = build_server()
    sink = Sink()
    server.protocol.set_writer(sink)  # type: ignore[arg-type]
    server.protocol._send_data(message)
    [frame] = frames(sink.data)
    return frame, sink.data


def test_a_publish_is_the_json_pygls_would_write_with_a_byte_length() -> None:
    diagnostic = types.Diagnostic(
        range=types.Range(
            start=types.Position(line=3, character=1), end=types.Position(line=3, character=9)
        ),
        message="users.émail was reverted on 2026-03-05 by maría — “quoted” ✓",
        severity=types.DiagnosticSeverity.Warning,
        code="abc123",
        source="cairn",
        data={"entity": "users.émail", "verdict_ids": ["abc123"]},
    )
    message = types.PublishDiagnosticsNotification(
        params=types.PublishDiagnosticsParams(
            uri="file:///tmp/ü.sql", version=2, diagnostics=[diagnostic]
        )
    )
    server = build_server()
    expected = json.loads(
        json.dumps(message, default=server.protocol._serialize_message)  # pygls' encoding
    )
    frame, raw = sent(message)
    assert frame == expected
    assert expected["params"]["diagnostics"][0]["message"].endswith("✓")
    assert "✓".encode() in raw  # orjson's UTF-8, not json's \\u escapes


def test_what_orjson_refuses_goes_the_pygls_way() -> None:
    odd = {"jsonrpc": "2.0", "method": "x", "params": {1: "int key", "big": 2**70}}
    frame, raw = sent(odd)
    assert frame == {"jsonrpc": "2.0", "method": "x", "params": {"1": "int key", "big": 2**70}}
    assert b'"jsonrpc": "2.0", ' in raw  # json.dumps' separators: pygls wrote it
