"""Migration files sort the way their tools apply them."""

from __future__ import annotations

from hashlib import sha256
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.importers.base import Proposed, Skipped, SourceError
from cairn.importers.sql import classify, import_sql, ordered_migrations


def touch(folder: Path, *names: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text("SELECT 1;\n")


def names(folder: Path) -> list[str]:
    found, _ = ordered_migrations([folder])
    return [m.path.name for m in found]


def test_flyway_versions_compare_numerically_and_repeatables_run_last(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "R__views.sql",
        "V10__ten.sql",
        "V2__two.sql",
        "V1.10__x.sql",
        "V1.2__y.sql",
        "V1__one.sql",
        "R__a_func.sql",
    )
    assert names(tmp_path) == [
        "V1__one.sql",
        "V1.2__y.sql",
        "V1.10__x.sql",
        "V2__two.sql",
        "V10__ten.sql",
        "R__a_func.sql",
        "R__views.sql",
    ]


def test_flyway_undo_and_golang_down_files_are_skipped_with_a_reason(tmp_path: Path) -> None:
    touch(tmp_path, "V1__a.sql", "U1__a.sql", "0002_b.up.sql", "0002_b.down.sql")
    found, skipped = ordered_migrations([tmp_path])
    assert [m.path.name for m in found] == ["V1__a.sql", "0002_b.up.sql"]
    reasons = {Path(s.item).name: s.reason for s in skipped}
    assert "undo" in reasons["U1__a.sql"]
    assert "down migration" in reasons["0002_b.down.sql"]


def test_numbered_and_timestamped_files_sort_by_number_not_text(tmp_path: Path) -> None:
    touch(tmp_path, "10_ten.up.sql", "9_nine.up.sql", "0001_one.up.sql")
    assert names(tmp_path) == ["0001_one.up.sql", "9_nine.up.sql", "10_ten.up.sql"]
    stamped = tmp_path / "rails"
    touch(stamped, "20240102000000_b.sql", "20231231235959_a.sql")
    assert names(stamped) == ["20231231235959_a.sql", "20240102000000_b.sql"]
    migration = classify(stamped / "20231231235959_a.sql")
    assert not isinstance(migration, Skipped) and migration.stamp == "20231231235959"


def test_plain_files_sort_by_name(tmp_path: Path) -> None:
    touch(tmp_path, "schema_b.sql", "schema_a.sql")
    assert names(tmp_path) == ["schema_a.sql", "schema_b.sql"]


def test_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        ordered_migrations([tmp_path / "nope"])


def test_dbmate_down_section_is_ignored_and_dates_come_from_the_name(tmp_path: Path) -> None:
    (tmp_path / "20230105093000_add_email.sql").write_text(
        "-- migrate:up\n-- login by email\nALTER TABLE users ADD COLUMN email text;\n\n"
        "-- migrate:down\nALTER TABLE users DROP COLUMN email;\n"
    )
    _, items = import_sql([tmp_path], tmp_path)
    proposed = [i for i in items if isinstance(i, Proposed)]
    assert [(p.type, p.entity) for p in proposed] == [("add", "users.email")]
    only = proposed[0]
    assert only.occurred_at == "2023-01-05T09:30:00Z"
    # keyed by the column's definition, not the statement's position in the file
    digest = sha256(b"email text").hexdigest()[:12]
    assert only.source_key == f"sql:20230105093000_add_email.sql:{digest}:users.email"
    assert "login by email" in only.reasoning
    assert only.diff == "ALTER TABLE users ADD COLUMN email text"


@given(
    versions=st.lists(
        st.lists(st.integers(min_value=0, max_value=2000), min_size=1, max_size=3).map(tuple),
        min_size=1,
        max_size=12,
        unique=True,
    )
)
@settings(max_examples=60, deadline=None)
def test_flyway_order_is_numeric_for_any_versions(versions: list[tuple[int, ...]]) -> None:
    names = {f"V{'.'.join(map(str, v))}__m.sql": v for v in versions}
    if len(names) != len(versions):  # V1 and V01 would collide; not a real history
        return
    ordered = sorted(
        (m for m in (classify(Path(n)) for n in names) if not isinstance(m, Skipped)),
        key=lambda m: m.order,
    )
    assert [names[m.path.name] for m in ordered] == sorted(versions)
