"""Alembic revisions follow the down_revision graph, operations their source order."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.importers.alembic import import_alembic, order_revisions, read_revision
from cairn.importers.base import Proposed, Skipped, SourceError
from importers.fixtures import ALEMBIC, write


def load(tmp_path: Path) -> list[Proposed | Skipped]:
    folder = write(tmp_path / "alembic" / "versions", ALEMBIC)
    count, items = import_alembic(folder.parent, tmp_path)
    assert count == 5
    return list(items)


def test_revisions_are_ordered_by_the_graph_not_file_names(tmp_path: Path) -> None:
    folder = write(tmp_path / "versions", ALEMBIC)
    revs = [read_revision(p) for p in sorted(folder.glob("*.py"))]
    ordered, notes = order_revisions([r for r in revs if not isinstance(r, Skipped)])
    # both branches of 1a2b come before the merge; the branch created first comes first
    assert [r.revision for r in ordered] == ["1a2b", "3c4d", "5e6f", "7a8b", "9c0d"]
    assert notes == []


def test_upgrade_operations_become_events_in_order(tmp_path: Path) -> None:
    proposed = [i for i in load(tmp_path) if isinstance(i, Proposed)]
    assert [(p.type, p.entity) for p in proposed] == [
        ("create", "users"),
        ("add", "users.id"),
        ("add", "users.email"),
        ("create", "orgs"),
        ("add", "orgs.id"),
        ("add", "users.org_id"),
        ("index_add", "users"),
        ("add", "users.email_verified"),
        ("rename", "users.email"),
        ("add", "users.login_email"),
        ("remove", "users.email_verified"),
        ("retype", "users.login_email"),
        ("add", "orgs.plan"),
        ("add", "orgs.billing_email"),  # op.execute(sa.text(...))
        ("rename", "orgs"),
        ("create", "organisations"),
    ]
    drop = next(p for p in proposed if p.type == "remove")
    assert drop.occurred_at == "2023-03-01T08:30:00Z"
    assert "double opt-in" in drop.reasoning
    assert drop.metadata["revision"] == "9c0d"
    assert drop.source_key.startswith("alembic:alembic/versions/cc_9c0d_drop_verified.py:")
    # downgrade() is the rollback: nothing from it is imported
    assert not any(p.type == "delete" for p in proposed)


def test_unknown_down_revision_is_reported_and_a_cycle_is_an_error(tmp_path: Path) -> None:
    folder = write(tmp_path / "v", {"a.py": 'revision = "a"\ndown_revision = "gone"\n'})
    ordered, notes = order_revisions([read_revision(folder / "a.py")])  # type: ignore[list-item]
    assert [r.revision for r in ordered] == ["a"]
    assert "gone" in notes[0].reason
    write(
        folder,
        {
            "a.py": 'revision = "a"\ndown_revision = "b"\n',
            "b.py": 'revision = "b"\ndown_revision = "a"\n',
        },
    )
    revs = [read_revision(folder / n) for n in ("a.py", "b.py")]
    with pytest.raises(SourceError, match="cycle"):
        order_revisions(revs)  # type: ignore[arg-type]


def test_a_file_that_is_not_a_revision_is_skipped_with_a_reason(tmp_path: Path) -> None:
    folder = write(tmp_path / "versions", {**ALEMBIC, "helpers.py": "X = 1\n"})
    _, items = import_alembic(folder, tmp_path)
    skipped = [i for i in items if isinstance(i, Skipped)]
    assert any("helpers.py" in s.item and "not an Alembic revision" in s.reason for s in skipped)


def test_a_project_root_is_followed_to_its_versions_folder(tmp_path: Path) -> None:
    write(tmp_path / "db" / "schema" / "versions", ALEMBIC)
    (tmp_path / "alembic.ini").write_text("[alembic]\nscript_location = %(here)s/db/schema\n")
    count, _ = import_alembic(tmp_path, tmp_path)
    assert count == len(ALEMBIC)
    (tmp_path / "alembic.ini").unlink()
    write(tmp_path / "proj" / "migrations" / "versions", ALEMBIC)  # Flask-Migrate's layout
    count, _ = import_alembic(tmp_path / "proj", tmp_path)
    assert count == len(ALEMBIC)
