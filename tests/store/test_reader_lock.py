"""Readers catch up without the cross-process write lock (the editor's hover must not wait)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from cairn.store import EventDraft, Store

HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()
"""


def test_reader_sees_new_events_while_another_process_holds_the_write_lock(
    cairn_dir: Path,
) -> None:
    with Store.open(cairn_dir) as writer, Store.open(cairn_dir) as reader:
        writer.append(EventDraft(type="add", entity="users.email", reasoning="login by email"))
        assert reader.status("users.email").status == "active"
        writer.append(EventDraft(type="revert", entity="users.email", reasoning="bounced mail"))
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(cairn_dir / "lock")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONSAFEPATH": "1"},
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
            seen: list[str] = []
            thread = threading.Thread(
                target=lambda: seen.append(reader.status("users.email").status), daemon=True
            )
            thread.start()
            thread.join(timeout=10)  # the old reader waited 30 s for the lock, then failed
            assert not thread.is_alive(), "the read waited for another process's write lock"
            assert seen == ["reverted"]
        finally:
            assert holder.stdin is not None
            holder.stdin.close()
            holder.wait(timeout=10)


def test_reader_indexes_only_complete_lines(cairn_dir: Path) -> None:
    with Store.open(cairn_dir) as store:
        store.append(EventDraft(type="add", entity="t.a", reasoning="first"))
        whole = (cairn_dir / "decisions.jsonl").read_bytes()
    with Store.open(cairn_dir) as writer:
        writer.append(EventDraft(type="modify", entity="t.a", reasoning="second"))
        second = (cairn_dir / "decisions.jsonl").read_bytes()[len(whole) :]
    # Simulate a writer caught mid-line: the log holds the first line and half the second.
    (cairn_dir / "decisions.jsonl").write_bytes(whole + second[: len(second) // 2])
    (cairn_dir / "index.db").unlink()
    for suffix in ("-wal", "-shm"):
        (cairn_dir / f"index.db{suffix}").unlink(missing_ok=True)
    with Store.open(cairn_dir) as reader:
        assert [e.reasoning for e in reader.history("t.a")] == ["first"]
        with open(cairn_dir / "decisions.jsonl", "ab") as fh:
            fh.write(second[len(second) // 2 :])
        assert [e.reasoning for e in reader.history("t.a")] == ["first", "second"]
        assert reader.index.bad_lines == 0
