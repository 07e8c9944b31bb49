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
