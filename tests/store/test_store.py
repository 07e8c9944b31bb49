"""Store behaviour: init layout, validation, status rules, supersede targeting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn.store import (
    AmbiguousTarget,
    EventDraft,
    EventType,
    Status,
    Store,
    ValidationError,
    init_store,
)


def log_lines(store: Store) -> list[dict]:
    return [json.loads(x) for x in store.log.path.read_text(encoding="utf-8").splitlines()]


def test_init_creates_layout_and_is_idempotent(tmp_path: Path) -> None:
    d = init_store(tmp_path)
    assert (d / "decisions.jsonl").read_text() == ""
    ignore = (d / ".gitignore").read_text()
    for name in ("index.db", "lock", "drafts/", "decisions.jsonl.quarantine"):
        assert name in ignore
    assert (d / ".gitattributes").read_text() == "decisions.jsonl merge=union\n"
    (d / "decisions.jsonl").write_text("keep\n")
    init_store(tmp_path)
    assert (d / "decisions.jsonl").read_text() == "keep\n"
    assert (d / ".gitattributes").read_text().count("merge=union") == 1


def test_append_fills_ids_parents_author_and_canonical_entity(store: Store) -> None:
    first = store.append(EventDraft(type="add", entity='"Users"."Email"', reasoning="login")).event
    second = store.append(EventDraft(type="modify", entity="users.email", reasoning="unique")).event
    assert first.entity == "users.email" and first.entity_kind == "column"
    assert first.parents == () and second.parents == (first.id,)
    assert first.author == "Ada Lovelace <ada@example.org>"
    assert store.heads() == [second.id]
    assert [x["id"] for x in log_lines(store)] == [first.id, second.id]
    assert store.get(first.id[:8]).id == first.id


@pytest.mark.parametrize(
    ("draft", "message"),
    [
        (EventDraft(type="add", entity="users.email", reasoning="   "), "reasoning is empty"),
        (EventDraft(type="bogus", entity="users.email", reasoning="x"), "unknown event type"),
        (EventDraft(type="add", entity="../etc", reasoning="x"), "leaves the repository"),
        (
            EventDraft(type="add", entity="t", reasoning="x", occurred_at="yesterday"),
            "invalid occurred_at",
        ),
        (
            EventDraft(type="add", entity="t", reasoning="x", expires_when="soon"),
            "date:YYYY-MM-DD | entity:PATH:changes | manual:LABEL",
        ),
        (EventDraft(type="add", entity="t", reasoning="x", metadata={"f": 0.5}), "float"),
        (EventDraft(type="add", entity="t", reasoning="x", supersedes="abcdef"), "supersede"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_written(
    store: Store, draft: EventDraft, message: str
) -> None:
    store.append(EventDraft(type="add", entity="t", reasoning="baseline"))
    before = store.log.path.read_bytes()
    with pytest.raises(ValidationError) as info:
        store.append(draft)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert store.log.path.read_bytes() == before
    assert len(store) == 1


def test_a_batch_with_one_bad_draft_writes_nothing(store: Store) -> None:
    with pytest.raises(ValidationError):
        store.append_many(
            [
                EventDraft(type="add", entity="a", reasoning="fine"),
                EventDraft(type="add", entity="b", reasoning=""),
            ]
        )
    assert store.log.path.read_bytes() == b""
    assert len(store) == 0


def test_a_batch_names_its_own_earlier_events(store: Store) -> None:
    # Targets are found among the events logged before AND the batch's own earlier drafts
    # (whatever their type: the lookup picks verdicts, changes and supersedes itself).
    first = store.append(EventDraft(type="reject", entity="t.old", reasoning="no")).event
    events = store.append_many(
        [
            EventDraft(type="add", entity="t.c", reasoning="change"),
            EventDraft(type="modify", entity="t.d", reasoning="unrelated"),
            EventDraft(type="reject", entity="t.d", reasoning="not this"),
            EventDraft(type="supersede", entity="t.old", reasoning="fine now"),
            EventDraft(type="supersede", entity="t.d", reasoning="fine after all"),
        ]
    )
    change, _, reject, sup_old, sup_d = events
    revert = store.append_many(
        [
            EventDraft(type="add", entity="t.c", reasoning="again"),
            EventDraft(type="revert", entity="t.c", reasoning="undo", reverts=change.id[:8]),
        ]
    )[1]
    assert (sup_old.supersedes, sup_d.supersedes) == (first.id, reject.id)
    assert revert.reverts == change.id
    size = store.log.path.stat().st_size
    with pytest.raises(AmbiguousTarget):
        store.append_many(
            [
                EventDraft(type="reject", entity="t.e", reasoning="one"),
                EventDraft(type="reject", entity="t.e", reasoning="two"),
                EventDraft(type="supersede", entity="t.e", reasoning="which?"),
            ]
        )
    assert store.log.path.stat().st_size == size


def test_targets_among_many_logged_events_of_other_types(store: Store) -> None:
    # The writer reads only the logged events a target can be (verdicts and supersedes
    # for a supersede, changes for a revert): the rest of the entity's history is skipped.
    changes = [
        store.append(EventDraft(type="modify", entity="t.f", reasoning=f"step {i}")).event
        for i in range(5)
    ]
    reject = store.append(EventDraft(type="reject", entity="t.f", reasoning="not that")).event
    store.append(EventDraft(type="modify", entity="t.f", reasoning="after the reject"))
    sup = store.append(EventDraft(type="supersede", entity="t.f", reasoning="ok now")).event
    assert sup.supersedes == reject.id
    with pytest.raises(AmbiguousTarget, match="no open verdict"):
        store.append(EventDraft(type="supersede", entity="t.f", reasoning="again"))
    revert = store.append(
        EventDraft(type="revert", entity="t.f", reasoning="undo", reverts=changes[2].id)
    ).event
    assert revert.reverts == changes[2].id
    with pytest.raises(ValidationError, match="is not an applied change"):
        store.append(EventDraft(type="revert", entity="t.f", reasoning="x", reverts=reject.id))


def test_status_rules(store: Store) -> None:
    add = store.append(
        EventDraft(type="add", entity="users.email_verified", reasoning="flag")
    ).event
    assert store.status("users.email_verified").status is Status.ACTIVE
    rv = store.append(
        EventDraft(type="revert", entity="users.email_verified", reasoning="broke signup")
    ).event
    st = store.status("USERS.Email_Verified")
    assert st.status is Status.REVERTED
    assert [v.id for v in st.open_verdicts] == [rv.id]
    assert st.open_verdicts[0].reasoning == "broke signup"
    # A later add does not clear the verdict: re-applied without supersede.
    again = store.append(
        EventDraft(type="add", entity="users.email_verified", reasoning="try again")
    ).event
    st = store.status("users.email_verified")
    assert st.status is Status.CONFLICT
    assert [c.id for c in st.conflicts] == [again.id]
    assert add.id not in {c.id for c in st.conflicts}
    sup = store.append(
        EventDraft(type="supersede", entity="users.email_verified", reasoning="signup fixed")
    ).event
    assert sup.supersedes == rv.id
    st = store.status("users.email_verified")
    assert st.status is Status.REOPENED and st.reopened == {rv.id: sup.id}
    store.append(EventDraft(type="remove", entity="users.email_verified", reasoning="dropped"))
    assert store.status("users.email_verified").status is Status.REMOVED
    assert store.status("nothing.here").status is Status.UNKNOWN


def test_a_revert_of_a_named_change_is_not_a_conflict_with_it(store: Store) -> None:
    a = store.append(EventDraft(type="add", entity="t.c", reasoning="one")).event
    store.append(EventDraft(type="modify", entity="t.c", reasoning="two"))
    store.append(EventDraft(type="revert", entity="t.c", reasoning="undo one", reverts=a.id[:10]))
    assert store.status("t.c").status is Status.REVERTED
    with pytest.raises(ValidationError, match="not an applied change"):
        store.append(EventDraft(type="revert", entity="t.c", reasoning="x", reverts="ffffffffff"))


def test_table_status_is_not_polluted_by_its_columns(store: Store) -> None:
    store.append(EventDraft(type="create", entity="users", reasoning="table"))
    store.append(EventDraft(type="add", entity="users.email", reasoning="col"))
    store.append(EventDraft(type="revert", entity="users.email", reasoning="wrong"))
    st = store.status("users")
    assert st.status is Status.ACTIVE
    assert st.rollup == {"users.email": Status.REVERTED}
    many = store.status_many(["users", "USERS.EMAIL", "nope"])
    assert many["users"].status is Status.ACTIVE
    assert many["USERS.EMAIL"].status is Status.REVERTED
    assert many["nope"].status is Status.UNKNOWN


def test_a_tables_rollup_reads_no_line_of_its_columns(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.append(EventDraft(type="create", entity="users", reasoning="table"))
    for column in ("email", "name", "ssn"):
        store.append(EventDraft(type="add", entity=f"users.{column}", reasoning="col"))
        store.append(EventDraft(type="reject", entity=f"users.{column}", reasoning="no"))
    store.append(EventDraft(type="supersede", entity="users.name", reasoning="fine after all"))
    store.refresh()
    spans: list[int] = []
    read = store.index._read
    monkeypatch.setattr(store.index, "_read", lambda off, n: spans.append(off) or read(off, n))
    st = store.status("users")
    assert st.rollup == {
        "users.email": Status.REJECTED,
        "users.name": Status.REOPENED,
        "users.ssn": Status.REJECTED,
    }
    assert list(st.rollup) == ["users.email", "users.name", "users.ssn"]  # in path order
    assert st.status is Status.ACTIVE and st.latest is not None
    assert len(spans) == 1  # the table's own latest event; the columns' come from their rows


def test_rejects_of_different_alternatives_stand_side_by_side(store: Store) -> None:
    store.append(EventDraft(type="add", entity="deps/stripe", reasoning="payments"))
    r1 = store.append(
        EventDraft(type="reject", entity="deps/stripe", reasoning="PCI", alternative="raw cards")
    ).event
    r2 = store.append(
        EventDraft(type="reject", entity="deps/stripe", reasoning="cost", alternative="adyen")
    ).event
    st = store.status("deps/stripe")
    assert st.status is Status.REJECTED
    assert {v.id for v in st.open_verdicts} == {r1.id, r2.id}


def test_supersede_targets(store: Store) -> None:
    store.append(EventDraft(type="add", entity="deps/left-pad", reasoning="pad"))
    with pytest.raises(AmbiguousTarget, match="no open verdict"):
        store.append(EventDraft(type="supersede", entity="deps/left-pad", reasoning="x"))
    r1 = store.append(
        EventDraft(type="reject", entity="deps/left-pad", reasoning="a", alternative="vendor it")
    ).event
    r2 = store.append(
        EventDraft(type="reject", entity="deps/left-pad", reasoning="b", alternative="fork it")
    ).event
    with pytest.raises(AmbiguousTarget) as info:
        store.append(EventDraft(type="supersede", entity="deps/left-pad", reasoning="x"))
    assert r1.id in str(info.value) and r2.id in str(info.value)
    assert set(info.value.candidates) == {r1.id, r2.id}
    other = store.append(
        EventDraft(type="reject", entity="deps/other", reasoning="c", alternative="z")
    ).event
    with pytest.raises(ValidationError, match="not an open verdict"):
        store.append(
            EventDraft(type="supersede", entity="deps/left-pad", reasoning="x", supersedes=other.id)
        )
    sup = store.append(
        EventDraft(type="supersede", entity="deps/left-pad", reasoning="ok", supersedes=r1.id[:8])
    ).event
    assert sup.supersedes == r1.id
    # Already superseded: no longer an open verdict.
    with pytest.raises(ValidationError, match="not an open verdict"):
        store.append(
            EventDraft(type="supersede", entity="deps/left-pad", reasoning="x", supersedes=r1.id)
        )
    # Now exactly one is open, so no --of is needed.
    assert (
        store.append(
            EventDraft(type="supersede", entity="deps/left-pad", reasoning="y")
        ).event.supersedes
        == r2.id
    )
    assert store.status("deps/left-pad").status is Status.REOPENED


def test_event_type_helpers() -> None:
    assert EventType.ADD.is_applied and not EventType.ADD.is_verdict
    assert EventType.REVERT.is_verdict and EventType.REJECT.is_verdict
    assert EventType.DELETE.is_removal and not EventType.SUPERSEDE.is_applied


def test_secrets_are_masked_before_hashing(store: Store) -> None:
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    res = store.append(EventDraft(type="add", entity="env/AWS_KEY", reasoning=f"use {key} here"))
    assert "aws-access-key" in res.masked
    text = store.log.path.read_text()
    assert key not in text and "[REDACTED:aws-access-key]" in text
    assert res.event.reasoning == "use [REDACTED:aws-access-key] here"


def test_secrets_inside_metadata_are_masked_recursively(store: Store) -> None:
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    metadata = {
        "source_key": "pr/12",
        "env": {"AWS": f"aws {key}", "n": 3, "ok": True},
        "notes": ["plain", {"deep": f"token {token}"}],
    }
    res = store.append(
        EventDraft(type="add", entity="env/AWS_KEY", reasoning="keys", metadata=metadata)
    )
    assert "aws-access-key" in res.masked and len(res.masked) == 2
    text = store.log.path.read_text()
    assert key not in text and token not in text
    meta = store.get(res.event.id).metadata
    assert meta["env"] == {"AWS": "aws [REDACTED:aws-access-key]", "n": 3, "ok": True}
    assert meta["notes"][0] == "plain" and "[REDACTED:" in meta["notes"][1]["deep"]
    assert meta["source_key"] == "pr/12"
    assert metadata["env"]["AWS"] == f"aws {key}"  # the caller's dict is left as given
    assert json.loads(text.splitlines()[-1])["metadata"] == meta


def test_a_bare_root_rolls_up_its_kind(store: Store) -> None:
    store.append(EventDraft(type="reject", entity="deps/left-pad", reasoning="x", alternative="y"))
    store.append(EventDraft(type="add", entity="deps/stripe", reasoning="payments"))
    st = store.status("deps/")
    assert st.status is Status.UNKNOWN
    assert st.rollup == {"deps/left-pad": Status.REJECTED}
