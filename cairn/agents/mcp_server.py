"""`cairn mcp`: the agent tools over the Model Context Protocol (stdio).

Built on the official MCP Python SDK's low-level `Server` (v2 API: handlers passed to
the constructor), which sends our hand-written schemas as they are, so their size stays
within budget, and lets every tool answer in our own words. The SDK owns the protocol:
framing, the handshake, JSON-RPC errors for malformed requests.

Attribution: `agent` on a recorded event is the client's name from `initialize`
(`clientInfo.name`), `session` is this connection's id (stdio has no transport session
id, so one is minted per connection).
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from cairn import __version__
from cairn.agents.tools import RESOURCE_TEMPLATE, TOOLS, AgentTools, ToolError

INSTRUCTIONS = (
    "Cairn is this project's decision memory: what was reverted or rejected, and why. "
    "Before re-adding or reworking code, ask cairn_why (or cairn_check with the new "
    "content); record decisions you make with cairn_record."
)


def _client_name(ctx: ServerRequestContext[Any]) -> str:
    params = ctx.session.client_params
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", "") or ""
    return " ".join(str(name).split())[:100] or "mcp-client"


def build_server(tools: AgentTools, session_id: str | None = None) -> Server[Any]:
    """A low-level MCP server answering from `tools`; one per connection."""
    session = session_id or f"mcp-{uuid.uuid4().hex[:16]}"
    listed = [
        types.Tool(name=t["name"], description=t["description"], input_schema=t["inputSchema"])
        for t in TOOLS
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        answer = tools.call(params.name, params.arguments, agent=_client_name(ctx), session=session)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=answer.text)],
            structured_content=answer.data,
            is_error=answer.is_error,
        )

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            name="entity",
            uri_template=RESOURCE_TEMPLATE,
            description="An entity's decision history as Markdown (path URL-encoded).",
            mime_type="text/markdown",
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        from cairn.store import StoreError
        from cairn.store.paths import EntityPathError

        uri = str(params.uri)
        try:
            text = tools.history_markdown(uri)
        except (ToolError, StoreError, EntityPathError) as exc:
            raise MCPError(types.INVALID_PARAMS, " ".join(str(exc).split())) from None
        contents = types.TextResourceContents(uri=uri, mime_type="text/markdown", text=text)
        return types.ReadResourceResult(contents=[contents])

    return Server(
        "cairn",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


# What a request whose id MCP does not allow is handed to the SDK as: a line that fails
# its validation, so it comes back to `screen` as an error, in order with the others.
_BAD_ID_KEY = "cairn-invalid-request-id"
_BAD_ID_LINE = json.dumps({_BAD_ID_KEY: True}) + "\n"


def _screened(line: str) -> str:
    """`line`, or `_BAD_ID_LINE` for a request whose id is not a string or an integer.

    MCP ids are strings or integers, never null; the SDK's parser reads a request with
    an object, array, bool, null or fractional id as a notification and drops it, so
    the client waited for an answer that never came. JSON-RPC wants -32600 for it."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return line  # the SDK answers what is not JSON (or nests too deep for us)
    if isinstance(data, dict) and "method" in data and "id" in data:
        ident = data["id"]
        if isinstance(ident, bool) or not isinstance(ident, (str, int)):
            return _BAD_ID_LINE
    return line


class _ScreenedLines:
    """The client's lines for the SDK's reader (which only iterates), each `_screened`.

    Read from a non-blocking descriptor on the event loop, never in a worker thread:
    when the client stops reading our answers, the server must be able to stop, and a
    thread blocked in `readline` on a silent client cannot be cancelled."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._eof = False

    def __aiter__(self) -> _ScreenedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0 or (self._eof and self._buffer):
                cut = end + 1 if end >= 0 else len(self._buffer)
                line = bytes(self._buffer[:cut])
                del self._buffer[:cut]
                return _screened(line.decode("utf-8", "replace"))
            if self._eof:
                raise StopAsyncIteration
            await anyio.wait_readable(self._fd)
            try:
                chunk = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                continue
            self._eof = not chunk
            self._buffer += chunk


@contextmanager
def _wire_stdin() -> Iterator[int]:
    """The client's stdin as a private non-blocking descriptor, with fd 0 on the null
    device while serving (as the SDK does when it reads stdin itself): a tool's git
    child must never read the client's messages."""
    private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    flags = fcntl.fcntl(private, fcntl.F_GETFL)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    fcntl.fcntl(private, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    try:
        yield private
    finally:
        # the flag is on the open file, which a terminal shares with the shell
        fcntl.fcntl(private, fcntl.F_SETFL, flags)
        os.dup2(private, 0)
        os.close(private)


def _rejection(exc: Exception) -> SessionMessage:
    """The JSON-RPC error for a line that is not a message (the SDK drops such lines
    silently; a client deserves to hear why nothing came back)."""
    text = str(exc)
    invalid_json = "json_invalid" in text or "Invalid JSON" in text
    message = "Parse error: not JSON" if invalid_json else "Invalid Request: not JSON-RPC 2.0"
    if _BAD_ID_KEY in text:
        message = "Invalid Request: an MCP request id is a string or an integer"
    error = types.ErrorData(
        code=types.PARSE_ERROR if invalid_json else types.INVALID_REQUEST, message=message
    )
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error))


def client_gone(exc: BaseException) -> bool:
    """Whether `exc` (a task group's, possibly nested) only says the client went away:
    its end of our stdout closed, so the next answer met a broken pipe."""
    inner = getattr(exc, "exceptions", None)  # an exception group (3.10 has no builtin)
    if isinstance(inner, (list, tuple)):
        return bool(inner) and all(client_gone(e) for e in inner)
    gone = (BrokenPipeError, ConnectionResetError)
    return isinstance(exc, (*gone, anyio.BrokenResourceError, anyio.ClosedResourceError))


async def serve_stdio(start: Path | None = None) -> None:
    """Serve one client on stdin/stdout until it disconnects: it closes our stdin (the
    end of the session) or its end of our stdout (an answer then meets a broken pipe);
    either is a normal end, not an error."""
    tools = AgentTools(start)
    server = build_server(tools)
    try:
        with _wire_stdin() as wire:
            await _serve(server, cast("anyio.AsyncFile[str]", _ScreenedLines(wire)))
    except BaseException as exc:
        if not client_gone(exc):
            raise
        # Nobody is left to read; the interpreter's last flush of stdout must not fail.
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    finally:
        tools.close()


async def _serve(server: Server[Any], stdin: anyio.AsyncFile[str]) -> None:
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):
        inbound, outbound = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def screen() -> None:
            async with inbound:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        await write_stream.send(_rejection(item))
                    else:
                        await inbound.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(screen)
            options = server.create_initialization_options()
            await server.run(outbound, write_stream, options)
            group.cancel_scope.cancel()
