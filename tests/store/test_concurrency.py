"""Writers in several threads and several processes: every line whole, one chain."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from cairn.store import EventDraft, Store, line_id

WRITER = """
import sys
from cairn.store import EventDraft, Store
store = Store.open(sys.argv[1])
for i in range(int(sys.argv[3])):
    store.append(EventDraft(type="modify", entity=f"t.p{sys.argv[2]}", reasoning=f"step {i}"))
"""


def _check_log(cairn_dir: Path, expected: int) -> None:
    lines = (cairn_dir / "decisions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == expected
    raws = [json.loads(x) for x in lines]
    assert all(line_id(r) == r["id"] for r in raws)
    # The lock serialises appends, so each writer saw the previous head: one chain.
    roots = [r for r in raws if not r.get("parents")]
    assert len(roots) == 1
    assert all(len(r.get("parents", [])) <= 1 for r in raws)
    with Store.open(cairn_dir) as store:
        assert len(store) == expected
        assert len(store.heads()) == 1


def test_processes_appending_at_once(cairn_dir: Path) -> None:
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(cairn_dir), str(i), "15"], env=env)
        for i in range(3)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    _check_log(cairn_dir, 45)


def test_threads_sharing_one_store_and_a_second_store(cairn_dir: Path) -> None:
    errors: list[BaseException] = []
    with Store.open(cairn_dir) as shared, Store.open(cairn_dir) as other:

        def write(store: Store, tag: str) -> None:
            try:
                for i in range(10):
                    store.append(EventDraft(type="add", entity=f"t.{tag}", reasoning=str(i)))
                    store.status_many([f"t.{tag}", "t.a"])
            except BaseException as exc:  # surfaced below
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(shared, f"s{i}")) for i in range(3)]
        threads.append(threading.Thread(target=write, args=(other, "o")))
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert errors == []
        assert shared.status("t.o").event_count == 10
        assert other.status("t.s0").event_count == 10
    _check_log(cairn_dir, 40)
