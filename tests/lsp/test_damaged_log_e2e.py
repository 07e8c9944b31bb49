"""A line that verification rejects changes no diagnostic, and the editor is told once."""

from __future__ import annotations

import json

from lsp_helpers import Sample, cairn_diagnostics, initialize, only_message, open_doc, wait_for
from lsprotocol import types
from pytest_lsp import LanguageClient

from cairn.store.canonical import canonical_json


async def test_a_forged_supersede_changes_nothing_and_a_notice_says_so(
    client: LanguageClient, sample: Sample
) -> None:
    log = sample.root / ".cairn" / "decisions.jsonl"
    newest = json.loads(log.read_text().splitlines()[-1])["id"]
    forged = {
        "type": "supersede",
        "entity": "users.email_verified",
        "parents": [newest],
        "supersedes": sample.ids["revert"],
        "reasoning": "nobody decided this",
        "recorded_at": "2026-06-01T00:00:00.000Z",
        "author": "Mallory <m@example.com>",
        "id": "ab" * 32,  # made up: it does not hash to this
    }
    with log.open("a", encoding="utf-8") as fh:
        fh.write(canonical_json(forged) + "\n")

    await initialize(client, sample.root)
    migration = sample.root / "db" / "migrations" / "0042_email_verified.sql"
    uri = open_doc(client, migration, "sql")
    await wait_for(lambda: bool(cairn_diagnostics(client, uri)), client)
    codes = [d.code for d in cairn_diagnostics(client, uri)]
    assert sample.ids["revert"] in codes  # still reverted: the forged line is ignored

    models = open_doc(client, sample.root / "app" / "models.py", "python")
    await wait_for(lambda: models in client.diagnostics, client)
    message = await only_message(client)  # once, though two documents were opened
    assert message.type == types.MessageType.Warning
    assert "damaged" in message.message and "cairn verify" in message.message
