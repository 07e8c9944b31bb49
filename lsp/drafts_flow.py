"""Writing decisions: at once when the reasoning is known, through a draft otherwise.

A draft is a small markdown file under `.cairn/drafts/` (see `decisions.render_draft`)
that the server writes and opens with `window/showDocument`. Saving it logs the
decision and deletes the file; a draft with a mistake keeps its file and shows the
problem as a diagnostic in the draft itself. Every write re-analyses the open
documents of its project, so the warning it answered disappears at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from cairn.core.decisions import DecisionRequest, draft_name, parse_draft, render_draft
from cairn.core.present import short_id
from cairn.core.project import Project
from cairn.lsp.conversions import error_diagnostic, path_uri
from cairn.lsp.state import OpenDocument

if TYPE_CHECKING:
    from cairn.lsp.context import Context

AGENT = "cairn-lsp"


async def record(ctx: Context, project: Project, request: DecisionRequest) -> dict[str, Any]:
    """Append the decision, refresh the project's documents, return what was written."""
    written = await append(ctx, project, request)
    after_write(ctx, project, written)
    return written


async def append(ctx: Context, project: Project, request: DecisionRequest) -> dict[str, Any]:
    """Append the decision (on the store thread); what was written, as JSON."""
    result = await ctx.hub.write(
        project.cairn_dir, lambda session: session.record(request, agent=AGENT)
    )
    event = result.event
    return {
        "id": event.id,
        "entity": event.entity,
        "type": str(event.type),
        "masked": list(result.masked),
        "warnings": list(result.warnings),
        "event": event.to_dict(),
        "replayed": result.replayed,  # its key named a logged event: nothing was written
    }


def after_write(ctx: Context, project: Project, written: dict[str, Any]) -> None:
    """Re-analyse the project's documents; say so if secrets were masked."""
    ctx.documents.refresh({project.cairn_dir})
    if written["masked"]:
        ctx.client.show(
            f"Cairn masked {', '.join(written['masked'])} in the reasoning before "
            "writing it; secrets never go into the log.",
            types.MessageType.Warning,
        )
    for warning in written.get("warnings", []):
        ctx.client.show(f"Cairn: {warning}", types.MessageType.Warning)


async def open_draft(
    ctx: Context, project: Project, request: DecisionRequest, context: str = ""
) -> dict[str, Any]:
    """Write a draft for the request and ask the editor to show it."""
    project.drafts.mkdir(parents=True, exist_ok=True)
    path = project.drafts / draft_name(request)
    path.write_text(render_draft(request, context), encoding="utf-8")
    uri = path_uri(path)
    shown = await ctx.client.show_document(uri)
    if not shown:
        ctx.client.show(
            f"Cairn wrote a decision draft to {path}: open it, write the "
            "reasoning and save to log it."
        )
    return {"draft": str(path), "uri": uri, "shown": shown}


async def log_draft(ctx: Context, doc: OpenDocument) -> None:
    """A draft was saved: log it and delete it, or show what is wrong in it."""
    if doc.project is None or doc.path is None:
        return
    request, problems = parse_draft(ctx.client.text(doc.uri))
    if request is None or problems:
        await ctx.documents.refuse_draft(doc)
        if ctx.pulls_diagnostics and ctx.client.capability("workspace.diagnostics.refresh_support"):
            ctx.scheduler.spawn(ctx.client.refresh_diagnostics())
        return
    try:
        written = await append(ctx, doc.project, request)
    except Exception as exc:  # the draft itself shows why (a save has no response)
        diagnostics = [error_diagnostic(f"not logged: {exc}")]
        ctx.documents.settle_draft(doc, refused=True, diagnostics=diagnostics)
        return
    _delete(doc.path)
    ctx.documents.settle_draft(doc, refused=False, diagnostics=[])
    after_write(ctx, doc.project, written)
    ctx.client.show(
        f"Cairn logged {written['type']} for {written['entity']} "
        f"({short_id(written['id'])}); the draft was deleted."
    )


def _delete(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        return
