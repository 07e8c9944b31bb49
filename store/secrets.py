"""Write-time secret masking: credentials never reach the append-only log.

Every text field of an event passes through `mask_secrets` before it is hashed and
written. A match becomes `[REDACTED:<kind>]`; the rest of the text is kept, so the
reasoning still reads. The rules are precise regexes for token formats with a fixed,
recognisable shape (prefixes, lengths), plus a guarded `key = value` rule for
assignments. They are tuned to leave commit hashes, UUIDs, hex digests and prose
alone: a false positive destroys a decision's text for good, so a pattern with no
anchor (a bare 40-character base64 run, an entropy score) is not used.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from re import Match, Pattern

__all__ = ["SECRET_KINDS", "mask_secrets", "might_hold_secret", "placeholder"]


def placeholder(kind: str) -> str:
    """The text that stands in for a masked secret of this kind."""
    return f"[REDACTED:{kind}]"


# Characters that may appear in a token body; used to bound tokens on both sides so
# a match never starts or ends in the middle of a longer word.
_B = r"(?<![A-Za-z0-9_\-])"
_E = r"(?![A-Za-z0-9_\-])"

# (kind, pattern, group to mask). Group 0 masks the whole match; a named group masks
# only that part (the password of a URL, the value of an assignment). The patterns are
# compiled on the first mask (`_compiled`), not at import: the language server's start
# imports the write path but never writes before its first diagnostics, and compiling
# them all was ~19M of its instructions (docs/performance.md).
_Rule = tuple[str, Pattern[str], str | int]


def _p(pattern: str, flags: int = 0) -> tuple[str, int]:
    """A pattern to compile on first use (`_compiled`)."""
    return pattern, flags


_RULES: tuple[tuple[str, tuple[str, int], str | int], ...] = (
    # A PEM block; an unterminated one (pasted and cut off) is masked to the end.
    (
        "private-key",
        _p(
            r"-----BEGIN (?P<label>(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
            r"(?:.*?-----END (?P=label)-----|.*\Z)",
            re.DOTALL,
        ),
        0,
    ),
    # scheme://user:password@host -> keep the user and host so the text still says where.
    # The user may be empty (`redis://:password@host`, Redis's own form).
    (
        "url-password",
        _p(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]*:(?P<secret>[^\s/]+)@(?=[^\s@/])"),
        "secret",
    ),
    (
        "slack-webhook",
        _p(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_+\-]+"),
        0,
    ),
    (
        "aws-access-key",
        _p(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b"),
        0,
    ),
    (
        "aws-secret-key",
        _p(
            r"(?i:aws_?secret(?:_access)?_?key|secret_?access_?key)[\"']?\s*(?:[:=]|=>)\s*"
            r"[\"']?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
        ),
        "secret",
    ),
    (
        "github-token",
        _p(_B + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})" + _E),
        0,
    ),
    ("gitlab-token", _p(_B + r"glpat-[A-Za-z0-9_\-]{20,}" + _E), 0),
    ("slack-token", _p(_B + r"xox[bpars]-(?=[A-Za-z0-9\-]*\d)[A-Za-z0-9\-]{10,}" + _E), 0),
    ("stripe-key", _p(_B + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}" + _E), 0),
    # Before the OpenAI rule: an Anthropic key also starts with `sk-`.
    ("anthropic-key", _p(_B + r"sk-ant-[A-Za-z0-9_\-]{20,}" + _E), 0),
    # `sk-` plus a long body with at least one digit: prose like `sk-learn-style` stays.
    (
        "openai-key",
        _p(_B + r"sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_\-]*\d)[A-Za-z0-9_\-]{20,}" + _E),
        0,
    ),
    ("google-api-key", _p(_B + r"AIza[0-9A-Za-z_\-]{35}" + _E), 0),
    ("npm-token", _p(_B + r"npm_[A-Za-z0-9]{36}" + _E), 0),
    # header.payload.signature, both JSON parts base64url of `{"`.
    (
        "jwt",
        _p(_B + r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*" + _E),
        0,
    ),
    (
        "bearer-token",
        _p(r"\b[Bb]earer\s+(?P<secret>[A-Za-z0-9\-._~+/]{20,}=*)"),
        "secret",
    ),
)

# `password = hunter2`, `"api_key": "..."`, `DB_PASSWORD=...`, `secret: ...`: the key's
# last word is the keyword (so `tokenizer=` and `max_tokens=` are not keys).
_ASSIGNMENT = _p(
    r"(?P<key>(?<![A-Za-z0-9_])(?:[A-Za-z0-9]+[_\-.])*"
    r"(?i:password|passwd|passphrase|passcode|pass|pwd|pw|pswd|secret|secret[_\-]?key|client[_\-]?secret|token"
    r"|auth[_\-]?token|access[_\-]?token|refresh[_\-]?token|api[_\-]?key|apikey"
    r"|access[_\-]?key|private[_\-]?key|credentials?))"
    r"(?![A-Za-z0-9_])[\"']?[ \t]*(?P<op>:=|=>|[:=])[ \t]*"
    r"(?:(?P<quote>[\"'])(?P<quoted>[^\"'\n]{4,200})(?P=quote)|(?P<bare>[^\s\"',;]+))"
)

# Values that are references or placeholders, not secrets.
_NOT_A_VALUE = _p(
    r"(?:\$|<|\{|%|\*{3}|\[REDACTED:|os\.|env\.|process\.env|getenv|None\b|null\b|nil\b"
    r"|true\b|false\b|xxx|\.\.\.)",
    re.IGNORECASE,
)

SECRET_KINDS: tuple[str, ...] = (*(kind for kind, _, _ in _RULES), "credential")


@cache
def _compiled() -> tuple[tuple[_Rule, ...], Pattern[str], Pattern[str]]:
    """The rules, the assignment rule and its placeholder test, compiled once."""
    rules = tuple((kind, re.compile(*spec), group) for kind, spec, group in _RULES)
    return rules, re.compile(*_ASSIGNMENT), re.compile(*_NOT_A_VALUE)


def _replace_group(kind: str, group: str | int, found: list[str]) -> Callable[[Match[str]], str]:
    def replace(match: Match[str]) -> str:
        found.append(kind)
        if group == 0:
            return placeholder(kind)
        start, end = match.span(group)
        whole_start = match.start()
        text = match.group(0)
        return text[: start - whole_start] + placeholder(kind) + text[end - whole_start :]

    return replace


def _looks_like_value(value: str, *, quoted: bool) -> bool:
    """Whether an assignment's right-hand side is plausibly a literal secret."""
    if _compiled()[2].match(value) or value.endswith("("):
        return False
    if quoted:
        return len(value.strip()) >= 4
    # Unquoted: prose after `token:` is words; a secret has a digit or a symbol.
    return len(value) >= 6 and not value.isalpha() and "(" not in value


def _mask_assignment(found: list[str]) -> Callable[[Match[str]], str]:
    def replace(match: Match[str]) -> str:
        quoted = match.group("quoted")
        value = quoted if quoted is not None else match.group("bare")
        name = "quoted" if quoted is not None else "bare"
        if not _looks_like_value(value, quoted=quoted is not None):
            return match.group(0)
        found.append("credential")
        start, end = match.span(name)
        base = match.start()
        text = match.group(0)
        return text[: start - base] + placeholder("credential") + text[end - base :]

    return replace


def mask_secrets(text: str) -> tuple[str, list[str]]:
    """Mask credentials in `text`: the masked text and the kinds masked (unique, first seen)."""
    if not text:
        return text, []
    found: list[str] = []
    rules, assignment, _ = _compiled()
    for kind, pattern, group in rules:
        text = pattern.sub(_replace_group(kind, group, found), text)
    text = assignment.sub(_mask_assignment(found), text)
    return text, list(dict.fromkeys(found))


# A cheap screen run before `mask_secrets` (which applies ~17 regexes): every masking
# rule above needs one of these literal markers, or a credential keyword followed by an
# assignment operator; text with neither cannot be changed by it. It lives here so a
# new rule and its marker change together; tests/store/test_secret_screen.py checks it
# against every kind of secret.
_SECRET_MARKERS = (
    "-----BEGIN", "://", "gh", "github_pat_", "glpat-", "xox", "k_live_", "k_test_", "sk-",
    "AIza", "npm_", "eyJ", "earer", "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA",
    "AIPA", "ANPA", "ANVA", "APKA",
)  # fmt: skip
_KEYWORDS = ("pass", "pw", "pswd", "secret", "token", "credential", "key")
_ASSIGNED = _p(r"(?:pass|pw|pswd|secret|token|credential|key)[a-z0-9_\-.]*[\"']?\s*(?::=|=>|[:=])")


@cache
def _assigned() -> Pattern[str]:
    return re.compile(*_ASSIGNED)


# Each marker is a scan of the text: the twelve AWS/Google ones are looked for only in
# text with a capital A (half the screen's cost on ordinary prose).
_A_MARKERS = tuple(m for m in _SECRET_MARKERS if m.startswith("A"))
_OTHER_MARKERS = tuple(m for m in _SECRET_MARKERS if not m.startswith("A"))


def might_hold_secret(text: str) -> bool:
    """False when `mask_secrets` could not change `text` (so it need not run)."""
    if not (
        "-" in text or ":" in text or "_" in text or "=" in text or "A" in text
        or "J" in text or "earer" in text
    ):  # fmt: skip
        # Every rule needs one of these (a single character is one memchr): `-` for PEM,
        # GitLab, Slack, OpenAI and Anthropic; `:` for URLs; `_` for GitHub, Stripe and
        # npm; `A` for AWS and Google keys; `J` for a JWT's `eyJ`; `earer` for a bearer
        # token; `:` or `=` for every assignment. Plain prose has none of them, and the
        # marker scans below cost ten times as much.
        return False
    for marker in _OTHER_MARKERS:
        if marker in text:
            return True
    if "A" in text:
        for marker in _A_MARKERS:
            if marker in text:
                return True
    if "=" not in text and ":" not in text:
        return False  # no assignment operator, so no `key = value` credential
    low = text.lower()
    for keyword in _KEYWORDS:
        if keyword in low:
            return _assigned().search(low) is not None
    return False
