"""A big batch is indexed by a worker process while the rest of it is prepared
(`cairn.store.index_worker`): the log, the index and every answer must be the ones the
in-process path gives, and any trouble with the worker must leave them so too."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

import cairn.store.store as store_module
from cairn.store import EventDraft, Store, ValidationError, init_store
from cairn.store.index import Index
from cairn.store.index_worker import IndexWorker
from cairn.store.write import Preparer

_TABLES = ("ev", "ent", "chain", "merge", "review", "srckey", "ikey", "est", "damage", "mark")


@pytest.fixture(autouse=True)
def _small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    # A "big" batch of 16 drafts, handed over 2, 4, 5, 5... at a time: many chunks.
    monkeypatch.setenv("CAIRN_AUTHOR", "Ada Lovelace <ada@example.org>")
    monkeypatch.setattr(store_module, "MIN_BATCH", 16)
    monkeypatch.setattr(store_module, "FIRST_CHUNK", 2)
    monkeypatch.setattr(store_module, "CHUNK", 5)
    monkeypatch.setattr(store_module, "spare_cores", lambda: 1)  # a quiet machine


def _in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "MIN_BATCH", 1 << 40)


def _drafts(first: int, n: int) -> list[EventDraft]:
    kinds = ["add", "modify", "reject", "revert", "remove", "add", "annotate"]
    out = []
    for i in range(first, first + n):
        kind = kinds[i % len(kinds)]
        meta: dict[str, Any] = {"source_key": f"git:{i}"} if i % 8 == 0 else {}
        if kind == "revert" and i % 2:
            meta["fingerprint"] = f"ab{i} cd{i}"
        out.append(
            EventDraft(
                type=kind,
                entity=f"t{i % 5}.c{i % 3}" if i % 4 else f"deps/stripe{i % 2}",
                reasoning=f"plan {i} rollback the email cards" if i % 2 else f"step {i}",
                alternative="raw cards" if kind == "reject" else "",
                diff=f"-a{i}\n+b{i}" if i % 3 else "",
                recorded_at=f"2026-0{1 + i % 9}-1{i % 10}T10:00:00Z",
                occurred_at="2020-01-02" if i % 5 == 0 else "",
                revisit_after="2027-01-01" if i % 6 == 0 else "",
                expires_when="manual:stripe v3 ships" if i % 7 == 0 else "",
                metadata=meta,
                key=f"k-{i}" if i % 9 == 0 else "",
            )
        )
    return out


def _targets(events: list[Any], first: int) -> list[EventDraft]:
    """Supersedes and reverts naming logged events by id prefix (looked up through the
    index the worker wrote), and retries of keyed drafts (found through it too)."""
    out = []
    seen: set[str] = set()
    for e in events:
        if e.entity in seen:
            continue
        if e.type.value == "reject":
            seen.add(e.entity)
            out.append(
                EventDraft(
                    type="supersede", entity=e.entity, supersedes=e.id[:10],
                    reasoning=f"reopened {e.id[:6]}", recorded_at="2026-10-01T00:00:00Z",
                )
            )  # fmt: skip
        elif e.type.value == "modify":
            seen.add(e.entity)
            out.append(
                EventDraft(
                    type="revert", entity=e.entity, reverts=e.id[:12],
                    reasoning="broke the build", recorded_at="2026-10-02T00:00:00Z",
                )
            )  # fmt: skip
    return out + _drafts(first, 20) + _drafts(0, 10)  # keys k-0, k-9 again: retries


def _state(cairn_dir: Path) -> dict[str, Any]:
    """Everything a reader can see: the log's bytes, the index's rows, answers."""
    out: dict[str, Any] = {"log": (cairn_dir / "decisions.jsonl").read_bytes()}
    with Store.open(cairn_dir) as store:
        db = store.index.db
        for table in _TABLES:
            out[table] = db.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
        meta = dict(db.execute("SELECT k, v FROM meta").fetchall())
        out["meta"] = {k: v for k, v in meta.items() if k != "stat"}  # mtime, inode
        out["heads"] = store.heads()
        out["len"] = len(store)
        for path in store.entities():
            out[f"status {path}"] = store.status(path)
            out[f"history {path}"] = store.history(path)
            out[f"attempts {path}"] = store.prior_attempts(path)
        for word in ("plan", "rollback", "cards", "stripe"):
            out[f"search {word}"] = [h.event.id for h in store.search(word)]
        out["due"] = store.due_reviews()
        out["keys"] = store.source_keys("git:")
    return out


def _load(root: Path, trouble: Any = None) -> tuple[dict[str, Any], list[Any], str]:
    """Two big batches (the second naming the first's events), a small write between;
    what a reader sees after them, the events, and why the worker did not index the
    second batch ("" when it did, or when there is no worker)."""
    cairn_dir = init_store(root)
    with Store.open(cairn_dir) as store:
        first = store.append_many(_drafts(0, 40))
        store.append(
            EventDraft(
                type="add", entity="t9.one", reasoning="one", recorded_at="2026-09-09T09:09:09Z"
            )
        )
        if trouble is not None:
            trouble(store)
        second = store.append_many(_targets(first, 40))
        failure = store._worker.failure if store._worker is not None else ""
        # Read your writes: every read sees both batches as soon as they return.
        assert len(store) == len({e.id for e in first + second}) + 1
    return _state(cairn_dir), first + second, failure


def test_a_big_batch_writes_the_log_index_and_answers_the_in_process_path_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest = Index.ingest_written

    def small_only(self: Index, events: list[Any], *args: Any) -> bool:
        assert len(events) < 16, "the parent indexed a big batch itself"
        return ingest(self, events, *args)

    monkeypatch.setattr(Index, "ingest_written", small_only)
    used: list[tuple[int | None, str]] = []
    with_worker, events, failure = _load(
        tmp_path / "worker", lambda s: used.append((s._worker.pid, s._worker.failure))
    )
    monkeypatch.setattr(Index, "ingest_written", ingest)
    _in_process(monkeypatch)
    alone, events_alone, _ = _load(tmp_path / "alone")
    assert used and used[0][0] is not None and used[0][1] == "" and failure == ""
    assert events == events_alone
    assert with_worker == alone
    assert with_worker["review"] and with_worker["srckey"] and with_worker["ikey"]
    assert with_worker["mark"] and with_worker["est"]


def _kill_worker(worker: IndexWorker | None) -> None:
    assert worker is not None and worker.pid is not None
    os.kill(worker.pid, signal.SIGKILL)
    assert worker._proc is not None
    worker._proc.wait(timeout=30)


def test_a_worker_killed_mid_batch_leaves_the_in_process_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepare = Preparer.prepare
    calls = [0]
    stores: list[Store] = []

    def prepare_then_kill(self: Preparer, *args: Any) -> Any:
        calls[0] += 1
        if calls[0] == 40 + 12:  # the second batch, after two chunks went over
            _kill_worker(stores[0]._worker)
        return prepare(self, *args)

    monkeypatch.setattr(Preparer, "prepare", prepare_then_kill)
    killed, _, failure = _load(tmp_path / "killed", stores.append)
    monkeypatch.setattr(Preparer, "prepare", prepare)
    _in_process(monkeypatch)
    alone, _, _ = _load(tmp_path / "alone")
    assert calls[0] > 52 and "stopped" in failure
    assert killed == alone


def test_a_worker_killed_before_it_commits_leaves_the_in_process_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    finish = IndexWorker.finish

    def kill_then_finish(self: IndexWorker, end: int) -> tuple[bool, str]:
        _kill_worker(self)  # the lines are durable; the index is not
        return finish(self, end)

    monkeypatch.setattr(IndexWorker, "finish", kill_then_finish)
    killed, _, _ = _load(tmp_path / "killed")
    monkeypatch.setattr(IndexWorker, "finish", finish)
    _in_process(monkeypatch)
    alone, _, _ = _load(tmp_path / "alone")
    assert killed == alone


def test_a_commit_whose_answer_is_lost_is_not_indexed_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    finish = IndexWorker.finish

    def lost_answer(self: IndexWorker, end: int) -> tuple[bool, str]:
        assert finish(self, end) == (True, "")  # committed, but the parent never heard
        return False, "no answer"

    monkeypatch.setattr(IndexWorker, "finish", lost_answer)
    lost, _, _ = _load(tmp_path / "lost")
    monkeypatch.setattr(IndexWorker, "finish", finish)
    _in_process(monkeypatch)
    alone, _, _ = _load(tmp_path / "alone")
    assert lost == alone


def test_a_refused_draft_in_a_big_batch_writes_nothing(tmp_path: Path) -> None:
    cairn_dir = init_store(tmp_path / "repo")
    with Store.open(cairn_dir) as store:
        store.append_many(_drafts(0, 40))
        before = _state(cairn_dir)
        pid = store._worker.pid if store._worker else None
        drafts = _drafts(100, 40)
        # After several chunks went to the worker: a credential in an entity path.
        drafts[33] = EventDraft(
            type="add", entity="env/ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", reasoning="x"
        )
        with pytest.raises(ValidationError) as refused:
            store.append_many(drafts)
        assert "holds a secret" in str(refused.value)
        assert _state(cairn_dir) == before
        assert len(store) == len(before["ev"])
        # The same worker takes the next big batch.
        store.append_many(_drafts(100, 33))
        assert pid is not None and store._worker is not None and store._worker.pid == pid
    after = _state(cairn_dir)
    assert len(after["ev"]) == len(before["ev"]) + 33


def test_a_worker_that_cannot_start_leaves_the_batch_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = sys.executable
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    without, _, failure = _load(tmp_path / "without")
    monkeypatch.setattr(sys, "executable", python)
    _in_process(monkeypatch)
    alone, _, _ = _load(tmp_path / "alone")
    assert without == alone
    assert "did not start" in failure


def test_closing_the_store_stops_the_worker(tmp_path: Path) -> None:
    cairn_dir = init_store(tmp_path / "repo")
    store = Store.open(cairn_dir)
    store.append_many(_drafts(0, 20))
    assert store._worker is not None and store.index_worker_batches == 1
    pid = store._worker.pid
    assert pid is not None
    os.kill(pid, 0)  # running between batches, ready for the next
    store.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_small_writes_never_start_a_worker(store: Store) -> None:
    store.append_many(_drafts(0, 15))
    store.append(EventDraft(type="add", entity="t.one", reasoning="one"))
    assert store._worker is None


def test_a_worker_that_exits_at_once_is_not_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Python that cannot run the worker (here: a program that exits at once) costs
    # one try per store, not one per batch; every batch is still indexed.
    import subprocess

    starts: list[object] = []
    popen = subprocess.Popen

    def counted(*args: Any, **kwargs: Any) -> Any:
        starts.append(args[0])
        return popen(*args, **kwargs)

    python = sys.executable
    monkeypatch.setattr(sys, "executable", "/bin/true")
    monkeypatch.setattr(subprocess, "Popen", counted)
    quits, _, failure = _load(tmp_path / "quits")
    monkeypatch.setattr(sys, "executable", python)
    monkeypatch.setattr(subprocess, "Popen", popen)
    _in_process(monkeypatch)
    alone, _, _ = _load(tmp_path / "alone")
    assert quits == alone
    assert len(starts) == 1 and "stopped" in failure


def test_a_forked_child_leaves_its_parents_worker_alone(tmp_path: Path) -> None:
    # A copy of the store in a forked child (multiprocessing's fork) must neither talk
    # to the parent's worker nor stop it: the child indexes in process, and the parent
    # goes on with the same worker.
    cairn_dir = init_store(tmp_path / "repo")
    with Store.open(cairn_dir) as store:
        store.append_many(_drafts(0, 20))
        assert store._worker is not None
        pid = store._worker.pid
        child = os.fork()
        if child == 0:  # pragma: no cover (the child reports through its exit code)
            code = 1
            try:
                events = store.append_many(_drafts(20, 20))
                store.close()
                code = 0 if len(events) == 20 else 2
            finally:
                os._exit(code)
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        events = store.append_many(_drafts(40, 20))
        assert len(events) == 20
        assert store._worker.pid == pid and store._worker.failure == ""
    state = _state(cairn_dir)
    with Store.open(cairn_dir) as fresh:
        assert len(fresh) == 60
    Store.rebuild(cairn_dir)
    assert _state(cairn_dir) == state


def test_a_busy_machine_indexes_a_big_batch_in_process(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "spare_cores", lambda: 0)  # every core taken
    assert len(store.append_many(_drafts(0, 20))) == 20
    assert store._worker is None and len(store) == 20


def test_spare_cores_counts_the_cores_beside_this_process() -> None:
    from cairn.store.index_worker import spare_cores

    # This process is running while it asks: at most every other core is spare.
    assert spare_cores() <= (os.cpu_count() or 1) - (1 if Path("/proc/loadavg").exists() else 0)
