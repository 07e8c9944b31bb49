"""Several writers at once: the lock serialises them, lines stay whole, readers catch up."""

from __future__ import annotations

import json
import multiprocessing as mp
import subprocess
from pathlib import Path
from typing import Any

from cairn.store import EventDraft, Store
from cairn.store.verify import verify

from .harness import CAIRN, env_for, log_lines

WRITERS = 4
WRITES = 500
CLI_WRITES = 5


def _writer(cairn_dir: str, worker: int, count: int, start: Any) -> None:
    start.wait()
    with Store.open(Path(cairn_dir)) as store:
        for i in range(count):
            store.append(
                EventDraft(
                    type="add" if i % 3 else "modify",
                    entity=f"users.col{i % 11}",
                    reasoning=f"worker {worker} write {i}",
                    session=f"w{worker}",
                )
            )


def _run_writers(cairn_dir: Path, count: int) -> None:
    ctx = mp.get_context("fork")
    start = ctx.Event()
    procs = [
        ctx.Process(target=_writer, args=(str(cairn_dir), w, count, start)) for w in range(WRITERS)
    ]
    for p in procs:
        p.start()
    start.set()  # all at once
    for p in procs:
        p.join(timeout=240)
        assert p.exitcode == 0


def test_four_processes_times_500_writes(cairn_dir: Path) -> None:
    _run_writers(cairn_dir, WRITES)
    lines = log_lines(cairn_dir)
    events = [json.loads(line) for line in lines]  # every line whole: each one parses
    assert len(events) == WRITERS * WRITES
    assert len({e["id"] for e in events}) == WRITERS * WRITES
    for w in range(WRITERS):
        mine = [e["reasoning"] for e in events if e.get("session") == f"w{w}"]
        assert mine == [f"worker {w} write {i}" for i in range(WRITES)]  # each writer's order
    report = verify(cairn_dir)
    assert report.ok, [str(f) for f in report.findings]
    assert report.events == WRITERS * WRITES
    # Serialised writers each saw the previous write: one chain, one head, no dangling parent.
    assert len(report.heads) == 1
    ids = {e["id"] for e in events}
    assert all(set(e.get("parents", [])) <= ids for e in events)
    assert sum(1 for e in events if not e.get("parents")) == 1
    with Store.open(cairn_dir) as store:
        assert len(store) == WRITERS * WRITES
        assert store.heads() == report.heads


def test_concurrent_cli_writers(repo: Path, cairn_dir: Path) -> None:
    procs = [
        subprocess.Popen(
            [
                "sh",
                "-c",
                " && ".join(
                    f"{CAIRN} log users.c{w} add -r 'cli worker {w} write {i}'"
                    for i in range(CLI_WRITES)
                ),
            ],
            cwd=repo,
            env=env_for(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for w in range(WRITERS)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert len(log_lines(cairn_dir)) == WRITERS * CLI_WRITES
    done = subprocess.run(
        [CAIRN, "verify", "--json"], cwd=repo, env=env_for(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout
    assert len(json.loads(done.stdout)["heads"]) == 1


def _reader(cairn_dir: str, stop: Any, out: Any) -> None:
    """Read while others write, until told to stop; report what was seen."""
    seen: list[int] = []
    broken = 0
    with Store.open(Path(cairn_dir)) as store:
        while True:
            last = stop.is_set()
            events = store.history("users", include_children=True)
            broken += sum(1 for e in events if not e.reasoning.startswith("worker "))
            seen.append(len(events))
            raw = Path(cairn_dir, "decisions.jsonl").read_bytes()
            complete = raw[: raw.rfind(b"\n") + 1]
            for line in complete.splitlines():
                json.loads(line)  # a complete line is always a whole event
            if last:
                break
    out.put((seen, broken))


def test_readers_never_see_half_an_event_and_catch_up(cairn_dir: Path) -> None:
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    stop = ctx.Event()
    reader = ctx.Process(target=_reader, args=(str(cairn_dir), stop, out))
    reader.start()
    _run_writers(cairn_dir, 150)
    stop.set()
    seen, broken = out.get(timeout=120)
    reader.join(timeout=60)
    assert reader.exitcode == 0
    assert broken == 0
    assert seen == sorted(seen)  # counts only grow: no event vanishes between reads
    assert seen[-1] == WRITERS * 150  # the reader's index caught up with every write
    assert len(set(seen)) > 2  # it really read while the writers wrote
    # A store opened before a write by another process catches up without reopening.
    with Store.open(cairn_dir) as store:
        before = len(store)
        with Store.open(cairn_dir) as other:
            other.append(EventDraft(type="add", entity="users.x", reasoning="y"))
        assert len(store) == before + 1
        assert store.status("users.x").status.value == "active"
