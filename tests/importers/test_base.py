"""The shared runner against the real store: idempotency, links, refusals, dry runs."""

from __future__ import annotations

from pathlib import Path

from cairn.store import Store, init_store

from cairn.importers.base import Known, Proposed, Skipped, run_import


def proposals() -> list[Proposed | Skipped | Known]:
    return [
        Proposed(
            "t:1:users.email",
            "add",
            "users.email",
            "added for login",
            occurred_at="2023-01-01T00:00:00Z",
        ),
        Proposed(
            "t:2:users.email",
            "revert",
            "users.email",
            "bounced",
            occurred_at="2023-02-01T00:00:00Z",
        ),
        # the store refuses a reject without the approach that was rejected
        Proposed("t:3:deps/stripe", "reject", "deps/stripe", "PCI scope"),
        Proposed(
            "t:4:users.email",
            "supersede",
            "users.email",
            "back again",
            supersedes_key="t:2:users.email",
        ),
        Proposed(
            "t:5:users.name",
            "supersede",
            "users.name",
            "names a missing event",
            supersedes_key="t:99:users.name",
        ),
        Skipped("notes.txt", "not a migration"),
    ]


def test_runner_writes_links_and_reports_refusals(tmp_path: Path) -> None:
    cairn_dir = init_store(tmp_path)
    with Store.open(cairn_dir) as store:
        report = run_import(store, "t", proposals(), progress=False)
        assert [e["source_key"] for e in report.imported] == [
            "t:1:users.email",
            "t:2:users.email",
            "t:4:users.email",
        ]
        reasons = {s.item: s.reason for s in report.skipped}
        assert "the log refused it" in reasons["reject deps/stripe"]
        assert "t:99:users.name" in reasons["supersede users.name"]
        assert reasons["notes.txt"] == "not a migration"
        add, revert, reopen = store.history("users.email")
        assert reopen.supersedes == revert.id
        assert add.agent == "cairn-import/t"
        assert add.occurred_at.startswith("2023-01-01")
        assert report.imported[2]["id"] == reopen.id
        size = (cairn_dir / "decisions.jsonl").stat().st_size

        again = run_import(store, "t", proposals(), progress=False)
        assert again.imported == [] and again.already == 3
        # the refused event is tried again (it was never written) and refused again
        assert any("refused" in s.reason for s in again.skipped)
        assert (cairn_dir / "decisions.jsonl").stat().st_size == size


def test_dry_run_resolves_links_but_writes_nothing(tmp_path: Path) -> None:
    cairn_dir = init_store(tmp_path)
    with Store.open(cairn_dir) as store:
        report = run_import(store, "t", proposals(), dry_run=True, progress=False)
        # in a dry run the store is not asked, so the bad reject is listed as importable
        assert len(report.imported) == 4
        assert (cairn_dir / "decisions.jsonl").read_text() == ""


def test_a_link_to_an_earlier_run_is_found_in_the_log(tmp_path: Path) -> None:
    cairn_dir = init_store(tmp_path)
    with Store.open(cairn_dir) as store:
        first = proposals()[:2]
        run_import(store, "t", first, progress=False)
        later = run_import(store, "t", [*first, proposals()[3], Known(5)], progress=False)
        assert [e["source_key"] for e in later.imported] == ["t:4:users.email"]
        assert later.already == 2 + 5
        assert store.status("users.email").status.value == "reopened"
