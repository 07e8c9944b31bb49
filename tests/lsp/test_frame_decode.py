"""`frames.decode`: a frame's body read as pygls' loop reads it (`json.loads` with
pygls' `structure_message` as the object hook), through orjson when the result is the
same, and through the stdlib whenever orjson would read it differently."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from cairn.lsp.frames import decode
from cairn.lsp.server import build_server


def _hook(calls: list[list[str]]) -> Any:
    """Structure an object holding `jsonrpc` (as pygls does), and record every call."""

    def hook(obj: dict[str, Any]) -> Any:
        calls.append(sorted(obj))
        return ("message", obj) if "jsonrpc" in obj else obj

    return hook


def _same_as_stdlib(body: bytes) -> None:
    expected_calls: list[list[str]] = []
    expected = json.loads(body, object_hook=_hook(expected_calls))
    got_calls: list[list[str]] = []
    got = decode(body, _hook(got_calls))
    assert got == expected
    assert type(got) is type(expected)
    # the hook structured the same objects (the others it returns unchanged)
    assert [c for c in got_calls if "jsonrpc" in c] == [c for c in expected_calls if "jsonrpc" in c]


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(["jsonrpc", "id", "text", "params", "x"]), children)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_any_message_decodes_as_the_stdlib_decodes_it(value: Any) -> None:
    _same_as_stdlib(json.dumps({"jsonrpc": "2.0", "method": "m", "params": value}).encode())
    _same_as_stdlib(json.dumps(value).encode())


def test_what_orjson_reads_differently_takes_the_stdlib_path() -> None:
    for body in [
        b'{"jsonrpc":"2.0","method":"m","params":{"n":123456789012345678901234567890}}',
        b'{"jsonrpc":"2.0","method":"m","params":{"t":"\\ud800"}}',  # a lone surrogate
        b'{"jsonrpc":"2.0","method":"m","params":{"v":NaN}}',
        b'\xef\xbb\xbf{"jsonrpc":"2.0","method":"m"}',  # a BOM
        b'{"jsonrpc":"2.0","method":"m","params":{"inner":{"jsonrpc":"2.0"}}}',
        b'{"jsonrpc":"2.0","method":"m","params":{"xs":[' + b",".join([b"1"] * 5000) + b"]}}",
        b"[1, 2]",
    ]:
        _same_as_stdlib(body)


def test_a_did_open_is_structured_by_the_servers_protocol() -> None:
    server = build_server()
    try:
        text = "-- a note\n" * 3000 + "ALTER TABLE users ADD COLUMN email text;\n"
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": "file:///p/db/001.sql",
                        "languageId": "sql",
                        "version": 1,
                        "text": text,
                    }
                },
            }
        ).encode()
        message = decode(body, server.protocol.structure_message)
        assert isinstance(message, types.DidOpenTextDocumentNotification)
        assert message.params.text_document.text == text
        assert message == json.loads(body, object_hook=server.protocol.structure_message)
    finally:
        server.hub.shutdown()
