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

import uuid
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from cairn.agents.tools import RESOURCE_TEMPLATE, TOOLS, AgentTools, ToolError

INSTRUCTIONS = (
    "Cairn is this project's decision memory: what was reverted or rejected, and why. "
    "Before re-adding or reworking code, ask cairn_why (or cairn_check with the new "
    "content); record decisions you make with cairn_record."
)


def _version() -> str:
    try:
        return version("cairn-lsp")
    except PackageNotFoundError:
        return "0"


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
        version=_version(),
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


def _rejection(exc: Exception) -> SessionMessage:
    """The JSON-RPC error for a line that is not a message (the SDK drops such lines
    silently; a client deserves to hear why nothing came back)."""
    text = str(exc)
    invalid_json = "json_invalid" in text or "Invalid JSON" in text
    error = types.ErrorData(
        code=types.PARSE_ERROR if invalid_json else types.INVALID_REQUEST,
        message="Parse error: not JSON" if invalid_json else "Invalid Request: not JSON-RPC 2.0",
    )
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error))


async def serve_stdio(start: Path | None = None) -> None:
    """Serve one client on stdin/stdout until it disconnects."""
    tools = AgentTools(start)
    server = build_server(tools)
    try:
        async with stdio_server() as (read_stream, write_stream):
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
    finally:
        tools.close()
