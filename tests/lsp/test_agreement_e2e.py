"""The surfaces agree because they share one core: the real CLI and the real server,
asked about the same log and the same text, give the same answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsp_helpers import (
    SERVER_ENV,
    Sample,
    cairn_diagnostics,
    initialize,
    make_client,
    make_sample,
    open_doc,
    open_warned,
    wait_for,
)
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

MIGRATION = "db/migrations/0042_email_verified.sql"
SEVERITY = {
    types.DiagnosticSeverity.Error: "error",
    types.DiagnosticSeverity.Warning: "warning",
    types.DiagnosticSeverity.Information: "information",
    types.DiagnosticSeverity.Hint: "hint",
}


def cli(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The real `cairn` CLI in another process (exit codes are the caller's business)."""
    cairn = Path(sys.executable).with_name("cairn")
    return subprocess.run(
        [str(cairn), *args], cwd=cwd, env=env or SERVER_ENV, capture_output=True, text=True
    )


def add_due_review(sample: Sample) -> str:
    """A decision on `users` whose review date has passed."""
    return sample.append(
        type="modify",
        entity="users",
        reasoning="Revisit the users table once signups double.",
        revisit_after="2026-01-01",
        occurred_at="2025-12-01",
    )


def as_check_findings(diagnostics: list[types.Diagnostic]) -> list[dict[str, Any]]:
    """Diagnostics in the shape of `cairn check --json` findings (the shared fields)."""
    return sorted(
        (
            {
                "line": d.range.start.line + 1,
                "column": d.range.start.character + 1,
                "end_line": d.range.end.line + 1,
                "end_column": d.range.end.character + 1,
                "entity": d.data["entity"],
                "kind": d.data["kind"],
                "severity": SEVERITY[d.severity or types.DiagnosticSeverity.Error],
                "message": d.message,
                "verdict_id": d.code,
            }
            for d in diagnostics
        ),
        key=lambda f: (f["line"], f["column"], f["verdict_id"]),
    )


def shared_fields(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    keys = ("line", "column", "end_line", "end_column", "entity", "kind", "severity", "message")
    return sorted(
        ({k: f[k] for k in (*keys, "verdict_id")} for f in findings),
        key=lambda f: (f["line"], f["column"], f["verdict_id"]),
    )


async def test_status_json_and_the_hover_report_the_same_due_review(
    client: LanguageClient, sample: Sample
) -> None:
    review_id = add_due_review(sample)
    status = json.loads(cli(sample.root, "status", "users", "--json").stdout)
    [due] = status["due_reviews"]
    assert due["event"]["id"] == review_id and due["due"] == "2026-01-01"

    await initialize(client, sample.root)
    uri = open_doc(client, sample.root / MIGRATION, "sql")
    await wait_for(lambda: len(cairn_diagnostics(client, uri)) >= 2, client)
    line = sample.text(MIGRATION).splitlines()[1]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=1, character=line.index("users") + 1),
        )
    )
    assert hover is not None
    card = hover.contents.value
    assert "⏰ **Review due** since 2026-01-01: Revisit the users table" in card
    # The diagnostics name the same event as the one review `cairn status` lists.
    reviews = [d for d in cairn_diagnostics(client, uri) if d.data["kind"] == "review"]
    assert {d.code for d in reviews} == {due["event"]["id"]}


async def test_check_and_the_diagnostics_give_the_same_findings_for_the_same_text(
    client: LanguageClient, sample: Sample
) -> None:
    add_due_review(sample)
    done = cli(sample.root, "check", MIGRATION, "--json")
    assert done.returncode == 1, done.stderr  # the re-added reverted column blocks
    report = json.loads(done.stdout)
    assert {f["kind"] for f in report["findings"]} == {"verdict", "review"}

    await initialize(client, sample.root)
    uri = open_doc(client, sample.root / MIGRATION, "sql")
    expected = len(report["findings"])
    await wait_for(lambda: len(cairn_diagnostics(client, uri)) >= expected, client)
    # The gate words what blocks as an error; everything else reads the same.
    gate = [
        {**f, "severity": "warning" if f["blocking"] else f["severity"]} for f in report["findings"]
    ]
    assert all(f["severity"] == "error" for f in report["findings"] if f["blocking"])
    assert as_check_findings(cairn_diagnostics(client, uri)) == shared_fields(gate)


async def test_the_server_honours_cairn_dir_as_the_cli_does(tmp_path: Path) -> None:
    # A nested project without decisions would win the walk up from the file;
    # CAIRN_DIR names the outer log instead, for the CLI and the server alike.
    sample = make_sample(tmp_path / "shop")
    nested = sample.root / "vendor" / "billing"
    (nested / ".cairn").mkdir(parents=True)
    migration = nested / "001_users.sql"
    migration.write_text((sample.root / MIGRATION).read_text())
    env = {**SERVER_ENV, "CAIRN_DIR": str(sample.root / ".cairn")}

    done = cli(nested, "check", migration.name, "--json", env=env)
    assert done.returncode == 1, done.stderr
    [finding] = json.loads(done.stdout)["findings"]
    assert finding["verdict_id"] == sample.ids["revert"]
    assert finding["file"] == "vendor/billing/001_users.sql"

    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "cairn.lsp"],
        server_env=env,
        client_factory=make_client,
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    try:
        uri = await open_warned(client, nested, migration, "sql")
        [diag] = cairn_diagnostics(client, uri)
        assert diag.code == finding["verdict_id"]
        assert diag.message == finding["message"]
    finally:
        await client.shutdown_session()
