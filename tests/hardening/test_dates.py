"""Item 2: one date format everywhere (four-digit years) or a clean refusal."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.store import EventDraft, Store
from cairn.store.errors import ValidationError
from cairn.store.times import format_day, format_ts, parse_date, parse_ts, to_ms

from .cli import Run

_WIRE = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"


def test_years_before_1000_are_zero_padded() -> None:
    assert format_ts(datetime(999, 6, 1, tzinfo=timezone.utc)) == "0999-06-01T00:00:00.000Z"
    assert parse_ts("0999-06-01") == "0999-06-01T00:00:00.000Z"
    assert parse_ts("0001-01-01", end_of_day=True) == "0001-01-01T23:59:59.999Z"
    assert format_day(date(7, 2, 3)) == "0007-02-03"
    assert parse_date("0050-01-02") == "0050-01-02"


def test_a_legacy_three_digit_year_still_reads() -> None:
    # Lines written before the fix carry `999-06-01T...`; readers must not drop them.
    assert to_ms("999-06-01T00:00:00.000Z") == to_ms("0999-06-01T00:00:00.000Z")


@pytest.mark.parametrize(
    "text", ["", "   ", "0000-01-01", "10000-01-01", "0001-01-01T00:00:00+01:00", "2026-13-01"]
)
def test_out_of_range_or_empty_times_are_refused(text: str) -> None:
    with pytest.raises(ValidationError, match="invalid"):
        parse_ts(text)


@pytest.mark.parametrize("text", ["1000000y", "99999999999d", "9" * 5000 + "d", "3000000w"])
def test_offsets_past_year_9999_are_refused(text: str) -> None:
    with pytest.raises(ValidationError, match="invalid"):
        parse_date(text)


moments = st.datetimes(
    min_value=datetime(1, 1, 2),
    max_value=datetime(9999, 12, 30),
    timezones=st.sampled_from(
        [timezone.utc, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))]
    ),
)


@st.composite
def date_inputs(draw: st.DrawFn) -> str:
    """Every shape a user may type: a day, an ISO time with Z, offset or none."""
    moment = draw(moments)
    shape = draw(st.sampled_from(["day", "z", "offset", "naive", "micro"]))
    if shape == "day":
        return format_day(moment.date())
    if shape == "z":
        return format_ts(moment)
    if shape == "offset":
        return moment.isoformat(timespec="seconds")
    if shape == "naive":
        return moment.replace(tzinfo=None).isoformat(timespec="seconds")
    return moment.isoformat(timespec="microseconds")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=date_inputs())
def test_every_date_input_round_trips_through_write_index_and_read(
    text: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from cairn.store import init_store

    root = tmp_path_factory.mktemp("dates")
    with Store.open(init_store(root)) as store:
        added = store.append(EventDraft(type="add", entity="users.email", reasoning="first"))
        wire = parse_ts(text)
        assert __import__("re").match(_WIRE, wire), wire
        revert = store.append(
            EventDraft(
                type="revert",
                entity="users.email",
                reasoning="undone",
                reverts=added.event.id,
                occurred_at=text,
                revisit_after=text[:10] if len(text) >= 10 and text[4] == "-" else "",
            )
        ).event
        assert revert.occurred_at == wire
        # Index and read paths: the revert is visible everywhere, and is the next parent.
        assert store.status("users.email").status.value == "reverted"
        history = store.history("users.email")
        assert [e.id for e in history][-1] == revert.id or revert.id in {e.id for e in history}
        assert any(e.occurred_at == wire for e in history)
        assert store.heads() == [revert.id]
        assert [a.outcome for a in store.prior_attempts("users.email")] == ["reverted"]
    # A fresh reader (a rebuild from the JSONL) agrees.
    (root / ".cairn" / "index.db").unlink()
    with Store.open(root / ".cairn") as again:
        assert again.status("users.email").status.value == "reverted"
        assert again.history("users.email")[-1].occurred_at == wire


def test_cli_year_999_is_kept_and_found(run: Run, project: Path) -> None:
    assert run("log", "users.email", "add", "-r", "first")[0] == 0
    code, out, err = run(
        "revert", "users.email", "-r", "undone", "--occurred-at", "0999-06-01", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["occurred_at"] == "0999-06-01T00:00:00.000Z"
    code, out, _ = run("status", "users.email", "--json")
    assert json.loads(out)["status"] == "reverted"
    code, out, _ = run("verify")
    assert code == 0, out


def test_cli_refuses_dates_it_cannot_hold(run: Run) -> None:
    assert run("log", "users.email", "add", "-r", "first")[0] == 0
    for argv in (
        ["log", "users.email", "modify", "-r", "x", "--revisit-after", "1000000y"],
        ["history", "users.email", "--as-of", ""],
        ["log", "users.email", "modify", "-r", "x", "--occurred-at", "10000-01-01"],
    ):
        code, out, err = run(*argv)
        assert code == 2, (argv, code, err)
        assert "Traceback" not in err and err.count("\n") == 1 and "invalid" in err
    code, out, err = run("history", "users.email", "--as-of", "0001-01-01", "--json")
    assert code == 0, err
    assert json.loads(out) == []


def test_importer_times_keep_four_digit_years() -> None:
    from cairn.importers.base import SourceError, iso, normalise_time

    assert iso(datetime(999, 6, 1, 12, tzinfo=timezone.utc)) == "0999-06-01T12:00:00Z"
    assert normalise_time("0999-06-01") == "0999-06-01T00:00:00Z"
    with pytest.raises(SourceError):
        normalise_time("0001-01-01T00:00:00+05:00")


@settings(max_examples=300, deadline=None)
@given(
    moment=st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    decimals=st.integers(1, 9),
    tail=st.sampled_from(["", "\n"]),
)
def test_a_wire_time_keeps_its_first_three_decimals(
    moment: datetime, decimals: int, tail: str
) -> None:
    # The fast path (a wire time returned as it is, or cut at the millisecond) says what
    # the general one says: the first three decimals, padded, and a Z.
    m = moment
    text = (
        f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}."
        + f"{m.microsecond:06d}000"[:decimals]
        + "Z"
        + tail
    )
    expected = text[:20] + (text[20:-1] + "00")[:3] + "Z"
    assert parse_ts(text) == expected


_FIELD_TEXT = st.sampled_from(
    ["00", "07", "23", "24", "59", "60", "99", " 7", "7 ", "+7", "-1", "1_", "٠٧", "0x", ""]
)


@settings(max_examples=500, deadline=None)
@given(
    day=st.sampled_from(["2024-02-29", "2023-02-29", "0999-12-31", "1970-01-01", "2024-13-01"]),
    hour=_FIELD_TEXT,
    minute=_FIELD_TEXT,
    second=_FIELD_TEXT,
    milli=st.sampled_from(["000", "749", "999", " 12", "+12", "-12", "1_2", "١٢٣", "12"]),
)
def test_the_wire_fields_looked_up_read_as_int_reads_them(
    day: str, hour: str, minute: str, second: str, milli: str
) -> None:
    # `to_ms` looks the fields of a wire time up; anything not a plain in-range field
    # goes to int() (`_to_ms_parsed`, the reading before the lookup): same answers, same
    # errors, for every time a log may hold.
    from cairn.store.times import _to_ms_parsed

    text = f"{day}T{hour}:{minute}:{second}.{milli}Z"
    try:
        expected: int | str = _to_ms_parsed(text)
    except ValueError as exc:
        expected = f"ValueError: {exc}"
    try:
        got: int | str = to_ms(text)
    except ValueError as exc:
        got = f"ValueError: {exc}"
    assert got == expected
