"""Workspace-level behaviour end to end: the log changing underneath, multi-root,
missing projects, code lenses, workspace symbols and settings."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from lsp_helpers import (
    SERVER_ENV,
    Sample,
    cairn_diagnostics,
    hover_at,
    initialize,
    make_sample,
    open_doc,
    open_warned,
    wait_for,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

MIGRATION = "db/migrations/0042_email_verified.sql"


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real `cairn` CLI in another process, as a person at a terminal would run it."""
    cairn = Path(sys.executable).with_name("cairn")
    return subprocess.run(
        [str(cairn), *args], cwd=cwd, env=SERVER_ENV, capture_output=True, text=True, check=True
    )


async def test_a_cli_write_is_seen_by_the_running_server(
    client: LanguageClient, sample: Sample
) -> None:
    uri = await open_warned(
        client,
        sample.root,
        sample.root / MIGRATION,
        "sql",
        options={"debounceMs": 20, "pollIntervalMs": 250},
    )

    cli(sample.root, "supersede", "users.email_verified", "-r", "New mail provider; try again.")
    await wait_for(lambda: cairn_diagnostics(client, uri) == [], client)
    # The refresh request may be handled after the publish (the client's order).
    for _ in range(300):
        if client.code_lens_refreshes:  # type: ignore[attr-defined]
            break
        await asyncio.sleep(0.05)
    assert client.code_lens_refreshes >= 1  # type: ignore[attr-defined]

    cli(sample.root, "reject", "users.email_verified", "--alternative", "a boolean flag",
        "-r", "Use a verified_at timestamp instead.")  # fmt: skip
    await wait_for(lambda: bool(cairn_diagnostics(client, uri)), client)
    [diag] = cairn_diagnostics(client, uri)
    assert "rejected (a boolean flag)" in diag.message


async def test_a_watching_client_that_misses_an_event_is_still_caught_up(
    client: LanguageClient, sample: Sample
) -> None:
    # The client accepts the watcher registration but never reports the CLI's write.
    await initialize(
        client, sample.root, watch=True, options={"debounceMs": 20, "pollIntervalMs": 250}
    )
    uri = open_doc(client, sample.root / MIGRATION, "sql")
    await wait_for(lambda: bool(cairn_diagnostics(client, uri)), client)

    cli(sample.root, "supersede", "users.email_verified", "-r", "New mail provider; try again.")
    await wait_for(lambda: cairn_diagnostics(client, uri) == [], client)


async def test_watched_file_events_refresh_without_polling(
    client: LanguageClient, sample: Sample
) -> None:
    uri = await open_warned(
        client, sample.root, sample.root / MIGRATION, "sql", watch=True, options={"debounceMs": 20}
    )
    for _ in range(300):  # the registration request follows `initialized` asynchronously
        if client.registrations:  # type: ignore[attr-defined]
            break
        await asyncio.sleep(0.05)
    [registration] = client.registrations  # type: ignore[attr-defined]
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    sample.append(type="supersede", entity="users.email_verified", reasoning="Fixed upstream.")
    log_uri = (sample.root / ".cairn" / "decisions.jsonl").as_uri()
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=log_uri, type=types.FileChangeType.Changed)]
        )
    )
    await wait_for(lambda: cairn_diagnostics(client, uri) == [], client)


async def test_multi_root_each_folder_uses_its_own_log(
    client: LanguageClient, tmp_path: Path
) -> None:
    shop = make_sample(tmp_path / "shop")
    billing = make_sample(tmp_path / "billing")
    billing.append(type="supersede", entity="deps/stripe", reasoning="Billing needs Stripe.")
    await initialize(client, shop.root, billing.root)
    shop_uri = open_doc(client, shop.root / "pyproject.toml", "toml")
    billing_uri = open_doc(client, billing.root / "pyproject.toml", "toml")
    await wait_for(lambda: shop_uri in client.diagnostics and billing_uri in client.diagnostics,
                   client)  # fmt: skip
    assert [d.code for d in cairn_diagnostics(client, shop_uri)] == [shop.ids["reject"]]
    assert cairn_diagnostics(client, billing_uri) == []

    # A write names its document, so it lands in that folder's log only.
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="cairn.log",
            arguments=[
                {
                    "entity": "deps/requests",
                    "type": "add",
                    "reason": "HTTP client for the billing API.",
                    "uri": billing_uri,
                }
            ],
        )
    )
    assert result["entity"] == "deps/requests"
    assert "deps/requests" in (billing.root / ".cairn" / "decisions.jsonl").read_text()
    assert "deps/requests" not in (shop.root / ".cairn" / "decisions.jsonl").read_text()


async def test_a_folder_without_cairn_gets_one_message_and_no_errors(
    client: LanguageClient, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "schema.sql").write_text("CREATE TABLE users (id int);\n")
    await initialize(client, plain)
    uri = open_doc(client, plain / "schema.sql", "sql")
    await wait_for(lambda: uri in client.diagnostics, client)
    assert list(client.diagnostics[uri]) == []
    hover = await hover_at(client, uri, 0, 14)
    assert hover is None
    [message] = client.messages
    assert "no .cairn/ folder" in message.message and "cairn init" in message.message
    assert message.type == types.MessageType.Warning


async def test_code_lens_and_the_setting_that_turns_it_off(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root)
    uri = open_doc(client, sample.root / MIGRATION, "sql")
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert lenses is not None
    [lens] = lenses
    assert lens.command is not None
    assert lens.command.title == "2 decisions · reverted 2026-04-02"
    assert lens.command.command == "cairn.history"
    assert lens.command.arguments[0]["entity"] == "users.email_verified"
    assert lens.range.start.line == 1

    client.set_configuration({"codeLens": False}, section="cairn")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    for _ in range(50):
        lenses = await client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        if not lenses:
            break
        await asyncio.sleep(0.1)
    assert list(lenses or []) == []


async def test_severity_and_hover_settings_from_configuration(
    client: LanguageClient, sample: Sample
) -> None:
    client.set_configuration(
        {"severity": {"introduce": "error"}, "hoverNoDecisions": True, "debounceMs": 10},
        section="cairn",
    )
    await initialize(client, sample.root)
    uri = open_doc(client, sample.root / MIGRATION, "sql")
    await wait_for(
        lambda: (
            [d.severity for d in cairn_diagnostics(client, uri)] == [types.DiagnosticSeverity.Error]
        ),
        client,
    )
    hover = await hover_at(client, uri, 2, 41)
    assert hover is not None and "`users.email`** · no decisions yet" in hover


async def test_workspace_symbols_search_decisions_and_locate_definitions(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root)
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="display"))
    assert symbols is not None
    [hit] = symbols
    assert hit.name.startswith("app/models.py::send_welcome · modify 2026-05-03")
    assert isinstance(hit, types.SymbolInformation)
    assert hit.location.uri == sample.uri("app/models.py")
    line = sample.text("app/models.py").splitlines()[hit.location.range.start.line]
    assert line[hit.location.range.start.character :].startswith("send_welcome")

    corporate = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="bounced"))
    assert [s.name.split(" ·")[0] for s in corporate or []] == ["users.email_verified"]
    assert await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="")) == []


def test_cli_serve_rejects_a_bad_tcp_address() -> None:
    cairn = Path(sys.executable).with_name("cairn")
    out = subprocess.run(
        [str(cairn), "serve", "--tcp", "localhost:http"],
        env={**os.environ, "PYTHONSAFEPATH": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "cairn: error: invalid --tcp 'localhost:http'; expected HOST:PORT such as 127.0.0.1:2087"
        " (see `cairn serve --help`)"
    )


async def test_cairn_init_while_editing_is_picked_up(
    client: LanguageClient, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    (plain / "db").mkdir(parents=True)
    (plain / "db" / "001.sql").write_text("ALTER TABLE users ADD COLUMN email_verified int;\n")
    await initialize(client, plain, options={"debounceMs": 20, "pollIntervalMs": 250})
    uri = open_doc(client, plain / "db" / "001.sql", "sql")
    await wait_for(lambda: uri in client.diagnostics, client)
    assert list(client.diagnostics[uri]) == []

    cli(plain, "init")
    # The server adopts the document into the new project (an analysis with an empty
    # log) before the first decision is written; that write must still be noticed,
    # although this client registered a file watcher it never fires.
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    cli(plain, "revert", "users.email_verified", "-r", "Bounced mails.")
    await wait_for(lambda: bool(cairn_diagnostics(client, uri)), client)
    [diag] = cairn_diagnostics(client, uri)
    assert diag.data["entity"] == "users.email_verified"


async def test_pull_clients_are_asked_to_refresh_when_the_log_changes(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root, pull=True, options={"pollIntervalMs": 250})
    uri = open_doc(client, sample.root / MIGRATION, "sql")
    params = types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    report = await client.text_document_diagnostic_async(params)
    assert [d.code for d in report.items] == [sample.ids["revert"]]

    cli(sample.root, "supersede", "users.email_verified", "-r", "Provider fixed.")
    for _ in range(300):
        if client.diagnostic_refresh_count:
            break
        await asyncio.sleep(0.05)
    assert client.diagnostic_refresh_count >= 1
    report = await client.text_document_diagnostic_async(params)
    assert list(report.items) == []


async def test_a_client_that_pulls_but_cannot_be_refreshed_gets_pushed_diagnostics(
    client: LanguageClient, sample: Sample
) -> None:
    # Neovim 0.11: pull diagnostics, but no workspace/diagnostic/refresh.
    result = await initialize(
        client, sample.root, pull=True, refresh=False, options={"pollIntervalMs": 250}
    )
    assert result.capabilities.diagnostic_provider is None  # so it never pulls a stale copy
    uri = open_doc(client, sample.root / MIGRATION, "sql")
    await wait_for(lambda: bool(cairn_diagnostics(client, uri)), client)
    assert [d.code for d in cairn_diagnostics(client, uri)] == [sample.ids["revert"]]

    cli(sample.root, "supersede", "users.email_verified", "-r", "Provider fixed.")
    await wait_for(lambda: cairn_diagnostics(client, uri) == [], client)
    assert client.diagnostic_refresh_count == 0


async def test_an_added_folder_without_cairn_gets_the_message_too(
    client: LanguageClient, sample: Sample, tmp_path: Path
) -> None:
    await initialize(client, sample.root)
    assert client.messages == []
    plain = tmp_path / "scripts"
    plain.mkdir()
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=plain.as_uri(), name="scripts")], removed=[]
            )
        )
    )
    for _ in range(300):
        if client.messages:
            break
        await asyncio.sleep(0.05)
    [message] = client.messages
    assert "scripts has no .cairn/ folder" in message.message
