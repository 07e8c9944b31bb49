"""Item 6 (part): an append is never reported as a failure once its line is durable,
and a broken .cairn/ is exit 2 saying what to fix, not "internal error"."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from .cli import Run


def test_an_index_that_cannot_be_written_does_not_fail_a_durable_append(
    run: Run, project: Path
) -> None:
    assert run("log", "users.email", "add", "-r", "first")[0] == 0
    log = project / ".cairn" / "decisions.jsonl"
    before = log.read_bytes()
    holder = sqlite3.connect(project / ".cairn" / "index.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # the index cannot take a write while this is held
    try:
        code, out, err = run("log", "users.email", "modify", "-r", "second", "--json")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 0, err
    assert "written to decisions.jsonl, but the index could not be updated" in err
    assert log.read_bytes().startswith(before) and log.read_bytes().count(b"\n") == 2
    written = json.loads(out)["id"]
    # The index catches up by itself: the next read sees the decision, once.
    code, out, _ = run("history", "users.email", "--json")
    assert [e["id"] for e in json.loads(out)][-1] == written and len(json.loads(out)) == 2


def test_a_log_that_is_a_directory_is_exit_2(run: Run, project: Path) -> None:
    log = project / ".cairn" / "decisions.jsonl"
    log.unlink()
    log.mkdir()
    code, _, err = run("log", "users.email", "add", "-r", "x")
    assert code == 2 and "internal error" not in err, err
