"""`cairn import selvedge` on a database written by the real `selvedge` package.

The package lives in its own venv (see `selvedge_venv`): its dependencies are too
heavy for Cairn's dev extras, and only its standard-library storage layer is needed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from real_cli import cairn, cairn_json

from cairn.store import Store
from importers.selvedge_venv import SELVEDGE, selvedge_python

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    db = tmp_path_factory.mktemp("selvedge") / "selvedge.db"
    out = subprocess.run(
        [str(selvedge_python()), str(HERE / "selvedge_sample.py"), str(db)],
        capture_output=True,
        text=True,
        check=True,
    )
    return db, json.loads(out.stdout)


def by_selvedge_id(store: Store, entity: str) -> dict[str, object]:
    return {e.metadata["selvedge"]["id"]: e for e in store.history(entity)}


def test_every_event_and_field_arrives(project: Path, sample: tuple[Path, dict[str, str]]) -> None:
    db, ids = sample
    report = cairn_json(project, "import", "selvedge", str(db))
    assert report["imported"] == 10  # 11 rows, one path Cairn's grammar refuses
    [refused] = report["skipped_items"]
    assert ids["outside"] in refused["item"] and "leaves the repository" in refused["reason"]
    with Store.open(project / ".cairn") as store:
        verified = by_selvedge_id(store, "users.email_verified")
        add = verified[ids["add_verified"]]
        revert = verified[ids["revert_verified"]]
        reopen = verified[ids["reopen_verified"]]
        assert add.type.value == "add" and add.reasoning == "Double opt-in for marketing email"
        assert add.occurred_at.startswith("2024-01-03T10:00:00")
        assert add.revisit_after == "2024-06-01"
        assert add.stale_when == "marketing consent moves to the CRM"
        assert add.session == "s-1"
        assert add.agent == "cairn-import/selvedge"
        assert add.metadata["selvedge"]["constraint"] == "GDPR consent must be provable"
        assert add.metadata["selvedge"]["metadata"] == {"ticket": "SHOP-12"}
        assert revert.commit == "d4e5f6a"
        # the supersede link is re-pointed at the imported revert
        assert reopen.type.value == "supersede" and reopen.supersedes == revert.id
        assert reopen.expires_when == "manual:library:stripe>=9.0"
        assert reopen.metadata["selvedge"]["expires_when"] == "library:stripe>=9.0"
        assert store.status("users.email_verified").status.value == "reopened"
        users = by_selvedge_id(store, "users")[ids["create_users"]]
        assert users.metadata["selvedge"]["agent"] == "claude-code"
        assert users.metadata["selvedge"]["changeset_id"] == "cs-auth"
        assert users.metadata["selvedge"]["project"] == "shop"
        assert users.diff == "CREATE TABLE users (id bigint)"
        reject = by_selvedge_id(store, "payments.card_number")[ids["reject_card"]]
        assert reject.type.value == "reject"
        assert reject.alternative == "ALTER TABLE payments ADD COLUMN card_number text"
        assert reject.expires_when == "date:2027-01-01"
        assert store.status("payments.card_number").status.value == "rejected"
        route = by_selvedge_id(store, "route/ANY /api/v1/users")[ids["endpoint"]]
        assert route.metadata["selvedge"]["entity_path"] == "api/v1/users"
        dep = by_selvedge_id(store, "deps/stripe")[ids["dep"]]
        assert dep.expires_when == "entity:payments:changes"
        fn = by_selvedge_id(store, "src/auth.py::login")[ids["fn"]]
        assert fn.reasoning.startswith("(no reasoning recorded")
        legacy = by_selvedge_id(store, "users.legacy_id")[ids["supersede_remove"]]
        # Cairn re-opens only verdicts: a supersede of a removal stays, as a linked modify
        assert legacy.type.value == "modify"
        assert legacy.metadata["selvedge"]["change_type"] == "supersede"
        assert legacy.metadata["selvedge"]["supersedes"] == ids["remove_old"]
    notes = {n["item"].split(" ")[0]: n["note"] for n in report["notes"]}
    assert "route/ANY" in notes[ids["endpoint"]]
    assert "manual review" in notes[ids["reopen_verified"]]
    assert "only reverts and rejects" in notes[ids["supersede_remove"]]


def test_rerun_is_a_no_op_and_a_bad_file_is_refused(
    project: Path, sample: tuple[Path, dict[str, str]]
) -> None:
    db, _ = sample
    first = cairn_json(project, "import", "selvedge", str(db))
    again = cairn_json(project, "import", "selvedge", str(db))
    assert again["imported"] == 0 and again["already_imported"] == first["imported"]
    # characters a SQLite URI would misread, in a folder name people do use
    odd = project / "backups #1 100% ?" / "selvedge.db"
    odd.parent.mkdir()
    shutil.copyfile(db, odd)
    copied = cairn_json(project, "import", "selvedge", "--dry-run", str(odd))
    assert copied["already_imported"] == first["imported"]
    bogus = project / "notes.db"
    bogus.write_text("not sqlite")
    proc = cairn(project, "import", "selvedge", str(bogus))
    assert proc.returncode == 2 and "not a SQLite database" in proc.stderr
    assert proc.stderr.count("\n") == 1
    folder = cairn(project, "import", "selvedge", str(project))
    assert folder.returncode == 2 and "is a directory" in folder.stderr


def test_an_unreachable_index_fails_the_test_with_a_clear_message(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    # nothing listens on the discard port; no cache, so pip has to ask the index
    env.update(PIP_INDEX_URL="http://127.0.0.1:9/simple/", PIP_NO_CACHE_DIR="1")
    with pytest.raises(pytest.fail.Exception) as failed:
        selvedge_python(tmp_path, env)
    message = str(failed.value)
    assert message.startswith(f"could not install {SELVEDGE} from the package index")
    assert "is the index reachable?" in message and "\n" not in message
    # nothing half-built is trusted next time
    assert not (tmp_path / "selvedge-0.3.17" / ".cairn-ready").exists()
