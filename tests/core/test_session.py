"""The core against real stores: one project walk, statuses joined with due reviews,
decisions recorded through the session, the gate rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.core.decisions import DecisionRequest, InvalidRequest, check, loggable_types
from cairn.core.findings import Finding, FindingKind, Severity, blocks
from cairn.core.project import ProjectFinder, ProjectNotFound, find_project
from cairn.core.session import Session
from cairn.indexer.model import Range
from cairn.store import EventDraft, EventType, init_store


def test_one_walk_nearest_project_wins_and_cairn_dir_overrides_it(tmp_path: Path) -> None:
    outer = tmp_path / "repo"
    inner = outer / "vendor" / "lib"
    (inner / "src").mkdir(parents=True)
    init_store(outer)
    init_store(inner)
    assert find_project(inner / "src", env={}).root == inner
    finder = ProjectFinder(env={})
    assert finder.for_path(inner / "src" / "a.py") == find_project(inner / "src", env={})
    assert finder.for_path(outer / "x.sql").root == outer  # type: ignore[union-attr]

    env = {"CAIRN_DIR": str(outer / ".cairn")}
    assert find_project(inner / "src", env=env).root == outer
    assert ProjectFinder(env=env).for_path(inner / "src" / "a.py").root == outer  # type: ignore[union-attr]

    bad = {"CAIRN_DIR": str(tmp_path / "nowhere")}
    with pytest.raises(ProjectNotFound, match="is not a directory"):
        find_project(inner, env=bad)
    finder = ProjectFinder(env=bad)
    assert finder.for_path(inner / "src" / "a.py") is None
    assert finder.problem is not None and "CAIRN_DIR" in finder.problem
    with pytest.raises(ProjectNotFound, match="cairn init"):
        find_project(tmp_path, env={})


def test_statuses_carry_due_reviews_and_follow_the_log(tmp_path: Path) -> None:
    init_store(tmp_path)
    project = find_project(tmp_path, env={})
    with Session.open(project) as session:
        due = session.append(
            EventDraft(
                type="modify",
                entity="users",
                reasoning="Revisit later.",
                revisit_after="2026-01-01",
            )
        ).event
        first = session.statuses(["users", "orders"])
        assert [r.event.id for r in first["users"].due_reviews] == [due.id]
        assert first["orders"].due_reviews == []
        assert session.status("users").due_reviews == first["users"].due_reviews
        assert session.cached_statuses(["users"]) == {"users": first["users"]}
        recorded = session.record(
            DecisionRequest(entity="orders", type="reject", reason="No.", alternative="a view"),
            agent="test",
        ).event
        assert recorded.agent == "test" and recorded.alternative == "a view"
        assert session.cached_statuses(["users"]) is None  # the log changed
        after = session.statuses(["users", "orders"])
        assert [r.event.id for r in after["users"].due_reviews] == [due.id]
        assert str(after["orders"].status) == "rejected"


def test_statuses_without_renames_or_reviews_are_the_stores_own(tmp_path: Path) -> None:
    # The batch asks about former paths and reviews only when the log has any.
    init_store(tmp_path)
    project = find_project(tmp_path, env={})
    with Session.open(project) as session:
        session.append(EventDraft(type="add", entity="users.email", reasoning="Added."))
        session.append(EventDraft(type="revert", entity="users.email", reasoning="Undo."))
        wanted = ["users.email", "orders"]
        got = session.statuses(wanted)
        session.store.clear_caches()
        assert got == session.store.status_many(wanted)
        assert str(got["users.email"].status) == "reverted" and not got["orders"].event_count
        due = session.append(
            EventDraft(
                type="modify", entity="orders", reasoning="Later.", revisit_after="2026-01-01"
            )
        ).event
        after = session.statuses(wanted)
        assert [r.event.id for r in after["orders"].due_reviews] == [due.id]
        assert after["users.email"] == got["users.email"]


def test_removals_are_cached_per_log_version(tmp_path: Path) -> None:
    init_store(tmp_path)
    project = find_project(tmp_path, env={})
    with Session.open(project) as session:
        session.append(EventDraft(type="add", entity="users.legacy", reasoning="Added."))
        gone = session.append(
            EventDraft(type="remove", entity="users.legacy", reasoning="Dropped: unused.")
        ).event
        statuses = session.statuses(["users.legacy", "users"])
        assert session.cached_removals(statuses) is None  # not read yet
        assert session.removals(statuses) == {"users.legacy": gone}
        assert session.cached_removals(statuses) == {"users.legacy": gone}
        assert session.cached_removals({"users": statuses["users"]}) == {}  # none removed
        session.append(EventDraft(type="add", entity="orders", reasoning="Added."))
        assert session.cached_removals(statuses) is None  # the log changed


def test_the_vocabulary_is_the_stores() -> None:
    assert set(loggable_types()) == {t.value for t in EventType} - {"redact"}
    with pytest.raises(InvalidRequest, match="expected one of add, create"):
        check(DecisionRequest(entity="users", type="redact", reason="x"))


def test_the_one_gate_rule() -> None:
    def finding(kind: FindingKind, role: str) -> Finding:
        data = {"kind": kind.value}
        return Finding("users", "id", Severity.WARNING, "m", Range(0, 0, 0, 1), role, data)

    assert blocks(finding(FindingKind.VERDICT, "introduce"))
    assert blocks(finding(FindingKind.CONFLICT, "introduce"))
    assert not blocks(finding(FindingKind.VERDICT, "reference"))
    assert not blocks(finding(FindingKind.REVIEW, "introduce"))
    assert not blocks(finding(FindingKind.REMOVED, "introduce"))
    assert blocks(finding(FindingKind.REMOVED, "introduce"), strict_removed=True)
    assert finding(FindingKind.VERDICT, "introduce").blocking
