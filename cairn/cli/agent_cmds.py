"""The agent commands: `digest` (a briefing a host injects at session start), `mcp`
(the MCP server) and `gate-daemon` (the Claude Code hook's warm check). All are thin:
the work is in `cairn.agents`."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import click

from cairn.cli._common import CairnError, current_project, emit_json, json_option, say

# Cairn is on no package index, so the command names the git URL ($CAIRN_GIT: the URL
# Cairn is cloned from, as the README's Install says); tests/usability runs it.
MCP_MISSING = (
    "`cairn mcp` needs the MCP SDK, which is an optional extra: "
    'pip install "cairn-lsp[mcp] @ git+$CAIRN_GIT" (in a checkout: make venv)'
)


@click.command("digest")
@click.option(
    "--max-chars",
    default=4000,
    show_default=True,
    type=click.IntRange(200, 1_000_000),
    help="Longest text to print (hosts cap injected context).",
)
@click.option(
    "--paths",
    "paths",
    multiple=True,
    metavar="PATH",
    help="Also cover these files (repeatable), besides what the branch touches.",
)
@click.option("--today", default=None, help="Pretend today is this date (YYYY-MM-DD), for reviews.")
@json_option
def digest_cmd(max_chars: int, paths: tuple[str, ...], today: str | None, as_json: bool) -> None:
    """What an agent should know before it starts: open reverts, rejects, conflicts and
    due reviews on the files this branch touches, then the newest verdicts project-wide.

    Example (a session-start hook): cairn digest --max-chars 4000
    """
    from cairn.agents.digest import build_digest
    from cairn.store import StoreError

    day = None
    if today:
        try:
            day = date.fromisoformat(today)
        except ValueError:
            raise CairnError(f"--today {today!r} is not a date; use YYYY-MM-DD") from None
    project = current_project()
    try:
        digest = build_digest(project, paths=paths, max_chars=max_chars, today=day)
    except StoreError as exc:
        raise CairnError(f"cannot read the decision log: {exc}") from None
    if as_json:
        emit_json(digest.to_dict())
    else:
        say(digest.text)


@click.command("mcp")
def mcp_cmd() -> None:
    """Serve the agent tools over MCP on stdin/stdout (cairn_why, cairn_search,
    cairn_check, cairn_record; a cairn://entity/{path} history resource).

    Register it in an agent host as the command `cairn mcp`, started in the project.
    """
    try:
        import anyio

        from cairn.agents.mcp_server import serve_stdio
    except ImportError:
        raise CairnError(MCP_MISSING) from None
    anyio.run(serve_stdio)


@click.command("gate-daemon")
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="The project (the folder holding .cairn/) whose edits to check.",
)
@click.option(
    "--idle-timeout",
    type=click.FloatRange(min=0.1),
    default=600.0,
    show_default=True,
    help="Stop after this many seconds without a request.",
)
def gate_daemon_cmd(root: Path, idle_timeout: float) -> None:
    """Answer the Claude Code hook's checks over a Unix socket, warm (the hook starts
    this itself, in the background; CAIRN_GATE_DAEMON=0 keeps it from doing so).

    It gives what `cairn check --stdin-filename` gives, and stops when idle or when the
    project's .cairn/ is gone. See docs/agents.md.
    """
    from cairn.agents.gate_daemon import DaemonError, WarmCli, serve
    from cairn.cli import warm

    try:
        serve(root, idle_timeout, WarmCli(tuple(warm.WARM_COMMANDS), warm.warm_up, warm.run))
    except DaemonError as exc:
        raise CairnError(str(exc)) from None


def register(group: click.Group) -> None:
    """Add this module's commands to the root group."""
    group.add_command(digest_cmd)
    group.add_command(mcp_cmd)
    group.add_command(gate_daemon_cmd)
