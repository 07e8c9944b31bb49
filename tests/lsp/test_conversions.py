"""LSP <-> core conversions: the direct Diagnostic encoder says what cattrs says."""

from __future__ import annotations

import json

import orjson
import pytest
from lsprotocol import types
from pygls.protocol import default_converter

from cairn.core.decisions import parse_draft
from cairn.core.findings import Finding, Severities, Severity, findings_for
from cairn.indexer.model import Range, Role, Symbol
from cairn.lsp.conversions import (
    converter,
    draft_diagnostics,
    error_diagnostic,
    to_diagnostic,
    wire_diagnostics,
)
from cairn.lsp.conversions import diagnostic as wire_diagnostic
from cairn.store.model import EntityStatus, Event, EventType, Status

RANGE = Range(2, 4, 2, 18)
PUBLISH = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
REVERT = Event(
    id="a" * 64,
    type=EventType.REVERT,
    entity="users.email_verified",
    reasoning="Mails bounced.",
    author="alice",
    occurred_at="2026-04-02",
)


def wire(conv: object, value: object) -> str:
    return json.dumps(conv.unstructure(value), sort_keys=True)  # type: ignore[attr-defined]


def test_the_direct_encoder_matches_the_generic_one() -> None:
    symbol = Symbol("db/1.sql", "users.email_verified", "column", Role.INTRODUCE, RANGE, RANGE)
    status = EntityStatus("users.email_verified", Status.REVERTED, open_verdicts=[REVERT])
    [finding] = findings_for([symbol], {"users.email_verified": status})
    _, problems = parse_draft("not a draft")
    diagnostics = [
        to_diagnostic(finding),
        *draft_diagnostics("not a draft", problems, refused=True),
        error_diagnostic("not logged: locked"),
        types.Diagnostic(  # fields Cairn never sets: the generic path
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=0, character=1)
            ),
            message="tagged",
            tags=[types.DiagnosticTag.Unnecessary],
            code=7,
        ),
    ]
    assert len(diagnostics) >= 4
    fast, generic = converter(), default_converter()
    for diagnostic in diagnostics:
        assert wire(fast, diagnostic) == wire(generic, diagnostic)
    params = types.PublishDiagnosticsParams(uri="file:///x.sql", diagnostics=diagnostics, version=3)
    assert wire(fast, params) == wire(generic, params)
    assert json.loads(wire(fast, params))["diagnostics"][0]["data"]["verdict_ids"] == [REVERT.id]


def varied_findings() -> list[Finding]:
    """Findings of every kind, severity and shape the server publishes."""
    introduce = Symbol("db/1.sql", "users.email_verified", "column", Role.INTRODUCE, RANGE, RANGE)
    far = Range(4000, 0, 4001, 7)
    reference = Symbol("db/1.sql", "users", "table", Role.REFERENCE, far, far)
    gone = Symbol("db/1.sql", "orders", "table", Role.INTRODUCE, RANGE, RANGE)
    statuses = {
        "users.email_verified": EntityStatus(
            "users.email_verified", Status.REVERTED, open_verdicts=[REVERT]
        ),
        "users": EntityStatus("users", Status.REVERTED, open_verdicts=[REVERT]),
        "orders": EntityStatus("orders", Status.REMOVED, latest=REVERT),
    }
    found = findings_for([introduce, reference, gone], statuses, None, {"orders": REVERT})
    found += findings_for([introduce], statuses, Severities(introduce=Severity.ERROR))
    hand = [
        Finding("x", "", severity, 'naïve — 🙂 "quoted"\n', Range(0, 0, 0, 0), "reference", {})
        for severity in (Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT)
    ]
    assert {f.kind.value for f in found} >= {"verdict", "removed"}
    return [*found, *hand]


@pytest.mark.parametrize("version", [7, 0, None])
def test_the_wire_publish_is_byte_for_byte_the_lsprotocol_one(version: int | None) -> None:
    """The server publishes params whose diagnostics are the analysis' wire dicts
    (`conversions.diagnostic`); through its converter they must be the very bytes
    lsprotocol's objects write (ours and cattrs' generic converter), key order included."""
    found = varied_findings()
    uri = "file:///w/db/1.sql"
    wired = types.PublishDiagnosticsNotification(
        method=PUBLISH,
        params=types.PublishDiagnosticsParams(
            uri=uri,
            diagnostics=[wire_diagnostic(f) for f in found],  # type: ignore[misc]
            version=version,
        ),
        jsonrpc="2.0",
    )
    message = types.PublishDiagnosticsNotification(
        method=PUBLISH,
        params=types.PublishDiagnosticsParams(
            uri=uri, diagnostics=[to_diagnostic(f) for f in found], version=version
        ),
        jsonrpc="2.0",
    )
    fast = orjson.dumps(converter().unstructure(wired))
    assert fast == orjson.dumps(converter().unstructure(message))
    assert fast == orjson.dumps(default_converter().unstructure(message))
    assert len(json.loads(fast)["params"]["diagnostics"]) == len(found) > 6


def test_a_pull_report_of_wire_diagnostics_is_the_lsprotocol_one() -> None:
    """A pull report's items are the analysis' wire dicts; the converter writes them as
    the objects they stand for, and drafts' diagnostics (built as objects) too."""
    found = varied_findings()
    _, problems = parse_draft("not a draft")
    objects = [
        *(to_diagnostic(f) for f in found),
        *draft_diagnostics("not a draft", problems, refused=False),
        error_diagnostic("not logged: locked"),
    ]
    dicts = [
        *(wire_diagnostic(f) for f in found),
        *wire_diagnostics(draft_diagnostics("not a draft", problems, refused=False)),
        *wire_diagnostics([error_diagnostic("not logged: locked")]),
    ]
    conv = converter()
    fast = types.RelatedFullDocumentDiagnosticReport(items=dicts)  # type: ignore[arg-type]
    slow = types.RelatedFullDocumentDiagnosticReport(items=objects)
    response = types.DocumentDiagnosticResponse(id=2, result=fast, jsonrpc="2.0")
    expected = types.DocumentDiagnosticResponse(id=2, result=slow, jsonrpc="2.0")
    assert orjson.dumps(conv.unstructure(response)) == orjson.dumps(
        default_converter().unstructure(expected)
    )
