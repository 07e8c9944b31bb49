"""Readers never trust a line that `cairn verify` rejects (issue 11, item 1).

A hand-appended or edited line whose id does not match its content, or whose parents
are not in the log, must not change any answer: status, check, history, prior
attempts, search. The commands that read say once, on stderr, that the log is damaged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cairn.store import EventDraft, Store, line_id
from cairn.store.canonical import canonical_json

from .harness import append_events, cairn, log_lines, write_lines

COLUMN = "users.email_verified"


@pytest.fixture
def reverted(cairn_dir: Path) -> list[Any]:
    """A column that was added and then reverted: `cairn check` blocks re-adding it."""
    added = append_events(
        cairn_dir, [EventDraft(type="add", entity=COLUMN, reasoning="verify addresses")]
    )[0]
    revert = append_events(
        cairn_dir,
        [EventDraft(type="revert", entity=COLUMN, reasoning="broke signups", reverts=added.id)],
    )[0]
    return [added, revert]


def append_raw(cairn_dir: Path, line: dict[str, Any]) -> None:
    write_lines(cairn_dir, [*log_lines(cairn_dir), canonical_json(line)])


def forged_supersede(revert: Any, *, parents: list[str], self_consistent: bool) -> dict[str, Any]:
    line: dict[str, Any] = {
        "type": "supersede",
        "entity": COLUMN,
        "parents": parents,
        "supersedes": revert.id,
        "reasoning": "nobody decided this",
        "recorded_at": "2026-06-01T00:00:00.000Z",
        "author": "Mallory <m@example.com>",
    }
    line["id"] = line_id(line) if self_consistent else "ab" * 32
    return line


def status_of(repo: Path, entity: str = COLUMN) -> tuple[str, str]:
    done = cairn(repo, "status", entity, "--json")
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["status"]), done.stderr


def check_blocks(repo: Path) -> bool:
    """`cairn check` on a migration that re-adds the reverted column."""
    migration = repo / "db" / "002_readd.sql"
    migration.parent.mkdir(exist_ok=True)
    migration.write_text("ALTER TABLE users ADD COLUMN email_verified boolean;\n")
    done = cairn(repo, "check", "db/002_readd.sql", "--json")
    assert done.returncode in (0, 1), done.stderr
    return done.returncode == 1


def test_supersede_with_made_up_id_does_not_reopen(
    repo: Path, cairn_dir: Path, reverted: list[Any]
) -> None:
    assert status_of(repo) == ("reverted", "")
    assert check_blocks(repo)
    append_raw(
        cairn_dir, forged_supersede(reverted[1], parents=[reverted[1].id], self_consistent=False)
    )

    status, stderr = status_of(repo)
    assert status == "reverted"
    assert check_blocks(repo)
    # One line on stderr, pointing at `cairn verify`.
    assert stderr.count("\n") == 1
    assert "damaged" in stderr and "cairn verify" in stderr and "id-mismatch 1" in stderr
    verify = cairn(repo, "verify", "--json")
    assert [p["code"] for p in json.loads(verify.stdout)["problems"]] == ["id-mismatch"]


def test_self_consistent_line_with_missing_parent_is_ignored(
    repo: Path, cairn_dir: Path, reverted: list[Any]
) -> None:
    append_raw(cairn_dir, forged_supersede(reverted[1], parents=["cd" * 32], self_consistent=True))
    status, stderr = status_of(repo)
    assert status == "reverted"
    assert "missing-parent 1" in stderr
    assert check_blocks(repo)


def test_forged_add_with_wrong_id_does_not_make_a_conflict(
    repo: Path, cairn_dir: Path, reverted: list[Any]
) -> None:
    forged = json.loads(log_lines(cairn_dir)[0])  # the original add, re-stamped later
    forged["parents"] = [reverted[1].id]
    forged["recorded_at"] = "2026-07-01T00:00:00.000Z"
    append_raw(cairn_dir, forged)  # its id is the old add's: it no longer matches
    status, _ = status_of(repo)
    assert status == "reverted"


def test_damaged_lines_change_no_answer_of_the_store(cairn_dir: Path, reverted: list[Any]) -> None:
    with Store.open(cairn_dir) as store:
        before = (
            store.status(COLUMN).to_dict(),
            [e.id for e in store.history(COLUMN)],
            [a.to_dict() for a in store.prior_attempts(COLUMN)],
            [h.event.id for h in store.search("signups")],
            store.heads(),
            len(store),
        )
        assert not store.damage
    mallory = forged_supersede(reverted[1], parents=[reverted[1].id], self_consistent=False)
    mallory["reasoning"] = "signups are fine now"
    append_raw(cairn_dir, mallory)
    orphan = forged_supersede(reverted[1], parents=["ef" * 32], self_consistent=True)
    append_raw(cairn_dir, orphan)
    with Store.open(cairn_dir) as store:
        after = (
            store.status(COLUMN).to_dict(),
            [e.id for e in store.history(COLUMN)],
            [a.to_dict() for a in store.prior_attempts(COLUMN)],
            [h.event.id for h in store.search("signups")],
            store.heads(),
            len(store),
        )
        assert store.status_many([COLUMN])[COLUMN].status.value == "reverted"
        assert store.damage.counts == {"id-mismatch": 1, "missing-parent": 1}
        # The next write names the sound heads, never a rejected line.
        event = store.append(EventDraft(type="modify", entity="users.email", reasoning="x")).event
        assert list(event.parents) == before[4]
    assert after == before


def test_an_edited_old_line_is_ignored_but_its_descendants_count(
    repo: Path, cairn_dir: Path, reverted: list[Any]
) -> None:
    lines = log_lines(cairn_dir)
    edited = json.loads(lines[0])
    edited["reasoning"] = "rewritten after the fact"
    write_lines(cairn_dir, [canonical_json(edited), *lines[1:]])
    with Store.open(cairn_dir) as store:
        assert store.damage.counts == {"id-mismatch": 1}
        status = store.status(COLUMN)
        # The revert (a sound line whose parent is the edited one) still stands.
        assert status.status.value == "reverted"
        assert [e.id for e in store.history(COLUMN)] == [reverted[1].id]
        assert store.search("rewritten") == []


def test_a_sound_log_reports_no_damage(repo: Path, reverted: list[Any]) -> None:
    status, stderr = status_of(repo)
    assert (status, stderr) == ("reverted", "")
