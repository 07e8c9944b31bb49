"""Re-introducing a removed entity: an Information diagnostic quoting the removal, and the
`removed` setting (the real server)."""

from __future__ import annotations

import pytest
from lsp_helpers import Sample, cairn_diagnostics, initialize, open_doc, open_warned, wait_for
from lsprotocol import types
from pytest_lsp import LanguageClient

READD = "db/migrations/0050_note_again.sql"
REASON = "Nobody read order notes; support uses the ticket system."


def drop_note(sample: Sample) -> str:
    sample.append(type="add", entity="orders.note", reasoning="Free-text notes on orders.")
    removal = sample.append(
        type="remove",
        entity="orders.note",
        reasoning=REASON,
        author="bob",
        occurred_at="2026-06-01",
    )
    (sample.root / READD).write_text("ALTER TABLE orders ADD COLUMN note text;\n")
    return removal


@pytest.mark.parametrize(
    ("options", "severity"),
    [
        ({"debounceMs": 20}, types.DiagnosticSeverity.Information),
        ({"debounceMs": 20, "removed": "warn"}, types.DiagnosticSeverity.Warning),
    ],
)
async def test_readding_a_removed_column_is_a_notice_quoting_the_removal(
    client: LanguageClient, sample: Sample, options: dict, severity: types.DiagnosticSeverity
) -> None:
    removal = drop_note(sample)
    uri = await open_warned(client, sample.root, sample.root / READD, "sql", options=options)
    [diag] = cairn_diagnostics(client, uri)
    assert diag.severity == severity
    assert diag.code == removal
    assert diag.message.startswith(f"orders.note was removed on 2026-06-01 by bob: {REASON}")
    assert diag.data["kind"] == "removed"


async def test_the_notice_can_be_turned_off(client: LanguageClient, sample: Sample) -> None:
    drop_note(sample)
    await initialize(client, sample.root, options={"debounceMs": 20, "removed": "off"})
    other = open_doc(client, sample.root / "db/migrations/0042_email_verified.sql", "sql")
    uri = open_doc(client, sample.root / READD, "sql")
    await wait_for(lambda: bool(cairn_diagnostics(client, other)), client)
    assert cairn_diagnostics(client, uri) == []
