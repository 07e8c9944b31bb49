"""LSP <-> core conversions: the direct Diagnostic encoder says what cattrs says."""

from __future__ import annotations

import json

from lsprotocol import types
from pygls.protocol import default_converter

from cairn.core.decisions import parse_draft
from cairn.core.findings import findings_for
from cairn.indexer.model import Range, Role, Symbol
from cairn.lsp.conversions import converter, draft_diagnostics, error_diagnostic, to_diagnostic
from cairn.store.model import EntityStatus, Event, EventType, Status

RANGE = Range(2, 4, 2, 18)
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
