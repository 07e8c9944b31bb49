"""The write path's shortcuts give exactly what the plain definitions give."""

from __future__ import annotations

import importlib.util
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.store.times import to_ms
from cairn.store.write import mask_event, mask_fields


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
