"""Redaction erases content from every file under .cairn/ and leaves a verifiable log."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cairn.store import EventDraft, Store

from .harness import append_events, cairn, log_events, log_lines, write_lines

# Distinctive words, so a byte search cannot match anything else.
WORDS = ("zebraquux", "mangosteenplan", "papayacorp", "diffword")


def cairn_bytes(cairn_dir: Path) -> dict[Path, bytes]:
    """Every file under .cairn/, lower-cased (FTS5 stores terms folded)."""
    return {p: p.read_bytes().lower() for p in cairn_dir.rglob("*") if p.is_file()}


def holders(cairn_dir: Path, word: str) -> list[str]:
    return [p.name for p, data in cairn_bytes(cairn_dir).items() if word.encode() in data]


@pytest.fixture
def secret_event(cairn_dir: Path) -> Any:
    """A reject whose content must go, between ordinary events."""
    events = append_events(
        cairn_dir,
        [
            EventDraft(type="add", entity="users.email", reasoning="login by email"),
            EventDraft(
                type="reject",
                entity="deps/stripe",
                reasoning="Zebraquux said no: PapayaCorp pays less",
                alternative="the mangosteenplan billing",
                diff="+ stripe = diffword",
                metadata={"customer": "papayacorp"},
            ),
            EventDraft(type="modify", entity="users.email", reasoning="make it unique"),
        ],
    )
    with Store.open(cairn_dir) as store:  # the search index holds the words now
        assert [h.event.id for h in store.search("zebraquux")] == [events[1].id]
    return events[1]


def test_redact_erases_content_everywhere(repo: Path, cairn_dir: Path, secret_event: Any) -> None:
    for word in WORDS:
        assert holders(cairn_dir, word), f"{word} should be on disk before redaction"
    draft = cairn_dir / "drafts" / "note.md"
    draft.write_text("draft: Zebraquux said no: PapayaCorp pays less\n", encoding="utf-8")

    done = cairn(repo, "redact", secret_event.id[:10], "-r", "pasted a customer name")
    assert done.returncode == 0, done.stderr
    assert f"redacted {secret_event.id[:12]} on deps/stripe" in done.stdout
    assert "removed draft" in done.stdout and not draft.exists()

    for word in WORDS:
        assert holders(cairn_dir, word) == [], word
    # A VACUUM keeps only live rows: nothing live may hold the text either.
    db = sqlite3.connect(cairn_dir / "index.db")
    db.execute("VACUUM")
    db.close()
    for word in WORDS:
        assert holders(cairn_dir, word) == [], word

    verified = cairn(repo, "verify", "--json")
    assert verified.returncode == 0, verified.stdout
    assert json.loads(verified.stdout)["events"] == 4

    with Store.open(cairn_dir) as store:
        assert store.search("zebraquux") == []
        target = store.get(secret_event.id)
        assert target.redacted and target.reasoning == "" and target.metadata == {}
        # The verdict still stands: redaction erases words, not decisions.
        assert store.status("deps/stripe").status.value == "rejected"
        record = store.history("deps/stripe")[-1]
    assert record.type.value == "redact"
    assert record.reasoning == "pasted a customer name"
    assert record.metadata == {"redacts": secret_event.id}
    assert record.author and record.recorded_at


def test_redacted_line_keeps_header_and_digest(
    repo: Path, cairn_dir: Path, secret_event: Any
) -> None:
    before = log_events(cairn_dir)[1]
    assert cairn(repo, "redact", secret_event.id, "-r", "pii").returncode == 0
    after = log_events(cairn_dir)[1]
    assert after["id"] == before["id"]
    assert after["redacted"] is True and len(after["content_digest"]) == 64
    kept = {
        k: v for k, v in before.items() if k not in ("reasoning", "alternative", "diff", "metadata")
    }
    assert {k: v for k, v in after.items() if k not in ("redacted", "content_digest")} == kept


def test_redact_twice_is_refused(repo: Path, cairn_dir: Path, secret_event: Any) -> None:
    assert cairn(repo, "redact", secret_event.id, "-r", "pii").returncode == 0
    again = cairn(repo, "redact", secret_event.id, "-r", "pii")
    assert again.returncode == 2
    assert "already redacted" in again.stderr and again.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ffffffffff", "-r", "x"], "no event with id"),
        (["zz", "-r", "x"], "not an event id"),
        (["{id}", "-r", "  "], "say why"),
    ],
)
def test_bad_input_writes_nothing(
    repo: Path, cairn_dir: Path, secret_event: Any, args: list[str], message: str
) -> None:
    before = log_lines(cairn_dir)
    done = cairn(repo, "redact", *[a.format(id=secret_event.id) for a in args])
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert log_lines(cairn_dir) == before


def test_a_merge_that_brings_the_content_back_is_caught_and_fixed(
    repo: Path, cairn_dir: Path, secret_event: Any
) -> None:
    original = log_lines(cairn_dir)[1]
    assert cairn(repo, "redact", secret_event.id, "-r", "pii").returncode == 0
    # A teammate's clone never saw the redaction; a union merge appends their copy.
    write_lines(cairn_dir, [*log_lines(cairn_dir), original])
    found = cairn(repo, "verify", "--json")
    assert found.returncode == 1
    problems = json.loads(found.stdout)["problems"]
    assert [(p["code"], p["line"], p["event"]) for p in problems] == [
        ("unredacted-copy", 5, secret_event.id)
    ]
    fixed = cairn(repo, "redact", secret_event.id, "-r", "pii again")
    assert fixed.returncode == 0, fixed.stderr
    assert "recorded as" not in fixed.stdout  # the first run's record stands
    assert holders(cairn_dir, "zebraquux") == []
    assert cairn(repo, "verify").returncode == 0
    assert sum(e["type"] == "redact" for e in log_events(cairn_dir)) == 1


def test_secrets_in_a_logged_reason_are_masked_and_reported(repo: Path, cairn_dir: Path) -> None:
    done = cairn(repo, "log", "env/STRIPE_KEY", "add", "-r", "was sk_live_51H8abcdEFGHijklMNOPqrst")
    assert done.returncode == 0, done.stderr
    assert "stripe-key" in done.stdout + done.stderr
    assert "sk_live_51H8" not in log_path_text(cairn_dir)
    assert "[REDACTED:stripe-key]" in log_path_text(cairn_dir)


def log_path_text(cairn_dir: Path) -> str:
    return (cairn_dir / "decisions.jsonl").read_text(encoding="utf-8")


def test_redaction_is_not_on_the_language_server_surface() -> None:
    from cairn.lsp.server import build_server

    commands = set(build_server().protocol.fm.commands)
    assert "cairn.log" in commands  # the surface exists...
    assert not {c for c in commands if "redact" in c or "delete" in c}  # ...without erasure
