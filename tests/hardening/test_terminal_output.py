"""Item 9: stored text never reaches a terminal as control sequences, and a newline in
it never starts a line of its own. Every human read command is run over a log whose
every text field is hostile; `--json` keeps the text exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn.store import EventDraft, Store
from cairn.terminal import for_terminal, one_line, printable

from .cli import Run

HOSTILE = (
    "title \x1b]0;pwned\x07 link \x1b]8;;http://evil.example\x1b\\here\x1b]8;;\x1b\\ "
    "clear \x1b[2J\x1b[H bidi \u202egnp.exe\u202c bell \x07 cr \rover c1 \x9b31m"
    "\nFAKE 2026-01-01  revert  users.email  000000000000  mallory"
)
UNSAFE = ("\x1b", "\x07", "\u202e", "\u202c", "\r", "\x9b")


@pytest.fixture
def hostile(store: Store, project: Path) -> Path:
    text = dict(
        reasoning=HOSTILE,
        author=HOSTILE.replace("\n", " ") + " <m@example.org>",
        agent=HOSTILE,
        session=HOSTILE,
        stale_when=HOSTILE,
        metadata={"note": HOSTILE},
    )
    store.append(EventDraft(type="add", entity="users.email", diff=HOSTILE, **text))
    store.append(EventDraft(type="reject", entity="users.email", alternative=HOSTILE, **text))
    store.append(
        EventDraft(
            type="revert",
            entity="users.email_verified",
            revisit_after="2000-01-01",
            expires_when="manual:" + HOSTILE.replace("\n", " "),
            **text,
        )
    )
    (project / "db").mkdir()
    (project / "db" / "001.sql").write_text(
        "ALTER TABLE users ADD COLUMN email_verified boolean;\n"
    )
    return project


READS = [
    ["status", "users.email"],
    ["status", "users"],
    ["history", "users.email"],
    ["history", "users", "--children"],
    ["prior-attempts", "users.email", "--all"],
    ["prior-attempts", "users", "--children", "--all"],
    ["search", "pwned"],
    ["search", "title"],
    ["review"],
    ["ls"],
    ["which", "db/001.sql:1:30"],
    ["check", "db/001.sql"],
    ["digest"],
    ["verify"],
    ["export", "markdown"],
]


@pytest.mark.parametrize("argv", READS, ids=lambda a: " ".join(a))
def test_human_output_has_no_control_sequences(run: Run, hostile: Path, argv: list[str]) -> None:
    code, out, err = run(*argv)
    assert code in (0, 1), (code, err)
    assert "Traceback" not in err
    for bad in UNSAFE:
        assert bad not in out, (argv, bad, out)
        assert bad not in err, (argv, bad, err)
    # The injected line is only ever a continuation, indented under its entry.
    assert not any(line.startswith("FAKE") for line in out.splitlines()), out


@pytest.mark.parametrize(
    "argv", [["status", "users.email"], ["history", "users.email"], ["search", "pwned"]]
)
def test_json_output_keeps_the_text_exact(run: Run, hostile: Path, argv: list[str]) -> None:
    code, out, _ = run(*argv, "--json")
    assert code in (0, 1)
    assert HOSTILE in out or json.dumps(HOSTILE, ensure_ascii=False)[1:-1] in out
    assert "\x1b" not in out  # JSON escapes it, so the document is still safe to print


def test_the_helper() -> None:
    assert printable("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert printable("\u202eabc") == "\\u202eabc"
    assert printable("tab\tand\nnewline") == "tab\tand\nnewline"
    assert for_terminal("one\ntwo\r\nthree", "  ") == "one\n  two\n  three"
    assert one_line("a\nb") == "a ⏎ b"
