"""The diagnostics pipeline: symbols -> statuses -> findings -> LSP diagnostics.

Execution model: `schedule` (called on the loop by `didOpen`/`didChange`) replaces the
document's pending task with one that sleeps for the debounce, then runs `analyse`.
`analyse` reads the document's symbols on the loop (cached by the indexer per
version), awaits `status_many` on the store thread, and drops its result if the text
changed meanwhile; the newer task will publish. `ensure_fresh` is for requests that
need an answer now (pull diagnostics, hover, code lens): it cancels the pending
debounce and analyses at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from cairn.core.decisions import parse_draft
from cairn.core.findings import Finding, Severity, findings_for, removed
from cairn.lsp.stores import StoreUnavailable
from cairn.lsp.workspace import OpenDocument

if TYPE_CHECKING:
    from cairn.lsp.server import CairnServer
    from cairn.store import EntityStatus, Event

SOURCE = "cairn"
NEWEST = 6  # events a hover card is given (it shows the newest two besides the verdicts)
LSP_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


def lsp_range(r: Any) -> types.Range:
    """An indexer `Range` as an LSP range."""
    return types.Range(
        start=types.Position(line=r.start_line, character=r.start_character),
        end=types.Position(line=r.end_line, character=r.end_character),
    )


def to_diagnostic(finding: Finding) -> types.Diagnostic:
    """One finding as the diagnostic editors show."""
    return types.Diagnostic(
        range=lsp_range(finding.name_range),
        message=finding.message,
        severity=LSP_SEVERITY[finding.severity],
        code=finding.verdict_id,
        source=SOURCE,
        data=finding.data,
    )


def schedule(server: CairnServer, uri: str, delay_ms: int | None = None) -> None:
    """(Re)start the document's debounced analysis."""
    pending = server.pending.pop(uri, None)
    if pending is not None and not pending.done():
        pending.cancel()
    delay = server.settings.debounce_ms if delay_ms is None else delay_ms
    server.pending[uri] = server.spawn(_debounced(server, uri, delay / 1000))


async def _debounced(server: CairnServer, uri: str, delay: float) -> None:
    if delay > 0:
        await asyncio.sleep(delay)
    doc = server.documents.get(uri)
    if doc is not None:
        await analyse(server, doc)


async def ensure_fresh(server: CairnServer, doc: OpenDocument) -> None:
    """Analyse now unless the cached analysis matches the current text."""
    if doc.fresh:
        return
    pending = server.pending.pop(doc.uri, None)
    if pending is not None and not pending.done():
        pending.cancel()
    await analyse(server, doc)


async def analyse(server: CairnServer, doc: OpenDocument) -> None:
    """Compute and cache the document's findings; push them unless the client pulls."""
    version = doc.version
    if doc.is_draft:
        diagnostics = draft_diagnostics(server, doc)
        symbols: list[Any] = []
        statuses: dict[str, Any] = {}
        findings: list[Finding] = []
    else:
        symbols, statuses = await _statuses(server, doc)
        if doc.version != version or server.documents.get(doc.uri) is not doc:
            return  # edited (or closed) meanwhile: the newer analysis publishes
        removals = await _removals(server, doc, statuses)
        if doc.version != version or server.documents.get(doc.uri) is not doc:
            return
        findings = findings_for(symbols, statuses, server.settings.severity, removals)
        findings += await _bring_backs(server, doc, symbols)
        if doc.version != version or server.documents.get(doc.uri) is not doc:
            return
        diagnostics = [to_diagnostic(f) for f in findings]
    doc.symbols, doc.statuses, doc.findings = symbols, statuses, findings
    doc.diagnostics = diagnostics
    doc.analysed_version = version
    if not server.pulls_diagnostics:
        publish(server, doc)
    # The cards a hover will ask for next, built while the person reads: entities with
    # history, and tables (whose card may be a rollup of their columns' verdicts).
    tables = {s.entity for s in symbols if s.kind == "table"}
    wanted = [e for e, s in statuses.items() if s.event_count or e in tables]
    if wanted and doc.project is not None:
        server.spawn(server.hub.prefetch_hovers(doc.project.cairn_dir, wanted, NEWEST))


async def _bring_backs(server: CairnServer, doc: OpenDocument, symbols: list[Any]) -> list[Finding]:
    """Findings where the document holds most of the lines an open revert took out
    (the whole document counts: the editor does not know what changed since HEAD)."""
    if doc.project is None or doc.doc is None or doc.relpath is None:
        return []
    from cairn.fingerprints import (
        all_hashes,
        bring_back_findings,
        candidate_lines,
        match_prints,
    )

    try:
        prints = await server.hub.revert_prints(doc.project.cairn_dir)
    except StoreUnavailable:
        return []
    wanted = all_hashes(prints)
    if not wanted:
        return []
    lines = candidate_lines(doc.relpath, enumerate(doc.doc.text.split("\n")), symbols, wanted)
    return bring_back_findings(match_prints(lines, prints), server.settings.severity)


async def _removals(
    server: CairnServer, doc: OpenDocument, statuses: dict[str, EntityStatus]
) -> dict[str, Event | None]:
    """The event that removed each `removed` entity in the file (the notice quotes it)."""
    if doc.project is None or not removed(statuses):
        return {}
    try:
        return await server.hub.call(doc.project.cairn_dir, lambda s: s.removals(statuses))
    except StoreUnavailable:
        return {}


async def _statuses(server: CairnServer, doc: OpenDocument) -> tuple[list[Any], dict[str, Any]]:
    if doc.doc is None or doc.project is None:
        return [], {}
    symbols = doc.doc.symbols
    entities = sorted({s.entity for s in symbols})
    if not entities:
        return symbols, {}
    try:
        statuses = await server.hub.statuses(doc.project.cairn_dir, entities)
    except StoreUnavailable as exc:
        server.log(f"no decisions for {doc.relpath}: {exc}", types.MessageType.Warning)
        return symbols, {}
    damage = server.hub.damage(doc.project.cairn_dir)
    if damage:
        server.warn_once(f"damage:{doc.project.cairn_dir}", f"Cairn: {damage}")
    return symbols, dict(statuses)


def publish(server: CairnServer, doc: OpenDocument) -> None:
    """Send the document's cached diagnostics."""
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(
            uri=doc.uri, version=doc.version, diagnostics=list(doc.diagnostics)
        )
    )


def draft_diagnostics(server: CairnServer, doc: OpenDocument) -> list[types.Diagnostic]:
    """Problems in a decision draft; errors once a save was refused, hints before."""
    text = server.workspace.get_text_document(doc.uri).source
    _, problems = parse_draft(text)
    severity = types.DiagnosticSeverity.Error if doc.save_failed else types.DiagnosticSeverity.Hint
    lines = text.splitlines() or [""]
    out = []
    for problem in problems:
        line = min(problem.line, len(lines) - 1)
        out.append(
            types.Diagnostic(
                range=types.Range(
                    start=types.Position(line=line, character=0),
                    end=types.Position(line=line, character=len(lines[line])),
                ),
                message=problem.message,
                severity=severity,
                source=SOURCE,
            )
        )
    return out


async def refresh_projects(server: CairnServer, cairn_dirs: Iterable[Path] | None) -> None:
    """The log changed underneath: re-analyse affected documents, ask clients to refresh."""
    wanted = None if cairn_dirs is None else set(cairn_dirs)
    for doc in list(server.documents.values()):
        if doc.project is None and not doc.is_draft:
            continue
        if wanted is not None and doc.project is not None and doc.project.cairn_dir not in wanted:
            continue
        doc.invalidate()
        if server.pulls_diagnostics:
            continue
        schedule(server, doc.uri, 0)
    # Fire and forget: a command's answer must not wait for the client's refresh.
    if server.capability("workspace.code_lens.refresh_support"):
        server.spawn(_quietly(server.workspace_code_lens_refresh_async(None)))
    if server.pulls_diagnostics and server.capability("workspace.diagnostics.refresh_support"):
        server.spawn(_quietly(server.workspace_diagnostic_refresh_async(None)))


async def _quietly(awaitable: Any) -> None:
    """A refresh request the client may fail; that is the client's business."""
    try:
        await asyncio.wait_for(awaitable, timeout=5)
    except Exception:
        return
