"""Event text is read back from the log by byte span: right after appends and rewrites."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import orjson
import pytest

import cairn.store.index_lines as index_module
from cairn.store import EventDraft, Store


def _reasons(store: Store, entity: str) -> list[str]:
    return [e.reasoning for e in store.history(entity)]


def test_reads_follow_appends_from_this_and_another_store(cairn_dir: Path) -> None:
    with Store.open(cairn_dir) as store, Store.open(cairn_dir) as other:
        store.append(EventDraft(type="add", entity="t.a", reasoning="one"))
        assert _reasons(store, "t.a") == ["one"]
        other.append(EventDraft(type="modify", entity="t.a", reasoning="two ünïcode"))
        store.append(EventDraft(type="modify", entity="t.b", reasoning="three"))
        assert _reasons(store, "t.a") == ["one", "two ünïcode"]
        assert _reasons(store, "t.b") == ["three"]
        ids = [e.id for e in store.history("t.a")]
        assert [store.get(i[:8]).reasoning for i in ids] == ["one", "two ünïcode"]


def test_reads_follow_a_rewrite_in_place_and_a_replaced_file(cairn_dir: Path) -> None:
    log = cairn_dir / "decisions.jsonl"
    with Store.open(cairn_dir) as store:
        for word in ("alpha", "beta", "gamma"):
            store.append(EventDraft(type="modify", entity="t.a", reasoning=word))
        store.append(EventDraft(type="revert", entity="t.a", reasoning="undo gamma"))
        assert store.status("t.a").open_verdicts[0].reasoning == "undo gamma"
        lines = log.read_bytes().splitlines(keepends=True)
        # Same inode, different byte offsets: a union merge could reorder lines like this.
        with open(log, "r+b") as fh:
            fh.write(b"".join(reversed(lines)))
        assert _reasons(store, "t.a") == ["alpha", "beta", "gamma", "undo gamma"]
        assert store.status("t.a").open_verdicts[0].reasoning == "undo gamma"
        # A new file (new inode) with one line dropped: the handle must not read the old one.
        # The line after the dropped one names a parent no line holds: it is damage now
        # (verify reports it), and no answer uses it.
        tmp = cairn_dir / "rewritten.jsonl"
        tmp.write_bytes(b"".join(lines[1:]))
        os.replace(tmp, log)
        assert _reasons(store, "t.a") == ["gamma", "undo gamma"]
        assert store.damage.counts == {"missing-parent": 1}
        store.append(EventDraft(type="supersede", entity="t.a", reasoning="gamma is fine now"))
        assert _reasons(store, "t.a")[-1] == "gamma is fine now"
        assert store.status("t.a").open_verdicts == []


def test_the_log_is_not_memory_mapped(cairn_dir: Path) -> None:
    """A mapped 500 MB log put its pages into the language server's RSS."""
    with Store.open(cairn_dir) as store:
        for i in range(50):
            store.append(EventDraft(type="modify", entity=f"t.c{i % 5}", reasoning=f"step {i}"))
        assert len(store.history("t.c1")) == 10
        assert store.status_many([f"t.c{i}" for i in range(5)])["t.c0"].event_count == 10
        maps = Path("/proc/self/maps").read_text()
        assert str(cairn_dir / "decisions.jsonl") not in maps


def _lines_and_spans(store: Store) -> tuple[list[bytes], list[tuple[int, int]]]:
    for i in range(40):
        store.append(EventDraft(type="modify", entity=f"t.c{i % 7}", reasoning=f"step {i} é"))
    rows = sorted(store.index.rows_by_seq(list(range(1, 41))).values())
    spans = [(r.off, r.len) for r in reversed(rows)]  # not in log order
    data = (store.cairn_dir / "decisions.jsonl").read_bytes()
    return [data[off : off + length] for off, length in spans], spans


def test_a_batch_of_lines_reads_the_same_bytes_whether_cached_or_not(
    cairn_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Lines in the page cache are taken without blocking; the others (here: every
    # second one, as if paged out) are advised and read; both give the line's bytes.
    with Store.open(cairn_dir) as store:
        want, spans = _lines_and_spans(store)
        assert [bytes(x) for x in store.index.lines_at(spans)] == want
        real = os.preadv
        calls = []

        def cold_half(fd: int, buffers: Any, offset: int, flags: int = 0) -> int:
            calls.append(flags)
            if flags and len(calls) % 2:
                raise BlockingIOError("not in the page cache")
            return real(fd, buffers, offset, flags)

        advised: list[tuple[int, int]] = []
        monkeypatch.setattr(os, "preadv", cold_half)
        monkeypatch.setattr(index_module, "_advise", lambda fd, o, n, how: advised.append((o, n)))
        assert [bytes(x) for x in store.index.lines_at(spans)] == want
        if index_module._nowait:
            assert sorted(advised) == sorted(spans[::2])  # only the lines it lacked
        assert [e.reasoning for e in store.index.events_at(spans)] == [
            orjson.loads(line)["reasoning"] for line in want
        ]


def test_a_file_system_that_refuses_nonblocking_reads_is_read_as_before(
    cairn_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store.open(cairn_dir) as store:
        want, spans = _lines_and_spans(store)

        def refuse(fd: int, buffers: Any, offset: int, flags: int = 0) -> int:
            raise OSError(errno.EOPNOTSUPP, "not supported")

        monkeypatch.setattr(index_module, "_nowait", 8)
        monkeypatch.setattr(os, "preadv", refuse)
        assert [bytes(x) for x in store.index.lines_at(spans)] == want
        assert index_module._nowait == 0  # asked once, then not again
        assert [bytes(x) for x in store.index.lines_at(spans)] == want


def test_lines_paged_out_for_real_are_read_back(cairn_dir: Path) -> None:
    with Store.open(cairn_dir) as store:
        want, spans = _lines_and_spans(store)
        fd = os.open(cairn_dir / "decisions.jsonl", os.O_RDONLY)
        try:
            os.fsync(fd)
            if hasattr(os, "posix_fadvise"):
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
        assert [bytes(x) for x in store.index.lines_at(spans)] == want


def test_a_span_past_the_end_of_the_log_is_an_error_not_a_short_line(cairn_dir: Path) -> None:
    with Store.open(cairn_dir) as store:
        _, spans = _lines_and_spans(store)
        size = (cairn_dir / "decisions.jsonl").stat().st_size
        with pytest.raises(ValueError, match="shorter than the index"):
            store.index.lines_at([*spans[:3], (size - 10, 50)])
