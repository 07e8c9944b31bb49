"""End to end against the real server: push and pull diagnostics, quick fix, hover."""

from __future__ import annotations

import asyncio

from lsp_helpers import (
    Sample,
    cairn_diagnostics,
    hover_at,
    hover_text,
    initialize,
    open_doc,
    open_warned,
    wait_for,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

MIGRATION = "db/migrations/0042_email_verified.sql"


async def test_readding_a_reverted_column_warns_at_the_column_name(
    client: LanguageClient, sample: Sample
) -> None:
    uri = await open_warned(client, sample.root, sample.root / MIGRATION, "sql")

    [diag] = cairn_diagnostics(client, uri)
    line = sample.text(MIGRATION).splitlines()[1]
    start = line.index("email_verified")
    assert diag.range == types.Range(
        start=types.Position(line=1, character=start),
        end=types.Position(line=1, character=start + len("email_verified")),
    )
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert diag.code == sample.ids["revert"]
    assert "reverted on 2026-04-02 by alice" in diag.message
    assert "corporate domains" in diag.message
    assert diag.data["entity"] == "users.email_verified"
    assert diag.data["verdict_ids"] == [sample.ids["revert"]]
    assert diag.data["verdict_types"] == ["revert"]


async def test_quick_fix_supersedes_and_the_warning_goes_away(
    client: LanguageClient, sample: Sample
) -> None:
    uri = await open_warned(client, sample.root, sample.root / MIGRATION, "sql")
    [diag] = cairn_diagnostics(client, uri)

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag]),
        )
    )
    assert actions is not None
    titles = [a.title for a in actions]
    assert titles[0] == "Supersede the revert of users.email_verified…"
    assert "Show history of users.email_verified" in titles
    assert "Record that users.email_verified was rejected…" in titles
    fix = actions[0]
    assert isinstance(fix, types.CodeAction) and fix.command is not None
    args = dict(fix.command.arguments[0])
    args["reason"] = "Bounces fixed by the new mail provider; verification is back."

    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=fix.command.command, arguments=[args])
    )
    assert result["type"] == "supersede"
    assert result["event"]["supersedes"] == sample.ids["revert"]
    await wait_for(lambda: cairn_diagnostics(client, uri) == [], client)
    assert (sample.root / ".cairn" / "decisions.jsonl").read_text().count("\n") == 5


async def test_pull_diagnostics_match_and_nothing_is_pushed(
    client: LanguageClient, sample: Sample
) -> None:
    result = await initialize(client, sample.root, pull=True)
    assert result.capabilities.diagnostic_provider is not None
    uri = open_doc(client, sample.root / "pyproject.toml", "toml")
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    [diag] = report.items
    assert diag.code == sample.ids["reject"]
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert "rejected (use stripe for payouts) on 2026-05-01" in diag.message
    assert (
        sample.text("pyproject.toml")
        .splitlines()[3][diag.range.start.character :]
        .startswith('"stripe')
    )
    await asyncio.sleep(0.3)  # a push would have arrived by now; pull clients get none
    assert uri not in client.diagnostics


async def test_hover_shows_the_reasoning_and_links_the_history(
    client: LanguageClient, sample: Sample
) -> None:
    uri = await open_warned(client, sample.root, sample.root / MIGRATION, "sql")
    col = sample.text(MIGRATION).splitlines()[1].index("email_verified") + 3
    text = await hover_text(client, uri, 1, col)
    assert "`users.email_verified`** · reverted · 2 decisions" in text
    assert "**Reverted** 2026-04-02 by alice" in text
    assert "corporate domains" in text
    assert sample.ids["revert"][:8] in text and sample.ids["revert"] not in text
    assert "command:cairn.history" in text
    assert len(text.splitlines()) <= 15

    # The table has no decisions of its own, but its columns' verdicts roll up.
    table = await hover_text(client, uri, 1, 14)
    assert table.startswith("**`users`** · no decisions of its own")
    assert "Columns: 1 reverted (email_verified)" in table

    # `users.email` has no history at all: no hover by default.
    nothing = await hover_at(client, uri, 2, 41)
    assert nothing is None


async def test_reapplied_without_supersede_is_a_conflict_warning(
    client: LanguageClient, sample: Sample
) -> None:
    sample.append(
        type="add",
        entity="users.email_verified",
        author="bob",
        reasoning="Needed for the new signup flow.",
        occurred_at="2026-06-01",
    )
    uri = await open_warned(client, sample.root, sample.root / MIGRATION, "sql")
    [diag] = cairn_diagnostics(client, uri)
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert diag.data["kind"] == "conflict"
    assert diag.code == sample.ids["revert"]
    assert "re-applied on 2026-06-01 by bob without a supersede" in diag.message


async def test_a_due_review_is_information_at_the_definition(
    client: LanguageClient, sample: Sample
) -> None:
    review_id = sample.append(
        type="modify",
        entity="app/models.py::send_welcome",
        reasoning="Greeting by e-mail is a stopgap; revisit once display names ship.",
        revisit_after="2026-01-15",
    )
    uri = await open_warned(client, sample.root, sample.root / "app" / "models.py", "python")
    [diag] = cairn_diagnostics(client, uri)
    assert diag.severity == types.DiagnosticSeverity.Information
    assert diag.code == review_id and diag.data["kind"] == "review"
    assert "A review of app/models.py::send_welcome is due since 2026-01-15" in diag.message
    line = sample.text("app/models.py").splitlines()[diag.range.start.line]
    assert line[diag.range.start.character : diag.range.end.character] == "send_welcome"
