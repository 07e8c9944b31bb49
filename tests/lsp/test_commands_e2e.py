"""Commands end to end: immediate writes, the draft round-trip, history, bad arguments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsp_helpers import Sample, cairn_diagnostics, initialize, open_doc, open_warned, wait_for
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

PYPROJECT = "pyproject.toml"


def log_lines(sample: Sample) -> list[dict]:
    text = (sample.root / ".cairn" / "decisions.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


async def run(client: LanguageClient, command: str, *arguments: object) -> object:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=list(arguments))
    )


async def test_draft_round_trip_logs_on_save_and_deletes_the_draft(
    client: LanguageClient, sample: Sample
) -> None:
    uri = await open_warned(client, sample.root, sample.root / PYPROJECT, "toml")

    result = await run(
        client, "cairn.supersede", {"entity": "deps/stripe", "of": sample.ids["reject"]}
    )
    draft = Path(result["draft"])
    assert draft.parent == sample.root / ".cairn" / "drafts"
    assert [d.uri for d in client.shown_documents] == [result["uri"]]
    text = draft.read_text()
    assert "entity: deps/stripe\ntype: supersede\n" in text
    assert f"supersedes: {sample.ids['reject']}" in text
    assert "> Re-opens the reject" in text and "Payout fees too high" in text
    assert len(log_lines(sample)) == 4  # nothing written yet

    # The editor opens the draft; saving it without reasoning is refused, in the draft.
    draft_uri = open_doc(client, draft, "markdown")
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=draft_uri))
    )
    await wait_for(
        lambda: any(
            d.severity == types.DiagnosticSeverity.Error
            for d in client.diagnostics.get(draft_uri, [])
        ),
        client,
    )
    [problem] = client.diagnostics[draft_uri]
    assert "write the reasoning" in problem.message
    assert draft.exists() and len(log_lines(sample)) == 4

    # Now with reasoning: logged, draft deleted, the pyproject warning gone.
    reasoning = "Stripe cut payout fees for marketplaces; worth it now."
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=draft_uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text + reasoning)],
        )
    )
    draft.write_text(text + reasoning)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=draft_uri))
    )
    await wait_for(lambda: cairn_diagnostics(client, uri) == [], client)
    last = log_lines(sample)[-1]
    assert last["type"] == "supersede" and last["supersedes"] == sample.ids["reject"]
    assert last["reasoning"] == reasoning
    assert not draft.exists()
    assert list(client.diagnostics[draft_uri]) == []


async def test_reason_given_writes_at_once_and_history_lists_it(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root)
    written = await run(
        client,
        "cairn.reject",
        {
            "entity": "Users.Email",
            "alternative": "store e-mails case-sensitively",
            "reason": "Duplicates by case broke login.",
        },
    )
    assert written["entity"] == "users.email"
    assert log_lines(sample)[-1]["alternative"] == "store e-mails case-sensitively"
    history = await run(client, "cairn.history", {"entity": "users.email"})
    assert [e["type"] for e in history["events"]] == ["reject"]
    assert "Duplicates by case broke login." in history["markdown"]
    assert history["shown"] is False and client.shown_documents == []


@pytest.mark.parametrize(
    ("command", "arguments", "message"),
    [
        ("cairn.log", [], "expected one JSON object"),
        ("cairn.log", ["users.email"], "expected one JSON object"),
        (
            "cairn.log",
            [{"entity": "users.email", "type": "explode", "reason": "x"}],
            "invalid type",
        ),
        ("cairn.log", [{"type": "modify", "reason": "x"}], "'entity' is required"),
        ("cairn.revert", [{"entity": "a..b", "reason": "x"}], "empty part"),
        ("cairn.supersede", [{"entity": "users.email", "reason": "x"}], "no open verdict"),
        ("cairn.log", [{"entity": "x", "type": "add", "reason": 3}], "must be a string"),
        ("cairn.log", [{"entity": "x", "type": "add", "why": "x"}], "unknown argument why"),
        ("cairn.redact", [{"id": "abc"}], "not defined"),
    ],
)
async def test_invalid_arguments_get_an_error_and_write_nothing(
    client: LanguageClient, sample: Sample, command: str, arguments: list, message: str
) -> None:
    await initialize(client, sample.root)
    with pytest.raises(JsonRpcInvalidParams, match=message):
        await run(client, command, *arguments)
    assert len(log_lines(sample)) == 4
    assert list((sample.root / ".cairn" / "drafts").iterdir()) == []
