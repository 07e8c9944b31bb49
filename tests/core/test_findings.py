"""The severity map and the findings function: pure, so tested with the store's and
the indexer's own records (no look-alikes: the rule reads their fields directly)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from cairn.core.findings import Severities, Severity, findings_for
from cairn.core.present import clip, day, short_id
from cairn.indexer.model import Range, Role, Symbol
from cairn.store.model import EntityStatus, Event, EventType, Reapplied, Review, Status

RANGE = Range(3, 11, 3, 25)
REVERT = Event(
    id="a" * 64,
    type=EventType.REVERT,
    entity="users.email_verified",
    reasoning="Verification emails bounced for corporate domains; we rolled back.",
    author="alice",
    occurred_at="2026-04-02T10:00:00+00:00",
    recorded_at="2026-04-03T09:00:00+00:00",
)
REJECT = Event(
    id="b" * 64,
    type=EventType.REJECT,
    entity="deps/stripe",
    reasoning="Fees too high for our volume.",
    alternative="use stripe for payouts",
    agent="claude",
    recorded_at="2026-05-01T00:00:00Z",
)


def sym(entity: str, role: str) -> Symbol:
    return Symbol("f.sql", entity, "column", Role(role), RANGE, RANGE)


def status(*verdicts: Event, conflicts: Any = (), due: Any = ()) -> EntityStatus:
    return EntityStatus(
        entity="x",
        status=Status.ACTIVE,
        open_verdicts=list(verdicts),
        conflicts=list(conflicts),
        due_reviews=list(due),
    )


def test_introducing_a_reverted_column_is_a_warning_with_what_when_why() -> None:
    [f] = findings_for(
        [sym("users.email_verified", "introduce")], {"users.email_verified": status(REVERT)}
    )
    assert f.severity is Severity.WARNING
    assert f.verdict_id == REVERT.id
    assert f.name_range == RANGE
    assert "reverted on 2026-04-02 by alice" in f.message
    assert "corporate domains" in f.message
    assert "Supersede the revert" in f.message
    assert f.data == {
        "entity": "users.email_verified",
        "kind": "verdict",
        "role": "introduce",
        "verdict_ids": [REVERT.id],
        "verdict_types": ["revert"],
    }


def test_referencing_is_information_and_does_not_ask_for_a_supersede() -> None:
    [f] = findings_for(
        [sym("users.email_verified", "reference")], {"users.email_verified": status(REVERT)}
    )
    assert f.severity is Severity.INFORMATION
    assert "Supersede" not in f.message


def test_each_rejected_approach_is_its_own_finding() -> None:
    other = msgspec.structs.replace(REJECT, id="c" * 64, alternative="vendor the SDK")
    found = findings_for([sym("deps/stripe", "introduce")], {"deps/stripe": status(REJECT, other)})
    assert [f.verdict_id for f in found] == [REJECT.id, other.id]
    assert "rejected (use stripe for payouts) on 2026-05-01 by claude" in found[0].message
    assert found[1].data["verdict_types"] == ["reject"]


@pytest.mark.parametrize("whole", [True, False], ids=["event", "batch summary"])
def test_conflict_uses_the_conflict_severity_and_says_it_was_reapplied(whole: bool) -> None:
    # `status` gives the re-applying change whole; a batch, as its status row keeps it.
    reapplied: Event | Reapplied = Event(
        id="d" * 64, type=EventType.ADD, entity="x", author="bob", occurred_at="2026-06-01"
    )
    if not whole:
        reapplied = Reapplied("d" * 64, EventType.ADD, author="bob", occurred_at="2026-06-01")
    severities = Severities(conflict=Severity.ERROR)
    [f] = findings_for(
        [sym("users.email_verified", "introduce")],
        {"users.email_verified": status(REVERT, conflicts=[reapplied])},
        severities,
    )
    assert f.severity is Severity.ERROR
    assert f.data["kind"] == "conflict"
    assert "re-applied on 2026-06-01 by bob without a supersede" in f.message


def test_due_review_is_information_with_its_own_code() -> None:
    event = Event(
        id="e" * 64,
        type=EventType.MODIFY,
        entity="users",
        reasoning="Revisit once traffic doubles.",
    )
    review = Review(event=event, reason="revisit_after", due="2026-01-01")
    [f] = findings_for([sym("users", "reference")], {"users": status(due=[review])})
    assert f.severity is Severity.INFORMATION
    assert f.verdict_id == event.id
    assert f.data["kind"] == "review"
    assert "due since 2026-01-01: Revisit once traffic doubles." in f.message


def test_off_drops_findings_and_unknown_entities_give_none() -> None:
    off = Severities.from_mapping({"introduce": "off"})
    assert findings_for([sym("x.y", "introduce")], {"x.y": status(REVERT)}, off) == []
    assert findings_for([sym("x.y", "introduce")], {}) == []


def test_severity_settings_parse_aliases_and_reject_nonsense() -> None:
    s = Severities.from_mapping({"reference": "Warn", "review": "info"})
    assert s.reference is Severity.WARNING and s.review is Severity.INFORMATION
    with pytest.raises(ValueError, match="expected one of error, warning"):
        Severities.from_mapping({"introduce": "loud"})
    with pytest.raises(ValueError, match="unknown severity setting colour"):
        Severities.from_mapping({"colour": "warning"})


def test_display_helpers() -> None:
    assert short_id("0123456789abcdef") == "0123456789ab"
    assert day("2026-04-02T10:00:00Z") == "2026-04-02"
    assert day(None) == "?"
    long = "word " * 100
    out = clip(long, 40)
    assert len(out) <= 40 and out.endswith("…")
    assert clip("a\n  b") == "a b"
