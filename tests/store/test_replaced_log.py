"""A log replaced by a file that starts with the ingested bytes (git's checkout, pull and
merge write a new file) is caught up from where the index stopped, not rebuilt; any
other replaced file is rebuilt."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from usability.helpers import git

from cairn.store import EventDraft, Status, Store, init_store
from cairn.store import prefix as prefix_module
from cairn.store.index import Index

ENTITIES = [f"t.c{i}" for i in range(5)]


@pytest.fixture
def resets(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts `Index.reset` calls (a reset is what a rebuild starts with)."""
    calls: list[int] = []
    real = Index.reset

    def counting(self: Index) -> None:
        calls.append(1)
        real(self)

    monkeypatch.setattr(Index, "reset", counting)
    return calls


@pytest.fixture(params=[64, prefix_module.BLOCK], ids=["64-byte blocks", "1 MiB blocks"])
def block(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """Small blocks put many block boundaries inside a short log."""
    monkeypatch.setattr(prefix_module, "BLOCK", request.param)
    yield request.param


def draft(entity: str, type_: str = "add", reasoning: str = "why") -> EventDraft:
    return EventDraft(type=type_, entity=entity, reasoning=reasoning)


def fill(store: Store, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        kind = "revert" if i % 3 == 2 else "add"
        store.append(draft(ENTITIES[i % len(ENTITIES)], kind, f"step {i}"))


def replace(log: Path, data: bytes) -> None:
    """Write a new file and rename it over the log, as git does."""
    tmp = log.with_name("decisions.jsonl.new")
    tmp.write_bytes(data)
    os.replace(tmp, log)


def answers(store: Store) -> tuple[object, ...]:
    statuses = {e: (store.status(e).status, store.status(e).event_count) for e in ENTITIES}
    return len(store), store.heads(), statuses


def rebuilt_answers(cairn_dir: Path, tmp_path: Path) -> tuple[object, ...]:
    copy = tmp_path / "rebuilt"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(cairn_dir, copy)
    for name in os.listdir(copy):
        if name.startswith("index.db"):
            os.unlink(copy / name)
    with Store.open(copy) as store:
        return answers(store)


def test_a_replaced_log_with_the_same_bytes_and_more_is_caught_up_not_rebuilt(
    cairn_dir: Path, tmp_path: Path, block: int, resets: list[int]
) -> None:
    with Store.open(cairn_dir) as store:
        fill(store, 12)
        log = store.log.path
        with Store.open(cairn_dir) as other:  # a second writer, as after a `git pull`
            fill(other, 4, start=12)
        grown = log.read_bytes()
        replace(log, grown[: len(grown) // 2].rsplit(b"\n", 1)[0] + b"\n")
        assert store.refresh() is True
        assert resets == [1]  # a shorter file: rebuilt
        replace(log, grown)
        assert store.refresh() is True
        assert resets == [1]  # the same bytes and more: caught up
        assert answers(store) == rebuilt_answers(cairn_dir, tmp_path)
        replace(log, grown)  # identical content, a new file (a checkout back and forth)
        assert store.refresh() is True
        assert resets == [1]
        assert answers(store) == rebuilt_answers(cairn_dir, tmp_path)


@pytest.mark.parametrize("where", [0.0, 0.3, 0.7, 0.99])
def test_a_replaced_log_that_differs_anywhere_in_the_ingested_bytes_is_rebuilt(
    cairn_dir: Path, tmp_path: Path, block: int, resets: list[int], where: float
) -> None:
    with Store.open(cairn_dir) as store:
        fill(store, 12)
        log = store.log.path
        lines = log.read_bytes().splitlines(keepends=True)
        # The same size, one byte different (the line no longer matches its id), then the
        # last line again: the file grew, and only the digests tell it from an append.
        at = min(int(len(lines) * where), len(lines) - 2)
        changed = [*lines]
        changed[at] = lines[at].replace(b"step", b"stop", 1)
        assert changed[at] != lines[at]
        replace(log, b"".join(changed) + lines[-1])
        assert store.refresh() is True
        assert resets == [1]
        assert len(store) == len(lines) - 1  # the changed line is damage, not an event
        assert answers(store) == rebuilt_answers(cairn_dir, tmp_path)


def test_an_index_without_digests_rebuilds_a_replaced_log(
    cairn_dir: Path, resets: list[int]
) -> None:
    with Store.open(cairn_dir) as store:
        fill(store, 6)
        store.index.db.execute("DELETE FROM meta WHERE k IN ('blocks', 'rest')")
    log = cairn_dir / "decisions.jsonl"
    replace(log, log.read_bytes())
    with Store.open(cairn_dir) as store:
        assert store.status(ENTITIES[0]).event_count == 2
        assert resets == [1]
        # It records the digests as it catches up: the next replacement is not rebuilt.
        replace(log, log.read_bytes())
        assert store.refresh() is True
        assert resets == [1]


def test_switching_git_branches_rebuilds_only_when_the_log_lost_lines(
    tmp_path: Path, block: int, resets: list[int]
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    cairn_dir = init_store(repo)
    with Store.open(cairn_dir) as store:
        fill(store, 6)
        git(repo, "add", ".cairn")
        git(repo, "commit", "-qm", "base")
        git(repo, "checkout", "-qb", "feature")
        store.append(draft("t.c4", "revert", "broke the build"))
        git(repo, "commit", "-qam", "feature decision")

        git(repo, "checkout", "-q", "main")  # the log lost its last line
        assert store.refresh() is True
        assert resets == [1]
        assert store.status("t.c4").status is Status.ACTIVE

        git(repo, "checkout", "-q", "feature")  # the same lines and one more
        assert store.refresh() is True
        assert resets == [1]
        assert store.status("t.c4").status is Status.REVERTED
        assert answers(store) == rebuilt_answers(cairn_dir, tmp_path)


def test_the_digests_of_written_batches_are_the_files(cairn_dir: Path, block: int) -> None:
    # The write path hashes the bytes it has just appended as they are in memory (not
    # read back); a second process, whose running digest starts from the stored blocks,
    # reads the part before its own write. Both must describe the file.
    with Store.open(cairn_dir) as store:
        store.append_many([draft(e, "add", f"batch {i}") for i, e in enumerate(ENTITIES * 3)])
        fill(store, 4)
    with Store.open(cairn_dir) as store:
        store.append_many([draft(e, "revert", "later") for e in ENTITIES])
        meta = store.index.meta()
        consumed = store.index.consumed
    fd = os.open(cairn_dir / "decisions.jsonl", os.O_RDONLY)
    try:
        fresh = dict(prefix_module.PrefixDigest().advance(fd, {}, consumed))
        assert prefix_module.starts_with_ingested(fd, meta, consumed)
    finally:
        os.close(fd)
    assert consumed == (cairn_dir / "decisions.jsonl").stat().st_size
    assert fresh["rest"] == meta["rest"]
    assert json.loads(fresh["blocks"]) == json.loads(meta["blocks"])
