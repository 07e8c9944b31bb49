"""The shared runner against the real store: idempotency, links, refusals, dry runs."""

from __future__ import annotations

from pathlib import Path

from cairn.importers.base import Known, Proposed, Skipped, run_import
from cairn.store import Store, init_store


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
        # the store refuses a reject without a reason
        Proposed("t:3:deps/stripe", "reject", "deps/stripe", "   "),
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


def test_dry_run_reports_what_the_store_would_refuse_and_writes_nothing(tmp_path: Path) -> None:
    cairn_dir = init_store(tmp_path / "dry")
    with Store.open(cairn_dir) as store:
        dry = run_import(store, "t", proposals(), dry_run=True, progress=False)
        assert (cairn_dir / "decisions.jsonl").read_text() == ""
    with Store.open(init_store(tmp_path / "real")) as store:
        real = run_import(store, "t", proposals(), progress=False)
    # the dry run lists exactly what the real run writes, and skips what it refuses
    assert [e["source_key"] for e in dry.imported] == [e["source_key"] for e in real.imported]
    dry_reasons = {s.item: s.reason for s in dry.skipped}
    assert dry_reasons["reject deps/stripe"].startswith(
        "the log would refuse it: reasoning is empty"
    )
    assert dry_reasons.keys() == {s.item for s in real.skipped}


def test_dry_run_checks_links_against_an_earlier_run(tmp_path: Path) -> None:
    cairn_dir = init_store(tmp_path)
    with Store.open(cairn_dir) as store:
        run_import(store, "t", proposals()[:2], progress=False)
        # a second supersede of the same revert: the store refuses it, so must the dry run
        twice = Proposed(
            "t:6:users.email",
            "supersede",
            "users.email",
            "again",
            supersedes_key="t:2:users.email",
        )
        dry = run_import(store, "t", [proposals()[3], twice], dry_run=True, progress=False)
        assert [e["source_key"] for e in dry.imported] == ["t:4:users.email"]
        [refusal] = dry.skipped
        assert refusal.item == "supersede users.email"
        assert "would refuse it" in refusal.reason and "not an open verdict" in refusal.reason
        assert len(store) == 2


def test_a_link_to_a_refused_event_says_so(tmp_path: Path) -> None:
    cairn_dir = init_store(tmp_path)
    bad = Proposed("t:1:deps/stripe", "reject", "deps/stripe", "   ")
    after = Proposed(
        "t:2:deps/stripe", "supersede", "deps/stripe", "ok", supersedes_key=bad.source_key
    )
    with Store.open(cairn_dir) as store:
        for dry_run in (True, False):
            report = run_import(store, "t", [bad, after], dry_run=dry_run, progress=False)
            assert report.imported == []
            assert (
                report.skipped[1].reason
                == "links to t:1:deps/stripe, which the log refused (see above)"
            )


def test_a_link_to_an_earlier_run_is_found_in_the_log(tmp_path: Path) -> None:
    cairn_dir = init_store(tmp_path)
    with Store.open(cairn_dir) as store:
        first = proposals()[:2]
        run_import(store, "t", first, progress=False)
        later = run_import(store, "t", [*first, proposals()[3], Known(5)], progress=False)
        assert [e["source_key"] for e in later.imported] == ["t:4:users.email"]
        assert later.already == 2 + 5
        assert store.status("users.email").status.value == "reopened"
