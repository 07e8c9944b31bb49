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
    from cairn.lsp.server import CairnServer

AGENT = "cairn-lsp"


async def record(server: CairnServer, project: Project, request: DecisionRequest) -> dict[str, Any]:
    """Append the decision, refresh the project's documents, return what was written."""
    written = await append(server, project, request)
    await after_write(server, project, written)
    return written


async def append(server: CairnServer, project: Project, request: DecisionRequest) -> dict[str, Any]:
    """Append the decision (on the store thread); what was written, as JSON."""
    result = await server.hub.write(
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


async def after_write(server: CairnServer, project: Project, written: dict[str, Any]) -> None:
    """Re-analyse the project's documents; say so if secrets were masked."""
    server.documents.refresh({project.cairn_dir})
    if written["masked"]:
        server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=f"Cairn masked {', '.join(written['masked'])} in the reasoning before "
                "writing it; secrets never go into the log.",
            )
        )
    for warning in written.get("warnings", []):
        server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=f"Cairn: {warning}")
        )


async def open_draft(
    server: CairnServer, project: Project, request: DecisionRequest, context: str = ""
) -> dict[str, Any]:
    """Write a draft for the request and ask the editor to show it."""
    project.drafts.mkdir(parents=True, exist_ok=True)
    path = project.drafts / draft_name(request)
    path.write_text(render_draft(request, context), encoding="utf-8")
    uri = path_uri(path)
    shown = False
    if server.capability("window.show_document.support"):
        try:
            result = await server.window_show_document_async(
                types.ShowDocumentParams(uri=uri, take_focus=True)
            )
            shown = bool(result and result.success)
        except Exception as exc:
            server.log(f"showDocument failed: {exc}", types.MessageType.Warning)
    if not shown:
        server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Info,
                message=f"Cairn wrote a decision draft to {path}: open it, write the "
                "reasoning and save to log it.",
            )
        )
    return {"draft": str(path), "uri": uri, "shown": shown}


async def log_draft(server: CairnServer, doc: OpenDocument) -> None:
    """A draft was saved: log it and delete it, or show what is wrong in it."""
    if doc.project is None or doc.path is None:
        return
    text = server.workspace.get_text_document(doc.uri).source
    request, problems = parse_draft(text)
    if request is None or problems:
        await server.documents.refuse_draft(doc)
        if server.pulls_diagnostics and server.capability("workspace.diagnostics.refresh_support"):
            server.workspace_diagnostic_refresh(None)
        return
    try:
        written = await append(server, doc.project, request)
    except Exception as exc:
        diagnostics = [error_diagnostic(f"not logged: {exc}")]
        server.documents.settle_draft(doc, refused=True, diagnostics=diagnostics)
        return
    _delete(doc.path)
    server.documents.settle_draft(doc, refused=False, diagnostics=[])
    await after_write(server, doc.project, written)
    server.window_show_message(
        types.ShowMessageParams(
            type=types.MessageType.Info,
            message=f"Cairn logged {written['type']} for {written['entity']} "
            f"({short_id(written['id'])}); the draft was deleted.",
        )
    )


def _delete(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        return
