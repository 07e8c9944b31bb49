"""Idempotency keys through the real server: `key` on the write commands, as the CLI's
`--key`. A retry (the editor's request timed out, the server was restarted) writes
nothing and answers the first event; the same key for another decision is refused."""

from __future__ import annotations

import json

import pytest
from lsp_helpers import Sample, initialize
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from cairn.core.decisions import DecisionRequest, parse_draft, render_draft


def log_bytes(sample: Sample) -> bytes:
    return (sample.root / ".cairn" / "decisions.jsonl").read_bytes()


async def run(client: LanguageClient, command: str, arguments: dict[str, object]) -> object:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=[arguments])
    )


async def test_a_retried_command_with_a_key_writes_once(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root)
    args = {"entity": "deps/celery", "reason": "no broker to run", "key": "editor-7f3a"}
    first = await run(client, "cairn.reject", args)
    assert first["replayed"] is False
    before = log_bytes(sample)
    again = await run(client, "cairn.reject", args)
    assert again["replayed"] is True and again["id"] == first["id"]
    assert log_bytes(sample) == before
    assert json.loads(before.splitlines()[-1])["metadata"]["idempotency"]["key"] == "editor-7f3a"
    # A supersede retried after its verdict closed still answers the first event.
    sup = {"entity": "deps/celery", "reason": "a broker is fine now", "key": "editor-7f3b"}
    written = await run(client, "cairn.supersede", sup)
    again = await run(client, "cairn.supersede", sup)
    assert again["id"] == written["id"] and again["replayed"] is True


async def test_the_same_key_for_another_decision_is_refused(
    client: LanguageClient, sample: Sample
) -> None:
    await initialize(client, sample.root)
    await run(
        client, "cairn.log", {"entity": "users.phone", "type": "add", "reason": "sms", "key": "k"}
    )
    before = log_bytes(sample)
    with pytest.raises(JsonRpcInvalidParams, match="key 'k' was already used for add"):
        await run(
            client,
            "cairn.log",
            {"entity": "users.phone", "type": "add", "reason": "2fa", "key": "k"},
        )
    with pytest.raises(JsonRpcInvalidParams, match="is not a usable key"):
        await run(client, "cairn.reject", {"entity": "deps/x", "reason": "y", "key": "a b"})
    with pytest.raises(JsonRpcInvalidParams, match="'key' must be a string"):
        await run(client, "cairn.reject", {"entity": "deps/x", "reason": "y", "key": 7})
    assert log_bytes(sample) == before


def test_a_draft_keeps_its_key() -> None:
    request = DecisionRequest(entity="users.phone", type="add", key="draft-1")
    text = render_draft(request) + "sms login\n"
    assert "\nkey: draft-1\n" in text
    parsed, problems = parse_draft(text)
    assert problems == [] and parsed is not None and parsed.key == "draft-1"
