"""The store skips `mask_secrets` for text its screen clears: the screen must never miss."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.store.secrets import SECRET_KINDS, mask_secrets, might_hold_secret


def _trust_samples() -> list[tuple[str, str, str]]:
    path = Path(__file__).resolve().parents[1] / "trust" / "test_secrets.py"
    spec = importlib.util.spec_from_file_location("trust_secret_samples", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.SECRETS)


SAMPLES = [
    *_trust_samples(),
    ("google-api-key", "maps key AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", ""),
    ("npm-token", "publish with npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", ""),
]


def test_the_samples_cover_every_kind_the_masker_knows() -> None:
    # A new kind of secret needs a sample (and maybe a new marker in the screen).
    assert {kind for kind, _, _ in SAMPLES} == set(SECRET_KINDS)


@pytest.mark.parametrize(("kind", "text", "secret"), SAMPLES)
def test_every_known_secret_passes_the_screen(kind: str, text: str, secret: str) -> None:
    assert might_hold_secret(text)
    assert mask_secrets(text)[0] != text


FRAGMENTS = [
    "password", "Token", "api_key", "SECRET", "pwd", "credentials", "key", "=", ": ", ":=",
    "=>", '"', "'", " ", "\n", "hunter2!x", "s3cr3t-value", "AKIA", "IOSFODNN7EXAMPLE",
    "ghp_", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7R8", "sk-", "ant-", "proj-", "0123456789abcdefghij",
    "https://", "user:pa55@db.example.org", "Bearer ", "eyJhbGciOiJIUzI1NiJ9.", "xoxb-",
    "glpat-", "npm_", "AIza", "-----BEGIN ", "RSA PRIVATE KEY-----", "sk_live_", "prose",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join))
def test_text_the_masker_would_change_always_passes_the_screen(text: str) -> None:
    if mask_secrets(text)[0] != text:
        assert might_hold_secret(text)


def test_ordinary_reasoning_is_cleared() -> None:
    assert not might_hold_secret("went with provider tokens instead of raw card data")
    assert not might_hold_secret("keep latency under budget; index covers the hot query")


# The screen's first test: text with none of these characters (and no `earer`) is
# cleared without looking for a marker. Every secret sample, with those characters
# swapped for others, must then be left alone by the masker too.
_SCREEN_CHARS = "-:_=AJ"
_SWAPS = [" ", "x", "a", "B", "0", "9", ".", "/", "@", "+", "~", "\n", "'", '"', "é", "Ａ", "ｊ"]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from([text for _, text, _ in SAMPLES] + FRAGMENTS), min_size=1, max_size=4),
    st.lists(st.sampled_from(_SWAPS), min_size=1, max_size=6),
)
def test_text_without_the_screens_characters_is_never_masked(
    pieces: list[str], swaps: list[str]
) -> None:
    text = "".join(pieces)
    for i, char in enumerate(_SCREEN_CHARS):
        text = text.replace(char, swaps[i % len(swaps)])
    if "earer" not in text:
        assert not might_hold_secret(text)
    if mask_secrets(text)[0] != text:
        assert might_hold_secret(text)
    if not might_hold_secret(text):
        assert mask_secrets(text) == (text, [])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters=_SCREEN_CHARS), max_size=80))
def test_any_text_without_the_screens_characters_is_left_alone(text: str) -> None:
    for prefix in ("", "Bearer ", "bearer\t"):
        probe = prefix + text
        if not might_hold_secret(probe):
            assert mask_secrets(probe) == (probe, [])
