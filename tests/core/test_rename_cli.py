"""`cairn rename OLD NEW` writes the rename the editor and the importer write, so the
decisions on OLD hold under NEW; bad input is one line, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

from real_cli import cairn, cairn_json, git


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    assert cairn(root, "init").returncode == 0
    proc = cairn(root, "reject", "src/auth.py::login", "--alternative", "OAuth", "-r", "SSO")
    assert proc.returncode == 0, proc.stderr
    return root


def test_a_rename_by_hand_carries_the_verdict_and_says_so(tmp_path: Path) -> None:
    root = _project(tmp_path)
    proc = cairn(root, "rename", "src/auth.py::login", "src/session.py::sign_in")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        "renamed src/auth.py::login -> src/session.py::sign_in (1 event on it follows)"
    )
    status = cairn_json(root, "status", "src/session.py::sign_in")
    assert status["status"] == "rejected"
    assert status["formerly"] == ["src/auth.py::login"]
    # The same halves the editor writes: one on each name.
    halves = [e for e in cairn_json(root, "history", "src/auth.py::login") if e["type"] == "rename"]
    assert [h["metadata"]["renamed_to"] for h in halves] == ["src/session.py::sign_in"]


def test_a_retry_with_the_same_key_writes_nothing_more(tmp_path: Path) -> None:
    root = _project(tmp_path)
    args = ("rename", "src/auth.py", "src/session.py", "--key", "k1", "--json")
    first, again = cairn_json(root, *args[:-1]), cairn_json(root, *args[:-1])
    assert [e["id"] for e in first["events"]] == [e["id"] for e in again["events"]]
    log = (root / ".cairn" / "decisions.jsonl").read_text().splitlines()
    assert len(log) == 3  # the reject and the two halves, once


def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path: Path) -> None:
    root = _project(tmp_path)
    before = (root / ".cairn" / "decisions.jsonl").read_text()
    for old, new in (("src/a.py", "src/a.py"), ("src/a.py::", "src/b.py")):
        proc = cairn(root, "rename", old, new)
        assert proc.returncode == 2
        assert proc.stderr.startswith("cairn: error: ") and proc.stderr.count("\n") == 1
        assert "Traceback" not in proc.stderr
    assert (root / ".cairn" / "decisions.jsonl").read_text() == before
