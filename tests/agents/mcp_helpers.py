"""Talking to the real `cairn mcp` with the MCP SDK's own client."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "check"))
from check_fixtures import CAIRN, make_project  # noqa: E402

CLIENT_NAME = "test-agent"

__all__ = ["CAIRN", "CLIENT_NAME", "REPO", "log_lines", "make_project", "mcp_session", "text_of"]


def server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CAIRN_DIR"}
    env["CAIRN_AUTHOR"] = "Agent Owner <owner@example.invalid>"
    return env


@asynccontextmanager
async def mcp_session(project: Path, name: str = CLIENT_NAME) -> AsyncIterator[ClientSession]:
    """An initialized client session on `cairn mcp` started in `project`."""
    params = StdioServerParameters(command=CAIRN, args=["mcp"], cwd=project, env=server_env())
    async with stdio_client(params) as (read, write):
        info = types.Implementation(name=name, version="1.0")
        async with ClientSession(read, write, client_info=info, read_timeout_seconds=60) as session:
            await session.initialize()
            yield session


def text_of(result: types.CallToolResult) -> str:
    """The text content of a tool result."""
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def log_lines(project: Path) -> list[dict[str, Any]]:
    """The decision log's events, as written."""
    raw = (project / ".cairn" / "decisions.jsonl").read_text().splitlines()
    return [json.loads(line) for line in raw if line.strip()]
