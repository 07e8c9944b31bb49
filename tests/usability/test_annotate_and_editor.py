"""`cairn annotate` and reasons written in $EDITOR, through the real CLI."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from usability.helpers import cairn, ok


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    ok(root, "init")
    ok(root, "log", "orders.note", "remove", "-r", "Migration 006_drop_note.sql (drop note)")
    return root


def log_bytes(root: Path) -> bytes:
    return (root / ".cairn" / "decisions.jsonl").read_bytes()


def removal_id(root: Path) -> str:
    return json.loads(ok(root, "history", "orders.note", "--json"))[0]["id"]


def test_annotate_adds_a_linked_note_and_history_shows_it_with_the_event(project: Path) -> None:
    target = removal_id(project)
    before = log_bytes(project)
    out = ok(project, "annotate", target[:8], "-r", "support moved notes\nto the ticket system")
    assert f"annotates remove {target[:12]}" in out
    assert log_bytes(project).startswith(before)  # append-only: the old line is untouched
    events = json.loads(ok(project, "history", "orders.note", "--json"))
    assert [e["type"] for e in events] == ["remove", "annotate"]
    assert events[1]["metadata"] == {"annotates": target}
    text = ok(project, "history", "orders.note").splitlines()
    assert text[1] == "    Migration 006_drop_note.sql (drop note)"
    assert text[2].startswith("    note ") and text[2].endswith(": support moved notes")
    assert text[3] == "      to the ticket system"
    assert len(text) == 4  # the note is shown with its event, not as a decision of its own
    # A note changes no status.
    assert json.loads(ok(project, "status", "orders.note", "--json"))["status"] == "removed"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("annotate", "ffffffffff", "-r", "x"), "no event with id"),
        (("annotate", "zz", "-r", "x"), "is not an event id"),
        (("log", "orders.note", "annotate", "-r", "x"), "cairn annotate ID -r TEXT"),
    ],
)
def test_bad_annotations_are_one_line_and_write_nothing(
    project: Path, args: tuple[str, ...], message: str
) -> None:
    before = log_bytes(project)
    proc = cairn(project, *args)
    assert proc.returncode == 2 and message in proc.stderr and proc.stderr.count("\n") == 1
    assert log_bytes(project) == before


def test_a_note_is_not_annotated_again(project: Path) -> None:
    ok(project, "annotate", removal_id(project)[:8], "-r", "why")
    note = json.loads(ok(project, "history", "orders.note", "--json"))[1]["id"]
    proc = cairn(project, "annotate", note[:8], "-r", "again")
    assert proc.returncode == 2 and "is itself a note" in proc.stderr


def editor(tmp_path: Path, body: str) -> str:
    """An editor script: saves a copy of the template it was given, then writes `body`
    above it (as a person types on the empty first line)."""
    script = tmp_path / "fake-editor"
    script.write_text(
        "#!/bin/sh\n"
        f'cp "$1" "{tmp_path}/template.txt"\n'
        f'printf \'%s\\n\' \'{body}\' | cat - "$1" > "$1.new" && mv "$1.new" "$1"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_without_r_the_reason_is_written_in_the_editor(project: Path, tmp_path: Path) -> None:
    ok(project, "log", "users.email_verified", "add", "-r", "verify e-mails")
    ok(project, "revert", "users.email_verified", "-r", "mails bounced")
    proc = cairn(
        project,
        "supersede",
        "users.email_verified",
        env={"EDITOR": editor(tmp_path, "the new relay delivers")},
    )
    assert proc.returncode == 0, proc.stderr
    template = (tmp_path / "template.txt").read_text()
    assert "# entity: users.email_verified" in template
    assert "# type:   supersede" in template
    assert "# open verdicts:" in template and "mails bounced" in template
    [event] = json.loads(ok(project, "history", "users.email_verified", "--json"))[-1:]
    assert (event["type"], event["reasoning"]) == ("supersede", "the new relay delivers")


def test_visual_wins_over_editor_and_annotate_uses_it_too(project: Path, tmp_path: Path) -> None:
    env = {"VISUAL": editor(tmp_path, "from visual"), "EDITOR": "false", "TERM": "xterm"}
    proc = cairn(project, "annotate", removal_id(project)[:8], env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(ok(project, "history", "orders.note", "--json"))[1]["reasoning"] == (
        "from visual"
    )


def test_an_empty_file_aborts_and_writes_nothing(project: Path) -> None:
    before = log_bytes(project)
    proc = cairn(project, "reject", "deps/celery", env={"EDITOR": "true"})
    assert proc.returncode == 2
    assert "empty reason: aborted" in proc.stderr
    assert log_bytes(project) == before
    failed = cairn(project, "reject", "deps/celery", env={"EDITOR": "false"})
    assert failed.returncode == 2 and "exited with status 1" in failed.stderr
    assert log_bytes(project) == before


def test_no_editor_and_no_terminal_asks_for_r(project: Path) -> None:
    before = log_bytes(project)
    proc = cairn(project, "revert", "orders.note", env={"TERM": os.environ.get("TERM", "")})
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "cairn: error: no reason given for revert on orders.note: pass -r TEXT "
        "(or set $EDITOR to write it in an editor)"
    )
    assert log_bytes(project) == before
