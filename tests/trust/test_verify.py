"""The tamper matrix: each edit to the log gives exactly the finding that names it."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cairn.store import EventDraft, Store, line_id
from cairn.store.canonical import canonical_json

from .harness import append_events, cairn, log_events, log_lines, log_path, write_lines


def run_verify(repo: Path) -> tuple[int, dict[str, Any]]:
    """`cairn verify --json` in `repo`: exit code and report."""
    done = cairn(repo, "verify", "--json")
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def codes(
    report: dict[str, Any], key: str = "problems"
) -> list[tuple[str, int | None, str | None]]:
    return [(f["code"], f["line"], f["event"]) for f in report[key]]


def test_untouched_log_verifies(repo: Path, seeded: list[Any]) -> None:
    rc, report = run_verify(repo)
    assert rc == 0
    assert report["ok"] is True
    assert report["events"] == 5
    assert report["heads"] == [seeded[-1].id]
    assert report["problems"] == [] and report["notices"] == []


def test_human_output_names_line_and_id(repo: Path, cairn_dir: Path, seeded: list[Any]) -> None:
    lines = log_lines(cairn_dir)
    lines[2] = lines[2].replace("make it unique", "make it UNIQUE")
    write_lines(cairn_dir, lines)
    done = cairn(repo, "verify")
    assert done.returncode == 1
    assert f"problem: line 3: event {seeded[2].id}" in done.stdout
    assert "FAILED: 1 problem" in done.stdout


def test_content_edited(repo: Path, cairn_dir: Path, seeded: list[Any]) -> None:
    lines = log_lines(cairn_dir)
    lines[2] = lines[2].replace("make it unique", "make it optional")
    write_lines(cairn_dir, lines)
    rc, report = run_verify(repo)
    assert rc == 1
    assert codes(report) == [("id-mismatch", 3, seeded[2].id)]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("entity", "users.phone"),
        ("type", "remove"),
        ("recorded_at", "2020-01-01T00:00:00.000Z"),
        ("author", "Someone Else <x@example.com>"),
    ],
)
def test_header_edited(
    repo: Path, cairn_dir: Path, seeded: list[Any], field: str, value: str
) -> None:
    events = log_events(cairn_dir)
    events[1][field] = value
    write_lines(cairn_dir, [canonical_json(e) for e in events])
    rc, report = run_verify(repo)
    assert rc == 1
    assert codes(report) == [("id-mismatch", 2, seeded[1].id)]


def test_middle_line_deleted(repo: Path, cairn_dir: Path, seeded: list[Any]) -> None:
    lines = log_lines(cairn_dir)
    del lines[1]
    write_lines(cairn_dir, lines)
    rc, report = run_verify(repo)
    assert rc == 1
    # The child of the deleted event, now on line 2, names a parent that is gone.
    assert codes(report) == [("missing-parent", 2, seeded[2].id)]
    assert seeded[1].id in report["problems"][0]["message"]


def test_newest_line_deleted_is_caught_by_the_index_anchor(
    repo: Path, cairn_dir: Path, seeded: list[Any]
) -> None:
    write_lines(cairn_dir, log_lines(cairn_dir)[:-1])
    rc, report = run_verify(repo)
    assert rc == 1
    assert codes(report) == [("missing-head", None, seeded[-1].id)]


def test_forged_line_with_made_up_parent(repo: Path, cairn_dir: Path, seeded: list[Any]) -> None:
    forged: dict[str, Any] = {
        "type": "supersede",
        "entity": "deps/stripe",
        "parents": ["ab" * 32],
        "supersedes": seeded[3].id,
        "reasoning": "nobody decided this",
        "recorded_at": "2026-01-01T00:00:00.000Z",
        "author": "Mallory <m@example.com>",
    }
    forged["id"] = line_id(forged)  # a self-consistent id: only the parent gives it away
    write_lines(cairn_dir, [*log_lines(cairn_dir), canonical_json(forged)])
    rc, report = run_verify(repo)
    assert rc == 1
    assert codes(report) == [("missing-parent", 6, forged["id"])]


def test_forged_line_with_wrong_id(repo: Path, cairn_dir: Path, seeded: list[Any]) -> None:
    forged = json.loads(log_lines(cairn_dir)[-1])
    forged["id"] = "cd" * 32
    forged["parents"] = [seeded[-1].id]
    write_lines(cairn_dir, [*log_lines(cairn_dir), canonical_json(forged)])
    rc, report = run_verify(repo)
    assert rc == 1
    assert codes(report) == [("id-mismatch", 6, "cd" * 32)]


def test_index_rows_edited_are_rebuilt_without_a_finding(
    repo: Path, cairn_dir: Path, seeded: list[Any]
) -> None:
    db = sqlite3.connect(cairn_dir / "index.db")
    db.execute("DELETE FROM event WHERE seq = 2")
    db.execute("UPDATE meta SET v = ? WHERE k = 'heads'", (json.dumps(["ef" * 32]),))
    db.commit()
    db.close()
    rc, report = run_verify(repo)
    assert rc == 0
    assert report["problems"] == []
    assert [f["code"] for f in report["notices"]] == ["index-rebuilt"]
    with Store.open(cairn_dir) as store:
        assert len(store) == 5
        assert store.heads() == [seeded[-1].id]
        assert store.get(seeded[1].id[:10]).reasoning == "verify addresses"
    rc, report = run_verify(repo)
    assert (rc, report["notices"]) == (0, [])


def test_index_garbled_is_rebuilt_without_a_finding(
    repo: Path, cairn_dir: Path, seeded: list[Any]
) -> None:
    (cairn_dir / "index.db").write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        Path(f"{cairn_dir / 'index.db'}{suffix}").unlink(missing_ok=True)
    rc, report = run_verify(repo)
    assert (rc, report["problems"]) == (0, [])
    with Store.open(cairn_dir) as store:
        assert len(store) == 5


def test_index_deleted_is_rebuilt_without_a_finding(
    repo: Path, cairn_dir: Path, seeded: list[Any]
) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{cairn_dir / 'index.db'}{suffix}").unlink(missing_ok=True)
    rc, report = run_verify(repo)
    assert (rc, report["problems"], report["notices"]) == (0, [], [])
    assert (cairn_dir / "index.db").exists()
    with Store.open(cairn_dir) as store:
        assert store.status("deps/stripe").status.value == "rejected"


def test_reordered_and_duplicated_lines_are_harmless(
    repo: Path, cairn_dir: Path, seeded: list[Any]
) -> None:
    lines = log_lines(cairn_dir)
    shuffled = [*lines, lines[0], lines[3]]
    random.Random(7).shuffle(shuffled)
    write_lines(cairn_dir, shuffled)
    rc, report = run_verify(repo)
    assert (rc, report["problems"], report["notices"]) == (0, [], [])
    assert report["events"] == 5
    assert report["heads"] == [seeded[-1].id]
    with Store.open(cairn_dir) as store:
        assert len(store) == 5
        assert store.status("deps/stripe").status.value == "rejected"


def test_partial_last_line_is_reported_then_quarantined(
    repo: Path, cairn_dir: Path, seeded: list[Any]
) -> None:
    fragment = b'{"id":"0123","type":"add","entity":"users.na'
    with open(log_path(cairn_dir), "ab") as fh:
        fh.write(fragment)
    rc, report = run_verify(repo)
    assert (rc, report["problems"]) == (0, [])
    assert codes(report, "notices") == [("partial-tail", 6, None)]
    # The next write moves the fragment aside before appending; nothing is dropped.
    later = append_events(cairn_dir, [EventDraft(type="add", entity="users.name", reasoning="x")])
    quarantine = cairn_dir / "decisions.jsonl.quarantine"
    assert quarantine.read_bytes().startswith(fragment)
    assert log_lines(cairn_dir)[-1] == canonical_json({**json.loads(log_lines(cairn_dir)[-1])})
    rc, report = run_verify(repo)
    assert (rc, report["problems"]) == (0, [])
    assert codes(report, "notices") == [("quarantine", None, None)]
    assert report["heads"] == [later[0].id]
    assert report["events"] == 6


def test_redacted_line_with_content_added_back(
    repo: Path, cairn_dir: Path, seeded: list[Any]
) -> None:
    done = cairn(repo, "redact", seeded[0].id[:8], "-r", "test")
    assert done.returncode == 0, done.stderr
    events = log_events(cairn_dir)
    events[0]["reasoning"] = "words the id does not cover"
    write_lines(cairn_dir, [canonical_json(e) for e in events])
    rc, report = run_verify(repo)
    assert rc == 1
    assert codes(report) == [("redacted-with-content", 1, seeded[0].id)]


def test_malformed_line(repo: Path, cairn_dir: Path, seeded: list[Any]) -> None:
    lines = log_lines(cairn_dir)
    lines.insert(2, "{not json")
    write_lines(cairn_dir, lines)
    rc, report = run_verify(repo)
    assert rc == 1
    assert codes(report) == [("malformed", 3, None)]


def test_outside_a_project_is_a_usage_error(tmp_path: Path) -> None:
    done = cairn(tmp_path, "verify")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "cairn init" in done.stderr


# --- incremental verification: a proven prefix is re-hashed, not re-parsed -------------


def prove(repo: Path) -> None:
    rc, report = run_verify(repo)
    assert rc == 0, report
    db = sqlite3.connect(repo / ".cairn" / "index.db")
    assert db.execute("SELECT count(*) FROM meta WHERE k = 'verified'").fetchone() == (1,)
    db.close()


def test_incremental_checks_appended_lines(repo: Path, cairn_dir: Path, seeded: list[Any]) -> None:
    prove(repo)
    later = append_events(cairn_dir, [EventDraft(type="add", entity="users.b", reasoning="b")])
    rc, report = run_verify(repo)
    assert (rc, report["events"], report["lines"], report["heads"]) == (0, 6, 6, [later[0].id])
    # A forged append after a proven prefix: found, at its real line number.
    forged: dict[str, Any] = {
        "type": "add",
        "entity": "users.c",
        "parents": ["ab" * 32],
        "reasoning": "forged",
        "recorded_at": "2026-01-01T00:00:00.000Z",
    }
    forged["id"] = line_id(forged)
    write_lines(cairn_dir, [*log_lines(cairn_dir), canonical_json(forged)])
    rc, report = run_verify(repo)
    assert rc == 1
    assert codes(report) == [("missing-parent", 7, forged["id"])]


def test_incremental_parents_in_the_prefix_and_duplicates(
    repo: Path, cairn_dir: Path, seeded: list[Any]
) -> None:
    prove(repo)
    lines = log_lines(cairn_dir)
    # A union merge appends a copy of a proven line and a child of an old event.
    child: dict[str, Any] = {
        "type": "modify",
        "entity": "users.email",
        "parents": [seeded[1].id],
        "reasoning": "from another branch",
        "recorded_at": "2026-01-02T00:00:00.000Z",
    }
    child["id"] = line_id(child)
    write_lines(cairn_dir, [*lines, lines[0], canonical_json(child)])
    rc, report = run_verify(repo)
    assert (rc, report["problems"]) == (0, [])
    assert report["events"] == 6
    assert sorted(report["heads"]) == sorted([seeded[-1].id, child["id"]])


def test_an_edit_inside_the_proven_prefix_is_still_found(
    repo: Path, cairn_dir: Path, seeded: list[Any]
) -> None:
    prove(repo)
    lines = log_lines(cairn_dir)
    lines[1] = lines[1].replace("verify addresses", "verify addressez")
    write_lines(cairn_dir, lines)
    rc, report = run_verify(repo)
    assert rc == 1
    assert codes(report) == [("id-mismatch", 2, seeded[1].id)]


def test_full_flag_and_a_resurrected_copy_after_a_proven_redaction(
    repo: Path, cairn_dir: Path, seeded: list[Any]
) -> None:
    original = log_lines(cairn_dir)[0]
    assert cairn(repo, "redact", seeded[0].id, "-r", "pii").returncode == 0
    prove(repo)
    write_lines(cairn_dir, [*log_lines(cairn_dir), original])
    rc, report = run_verify(repo)
    assert rc == 1
    assert codes(report) == [("unredacted-copy", 7, seeded[0].id)]
    done = cairn(repo, "verify", "--full", "--json")
    assert done.returncode == 1
    assert codes(json.loads(done.stdout)) == [("unredacted-copy", 7, seeded[0].id)]
