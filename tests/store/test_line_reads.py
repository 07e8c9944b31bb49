"""Event text is read back from the log by byte span: right after appends and rewrites."""

from __future__ import annotations

import os
from pathlib import Path

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
