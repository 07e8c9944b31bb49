"""kill -9 a writer at random moments: what was reported written stays, nothing is lost."""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path

from cairn.store import EventDraft, Store
from cairn.store.verify import verify

from .harness import log_path

TRIALS = 60
PADDING = "x" * 1000  # big batches make a kill in the middle of a write possible


def _write_until_killed(cairn_dir: Path, trial: int, out_fd: int) -> None:
    """The child: append forever, reporting each id on `out_fd` once `append` returned."""
    with Store.open(cairn_dir) as store:
        i = 0
        while True:
            if i % 2:
                drafts = [
                    EventDraft(
                        type="modify",
                        entity=f"users.c{j % 5}",
                        reasoning=f"trial {trial} batch {i} event {j} {PADDING}",
                    )
                    for j in range(60)
                ]
                ids = [e.id for e in store.append_many(drafts)]
            else:
                draft = EventDraft(type="add", entity="users.email", reasoning=f"t{trial} n{i}")
                ids = [store.append(draft).event.id]
            os.write(out_fd, "".join(f"{x}\n" for x in ids).encode())
            i += 1


def _spawn(cairn_dir: Path, trial: int) -> tuple[int, int]:
    """Fork a writer (cheaper than a new interpreter); return its pid and the read end."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns; it is killed
        os.close(read_fd)
        try:
            _write_until_killed(cairn_dir, trial, write_fd)
        finally:
            os._exit(1)
    os.close(write_fd)
    return pid, read_fd


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def test_kill_dash_nine_in_a_loop(cairn_dir: Path) -> None:
    rng = random.Random(20261129)
    quarantine = cairn_dir / "decisions.jsonl.quarantine"
    partial_tails = 0
    for trial in range(TRIALS):
        pid, fd = _spawn(cairn_dir, trial)
        first = os.read(fd, 80)  # the store is open and has written once
        assert first, f"trial {trial}: the writer died before its first write"
        time.sleep(rng.uniform(0, 0.08))
        os.kill(pid, signal.SIGKILL)
        out = first + _read_all(fd)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        # Only whole lines of output count as reported; the child may die mid-print.
        reported = set(out[: out.rfind(b"\n") + 1].decode().split())

        data = log_path(cairn_dir).read_bytes()
        partial_tails += not data.endswith(b"\n")
        report = verify(cairn_dir)
        assert report.ok, (trial, [str(f) for f in report.problems])
        assert {f.code for f in report.notices} <= {"partial-tail", "quarantine"}
        logged = {json.loads(line)["id"] for line in data[: data.rfind(b"\n") + 1].splitlines()}
        missing = reported - logged
        assert not missing, f"trial {trial}: reported written but not in the log: {missing}"

        # The next write succeeds, and a partial tail goes to the quarantine, not away.
        before = quarantine.stat().st_size if quarantine.exists() else 0
        with Store.open(cairn_dir) as store:
            store.append(EventDraft(type="add", entity="users.after", reasoning=f"after {trial}"))
            assert len(store) == len(logged) + 1
        after = log_path(cairn_dir).read_bytes()
        assert after.endswith(b"\n")
        if not data.endswith(b"\n"):
            fragment = data[data.rfind(b"\n") + 1 :]
            assert quarantine.read_bytes()[before:].startswith(fragment)
    final = verify(cairn_dir)
    assert final.ok
    print(f"{TRIALS} kills, {partial_tails} left a partial tail, {final.events} events")
