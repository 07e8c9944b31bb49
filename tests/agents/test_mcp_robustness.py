"""`cairn mcp` fed bad input on the wire: every bad line gets an answer and the server
keeps serving (a JSON-RPC error, or a tool error the model can read)."""

from __future__ import annotations

import json
import select
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import CAIRN, make_project
from mcp_helpers import server_env as env

HANDSHAKE_VERSION = "2025-11-25"


class Wire:
    """The real server over pipes, one JSON-RPC message per line, as hosts speak it."""

    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [CAIRN, "mcp"],
            cwd=cwd,
            env=env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )

    def send(self, message: Any) -> None:
        line = message if isinstance(message, (str, bytes)) else json.dumps(message)
        data = line.encode("utf-8") if isinstance(line, str) else line
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")

    def receive(self, timeout: float = 60) -> dict[str, Any]:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, "the server did not answer"
        line = self.proc.stdout.readline()
        assert line, (
            f"the server exited: {self.proc.stderr.read().decode() if self.proc.stderr else ''}"
        )
        return json.loads(line)  # type: ignore[no-any-return]

    def call(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(message)
        return self.receive()

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(30)


@pytest.fixture
def wire(tmp_path: Path) -> Iterator[Wire]:
    project = make_project(tmp_path)
    w = Wire(project)
    answer = w.call(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": HANDSHAKE_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "raw-wire", "version": "1"},
            },
        }
    )
    assert answer["result"]["serverInfo"]["name"] == "cairn"
    w.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    yield w
    if w.proc.poll() is None:
        w.proc.kill()
        w.proc.wait()


def _tool(id_: int, name: object, arguments: object) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def _still_serving(wire: Wire) -> None:
    answer = wire.call(_tool(999, "cairn_why", {"entities": ["users.email_verified"]}))
    assert answer["id"] == 999
    assert answer["result"]["isError"] is False
    assert answer["result"]["content"][0]["text"].startswith("users.email_verified: reverted")


def test_malformed_json_rpc_gets_an_error_and_the_server_keeps_serving(wire: Wire) -> None:
    wire.send("this is not json {")
    assert wire.receive() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error: not JSON"},
    }
    for line in ('{"jsonrpc":"2.0","id":2}', "[1, 2, 3]", '"just a string"', b"\xff\xfe{}"):
        wire.send(line)
        answer = wire.receive()
        assert answer["id"] is None
        assert answer["error"]["code"] in (-32700, -32600)
    answer = wire.call({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"})
    assert answer["error"]["code"] == -32601
    _still_serving(wire)
    assert wire.close() == 0


def test_unknown_tools_and_wrong_argument_types_are_errors(wire: Wire) -> None:
    unknown = wire.call(_tool(10, "cairn_redact", {"id": "abc"}))
    assert unknown["result"]["isError"] is True
    assert unknown["result"]["content"][0]["text"] == (
        "unknown tool 'cairn_redact'; the tools are cairn_why, cairn_search, cairn_check, "
        "cairn_record"
    )
    cases = [
        (_tool(11, "cairn_why", {"entities": "users.email"}), "'entities' must be a list"),
        (_tool(12, "cairn_why", {"entities": [1, 2]}), "'entities' must be a list"),
        (_tool(13, "cairn_search", {"query": "x", "limit": "ten"}), "'limit' must be an integer"),
        (_tool(14, "cairn_search", {"query": "x", "limit": 0}), "'limit' must be between 1"),
        (_tool(15, "cairn_check", {"path": "a.sql", "content": None}), "'content' must be"),
        (_tool(16, "cairn_check", {"path": ["a.sql"], "content": ""}), "'path' must be a string"),
        (_tool(17, "cairn_record", {"entity": {}, "type": "add"}), "'entity' must be a string"),
        (_tool(18, "cairn_search", {"query": " ?! "}), "search query has no words"),
        (_tool(19, "cairn_why", {}), "give 'entities'"),
    ]
    for message, expected in cases:
        answer = wire.call(message)
        assert answer["id"] == message["id"]
        result = answer["result"]
        assert result["isError"] is True, (message, result)
        assert expected in result["content"][0]["text"], (message, result)
    # Shapes the protocol layer rejects before any tool runs: a JSON-RPC error.
    for message in (_tool(20, 123, {}), _tool(21, "cairn_why", [1, 2])):
        answer = wire.call(message)
        assert answer["error"]["code"] == -32602
    _still_serving(wire)


def test_huge_arguments_are_refused_without_writing(wire: Wire, tmp_path: Path) -> None:
    log = tmp_path / ".cairn" / "decisions.jsonl"
    before = log.read_bytes()
    huge = "x" * 5_000_000
    answers = [
        wire.call(_tool(30, "cairn_record", {"entity": "a.b", "type": "add", "reasoning": huge})),
        wire.call(_tool(31, "cairn_check", {"path": "db/big.sql", "content": huge})),
        wire.call(_tool(32, "cairn_why", {"entities": ["a.b"] * 5000})),
        wire.call(_tool(33, "cairn_search", {"query": huge})),
        wire.call(_tool(34, "cairn_why", {"entities": [huge]})),
    ]
    for answer in answers:
        assert answer["result"]["isError"] is True, answer["id"]
        assert len(answer["result"]["content"][0]["text"]) < 300
    assert "longer than 100,000 characters" in answers[0]["result"]["content"][0]["text"]
    assert "larger than 4 MB" in answers[1]["result"]["content"][0]["text"]
    assert log.read_bytes() == before
    _still_serving(wire)


@pytest.mark.parametrize("ident", [{}, [1], True, False, None, 1.5])
def test_a_request_id_mcp_does_not_allow_gets_invalid_request(wire: Wire, ident: object) -> None:
    # The SDK read these as notifications and dropped them: the client waited for ever.
    answer = wire.call({"jsonrpc": "2.0", "id": ident, "method": "tools/list"})
    assert answer["id"] is None
    assert answer["error"]["code"] == -32600
    assert "id is a string or an integer" in answer["error"]["message"]
    # a notification (no id at all) still gets no answer, and the server goes on
    wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}})
    _still_serving(wire)
    assert wire.close() == 0


def test_a_client_that_stops_reading_ends_the_server_cleanly(wire: Wire) -> None:
    assert wire.proc.stdout is not None and wire.proc.stdin is not None
    wire.proc.stdout.close()  # the client closes its read end of our answers
    wire.send(_tool(40, "cairn_why", {"entities": ["users.email_verified"]}))
    code = wire.proc.wait(60)
    assert code == 0
    assert wire.proc.stderr is not None
    err = wire.proc.stderr.read().decode()
    assert "error" not in err and "Traceback" not in err
