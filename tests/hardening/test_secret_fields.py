"""Item 5: every text field that reaches the log is masked (or has a proven shape that
cannot hold a secret, or refuses one). The test enumerates the event's fields, so a new
field fails here until someone says how a secret in it is kept out of the log."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cairn.store import EventDraft, Store, StoreError
from cairn.store.fields import MAX_REASONING_BYTES, SHAPED_FIELDS
from cairn.store.model import EVENT_FIELDS
from cairn.store.secrets import mask_secrets, might_hold_secret

from .cli import Run

AWS = "AKIAIOSFODNN7EXAMPLE"
SECRET_TEXTS = [
    (f"rotated {AWS} today", AWS),
    ("cache at redis://:hunter22pass@cache.internal:6379", "hunter22pass"),
    ("set pw=s3cr3t!x on the box", "s3cr3t!x"),
    ("db_pw: Tr0ub4dor&3", "Tr0ub4dor&3"),
    (
        "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7R8",
        "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7R8",
    ),
]

# How a secret could be put in each field, and what must happen. `masked` fields take
# the secret through the draft and must not store it; `refused` ones must refuse the
# write; `not_writable` ones are computed by the store (no writer supplies them).
Case = Callable[[str], dict[str, Any]]
MASKED: dict[str, Case] = {
    "reasoning": lambda s: {"reasoning": s},
    "alternative": lambda s: {"type": "reject", "alternative": s},
    "diff": lambda s: {"diff": f"+ conn = {s}"},
    "author": lambda s: {"author": s},
    "agent": lambda s: {"agent": s},
    "session": lambda s: {"session": s},
    "expires_when": lambda s: {"expires_when": f"manual:{s}"},
    "stale_when": lambda s: {"stale_when": s},
    "metadata": lambda s: {"metadata": {"note": s, "nested": [{"deep": s}], s: "as a key"}},
}
REFUSED: dict[str, Case] = {
    "entity": lambda s: {"entity": "route/GET /login/" + s.replace(" ", "/")},
    "type": lambda s: {"type": s},
    "entity_kind": lambda s: {"entity_kind": s},
    "supersedes": lambda s: {"type": "supersede", "supersedes": s},
    "reverts": lambda s: {"type": "revert", "reverts": s},
    "commit": lambda s: {"commit": s},
    "recorded_at": lambda s: {"recorded_at": s},
    "occurred_at": lambda s: {"occurred_at": s},
    "revisit_after": lambda s: {"revisit_after": s},
}
NOT_WRITABLE = {"id", "parents"}


def test_every_event_field_is_accounted_for() -> None:
    # A new field in EVENT_FIELDS fails here until it is masked or proven to be shaped.
    assert set(MASKED) | set(REFUSED) | NOT_WRITABLE == set(EVENT_FIELDS)
    assert not set(MASKED) & (set(REFUSED) | NOT_WRITABLE)
    # Fields the write path does not mask must be ones whose secrets are refused.
    assert set(REFUSED) | NOT_WRITABLE >= SHAPED_FIELDS


def _draft(**fields: Any) -> EventDraft:
    base: dict[str, Any] = {"type": "add", "entity": "users.email", "reasoning": "why"}
    return EventDraft(**{**base, **fields})


@pytest.mark.parametrize(("text", "secret"), SECRET_TEXTS)
@pytest.mark.parametrize("field", sorted(MASKED))
def test_a_secret_in_a_text_field_never_reaches_the_log(
    store: Store, project: Path, field: str, text: str, secret: str
) -> None:
    result = store.append(_draft(**MASKED[field](text)))
    raw = (project / ".cairn" / "decisions.jsonl").read_text(encoding="utf-8")
    assert secret not in raw
    assert "[REDACTED:" in raw
    assert result.masked
    stored = json.dumps(result.event.to_dict())
    assert secret not in stored
    assert store.history("users.email")[-1].id == result.event.id


@pytest.mark.parametrize(("text", "secret"), SECRET_TEXTS)
@pytest.mark.parametrize("field", sorted(REFUSED))
def test_a_secret_in_a_shaped_field_is_refused(
    store: Store, project: Path, field: str, text: str, secret: str
) -> None:
    log = project / ".cairn" / "decisions.jsonl"
    before = log.read_bytes()
    with pytest.raises(StoreError):
        store.append(_draft(**REFUSED[field](text)))
    assert log.read_bytes() == before


def test_the_missed_forms_are_masked() -> None:
    for text, secret in SECRET_TEXTS:
        assert might_hold_secret(text), text
        masked, kinds = mask_secrets(text)
        assert secret not in masked and kinds, text
    for prose in ("we pass: through the gateway", "passage=123456", "the pw field is empty"):
        assert mask_secrets(prose)[0] == prose


def test_cli_masks_author_agent_session_and_validates_commit(run: Run, project: Path) -> None:
    code, out, err = run(
        "log", "users.email", "add", "-r", "why",
        "--author", f"ci {AWS}", "--agent", "redis://:hunter22pass@cache",
        "--session", "pw=s3cr3t!x", "--json",
    )  # fmt: skip
    assert code == 0, err
    raw = (project / ".cairn" / "decisions.jsonl").read_text(encoding="utf-8")
    for secret in (AWS, "hunter22pass", "s3cr3t!x"):
        assert secret not in raw and secret not in out
    assert "masked secrets" in err
    code, _, err = run("log", "users.email", "modify", "-r", "x", "--commit", "--output=x")
    assert code == 2 and "not a commit id" in err
    code, out, _ = run("log", "users.email", "modify", "-r", "x", "--commit", "ABCDEF12", "--json")
    assert code == 0 and json.loads(out)["commit"] == "abcdef12"


def test_reasoning_has_a_size_limit(run: Run, project: Path) -> None:
    log = project / ".cairn" / "decisions.jsonl"
    before = log.read_bytes()
    code, _, err = run("log", "users.email", "add", "-r", "x" * (MAX_REASONING_BYTES + 1))
    assert code == 2 and "limit is 64 KB" in err and err.count("\n") == 1
    assert log.read_bytes() == before
    assert run("log", "users.email", "add", "-r", "é" * (MAX_REASONING_BYTES // 2))[0] == 0
