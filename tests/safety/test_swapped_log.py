"""Appends that survive git replacing the log by path (issue 35, item 2).

`git merge` (union), `checkout` and `pull` write a new `.cairn/decisions.jsonl`: a
writer that appended through a descriptor of the old file lost an acknowledged
decision. Each swap here is git's: the new file holds what git read (before or after
the append) plus another branch's line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from real_cli import cairn, env

from cairn.store import EventDraft, Store, init_store
from cairn.store.log import write_lock


def foreign_lines(tmp_path: Path, count: int) -> list[bytes]:
    """`count` valid log lines written on 'another branch' (another copy of the log)."""
    other = tmp_path / "other"
    init_store(other)
    with Store.open(other / ".cairn") as store:
        store.append_many(
            EventDraft("add", f"theirs.col_{i}", reasoning=f"their change {i}", author="Bo")
            for i in range(count)
        )
    lines = (other / ".cairn" / "decisions.jsonl").read_bytes().splitlines(keepends=True)
    assert len(lines) == count
    return lines


def ids_in(log: Path) -> list[str]:
    import json

    return [json.loads(line)["id"] for line in log.read_bytes().splitlines() if line.strip()]


def replace_by_rename(log: Path, content: bytes) -> None:
    """git's write-to-a-temporary-then-rename."""
    tmp = log.with_name(".merge.tmp")
    tmp.write_bytes(content)
    os.replace(tmp, log)


def replace_by_recreate(log: Path, content: bytes) -> None:
    """git checkout's unlink, then create (O_EXCL)."""
    os.unlink(log)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, content)
    os.close(fd)


def test_an_append_the_log_was_swapped_under_is_in_the_new_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deterministic: the swap happens right after the append's fsync, 240 times, in the
    three ways git can leave the file (it read before our line: by rename and by
    recreate; it read after: our line is already there and must not be doubled)."""
    root = tmp_path / "repo"
    init_store(root)
    log = root / ".cairn" / "decisions.jsonl"
    theirs = foreign_lines(tmp_path, 240)
    real_fsync = os.fsync
    armed: list[Callable[[], None]] = []

    def fsync_then_swap(fd: int) -> None:
        real_fsync(fd)
        if armed and os.fstat(fd).st_ino == os.stat(log).st_ino:
            armed.pop()()

    monkeypatch.setattr(os, "fsync", fsync_then_swap)
    acknowledged: list[str] = []
    with Store.open(root / ".cairn") as store:
        for i in range(240):
            mode = i % 3
            foreign = theirs[i]

            def swap(mode: int = mode, foreign: bytes = foreign) -> None:
                held = log.read_bytes()
                if mode < 2:  # git read the file before our line reached it
                    held = held[: held.rstrip(b"\n").rfind(b"\n") + 1]
                (replace_by_rename if mode != 1 else replace_by_recreate)(log, held + foreign)

            armed.append(swap)
            event = store.append(EventDraft("reject", f"ours.col_{i}", reasoning=f"no {i}")).event
            assert not armed, "the swap did not run"
            acknowledged.append(event.id)
            assert store.get(event.id).id == event.id
        assert len(store) == 480
    ids = ids_in(log)
    assert sorted(ids) == sorted(set(ids)), "a line was written twice"
    assert set(acknowledged) <= set(ids), "an acknowledged decision is not in the log"
    assert len(ids) == 480
    proc = cairn(root, "verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr


WRITER = textwrap.dedent(
    """
    import os, sys
    from cairn.store import EventDraft, Store
    with Store.open(sys.argv[1]) as store:
        for i in range(int(sys.argv[2])):
            if os.path.exists(sys.argv[3]):
                break
            event = store.append(EventDraft("reject", f"ours.c{i}", reasoning=f"no {i}")).event
            print(event.id, flush=True)
    """
)


SWAPS = 200
MAX_APPENDS = 20_000


def test_a_warm_writer_racing_a_swapper_loses_nothing(tmp_path: Path) -> None:
    """A real race: a writer process appends while this one replaces the log the way
    git does, at least 200 times: read it, write a new file holding it and another
    branch's line, and rename over. Every id the writer printed (acknowledged) must be
    in the log, once, and the index must follow the replaced files (`verify` passes).

    The swap holds Cairn's lock. git holds nothing, but its gap between its check and
    its rename is far shorter than a writer's fsync; on a loaded machine this thread
    could stall inside it for longer, and a line written meanwhile is lost, which no
    check by the writer can see (docs/threat-model.md says so). Without the lock, a
    fast writer also left too few gaps for 200 swaps to land. The deterministic test
    above is the one that fails without the fix."""
    root = tmp_path / "repo"
    init_store(root)
    log = root / ".cairn" / "decisions.jsonl"
    theirs = foreign_lines(tmp_path, 3000)
    stop = tmp_path / "stop"  # the writer runs until SWAPS swaps have raced it
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root / ".cairn"), str(MAX_APPENDS), str(stop)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    swaps = 0
    done = threading.Event()

    def swapper() -> None:
        nonlocal swaps
        while not done.is_set() and os.stat(log).st_size == 0:
            done.wait(0.001)  # swaps count once the writer is writing
        while not done.is_set() and swaps < len(theirs):
            # Read, write and rename between two appends (under the lock), so every
            # swap lands however fast the writer is: the writer's next append goes
            # through a descriptor of the replaced file, which is what is tested.
            with write_lock(root / ".cairn"):
                held = log.read_bytes()
                tmp = log.with_name(".merge.tmp")
                tmp.write_bytes(held + theirs[swaps])
                os.replace(tmp, log)
                swaps += 1
            if swaps == SWAPS:
                stop.touch()
            done.wait(0.0005)

    thread = threading.Thread(target=swapper)
    thread.start()
    out, err = writer.communicate(timeout=120)
    done.set()
    thread.join()
    assert writer.returncode == 0, err
    acknowledged = out.split()
    assert 0 < len(acknowledged) < MAX_APPENDS, "the writer did not race the swaps"
    assert swaps >= SWAPS
    ids = ids_in(log)
    lost = set(acknowledged) - set(ids)
    assert not lost, f"{len(lost)} of {len(acknowledged)} acknowledged decisions lost"
    assert len(ids) == len(set(ids)) == len(acknowledged) + swaps
    proc = cairn(root, "verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shutil.rmtree(tmp_path / "other")
