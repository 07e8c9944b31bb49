"""Build a sample Selvedge database with the real `selvedge` package (run in its own venv).

Usage: python selvedge_sample.py DB  -> prints {"name": selvedge_event_id} as JSON.
Covers what an importer must carry over: every change type Cairn shares, reasoning,
diffs, supersede links, revisit/expiry/stale fields, git commits, sessions, changesets,
constraints, endpoint paths, and one path Cairn's grammar refuses.
"""

from __future__ import annotations

import json
import sys

from selvedge.models import ChangeEvent
from selvedge.storage import SelvedgeStorage


def main(db: str) -> None:
    store = SelvedgeStorage(db)
    ids: dict[str, str] = {}

    def log(name: str, **fields: object) -> None:
        ids[name] = store.log_event(ChangeEvent(**fields)).id  # type: ignore[arg-type]

    log(
        "create_users",
        entity_path="users",
        change_type="create",
        entity_type="table",
        timestamp="2024-01-02T10:00:00Z",
        reasoning="Accounts table for login",
        agent="claude-code",
        session_id="s-1",
        git_commit="a1b2c3d",
        project="shop",
        changeset_id="cs-auth",
        diff="CREATE TABLE users (id bigint)",
    )
    log(
        "add_verified",
        entity_path="users.email_verified",
        change_type="add",
        entity_type="column",
        timestamp="2024-01-03T10:00:00Z",
        reasoning="Double opt-in for marketing email",
        session_id="s-1",
        revisit_after="2024-06-01",
        stale_when="marketing consent moves to the CRM",
        constraint="GDPR consent must be provable",
        metadata='{"ticket": "SHOP-12"}',
    )
    log(
        "revert_verified",
        entity_path="users.email_verified",
        change_type="revert",
        entity_type="column",
        timestamp="2024-02-01T10:00:00Z",
        reasoning="Bounced 30% of signups; the CRM handles consent now",
        git_commit="d4e5f6a",
    )
    ids["reopen_verified"] = store.log_supersede(
        "users.email_verified",
        reasoning="CRM contract ended; consent is ours again",
        supersedes=ids["revert_verified"],
        expires_when="library:stripe>=9.0",
    ).id
    log(
        "reject_card",
        entity_path="payments.card_number",
        change_type="reject",
        entity_type="column",
        timestamp="2024-03-01T10:00:00Z",
        reasoning="PCI scope: store provider tokens only",
        diff="ALTER TABLE payments ADD COLUMN card_number text",
        expires_when="date:2027-01-01",
    )
    log(
        "endpoint",
        entity_path="api/v1/users",
        change_type="add",
        entity_type="endpoint",
        timestamp="2024-03-02T10:00:00Z",
        reasoning="Public user lookup",
    )
    log(
        "dep",
        entity_path="deps/stripe",
        change_type="add",
        entity_type="dependency",
        timestamp="2024-03-03T10:00:00Z",
        reasoning="Payments provider",
        expires_when="entity:payments:changes",
    )
    log(
        "fn",
        entity_path="src/auth.py::login",
        change_type="modify",
        entity_type="function",
        timestamp="2024-03-04T10:00:00Z",
        reasoning="",
    )
    log(
        "remove_old",
        entity_path="users.legacy_id",
        change_type="remove",
        entity_type="column",
        timestamp="2024-03-05T10:00:00Z",
        reasoning="Migration done",
    )
    ids["supersede_remove"] = store.log_supersede(
        "users.legacy_id", reasoning="Partner API still needs it", supersedes=ids["remove_old"]
    ).id
    log(
        "outside",
        entity_path="../vendor/lib.py",
        change_type="modify",
        entity_type="file",
        timestamp="2024-03-06T10:00:00Z",
        reasoning="Patched vendored lib",
    )
    print(json.dumps(ids))


if __name__ == "__main__":
    main(sys.argv[1])
