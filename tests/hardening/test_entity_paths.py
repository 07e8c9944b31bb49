"""Items 10 and 11: unicode entity paths and extension-less root files, in the one
canonicaliser."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.store.paths import (
    EntityKind,
    EntityPathError,
    canonicalise,
    confusable_warnings,
    parse,
)

from .cli import Run


def test_composed_and_decomposed_are_one_entity() -> None:
    composed = "users.caf\u00e9"
    decomposed = "users.cafe\u0301"
    assert canonicalise(decomposed) == canonicalise(composed) == composed
    assert canonicalise("src/re\u0301sume\u0301.py") == "src/r\u00e9sum\u00e9.py"


INVISIBLE = [
    "\u200b",  # zero width space
    "\u200c",  # zero width non-joiner
    "\u200d",  # zero width joiner
    "\u2060",  # word joiner
    "\ufeff",  # byte order mark
    "\u00ad",  # soft hyphen
    "\u202e",  # right-to-left override
    "\u202a",  # left-to-right embedding
    "\u2066",  # left-to-right isolate
    "\u2069",  # pop directional isolate
    "\u200f",  # right-to-left mark
    "\u061c",  # arabic letter mark
    "\u3164",  # hangul filler
    "\u00a0",  # no-break space
    "\u2028",  # line separator
]


@pytest.mark.parametrize("ch", INVISIBLE)
@pytest.mark.parametrize("template", ["users.e{}mail", "src/a{}.py", "src/a.py::f{}g", "x{}y"])
def test_invisible_and_bidi_characters_are_refused(ch: str, template: str) -> None:
    with pytest.raises(EntityPathError, match=f"U\\+{ord(ch):04X}"):
        canonicalise(template.format(ch))


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=20))
def test_canonical_paths_are_nfc_visible_and_idempotent(raw: str) -> None:
    try:
        path = canonicalise(raw)
    except EntityPathError:
        return
    assert unicodedata.is_normalized("NFC", path)
    assert not any(unicodedata.category(c) in ("Cf", "Cc", "Zl", "Zp") for c in path)
    assert canonicalise(path) == path


def test_mixed_scripts_warn_and_single_scripts_do_not() -> None:
    lookalike = canonicalise("users.ema\u0456l")  # Cyrillic i
    (warning,) = confusable_warnings(lookalike)
    assert "CYRILLIC" in warning and "LATIN" in warning
    for fine in ("users.email", "пользователи.почта", "src/日本語ファイル.py", "users.café"):
        assert confusable_warnings(canonicalise(fine)) == [], fine


def test_cli_warns_on_a_lookalike_but_writes(run: Run) -> None:
    code, out, err = run("log", "users.ema\u0456l", "add", "-r", "lookalike", "--json")
    assert code == 0
    assert "mixes scripts" in err and "CYRILLIC" in err
    assert json.loads(out)["entity"] == "users.ema\u0456l"
    code, _, err = run("log", "users.e\u200bmail", "add", "-r", "hidden")
    assert code == 2 and "U+200B" in err


@pytest.mark.parametrize(
    "name", ["Makefile", "Dockerfile", "LICENSE", "Procfile", "Gemfile", "Jenkinsfile"]
)
def test_root_files_without_extension_keep_their_case(name: str) -> None:
    assert parse(name) == parse(f"./{name}")
    assert parse(name).kind is EntityKind.FILE and parse(name).path == name
    assert parse(f"{name}::target").path == f"{name}::target"


@pytest.mark.parametrize(
    ("raw", "path", "kind"),
    [
        ("Dockerfile.dev", "Dockerfile.dev", EntityKind.FILE),
        (".env", ".env", EntityKind.FILE),
        (".env.local", ".env.local", EntityKind.FILE),
        (".gitignore", ".gitignore", EntityKind.FILE),
        ("README.md", "README.md", EntityKind.FILE),
        ("Src/Auth/Login.PY", "Src/Auth/Login.PY", EntityKind.FILE),
        # lower case or all-caps words that are plausible tables stay SQL
        ("license", "license", EntityKind.TABLE),
        ("USERS", "users", EntityKind.TABLE),
        ("AUTHORS", "authors", EntityKind.TABLE),
    ],
)
def test_file_case_is_kept_and_sql_still_folds(raw: str, path: str, kind: EntityKind) -> None:
    parsed = parse(raw)
    assert (parsed.path, parsed.kind) == (path, kind)


def test_cli_dockerfile_round_trips(run: Run) -> None:
    code, out, _ = run("log", "Dockerfile", "modify", "-r", "pin the base image", "--json")
    assert code == 0 and json.loads(out)["entity"] == "Dockerfile"
    code, out, _ = run("status", "./Dockerfile", "--json")
    assert json.loads(out)["event_count"] == 1
