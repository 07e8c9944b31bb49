"""Rails migrations in timestamp order; change/up read, down ignored."""

from __future__ import annotations

from hashlib import sha256
from pathlib import Path

from cairn.importers.base import Proposed, Skipped
from cairn.importers.rails import import_rails
from importers.fixtures import RAILS, write


def test_rails_history_end_to_end(tmp_path: Path) -> None:
    write(tmp_path / "db" / "migrate", RAILS)
    (tmp_path / "db" / "migrate" / "schema_helper.rb").write_text("# not a migration\n")
    count, items = import_rails(tmp_path, tmp_path)
    out = list(items)
    assert count == 3
    proposed = [i for i in out if isinstance(i, Proposed)]
    assert [(p.type, p.entity) for p in proposed] == [
        ("create", "users"),
        ("add", "users.email"),
        ("add", "users.org_id"),
        ("add", "users.created_at"),
        ("add", "users.updated_at"),
        ("index_add", "users"),
        ("add", "users.stripe_customer_id"),
        ("rename", "users.email"),
        ("add", "users.login_email"),
        ("remove", "users.stripe_customer_id"),
        ("retype", "users.login_email"),
        ("add", "users.tz"),
        ("add", "users.signup_channel"),  # from a heredoc
    ]
    removal = next(p for p in proposed if p.type == "remove")
    assert removal.occurred_at == "2023-03-01T08:30:00Z"
    digest = sha256(removal.diff.encode()).hexdigest()[:12]
    assert removal.source_key == (
        f"rails:db/migrate/20230301083000_remove_stripe_customer.rb:{digest}:users.stripe_customer_id"
    )
    skipped = [i for i in out if isinstance(i, Skipped)]
    assert any("schema_helper.rb" in s.item for s in skipped)
