"""Git is the distribution engine: merges, rebases and cherry-picks of the log, for real."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cairn.store import Store

from .harness import cairn, git, log_events


def log(repo: Path, entity: str, kind: str, reason: str, *extra: str) -> str:
    """`cairn log` through the real CLI; return the new event's id."""
    done = cairn(repo, "log", entity, kind, "-r", reason, *extra, "--json")
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["id"])


def commit(repo: Path, message: str) -> None:
    git(repo, "add", ".cairn")
    git(repo, "commit", "-q", "-m", message)


def status(repo: Path, entity: str) -> str:
    done = cairn(repo, "status", entity, "--json")
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["status"])


def verify_json(repo: Path) -> dict[str, Any]:
    done = cairn(repo, "verify", "--json")
    report = json.loads(done.stdout)
    assert (done.returncode == 0) == report["ok"]
    return dict(report)


@pytest.fixture
def team(repo: Path, tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """An origin with shared history and a second clone of it."""
    ids = {
        "applied": log(repo, "users.email_verified", "add", "verify addresses"),
    }
    ids["revert"] = log(
        repo, "users.email_verified", "revert", "broke signups", "--reverts", ids["applied"][:10]
    )
    commit(repo, "shared decisions")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(repo), str(other))
    return repo, other, ids


def test_union_merge_of_two_branches(team: tuple[Path, Path, dict[str, str]]) -> None:
    ours, theirs, ids = team
    assert status(ours, "users.email_verified") == "reverted"  # builds our index now

    git(ours, "checkout", "-q", "-b", "billing")
    reject = log(ours, "deps/stripe", "reject", "fees", "--alternative", "stripe for billing")
    ours_add = log(ours, "users.phone", "add", "sms login")
    commit(ours, "reject stripe")

    supersede = log(
        theirs, "users.email_verified", "supersede", "fixed the signup bug",
        "--supersedes", ids["revert"][:10],
    )  # fmt: skip
    theirs_add = log(theirs, "users.email_verified", "modify", "re-applied after the fix")
    commit(theirs, "re-open email_verified")

    git(ours, "pull", "-q", "--no-rebase", "--no-edit", str(theirs), "main")
    assert "<<<<<<<" not in (ours / ".cairn" / "decisions.jsonl").read_text()

    present = {e["id"] for e in log_events(ours / ".cairn")}
    assert {reject, ours_add, supersede, theirs_add, *ids.values()} <= present
    report = verify_json(ours)
    assert report["ok"], report["problems"]
    assert len(report["heads"]) == 2  # one per branch until the next write joins them
    # The index was built before the merge and catches up on its own.
    assert status(ours, "deps/stripe") == "rejected"
    assert status(ours, "users.email_verified") == "reopened"  # its revert was superseded
    assert status(ours, "users.phone") == "active"

    joined = log(ours, "users.phone", "modify", "after the merge")
    parents = next(e for e in log_events(ours / ".cairn") if e["id"] == joined)["parents"]
    assert sorted(parents) == sorted(report["heads"])
    assert verify_json(ours)["heads"] == [joined]


def test_rebase_of_log_commits(team: tuple[Path, Path, dict[str, str]]) -> None:
    ours, theirs, _ = team
    mine = [log(theirs, f"users.c{i}", "add", f"mine {i}") for i in range(2)]
    commit(theirs, "mine 1")
    mine.append(log(theirs, "users.c2", "add", "mine 2"))
    commit(theirs, "mine 2")
    upstream = log(ours, "deps/redis", "add", "cache")
    commit(ours, "upstream")

    git(theirs, "pull", "-q", "--rebase", str(ours), "main")
    assert git(theirs, "status", "--porcelain").stdout == ""
    present = {e["id"] for e in log_events(theirs / ".cairn")}
    assert {*mine, upstream} <= present
    report = verify_json(theirs)
    assert report["ok"], report["problems"]
    assert status(theirs, "users.c2") == "active" and status(theirs, "deps/redis") == "active"


def test_cherry_pick_of_log_commits(team: tuple[Path, Path, dict[str, str]]) -> None:
    ours, theirs, _ = team
    first = log(theirs, "users.a", "add", "first")
    commit(theirs, "first")
    second = log(theirs, "users.b", "add", "second")
    commit(theirs, "second")
    log(ours, "users.z", "add", "ours moved on")
    commit(ours, "ours")
    git(ours, "fetch", "-q", str(theirs), "main")

    # Picking the later commit alone: its diff's context holds the earlier event, and
    # the union driver keeps context lines a side "deleted", so the parent comes along.
    git(ours, "cherry-pick", "FETCH_HEAD")
    present = [e["id"] for e in log_events(ours / ".cairn")]
    assert first in present and second in present
    report = verify_json(ours)
    assert report["ok"], report["problems"]
    assert status(ours, "users.a") == "active" and status(ours, "users.b") == "active"
    # Replaying the earlier commit too duplicates its line (union adds it again): harmless.
    done = git(ours, "cherry-pick", "--allow-empty", "--keep-redundant-commits", "FETCH_HEAD~1")
    assert done.returncode == 0
    present = [e["id"] for e in log_events(ours / ".cairn")]
    report = verify_json(ours)
    assert report["ok"], report["problems"]
    assert report["events"] == len(set(present)) < len(present)
    with Store.open(ours / ".cairn") as store:
        assert len(store) == len(set(present))


def test_both_sides_appended_the_same_event(team: tuple[Path, Path, dict[str, str]]) -> None:
    ours, theirs, _ = team
    shared = log(theirs, "deps/stripe", "reject", "fees", "--alternative", "stripe")
    commit(theirs, "reject stripe")
    git(ours, "fetch", "-q", str(theirs), "main")
    git(ours, "cherry-pick", "FETCH_HEAD")  # the same line now exists on both sides
    log(ours, "users.x", "add", "ours")
    commit(ours, "ours")
    log(theirs, "users.y", "add", "theirs")
    commit(theirs, "theirs")

    git(ours, "pull", "-q", "--no-rebase", "--no-edit", str(theirs), "main")
    events = log_events(ours / ".cairn")
    assert sum(e["id"] == shared for e in events) >= 1
    report = verify_json(ours)
    assert report["ok"], report["problems"]
    distinct = {e["id"] for e in events}
    assert report["events"] == len(distinct)
    with Store.open(ours / ".cairn") as store:
        assert len(store) == len(distinct)  # a duplicate line is indexed once
        assert store.status("deps/stripe").status.value == "rejected"


def test_duplicated_lines_from_a_merge_are_harmless(
    team: tuple[Path, Path, dict[str, str]],
) -> None:
    ours, _, _ = team
    path = ours / ".cairn" / "decisions.jsonl"
    text = path.read_text()
    path.write_text(text + text)  # what a union of two identical appends can produce
    commit(ours, "duplicated")
    report = verify_json(ours)
    assert (report["ok"], report["problems"], report["events"]) == (True, [], 2)
    assert status(ours, "users.email_verified") == "reverted"


# --- the truncation anchor against branch switches and resets ----------------------------


def test_truncation_is_caught_after_another_process_reindexed(repo: Path) -> None:
    first = log(repo, "users.a", "add", "a")
    last = log(repo, "users.b", "add", "b")
    assert verify_json(repo)["ok"]
    path = repo / ".cairn" / "decisions.jsonl"
    path.write_text(path.read_text().split("\n")[0] + "\n")  # the newest line is cut off
    with Store.open(repo / ".cairn") as store:  # e.g. the language server re-reads it
        assert store.heads() == [first]
    report = verify_json(repo)
    assert [(p["code"], p["event"]) for p in report["problems"]] == [("missing-head", last)]


def test_switching_to_an_older_branch_is_not_a_truncation(repo: Path) -> None:
    log(repo, "users.a", "add", "a")
    commit(repo, "a")
    git(repo, "branch", "old")
    newest = log(repo, "users.b", "add", "b")
    commit(repo, "b")
    assert verify_json(repo)["ok"]
    git(repo, "checkout", "-q", "old")
    report = verify_json(repo)
    assert report["ok"] and report["problems"] == []
    assert [(n["code"], n["event"]) for n in report["notices"]] == [("head-elsewhere", newest)]
    assert "main" in report["notices"][0]["message"]
    git(repo, "checkout", "-q", "main")
    assert verify_json(repo)["ok"]


def test_a_deliberate_reset_is_reported_until_accepted(repo: Path) -> None:
    log(repo, "users.a", "add", "a")
    commit(repo, "a")
    dropped = log(repo, "users.b", "add", "b")
    commit(repo, "b")
    assert verify_json(repo)["ok"]
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    report = verify_json(repo)
    assert [(p["code"], p["event"]) for p in report["problems"]] == [("missing-head", dropped)]
    accepted = cairn(repo, "verify", "--accept", "--json")
    assert accepted.returncode == 0
    notices = json.loads(accepted.stdout)["notices"]
    assert [(n["code"], n["event"]) for n in notices] == [("head-accepted", dropped)]
    report = verify_json(repo)
    assert (report["ok"], report["notices"]) == (True, [])
