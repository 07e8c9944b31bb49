"""ADRs become decisions on the entities they name; rejected and superseded ones too."""

from __future__ import annotations

from pathlib import Path

from cairn.importers.adr import import_adr, read_adr
from cairn.importers.base import Proposed, Skipped
from importers.fixtures import ADRS, write


def load(tmp_path: Path) -> list[Proposed | Skipped]:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "payments.py").write_text("def charge():\n    pass\n")
    folder = write(tmp_path / "docs" / "adr", ADRS)
    count, items = import_adr(folder, tmp_path)
    assert count == 6
    return list(items)


def test_madr_front_matter_entities_status_and_date(tmp_path: Path) -> None:
    out = load(tmp_path)
    stripe = [p for p in out if isinstance(p, Proposed) and "0002" in p.source_key]
    assert [(p.type, p.entity) for p in stripe] == [
        ("modify", "deps/stripe"),
        ("modify", "payments.card_token"),
    ]
    first = stripe[0]
    assert first.occurred_at == "2023-01-15T00:00:00Z"
    assert first.metadata["adr"] == "docs/adr/0002-use-stripe-for-payments.md"
    assert first.metadata["adr_status"] == "accepted"
    assert "PCI scope" in first.reasoning and "Chosen option" in first.reasoning


def test_rejected_adr_records_its_options_as_the_rejected_alternative(tmp_path: Path) -> None:
    out = load(tmp_path)
    rejected = [
        p for p in out if isinstance(p, Proposed) and p.source_key.startswith("adr:docs/adr/0003")
    ]
    # the linked file and the code span, not the prose mention of `payments`
    assert [(p.type, p.entity) for p in rejected] == [
        ("reject", "src/payments.py"),
        ("reject", "src/payments.py::charge"),
    ]
    assert rejected[0].alternative == (
        "Store encrypted card numbers in payments.card_number; Keep provider tokens only"
    )


def test_superseded_decision_is_linked_both_ways_in_metadata(tmp_path: Path) -> None:
    out = load(tmp_path)
    proposed = [p for p in out if isinstance(p, Proposed)]
    old = [p for p in proposed if p.source_key.startswith("adr:docs/adr/0004")]
    assert [(p.type, p.entity) for p in old] == [("modify", "deps/braintree")]
    assert old[0].metadata["superseded_by_adr"] == "docs/adr/0005-use-adyen-for-payouts.md"
    new = [p for p in proposed if p.source_key.startswith("adr:docs/adr/0005")]
    assert {p.entity for p in new} == {"deps/braintree", "deps/adyen"}
    assert all(p.metadata["supersedes_adr"] == [old[0].metadata["adr"]] for p in new)
    # an accepted decision is not a verdict: nothing to re-open
    assert not [p for p in proposed if p.type == "supersede" and "0004" in p.source_key]


def test_a_superseded_rejection_is_reopened_by_its_successor(tmp_path: Path) -> None:
    out = load(tmp_path)
    link = [p for p in out if isinstance(p, Proposed) and p.type == "supersede"]
    assert [(p.entity, p.supersedes_key) for p in link] == [
        ("src/payments.py", "adr:docs/adr/0003-store-card-numbers.md:src/payments.py"),
        (
            "src/payments.py::charge",
            "adr:docs/adr/0003-store-card-numbers.md:src/payments.py::charge",
        ),
    ]
    assert link[0].occurred_at == "2024-03-01T00:00:00Z"
    assert "fingerprint" in link[0].reasoning
    assert link[0].metadata["adr"] == "docs/adr/0006-keep-card-fingerprints.md"


def test_an_adr_naming_no_entity_is_reported(tmp_path: Path) -> None:
    out = load(tmp_path)
    skipped = [s for s in out if isinstance(s, Skipped)]
    assert any("0001" in s.item and "names no entities" in s.reason for s in skipped)


def test_nygard_status_and_number(tmp_path: Path) -> None:
    folder = write(tmp_path / "adr", ADRS)
    adr = read_adr(folder / "0004-use-braintree-for-payouts.md", tmp_path)
    assert not isinstance(adr, Skipped)
    assert (adr.number, adr.status, adr.superseded_by) == (4, "superseded", 5)
    assert adr.title == "Use Braintree for payouts"
    assert adr.date == "2023-02-01T00:00:00Z"


def test_number_from_an_adr_prefixed_name(tmp_path: Path) -> None:
    path = tmp_path / "ADR-0007-use-queues.md"
    path.write_text("# Use queues\n\nStatus: superseded by ADR-0009\n\nUses `deps/celery`.\n")
    adr = read_adr(path, tmp_path)
    assert not isinstance(adr, Skipped)
    assert (adr.number, adr.status, adr.superseded_by) == (7, "superseded", 9)
    assert adr.entities == ["deps/celery"]


def test_templates_are_skipped_not_imported(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "payments.py").write_text("def charge():\n    pass\n")
    template = (
        "# {short title}\n\n## Status\n\nAccepted\n\n## Decision\n\n"
        "Change [the charge](../../src/payments.py).\n"
    )
    folder = write(tmp_path / "docs" / "adr", {"adr-template.md": template})
    _, items = import_adr(folder, tmp_path)
    assert list(items) == [Skipped("docs/adr/adr-template.md", "an ADR template, not a decision")]
    # the same text under an ADR's name is a decision on the linked file
    write(folder, {"0001-charge.md": template})
    _, items = import_adr(folder, tmp_path)
    assert [p.entity for p in items if isinstance(p, Proposed)] == ["src/payments.py"]
