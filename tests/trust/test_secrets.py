"""Write-time secret masking: each credential shape is masked, ordinary text is not."""

from __future__ import annotations

import pytest

from cairn.store.secrets import SECRET_KINDS, mask_secrets, placeholder

# Built from parts so this file itself does not look like it leaks credentials.
GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" + "K1l2M3n4O5p6Q7R8"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aumrlcGPmMGXXXYZABCDEF\n"
    "q2Bf0n0cG5h1+Xr7c4s\n"
    "-----END RSA PRIVATE KEY-----"
)

SECRETS = [
    # (kind, text containing the secret, the secret itself)
    ("aws-access-key", "rotated AKIAIOSFODNN7EXAMPLE yesterday", "AKIAIOSFODNN7EXAMPLE"),
    ("aws-access-key", "temp creds ASIAY34FZKBOKMUTVV7A", "ASIAY34FZKBOKMUTVV7A"),
    (
        "aws-secret-key",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "aws-secret-key",
        '"AWS_SECRET_ACCESS_KEY": "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"',
        "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
    ),
    ("github-token", f"token {GHP} leaked", GHP),
    ("github-token", "gho_" + "x" * 36, "gho_" + "x" * 36),
    ("github-token", "ghs_" + "Z9" * 18 + " in CI", "ghs_" + "Z9" * 18),
    (
        "github-token",
        "github_pat_11ABCDEFG0abcdefghijkl_MNOPQRSTUVWXYZ0123456789abcdefghij",
        "github_pat_11ABCDEFG0abcdefghijkl_MNOPQRSTUVWXYZ0123456789abcdefghij",
    ),
    ("gitlab-token", "use glpat-xYz12345678901234567 here", "glpat-xYz12345678901234567"),
    (
        "slack-token",
        "bot xoxb-123456789012-1234567890123-AbCdEf",
        "xoxb-123456789012-1234567890123-AbCdEf",
    ),
    ("slack-token", "xoxp-1234-5678-9012-abcdef0123", "xoxp-1234-5678-9012-abcdef0123"),
    (
        "slack-webhook",
        "post to https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX now",
        "hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX",
    ),
    ("stripe-key", "sk_live_51H8abcdEFGHijklMNOPqrst", "sk_live_51H8abcdEFGHijklMNOPqrst"),
    ("stripe-key", "rk_live_abcdefghijklmnop0123", "rk_live_abcdefghijklmnop0123"),
    (
        "stripe-key",
        "tests use sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    ),
    (
        "openai-key",
        "OPENAI sk-abc123def456ghi789jkl012mno345pqr678stu901vwx",
        "sk-abc123def456ghi789jkl012mno345pqr678stu901vwx",
    ),
    (
        "openai-key",
        "sk-proj-Ab3_cdEF-gh4ijKL5mnOP6qrST7uvWX8yz",
        "sk-proj-Ab3_cdEF-gh4ijKL5mnOP6qrST7uvWX8yz",
    ),
    (
        "anthropic-key",
        "sk-ant-api03-AbCdEfGh12345678_ijklMNOP-qrst",
        "sk-ant-api03-AbCdEfGh12345678_ijklMNOP-qrst",
    ),
    ("private-key", f"the key was\n{PEM}\nand it is gone", "MIIEowIBAAKCAQEA1c7"),
    (
        "private-key",
        "gone:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA",
        "b3BlbnNzaC1rZXktdjEAAAA",
    ),
    ("jwt", f"session cookie {JWT} expired", JWT),
    ("url-password", "postgres://admin:s3cr3t-pw@db.internal:5432/app", "s3cr3t-pw"),
    ("url-password", "redis://default:p%40ss@cache/0", "p%40ss"),
    ("credential", "set password=hunter22 in the config", "hunter22"),
    ("credential", 'DB_PASSWORD="correct horse battery staple"', "correct horse battery staple"),
    ("credential", "secret: s3cr3t!value", "s3cr3t!value"),
    ("credential", "GITHUB_TOKEN=abc123def456", "abc123def456"),
    ("credential", '{"api_key": "9f8e7d6c5b4a"}', "9f8e7d6c5b4a"),
    ("credential", "client_secret := 'Zx!9-qq-77'", "Zx!9-qq-77"),
    (
        "bearer-token",
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123",
        "abcdefghijklmnopqrstuvwxyz0123",
    ),
]


@pytest.mark.parametrize(("kind", "text", "secret"), SECRETS)
def test_each_secret_is_masked_and_the_rest_kept(kind: str, text: str, secret: str) -> None:
    masked, kinds = mask_secrets(text)
    assert secret not in masked
    assert placeholder(kind) in masked
    assert kinds == [kind]
    # Words around the secret survive so the reasoning still reads (a PEM block's
    # armour lines go with it).
    for word in text.replace(secret, " ").split() if kind != "private-key" else ["gone"]:
        if len(word) > 3 and word.isalpha():
            assert word in masked


def test_url_password_keeps_user_and_host() -> None:
    masked, _ = mask_secrets("clone https://deploy:tok3n-value@git.example.com/org/repo.git")
    assert masked == "clone https://deploy:[REDACTED:url-password]@git.example.com/org/repo.git"


def test_several_kinds_are_reported_once_each_in_order() -> None:
    text = f"AKIAIOSFODNN7EXAMPLE and {GHP} and AKIAI44QH8DHBEXAMPLE"
    masked, kinds = mask_secrets(text)
    assert kinds == ["aws-access-key", "github-token"]
    assert masked.count(placeholder("aws-access-key")) == 2


def test_every_kind_is_declared() -> None:
    assert {kind for kind, _, _ in SECRETS} <= set(SECRET_KINDS)


def test_masking_is_idempotent() -> None:
    once, _ = mask_secrets(f"password=hunter22 {JWT} {GHP}")
    twice, kinds = mask_secrets(once)
    assert twice == once
    assert kinds == []


ORDINARY = [
    "",
    "fix 3f786850e387550fdab836ed7e6dc881de23001b (short 3f78685)",
    "request id 550e8400-e29b-41d4-a716-446655440000",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "base64 of the header is SGVsbG8gV29ybGQ= in prose",
    "We rebuilt the password reset flow and dropped the secret question.",
    "token: we rotate tokens monthly",
    "the secret: nobody reads the docs",
    "tokenizer=bert-base-uncased max_tokens=4096",
    "password_length=12 and password_reset_ttl=3600",
    "DB_PASSWORD=${DB_PASSWORD} api_key=os.environ['API_KEY']",
    'password = getenv("DB_PASSWORD")',
    "password: null, secret: None, token=<your token here>",
    "see https://example.com/docs:latest@v2 and user@example.com",
    "use sk-learn-style estimators and the ask-ant-colony heuristic",
    "AKIA is the prefix of AWS access keys",
    "ssh-rsa is a public key type; -----BEGIN PUBLIC KEY----- is fine",
    "users.email_verified was reverted in a1b2c3d",
    "migrate from deps/stripe to deps/adyen",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_not_masked(text: str) -> None:
    assert mask_secrets(text) == (text, [])
