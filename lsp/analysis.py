"""The diagnostics pipeline: a snapshot's symbols -> statuses -> findings -> diagnostics.

`analyse` runs on the event loop over a `DocumentSnapshot` (one version, frozen) and
awaits the store on the worker thread (`cairn.lsp.stores`) for the statuses, the
removals they mention and the open reverts' fingerprints; between awaits it asks
`current()` and gives up as soon as the document moved on, because the newer version's
analysis will publish. The rules are the core's (`cairn.core.findings`,
`cairn.fingerprints`); this module only gathers their inputs. `Documents`
(`cairn.lsp.state`) decides when to run it and keeps the result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import msgspec
from lsprotocol import types
from msgspec.structs import replace

from cairn.core.decisions import parse_draft
from cairn.core.findings import Finding, Severities, findings_for, removed
from cairn.core.view import NEWEST
from cairn.lsp.conversions import diagnostic, draft_diagnostics, wire_diagnostics
from cairn.lsp.stores import StoreUnavailable

if TYPE_CHECKING:
    from cairn.indexer.model import Symbol
    from cairn.lsp.server import CairnServer
    from cairn.lsp.state import DocumentSnapshot
    from cairn.store.model import EntityStatus, Event


class Analysis(msgspec.Struct, frozen=True):
    """What one version of a document says: its symbols' statuses and findings."""

    version: int | None = None  # None: not analysed (or forgotten: the log changed)
    symbols: tuple[Symbol, ...] = ()
    statuses: Mapping[str, EntityStatus] = msgspec.field(
        default_factory=lambda: MappingProxyType({})
    )
    findings: tuple[Finding, ...] = ()
    # In wire form (`cairn.lsp.conversions.diagnostic`), as published: a file's hundreds are
    # never built as lsprotocol objects only to be taken apart again by the converter.
    diagnostics: tuple[dict[str, Any], ...] = ()
    # How the leading `from_statuses` findings (and diagnostics) were derived: the
    # severities they used. A later version with equal symbols and the very same
    # status objects (one log version) derives the same ones, so it reuses them.
    severities: Severities | None = None
    from_statuses: int = 0


EMPTY = Analysis()


async def analyse(
    server: CairnServer,
    snapshot: DocumentSnapshot,
    current: Callable[[], bool],
    early: Callable[[Analysis], None] | None = None,
    previous: Analysis = EMPTY,
) -> Analysis | None:
    """The snapshot's analysis; None when the document changed before it was done.

    With `early`, an analysis whose bring-back check must first read the open reverts
    (the first one per log version: their cost grows with the log's reverts) hands
    what the statuses say to `early` before it waits for them; the result then adds
    the bring-backs (the same findings when there are none). The findings the
    statuses give are `previous`'s when nothing they depend on changed (an edit that
    moved no symbol: most keystrokes).
    """
    if snapshot.is_draft:
        _, problems = parse_draft(snapshot.text)
        diagnostics = draft_diagnostics(snapshot.text, problems, refused=snapshot.refused)
        return Analysis(version=snapshot.version, diagnostics=wire_diagnostics(diagnostics))
    statuses = await _statuses(server, snapshot)
    if not current():
        return None
    removals = await _removals(server, snapshot, statuses)
    if not current():
        return None
    severities = snapshot.settings.severity
    if same_inputs(previous, snapshot.symbols, statuses, severities):
        found = previous.findings[: previous.from_statuses]
        shown = previous.diagnostics[: previous.from_statuses]
    else:
        found = tuple(findings_for(snapshot.symbols, statuses, severities, removals))
        shown = tuple(diagnostic(f) for f in found)
    analysis = Analysis(
        version=snapshot.version,
        symbols=snapshot.symbols,
        statuses=statuses,
        findings=found,
        diagnostics=shown,
        severities=severities,
        from_statuses=len(found),
    )
    if early is not None and _prints_pending(server, snapshot):
        early(analysis)
    more = await _bring_backs(server, snapshot)
    if not current():
        return None
    if not more:
        return analysis
    return replace(
        analysis,
        findings=(*analysis.findings, *more),
        diagnostics=(*analysis.diagnostics, *(diagnostic(f) for f in more)),
    )


def same_inputs(
    previous: Analysis,
    symbols: tuple[Symbol, ...],
    statuses: Mapping[str, EntityStatus],
    severities: Severities,
) -> bool:
    """True when `findings_for` would derive `previous`'s findings again: the same
    severities, equal symbols, and each entity's status the very object it had (the
    session hands out one object per entity and log version, and the removals that
    the findings quote are read per log version too)."""
    if previous.version is None or previous.severities != severities:
        return False
    if previous.symbols != symbols or len(previous.statuses) != len(statuses):
        return False
    before = previous.statuses
    return all(before.get(entity) is status for entity, status in statuses.items())


def _prints_pending(server: CairnServer, snapshot: DocumentSnapshot) -> bool:
    """True when the bring-back check would wait for the store to read open reverts."""
    if snapshot.project is None or snapshot.relpath is None or not snapshot.text:
        return False
    return server.hub.cached_revert_prints(snapshot.project.cairn_dir) is None


def prefetch_hovers(server: CairnServer, snapshot: DocumentSnapshot, analysis: Analysis) -> None:
    """Build the cards a hover will ask for next while the person reads: entities with
    history, and tables (whose card may be a rollup of their columns' verdicts)."""
    if snapshot.project is None:
        return
    tables = {s.entity for s in analysis.symbols if s.kind == "table"}
    wanted = tuple(e for e, s in analysis.statuses.items() if s.event_count or e in tables)
    if wanted:
        cairn_dir = snapshot.project.cairn_dir
        server.scheduler.spawn(server.hub.prefetch_hovers(cairn_dir, wanted, NEWEST))


async def _statuses(server: CairnServer, snapshot: DocumentSnapshot) -> Mapping[str, EntityStatus]:
    if snapshot.project is None or not snapshot.symbols:
        return MappingProxyType({})
    entities = tuple(sorted({s.entity for s in snapshot.symbols}))
    cairn_dir = snapshot.project.cairn_dir
    try:
        statuses = await server.hub.statuses(cairn_dir, entities)
    except StoreUnavailable as exc:
        server.client.log(f"no decisions for {snapshot.relpath}: {exc}", types.MessageType.Warning)
        return MappingProxyType({})
    damage = server.hub.damage(cairn_dir)
    if damage:
        server.client.warn_once(f"damage:{cairn_dir}", f"Cairn: {damage}")
    return MappingProxyType(dict(statuses))


async def _removals(
    server: CairnServer, snapshot: DocumentSnapshot, statuses: Mapping[str, EntityStatus]
) -> dict[str, Event | None]:
    """The event that removed each `removed` entity in the file (the notice quotes it)."""
    gone = tuple(removed(statuses))
    if snapshot.project is None or not gone:
        return {}
    wanted = MappingProxyType({e: statuses[e] for e in gone})
    try:
        return await server.hub.removals(snapshot.project.cairn_dir, wanted)
    except StoreUnavailable:
        return {}


async def _bring_backs(server: CairnServer, snapshot: DocumentSnapshot) -> list[Finding]:
    """Findings where the document holds most of the lines an open revert took out
    (the whole document counts: the editor does not know what changed since HEAD)."""
    if snapshot.project is None or snapshot.relpath is None or not snapshot.text:
        return []
    try:
        prints = await server.hub.revert_prints(snapshot.project.cairn_dir)
    except StoreUnavailable:
        return []
    if not prints:
        return []
    from cairn.fingerprints import document_bring_backs  # only a log with fingerprinted reverts

    return document_bring_backs(
        snapshot.relpath, snapshot.text, snapshot.symbols, prints, snapshot.settings.severity
    )
