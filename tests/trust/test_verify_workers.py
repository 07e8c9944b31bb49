"""Verify reads a large log in ranges, across worker processes: whatever the log holds,
the report is the one a single process gives, with or without a way to fork."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

import cairn.store.verify_ranges as ranges
from cairn.store import EventDraft, Store, init_store, line_id
from cairn.store.canonical import canonical_json
from cairn.store.redact import redacted_line
from cairn.store.verify import VerifyReport, reconcile_index, verify


def _log(root: Path, events: int = 240) -> tuple[Path, list[str]]:
    cairn_dir = init_store(root)
    drafts = []
    for i in range(events):
        kind = "reject" if i % 7 == 0 else "modify" if i % 3 else "add"
        drafts.append(
            EventDraft(
                type=kind,
                entity=f"users.c{i % 13}",
                reasoning=f"decision {i} — naïve ✓",
                alternative="drop it" if kind == "reject" else "",
                metadata={"n": i, "tag": f"t{i % 5}"} if i % 4 == 0 else {},
            )
        )
    with Store.open(cairn_dir) as store:
        store.append_many(drafts)
    lines = (cairn_dir / "decisions.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
    return cairn_dir, lines


def _write(cairn_dir: Path, lines: list[str], tail: str = "") -> None:
    text = "".join(line + "\n" for line in lines) + tail
    (cairn_dir / "decisions.jsonl").write_text(text, encoding="utf-8")


def _hand_made(line: str, **changes: Any) -> str:
    """The line changed and given the id its new fields hash to (a valid event)."""
    raw = {**json.loads(line), **changes}
    raw["id"] = line_id(raw)
    return json.dumps(raw, indent=1).replace("\n", "")  # not the writer's spacing


def _same(reports: list[VerifyReport]) -> None:
    first = reports[0]
    for other in reports[1:]:
        assert other.to_dict() == first.to_dict()
        assert [str(f) for f in other.findings] == [str(f) for f in first.findings]
        assert other.ids == first.ids
        assert other.keys == first.keys
        assert other.redacted == first.redacted
        assert other.proven_to == first.proven_to


@pytest.fixture
def parent_scans(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, bool]]:
    """The ranges this process read itself (a worker's reads happen in the worker):
    (start, careful)."""
    seen: list[tuple[int, bool]] = []
    real = ranges._scan_range

    def spy(
        data: bytes, start: int, end: int, earlier: frozenset[str], careful: bool = False
    ) -> Any:
        seen.append((start, careful))
        return real(data, start, end, earlier, careful)

    monkeypatch.setattr(ranges, "_scan_range", spy)
    return seen


def test_a_damaged_log_gives_one_report_however_many_processes_read_it(
    tmp_path: Path, parent_scans: list[tuple[int, bool]]
) -> None:
    cairn_dir, lines = _log(tmp_path)
    lines[5] = lines[5].replace("decision 5", "decision five")  # edited: id-mismatch
    lines[30] = "not json at all"
    lines[31] = ""
    lines[60] = json.dumps({"id": "x", "entity": "users.a"})  # not an event
    lines[90] = _hand_made(lines[90], metadata={"ratio": 0.5})  # a float: the full path
    del lines[130]  # its child names a parent that is gone
    lines[200] = _hand_made(lines[200], agent="someone", parents=["f" * 64])
    lines.insert(150, "   ")
    _write(cairn_dir, lines, tail='{"id": "cut sho')
    reports = [verify(cairn_dir, full=True, workers=n) for n in (1, 2, 3, 5)]
    assert [(f.code, f.line) for f in reports[0].findings] == [
        ("id-mismatch", 6),
        ("malformed", 31),
        ("missing-parent", 33),  # the children of lines that are no longer events
        ("malformed", 61),
        ("missing-parent", 62),
        ("missing-parent", 92),  # a hand-made line took a new id
        ("missing-parent", 131),  # the deleted line
        ("missing-parent", 202),  # the hand-made line names a parent nobody wrote
        ("missing-parent", 203),
        ("partial-tail", 241),
    ]
    _same(reports)
    # No range was read again carefully: the ranges agreed.
    assert parent_scans[0] == (0, False) and not any(careful for _, careful in parent_scans)


def test_copies_and_redactions_across_ranges_are_read_again_in_one(
    tmp_path: Path, parent_scans: list[tuple[int, bool]]
) -> None:
    cairn_dir, lines = _log(tmp_path)
    full_copy = lines[40]
    lines[40] = canonical_json(redacted_line(json.loads(lines[40])))
    lines.append(full_copy)  # a merge brought the full line back, far from the redaction
    lines.append(lines[3])  # a duplicate (union merge), in another range
    _write(cairn_dir, lines)
    reports = [verify(cairn_dir, full=True, workers=n) for n in (1, 2, 4)]
    assert [f.code for f in reports[0].problems] == ["unredacted-copy"]
    assert reports[0].events == 240
    _same(reports)
    # Each run then read the whole log again here, carefully (the copies are seen).
    assert [scan for scan in parent_scans if scan[1]] == [(0, True)] * 3


def test_without_fork_or_with_a_failed_worker_the_ranges_are_read_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parent_scans: list[tuple[int, bool]]
) -> None:
    cairn_dir, lines = _log(tmp_path)
    lines[7] = lines[7].replace("decision 7", "decision seven")
    _write(cairn_dir, lines)
    expected = verify(cairn_dir, full=True, workers=1)
    monkeypatch.setattr(ranges, "_fork", lambda: None)  # no multiprocessing here
    without_fork = verify(cairn_dir, full=True, workers=3)
    assert len(parent_scans) == 1 + 1  # nothing to share out: one range, read here
    monkeypatch.undo()
    monkeypatch.setattr(ranges, "_work", _failing_worker)
    failed = verify(cairn_dir, full=True, workers=2)
    _same([expected, without_fork, failed])
    assert [f.code for f in expected.problems] == ["id-mismatch"]


def test_a_hash_that_fails_beside_workers_raises_and_leaves_no_worker_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import multiprocessing

    cairn_dir, _ = _log(tmp_path)
    started: list[int] = []
    start_workers = ranges._start_workers

    def counted(*args: Any) -> list[Any]:
        jobs = start_workers(*args)
        started.append(len(jobs))
        return jobs

    def unreadable(self: Any, hasher: Any, lo: int, hi: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(ranges, "_start_workers", counted)
    monkeypatch.setattr(ranges.LogBytes, "feed", unreadable)
    with pytest.raises(OSError, match="Input/output error"):
        verify(cairn_dir, full=True, workers=2)
    assert started == [1]  # the hash ran here, beside a worker
    assert multiprocessing.active_children() == []  # killed and joined, not left running


def _failing_worker(conn: Any, *args: Any) -> None:
    conn.send(None)  # what a worker sends when reading its range raised
    conn.close()


def _dropping_worker(
    conn: Any, log: Any, bounds: list[int], claims: Any, earlier: frozenset[str]
) -> None:
    """A worker that claims every range it can and sends back only every other one."""
    done = [
        (n, ranges._pack(ranges._read_range(log, bounds[n], bounds[n + 1], earlier)))
        for n in claims
    ]
    conn.send(done[::2])
    conn.close()


def test_ranges_are_shared_out_and_a_range_a_worker_lost_is_read_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cairn_dir, lines = _log(tmp_path)
    lines[100] = lines[100].replace("decision 100", "decision hundred")
    _write(cairn_dir, lines)
    expected = verify(cairn_dir, full=True, workers=1)
    monkeypatch.setattr(ranges, "RANGE_BYTES", 1024)  # ~60 ranges for this log
    shared = [verify(cairn_dir, full=True, workers=n) for n in (2, 3)]
    monkeypatch.setattr(ranges, "_work", _dropping_worker)
    dropped = verify(cairn_dir, full=True, workers=2)
    _same([expected, *shared, dropped])
    assert [(f.code, f.line) for f in expected.problems] == [("id-mismatch", 101)]


def test_each_range_is_claimed_once_across_processes() -> None:
    import multiprocessing

    claims = ranges._Claims(700)
    reader, writer = multiprocessing.get_context("fork").Pipe(duplex=False)

    def take() -> None:
        writer.send(list(claims))

    child = multiprocessing.get_context("fork").Process(target=take)
    child.start()
    here = list(claims)
    there = reader.recv()
    child.join()
    claims.close()
    assert sorted(here + there) == list(range(700))
    assert here == sorted(here) and there == sorted(there)  # taken in order


def test_the_incremental_verify_agrees_too(tmp_path: Path) -> None:
    cairn_dir, _ = _log(tmp_path)
    reconcile_index(cairn_dir, verify(cairn_dir, full=True))  # records the proven prefix
    with Store.open(cairn_dir) as store:
        for i in range(60):
            store.append(EventDraft(type="add", entity=f"orders.c{i}", reasoning="later"))
    reports = [verify(cairn_dir, workers=n) for n in (1, 2)]
    assert reports[0].ok and reports[0].events == 300
    assert reports[0].proven_from is not None  # only the appended lines were read
    _same(reports)


def test_workers_are_started_only_for_a_large_log(tmp_path: Path) -> None:
    assert ranges._workers(1_000_000) == 1
    assert ranges._workers(ranges.PARALLEL_BYTES * 4) >= 1
    data = b"".join(b'{"n":%d}\n' % i for i in range(100_000)) + b'{"cut'
    (tmp_path / "log").write_bytes(data)
    with (tmp_path / "log").open("rb") as handle:
        log = ranges.LogBytes(handle.fileno())
        end = log.last_newline() + 1
        assert end == data.rfind(b"\n") + 1 and log.read(end, log.size) == b'{"cut'
        bounds = ranges._split(log, 0, end, 4)
        assert bounds[0] == 0 and bounds[-1] == end and len(bounds) == 5
        assert all(data[b - 1 : b] == b"\n" for b in bounds[1:])  # whole lines
        assert log.count_newlines(0, end) == 100_000
        log.PIECE = 4096  # several pieces
        assert b"".join(log.pieces(3, log.size)) == data[3:]
        assert log.count_newlines(0, end) == 100_000
    assert ranges.LogBytes(None).read(0, 10) == b"" and ranges.LogBytes(None).last_newline() == -1
    long_line = b"x" * 100_000 + b"\n"  # longer than the first windows looked through
    (tmp_path / "long").write_bytes(b"a\n" + long_line * 3)
    with (tmp_path / "long").open("rb") as handle:
        log = ranges.LogBytes(handle.fileno())
        assert log.newline_after(5, log.size) == 2 + len(long_line) - 1
        assert log.newline_after(log.size - 1, log.size) == log.size - 1
        assert log.newline_after(3, 50_000) == -1
        assert ranges._split(log, 0, log.size, 3) == [
            0,
            2 + len(long_line),
            2 + 2 * len(long_line),
            log.size,
        ]


def test_the_hash_covers_exactly_the_range_at_any_piece_size(tmp_path: Path) -> None:
    data = b"".join(b'{"n":%d}\n' % i for i in range(20_000))
    (tmp_path / "log").write_bytes(data)
    with (tmp_path / "log").open("rb") as handle:
        log = ranges.LogBytes(handle.fileno())
        for piece in (1, 7, 4096, len(data) - 5, 1 << 20):
            log.HASH_PIECE = piece
            for lo, hi in ((0, len(data)), (3, len(data) - 2), (10, 10), (0, len(data) + 99)):
                hasher = hashlib.sha256()
                log.feed(hasher, lo, hi)
                assert hasher.hexdigest() == hashlib.sha256(data[lo:hi]).hexdigest(), (
                    piece,
                    lo,
                    hi,
                )


def test_the_record_s_keys_are_read_back_and_a_cut_record_is_no_record(tmp_path: Path) -> None:
    from cairn.store.index import write_meta
    from cairn.store.verify import RECORD_KEYS, _read_record

    cairn_dir, _ = _log(tmp_path)
    report = verify(cairn_dir, full=True)
    reconcile_index(cairn_dir, report)
    record = _read_record(cairn_dir)
    assert record is not None and record.keys == report.keys and len(record.keys) == 240
    assert verify(cairn_dir).proven_from == report.proven_to  # the prefix is used
    write_meta(cairn_dir, {RECORD_KEYS: record.blob[:-3]})  # not whole 64-bit keys
    assert _read_record(cairn_dir) is None
    again = verify(cairn_dir)
    assert again.ok and again.proven_from is None and again.events == 240


def test_an_error_here_ends_the_workers_instead_of_waiting_for_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cairn_dir, _ = _log(tmp_path)
    started: list[Any] = []
    real_start = ranges._start_workers

    def start(*args: Any) -> Any:
        jobs = real_start(*args)
        started.extend(process for process, _ in jobs)
        return jobs

    here = os.getpid()
    real_read = ranges._read_range

    def fail_here(*args: Any) -> Any:
        if os.getpid() == here:
            raise MemoryError  # reading a range here failed
        return real_read(*args)

    monkeypatch.setattr(ranges, "_start_workers", start)
    monkeypatch.setattr(ranges, "_read_range", fail_here)
    # The workers' chunks outgrow the pipe: each blocks in its send, never read.
    monkeypatch.setattr(ranges, "_pack", lambda chunk: [b"x" * (1 << 20)])
    monkeypatch.setattr(ranges, "RANGE_BYTES", 1024)
    with pytest.raises(MemoryError):
        verify(cairn_dir, full=True, workers=2)
    assert started and not any(process.is_alive() for process in started)
