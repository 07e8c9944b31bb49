"""`cairn serve --tcp HOST:PORT`: the same server over a socket."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

from lsp_helpers import SERVER_ENV, make_sample


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def rpc(writer: asyncio.StreamWriter, message: dict) -> None:
    body = json.dumps(message).encode()
    writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    await writer.drain()


async def receive(reader: asyncio.StreamReader) -> dict:
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(await reader.readexactly(length))


async def test_serve_over_tcp_answers_hover(tmp_path: Path) -> None:
    sample = make_sample(tmp_path / "shop")
    port = free_port()
    cairn = Path(sys.executable).with_name("cairn")
    server = subprocess.Popen(
        [str(cairn), "serve", "--tcp", f"127.0.0.1:{port}"],
        env=SERVER_ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.05)
        else:
            raise AssertionError("the server never listened")
        await rpc(writer, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"processId": None, "rootUri": sample.root.as_uri(),
                                      "capabilities": {}}})  # fmt: skip
        init = await asyncio.wait_for(receive(reader), 30)
        assert init["id"] == 1 and init["result"]["serverInfo"]["name"] == "cairn"
        assert init["result"]["capabilities"]["hoverProvider"] is True
        await rpc(writer, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        path = sample.root / "db" / "migrations" / "0042_email_verified.sql"
        await rpc(writer, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": path.as_uri(), "languageId": "sql", "version": 1,
                             "text": path.read_text()}}})  # fmt: skip
        where = {"textDocument": {"uri": path.as_uri()}, "position": {"line": 1, "character": 33}}
        await rpc(
            writer, {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": where}
        )
        while True:
            message = await asyncio.wait_for(receive(reader), 30)
            if message.get("id") == 2:
                break
        assert "corporate domains" in message["result"]["contents"]["value"]
        await rpc(writer, {"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
        writer.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
