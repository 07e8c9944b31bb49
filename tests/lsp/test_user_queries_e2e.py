"""User tree-sitter queries in `.cairn/queries/`: they add entities the server knows,
and a broken one is reported once while the built-in queries keep working."""

from __future__ import annotations

from lsp_helpers import (
    Sample,
    cairn_diagnostics,
    hover_at,
    initialize,
    only_message,
    open_doc,
    open_warned,
    wait_for,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

QUERY = """\
; our data layer names tables in query_table("...")
((call function: (identifier) @_fn
       arguments: (argument_list . (string) @table.reference)) @range
 (#eq? @_fn "query_table"))
"""

REPO = """\
def open_orders():
    return query_table("orders")
"""


async def test_a_user_query_adds_an_entity_with_hover_and_diagnostic(
    client: LanguageClient, sample: Sample
) -> None:
    (sample.root / ".cairn" / "queries").mkdir()
    (sample.root / ".cairn" / "queries" / "python.scm").write_text(QUERY)
    (sample.root / "app" / "repo.py").write_text(REPO)
    added = sample.append(type="add", entity="orders", reasoning="Orders table.")
    reverted = sample.append(
        type="revert", entity="orders", reverts=added, reasoning="Orders moved to the ERP."
    )
    uri = await open_warned(client, sample.root, sample.root / "app" / "repo.py", "python")

    [diag] = cairn_diagnostics(client, uri)
    assert diag.code == reverted
    assert diag.severity == types.DiagnosticSeverity.Information  # a reference
    assert diag.range.start == types.Position(line=1, character=23)
    hover = await hover_at(client, uri, 1, 26)
    assert hover is not None
    assert "`orders`" in hover
    assert "Orders moved to the ERP." in hover
    assert client.messages == []


async def test_a_broken_user_query_is_reported_once_and_builtins_still_work(
    client: LanguageClient, sample: Sample
) -> None:
    (sample.root / ".cairn" / "queries").mkdir()
    (sample.root / ".cairn" / "queries" / "sql.scm").write_text("; ours\n((oops\n")
    await initialize(client, sample.root)
    migration = sample.root / "db" / "migrations" / "0042_email_verified.sql"
    uri = open_doc(client, migration, "sql")
    await wait_for(lambda: bool(cairn_diagnostics(client, uri)), client)
    [diag] = cairn_diagnostics(client, uri)  # the built-in SQL query still found it
    assert diag.code == sample.ids["revert"]

    models = open_doc(client, sample.root / "app" / "models.py", "python")
    await wait_for(lambda: models in client.diagnostics, client)
    message = await only_message(client)  # once, though two documents were opened
    assert message.type == types.MessageType.Warning
    assert message.message.startswith("Cairn: .cairn/queries/sql.scm:2:")
    assert "oops" in message.message
    assert any(".cairn/queries/sql.scm:2:" in m.message for m in client.log_messages)
