"""The write path's shortcuts give exactly what the plain definitions give."""

from __future__ import annotations

import contextlib
import importlib.util
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.store import Store, init_store
from cairn.store.canonical import canonical_json, content_digest, event_id, prune
from cairn.store.encode import encode_event, encode_plain
from cairn.store.errors import StoreError
from cairn.store.fields import MAX_DIFF_BYTES, EventFields
from cairn.store.mask import mask_event, mask_fields
from cairn.store.model import EventDraft, EventType
from cairn.store.times import parse_ts, to_ms, wire_forms
from cairn.store.write import BatchContext, Preparer


def _secret_texts() -> list[str]:
    """Texts holding every kind of secret (the screen's own test samples)."""
    path = Path(__file__).resolve().parent / "test_secret_screen.py"
    spec = importlib.util.spec_from_file_location("secret_screen_samples", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [text for _, text, _ in module.SAMPLES]


_SECRET_TEXTS = _secret_texts()
_field_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(_SECRET_TEXTS),
    st.sampled_from(["password", "=", ":", "token", "key: x", "gh", "://"]),
)


@settings(max_examples=300, deadline=None)
@given(
    header=st.dictionaries(
        st.sampled_from(["author", "agent", "session", "stale_when"]), _field_text
    ),
    content=st.dictionaries(st.sampled_from(["reasoning", "alternative", "diff"]), _field_text),
    metadata=st.one_of(st.just({}), st.dictionaries(_field_text, _field_text, max_size=2)),
)
def test_one_screen_per_event_masks_what_masking_each_field_masks(
    header: dict[str, Any], content: dict[str, Any], metadata: dict[str, Any]
) -> None:
    content = {**content, "metadata": metadata}
    header = {**header, "entity": "users.email", "type": "add"}
    slow: list[str] = []
    fast: list[str] = []
    expected = (mask_fields(header, slow), mask_fields(content, slow))
    assert mask_event(header, content, fast) == expected
    assert fast == slow


@pytest.mark.parametrize("text", _SECRET_TEXTS)
def test_a_secret_in_the_last_field_is_masked_behind_clean_ones(text: str) -> None:
    header = {"author": "ann", "agent": "bot", "session": "s1"}
    content = {"reasoning": "plain words", "diff": text}
    masked: list[str] = []
    _, out = mask_event(header, content, masked)
    assert out["diff"] != text and masked


@settings(max_examples=500, deadline=None)
@given(
    moment=st.datetimes(
        min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)
    ).map(lambda d: d.replace(microsecond=0, tzinfo=timezone.utc)),
    millis=st.integers(0, 999),
)
def test_to_ms_is_the_datetime_arithmetic(moment: datetime, millis: int) -> None:
    text = moment.strftime("%Y-%m-%dT%H:%M:%S.").zfill(20) + f"{millis:03d}Z"
    assert to_ms(text) == int(moment.timestamp()) * 1000 + millis


@pytest.mark.parametrize(
    "text",
    [
        "2026-13-01T00:00:00.000Z",
        "2026-02-30T00:00:00.000Z",
        "2026-01-01T24:00:00.000Z",
        "2026-01-01T-1:00:00.000Z",
        "2026-01-01T00:60:00.000Z",
        "2026-01-01T00:00:60.000Z",
    ],
)
def test_to_ms_refuses_a_time_that_does_not_exist(text: str) -> None:
    with pytest.raises(ValueError):
        to_ms(text)


# --- the struct encoding of events without metadata (`encode_plain`) --------------------

_HEADER_TEXT = (
    "type", "entity", "entity_kind", "supersedes", "reverts", "author", "agent", "session",
    "commit", "recorded_at", "occurred_at", "revisit_after", "expires_when", "stale_when",
)  # fmt: skip
_CONTENT_TEXT = ("reasoning", "alternative", "diff")


def _plain(fields: dict[str, Any], parents: list[str]) -> tuple[str, bytes] | None:
    """`encode_plain` of these fields (absent ones empty), by name."""
    return encode_plain(EventFields(**fields, parents=parents))


def _by_definition(fields: dict[str, Any], parents: list[str]) -> tuple[str, bytes]:
    """(id, line) by the one definition: canonical JSON of the pruned halves."""
    head = prune({**{k: v for k, v in fields.items() if k in _HEADER_TEXT}, "parents": parents})
    body = prune({k: v for k, v in fields.items() if k in _CONTENT_TEXT})
    eid = event_id(head, content_digest(body))
    return eid, canonical_json({**head, **body, "id": eid}).encode("utf-8") + b"\n"


@settings(max_examples=400, deadline=None)
@given(
    fields=st.dictionaries(
        st.sampled_from(_HEADER_TEXT + _CONTENT_TEXT),
        st.one_of(st.just(""), st.text(max_size=30), st.sampled_from(['"', "\\", "\x00\x1f\x7f"])),
    ),
    parents=st.lists(st.text(alphabet="0123456789abcdef", min_size=64, max_size=64), max_size=2),
)
def test_the_struct_encoding_is_the_canonical_definition(
    fields: dict[str, str], parents: list[str]
) -> None:
    assert _plain(fields, parents) == _by_definition(fields, parents)
    assert encode_event(*_halves(fields, parents)) == _by_definition(fields, parents)


def _halves(fields: dict[str, str], parents: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    head = prune({**{k: v for k, v in fields.items() if k in _HEADER_TEXT}, "parents": parents})
    return head, prune({k: v for k, v in fields.items() if k in _CONTENT_TEXT})


def test_the_struct_encoding_matches_the_definition_for_every_code_point() -> None:
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for start in range(0, len(chars), 4096):
        text = "".join(chars[start : start + 4096]) + '"\\'
        fields = {"type": "add", "entity": "users.email", "author": text, "reasoning": text}
        assert _plain(fields, []) == _by_definition(fields, [])


class _Text(str):
    """A subclass of str: msgspec refuses it, orjson writes it as text."""


@pytest.mark.parametrize(
    "fields",
    [
        {"type": "add", "entity": "users.email", "reasoning": "bad \ud800 text"},
        {"type": "add", "entity": "users.email", "reasoning": "ok", "diff": _Text("d")},
        {"type": "add", "entity": "users.email", "reasoning": "ok", "recorded_at": _Text("t")},
    ],
)
def test_what_msgspec_refuses_is_left_to_the_dict_path(fields: dict[str, str]) -> None:
    assert _plain(fields, []) is None


# --- a draft prepared the quick way (struct encoding, batch times) or the plain way ----

_WIRE_TIMES = st.builds(
    lambda d, frac: d.strftime("%Y-%m-%dT%H:%M:%S.") + frac + "Z",
    st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31)),
    st.text(alphabet="0123456789", min_size=1, max_size=9),
)
_TIMES = st.one_of(
    _WIRE_TIMES,
    st.sampled_from(
        [
            "", "2026-11-29", "2026-11-29T14:00:00+02:00", "2026-02-30T00:00:00.000Z",
            "2026-01-01T24:00:00.000Z", "0000-01-01T00:00:00.000Z", "2026-01-01t00:00:00.000z",
            "2026-01-01T00:00:00.000Z\n", " 2026-01-01T00:00:00.000Z", "yesterday",
            "２０２６-01-01T00:00:00.000Z",
        ]
    ),
)  # fmt: skip
_TEXT = st.one_of(st.text(max_size=20), st.sampled_from([*_SECRET_TEXTS, "  ", "bad \ud800"]))
_DRAFTS = st.builds(
    EventDraft,
    type=st.sampled_from(["add", "reject", "modify", "revert", "annotate", "nope", EventType.ADD]),
    entity=st.sampled_from(
        ["users.email", "src/app.py::main", "", "https://u:hunter2secret@host/x", "db.t.c"]
    ),
    reasoning=_TEXT,
    alternative=_TEXT,
    diff=st.one_of(_TEXT, st.just(None), st.just("x" * (MAX_DIFF_BYTES // 4 + 1))),
    author=_TEXT,
    agent=_TEXT,
    session=_TEXT,
    commit=st.sampled_from(["", "abc123", "not a commit"]),
    recorded_at=_TIMES,
    occurred_at=st.sampled_from(["", "2026-01-02"]),
    stale_when=st.sampled_from(["", "when the API changes"]),
    entity_kind=st.sampled_from(["", "column", "function", "Column ", "widget"]),
    metadata=st.sampled_from([{}, {"source": "import"}, {"token": "ghp_" + "a" * 36}]),
)


def _outcome(preparer: Preparer, drafts: list[EventDraft], prime: bool) -> list[Any]:
    """Each draft's (event, line, masked kinds) or its error, chained as a batch would."""
    out: list[Any] = []
    parents: list[str] = []
    ctx = BatchContext()
    if prime:
        preparer.prime(drafts)
    try:
        for draft in drafts:
            masked: list[str] = []
            try:
                pending = preparer.prepare(draft, parents, ctx, masked)
            except StoreError as exc:
                out.append((type(exc), str(exc)))
                continue
            out.append((pending.event, pending.line, masked))
            parents = [pending.event.id]
    finally:
        preparer.forget()
    return out


@settings(max_examples=300, deadline=None)
@given(drafts=st.lists(_DRAFTS, max_size=6))
def test_the_quick_preparation_gives_the_plain_ones_events_lines_and_errors(
    drafts: list[EventDraft], tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.getbasetemp()
    quick = Preparer(root, lambda entity, types: [], lambda: "Ada")
    plain = Preparer(root, lambda entity, types: [], lambda: "Ada")
    with patch("cairn.store.write.now_ts", lambda: "2026-12-01T00:00:00.000Z"):
        expected = []
        with patch("cairn.store.write.encode_plain", lambda *args: None):
            expected = _outcome(plain, drafts, prime=False)
        assert _outcome(quick, drafts, prime=True) == expected
        assert _outcome(quick, drafts, prime=False) == expected


@settings(max_examples=500, deadline=None)
@given(texts=st.lists(st.one_of(_WIRE_TIMES, _TIMES), min_size=1, max_size=8))
def test_batch_times_are_parse_ts_or_nothing(texts: list[str]) -> None:
    forms = wire_forms(texts)
    if forms:
        assert set(forms) == set(texts)
        assert all(forms[text] == parse_ts(text) for text in texts)


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(_WIRE_TIMES, min_size=1, max_size=8))
def test_batch_times_take_every_wire_time_with_milliseconds(texts: list[str]) -> None:
    forms = wire_forms(texts)
    if all(len(text) >= 24 for text in texts):
        assert forms == {text: parse_ts(text) for text in texts}
    else:  # fewer decimals than milliseconds: parsed one by one
        assert forms == {}


_BATCH_DRAFTS = st.lists(
    st.builds(
        EventDraft,
        type=st.sampled_from(["add", "reject", "revert", "modify", "supersede"]),
        entity=st.sampled_from(["users.email", "src/app.py::main", "db.orders.total"]),
        reasoning=st.one_of(st.text(min_size=1, max_size=12), st.sampled_from(_SECRET_TEXTS)),
        diff=st.text(max_size=12),
        agent=st.sampled_from(["", "bot"]),
        reverts=st.sampled_from(["", "", "abcdef12"]),
        recorded_at=st.one_of(st.just(""), _WIRE_TIMES, st.sampled_from(["2026-11-29"])),
        metadata=st.sampled_from([{}, {"source": "import"}]),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(earlier=_BATCH_DRAFTS, drafts=_BATCH_DRAFTS)
def test_a_batch_writes_the_bytes_its_drafts_written_one_by_one_write(
    earlier: list[EventDraft], drafts: list[EventDraft], tmp_path_factory: pytest.TempPathFactory
) -> None:
    # The real store, both ways: `append_many` (times worked out for the batch, structs)
    # and `append` per draft; the same lines, or the same first error. `earlier` is
    # logged first, one by one, in both (what lookups find in the log, not the batch).
    logs: list[Any] = []
    with patch("cairn.store.write.now_ts", lambda: "2026-12-01T00:00:00.000Z"):
        for one_by_one in (False, True):
            root = tmp_path_factory.mktemp("batch")
            with Store.open(init_store(root)) as store:
                for draft in earlier:
                    with contextlib.suppress(StoreError):
                        store.append(draft)
                try:
                    if one_by_one:
                        for draft in drafts:
                            store.append(draft)
                    else:
                        store.append_many(drafts)
                except StoreError as exc:
                    logs.append((type(exc), str(exc)))
                    continue
            logs.append((root / ".cairn" / "decisions.jsonl").read_bytes())
    batch, single = logs
    assert batch == single  # the same bytes, or the same first error (and nothing written)


def test_a_batch_reverts_and_supersedes_what_the_log_holds(store: Store) -> None:
    added = store.append(EventDraft(type="add", entity="users.email", reasoning="r")).event
    other = store.append(EventDraft(type="add", entity="users.name", reasoning="r")).event
    reverted, superseded = store.append_many(
        [
            EventDraft(type="revert", entity="users.email", reasoning="r", reverts=added.id[:8]),
            EventDraft(type="supersede", entity="users.email", reasoning="back again"),
        ]
    )
    assert reverted.reverts == added.id and superseded.supersedes == reverted.id
    with pytest.raises(StoreError, match="not an applied change"):
        store.append_many(
            [EventDraft(type="revert", entity="users.email", reasoning="r", reverts=other.id[:8])]
        )


# A plan of batches: each draft is (type, entity, which earlier event its supersede names
# and how the id is written). Ids only exist once the events do, so they are filled in
# as the plan runs.
_STEPS = st.lists(
    st.lists(
        st.tuples(
            st.sampled_from(["reject", "revert", "supersede", "supersede", "add"]),
            st.sampled_from(["users.email", "deps/stripe"]),
            st.integers(min_value=0, max_value=12),
            st.sampled_from(["whole", "whole", "upper", "spaced", "prefix", "none"]),
        ),
        min_size=1,
        max_size=5,
    ),
    min_size=1,
    max_size=4,
)


def _superseding(store: Store, steps: list[list[tuple[str, str, int, str]]]) -> list[Any]:
    """Each batch's events (id, supersedes) or first error; a supersede names an earlier
    event of the plan (logged, or earlier in its own batch: a dry run gives its id)."""
    out: list[Any] = []
    ids: list[str] = []
    clock = 0
    for batch in steps:
        drafts = []
        known = list(ids)
        validator = store.validator()  # the ids the batch's drafts will get
        for kind, entity, pick, how in batch:
            clock += 1
            target = ""
            if kind == "supersede" and known and how != "none":
                whole = known[pick % len(known)]
                target = {"whole": whole, "upper": whole.upper(), "spaced": f" {whole} "}.get(
                    how, whole[:10]
                )
            draft = EventDraft(
                type=kind, entity=entity, reasoning=f"r{clock}", alternative="x",
                supersedes=target, recorded_at=f"2026-01-01T00:00:{clock % 60:02d}.000Z",
            )  # fmt: skip
            drafts.append(draft)
            with contextlib.suppress(StoreError):  # later drafts may name it
                known.append(validator.check(draft).id)
        try:
            events = store.append_many(drafts)
        except StoreError as exc:
            out.append((type(exc), str(exc)))
            continue
        out.append([(e.id, e.supersedes) for e in events])
        ids += [e.id for e in events]
    return out


@settings(max_examples=40, deadline=None)
@given(steps=_STEPS)
def test_a_supersede_given_a_whole_id_gets_what_the_full_lookup_gives(
    steps: list[list[tuple[str, str, int, str]]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    # The quick check of a whole id (`Preparer._is_open_verdict`) against the full
    # lookup of every verdict and supersede on the entity: the same events and bytes,
    # or the same first error.
    results = []
    for quick in (True, False):
        root = tmp_path_factory.mktemp("supersede")
        with Store.open(init_store(root)) as store:
            if not quick:
                store._preparer._verdicts_logged = None
            outcome = _superseding(store, steps)
        results.append((outcome, (root / ".cairn" / "decisions.jsonl").read_bytes()))
    assert results[0] == results[1]


def test_a_whole_id_names_a_verdict_of_the_same_batch_once(store: Store) -> None:
    # The batch's own verdicts are found without the log; one the batch superseded
    # already is not open, and the error lists what is.
    rejected = store.append(
        EventDraft(type="reject", entity="deps/stripe", reasoning="a", alternative="x")
    ).event
    reopened, again = store.append_many(
        [
            EventDraft(
                type="supersede", entity="deps/stripe", reasoning="b", supersedes=rejected.id
            ),
            EventDraft(type="reject", entity="deps/stripe", reasoning="c", alternative="y"),
        ]
    )
    assert reopened.supersedes == rejected.id
    with pytest.raises(StoreError, match=f"not an open verdict on deps/stripe .*{again.id}"):
        store.append_many(
            [
                EventDraft(
                    type="supersede",
                    entity="deps/stripe",
                    reasoning="d",
                    supersedes=rejected.id.upper(),
                )
            ]
        )
    other = store.append(
        EventDraft(type="reject", entity="users.email", reasoning="e", alternative="z")
    ).event
    with pytest.raises(StoreError, match="not an open verdict on deps/stripe"):
        store.append(
            EventDraft(type="supersede", entity="deps/stripe", reasoning="f", supersedes=other.id)
        )
    assert (
        store.append(
            EventDraft(type="supersede", entity="deps/stripe", reasoning="g", supersedes=again.id)
        ).event.supersedes
        == again.id
    )
