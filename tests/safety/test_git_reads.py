"""Reading git history that cannot be forged, misnamed or turned into a command
(issue 35, items 3, 8 and 9), through the real CLI on real repositories."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from real_cli import cairn, commit, env, git

from cairn.limits import MAX_STORED_TEXT, MAX_SUBJECT
from cairn.store.paths import EntityPathError, parse

AUDIT_V1 = "def pay(amount):\n    return charge(amount)\n"
AUDIT_V2 = "def pay(amount):\n    write_audit_record(amount)\n    return charge(amount)\n"


def logged(root: Path) -> list[dict[str, object]]:
    text = (root / ".cairn" / "decisions.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    assert cairn(root, "init").returncode == 0
    return root


def test_a_commit_body_cannot_forge_a_record(repo: Path) -> None:
    commit(repo, "Base", "2024-01-01T10:00:00Z", {"app.py": AUDIT_V1})
    added = commit(repo, "Add audit", "2024-01-02T10:00:00Z", {"app.py": AUDIT_V2})
    before = git(repo, "rev-parse", f"{added}~1:app.py")
    after = git(repo, "rev-parse", f"{added}:app.py")
    # what the old `\x01`/`\x1f`/`\x02` parser read as a second commit: a revert of
    # "Add audit" by someone else, on another date, with its own reason
    fake = (
        "Update docs\n\n\x02\n\x01commit " + "f" * 40 + "\x1f" + added
        + "\x1f1999-09-09T09:09:09+00:00\x1fMallory <m@evil.example>"
        + '\x1fRevert "Add audit"\x1fRevert "Add audit"\n\nForged reason.\n\n'
        + f"This reverts commit {added}.\x02\n:100644 100644 {after} {before} M\tapp.py\n"
    )  # fmt: skip
    commit(repo, fake, "2024-01-03T10:00:00Z", {"README.md": "docs\n"}, verbatim=True)
    proc = cairn(repo, "import", "git", "--json")
    assert proc.returncode == 0, proc.stderr
    events = logged(repo)
    text = json.dumps(events)
    assert "Mallory" not in text and "Forged reason" not in text and "1999-09-09" not in text
    assert [e for e in events if e["type"] == "revert"] == []


def test_separator_bytes_in_a_message_are_text_and_the_message_is_whole(repo: Path) -> None:
    commit(repo, "Base", "2024-01-01T10:00:00Z", {"app.py": AUDIT_V1})
    commit(repo, "Add audit", "2024-01-02T10:00:00Z", {"app.py": AUDIT_V2})
    git(repo, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    message = git(repo, "log", "-1", "--format=%B")
    tail = "Audit rows doubled \x1f the write load \x02 and the rest of the reason survives"
    git(
        repo, "commit", "-q", "--amend", "--cleanup=verbatim", "-F", "-",
        date="2024-01-03T10:00:00Z", stdin=f"{message}\n\n{tail}\n",
    )  # fmt: skip
    proc = cairn(repo, "import", "git", "--json")
    assert proc.returncode == 0, proc.stderr
    [revert] = [e for e in logged(repo) if e["type"] == "revert"]
    assert revert["entity"] == "app.py::pay"
    assert "and the rest of the reason survives" in str(revert["reasoning"])
    assert revert["author"] == "Ann Example <ann@example.com>"
    assert str(revert["occurred_at"]).startswith("2024-01-03T10:00:00")


def test_a_huge_commit_message_is_clipped_once_not_copied_into_every_event(repo: Path) -> None:
    funcs = [f"f{i}" for i in range(9)]
    base = "".join(f"def {f}(x):\n    return x\n\n\n" for f in funcs)
    audited = "".join(f"def {f}(x):\n    audit(x)\n    return x\n\n\n" for f in funcs)
    commit(repo, "Base", "2024-01-01T10:00:00Z", {"app.py": base})
    subject = "Audit everything " + "x" * 1_000_000  # a 1 MB subject line
    commit(repo, subject + "\n\nwhy " * 3, "2024-01-02T10:00:00Z", {"app.py": audited})
    git(repo, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    before = (repo / ".cairn" / "decisions.jsonl").stat().st_size
    proc = cairn(repo, "import", "git", "--json")
    assert proc.returncode == 0, proc.stderr
    reverts = [e for e in logged(repo) if e["type"] == "revert"]
    assert sorted(str(e["entity"]) for e in reverts) == [f"app.py::{f}" for f in funcs]
    grown = (repo / ".cairn" / "decisions.jsonl").stat().st_size - before
    assert grown < 9 * (MAX_STORED_TEXT + 3 * MAX_SUBJECT)  # was 9 MB: the subject x 9
    for event in reverts:
        assert "[… clipped by cairn:" in str(event["reasoning"])
        assert len(str(event["metadata"]["revert_subject"])) < MAX_SUBJECT + 100
    notes = json.loads(proc.stdout)["notes"]
    assert any("the log keeps the first" in n["note"] for n in notes), notes


@pytest.mark.parametrize("name", ['pay "v2".py', "pay\tv2.py", "pay\nv2.py", "pay\\v2 é.py"])
def test_file_names_git_would_quote_are_read_as_they_are(repo: Path, name: str) -> None:
    commit(repo, "Base", "2024-01-01T10:00:00Z", {name: AUDIT_V1})
    commit(repo, "Add audit", "2024-01-02T10:00:00Z", {name: AUDIT_V2})
    git(repo, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    proc = cairn(repo, "import", "git", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    entities = {e["entity"] for e in logged(repo)}
    # the verdict lands on the file's own name, or the file is skipped with a reason;
    # never on a path no file has (quoted, escaped or cut at the tab)
    try:
        own = {parse(f"{name}::pay").path}  # the grammar's form (a backslash is a folder)
    except EntityPathError:
        own = set()
    assert entities <= own, entities
    if not entities:
        assert report["skipped_items"], report


MARKER_SCRIPT = """#!/bin/sh
echo "$0 $*" >> {marker}
cat "$1" 2>/dev/null
exit 0
"""


def test_the_repository_config_runs_nothing(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    script = tmp_path / "hostile.sh"
    script.write_text(MARKER_SCRIPT.format(marker=marker))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    commit(repo, "Base", "2024-01-01T10:00:00Z", {"app.py": AUDIT_V1})
    commit(repo, "Add audit", "2024-01-02T10:00:00Z", {"app.py": AUDIT_V2})
    git(repo, "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    (repo / ".gitattributes").write_text("* diff=x filter=f\n")
    for key, value in {
        "diff.x.textconv": str(script),
        "diff.x.command": str(script),
        "diff.external": str(script),
        "core.fsmonitor": str(script),
        "filter.f.clean": str(script),
        "filter.f.smudge": str(script),
        "filter.f.process": str(script),
    }.items():
        git(repo, "config", key, value)
    (repo / "app.py").write_text(AUDIT_V2 + "\n# edited\n")  # a dirty file: diffs read it
    # the hooks' own command lines, and what a person runs
    for args in (
        ("import", "git"),
        ("digest",),
        ("check", "--diff"),
        ("check", "--diff", "HEAD~2"),
        ("check", "--staged"),
        ("check", "app.py"),
        ("doctor",),
        ("verify",),
    ):
        proc = cairn(repo, *args)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert not marker.exists(), f"`cairn {' '.join(args)}` ran {marker.read_text()}"
    assert [e["entity"] for e in logged(repo) if e["type"] == "revert"] == ["app.py::pay"]
    # the check is worth something only if git runs the script when not told otherwise
    subprocess.run(["git", "diff", "HEAD~2"], cwd=repo, env=env(), capture_output=True)
    assert marker.exists()
    os.unlink(marker)
