"""The index follows the JSONL: other writers, crashes, rewrites, duplicates, git merges."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cairn.store import EventDraft, Status, Store, init_store


def draft(entity: str, type_: str = "add", reasoning: str = "why", **kw: str) -> EventDraft:
    return EventDraft(type=type_, entity=entity, reasoning=reasoning, **kw)


def test_a_second_store_sees_the_first_ones_writes(cairn_dir: Path) -> None:
    with Store.open(cairn_dir) as a, Store.open(cairn_dir) as b:
        first = a.append(draft("users.email")).event
        assert b.status("users.email").status is Status.ACTIVE
        second = b.append(draft("users.email", "revert", "broke it")).event
        assert second.parents == (first.id,)
        assert a.status("users.email").status is Status.REVERTED
        assert a.heads() == b.heads() == [second.id]


def test_another_process_appending_is_seen_by_the_next_read(cairn_dir: Path) -> None:
    code = (
        "import sys; from cairn.store import Store, EventDraft\n"
        "s = Store.open(sys.argv[1])\n"
        "s.append(EventDraft(type='reject', entity='deps/left-pad', reasoning='tiny',"
        " alternative='vendor it'))\n"
    )
    with Store.open(cairn_dir) as store:
        store.append(draft("deps/left-pad"))
        env = {**os.environ, "PYTHONSAFEPATH": "1"}
        subprocess.run([sys.executable, "-c", code, str(cairn_dir)], check=True, env=env)
        st = store.status("deps/left-pad")
        assert st.status is Status.REJECTED
        assert st.open_verdicts[0].alternative == "vendor it"


def test_a_partial_last_line_is_quarantined_not_dropped(store: Store) -> None:
    store.append(draft("t.a"))
    with open(store.log.path, "ab") as fh:
        fh.write(b'{"id":"dead","type":"add","ent')  # a crash mid-write
    assert store.status("t.a").event_count == 1  # readers ignore the fragment
    ev = store.append(draft("t.b")).event
    lines = store.log.path.read_text().splitlines()
    assert [json.loads(x)["id"] for x in lines][-1] == ev.id
    assert all(x.startswith("{") and x.endswith("}") for x in lines)
    quarantine = store.cairn_dir / "decisions.jsonl.quarantine"
    assert quarantine.read_text() == '{"id":"dead","type":"add","ent\n'
    assert len(store) == 2


def test_a_rewritten_log_triggers_a_rebuild(store: Store) -> None:
    keep = store.append(draft("t.a")).event
    store.append(draft("t.a", "revert", "no"))
    lines = store.log.path.read_text().splitlines()
    store.log.path.write_text(lines[0] + "\n")  # e.g. `git checkout` of an older log
    assert store.refresh() is True
    st = store.status("t.a")
    assert st.status is Status.ACTIVE and st.event_count == 1
    assert store.heads() == [keep.id]


def test_duplicate_and_reordered_lines_are_harmless(store: Store) -> None:
    store.append(draft("t.a"))
    store.append(draft("t.a", "revert", "no"))
    store.append(draft("t.b"))
    before = {e: store.status(e).status for e in ("t.a", "t.b")}
    lines = store.log.path.read_text().splitlines()
    store.log.path.write_text("\n".join(list(reversed(lines)) + lines) + "\n")
    assert store.refresh() is True
    assert len(store) == 3
    assert {e: store.status(e).status for e in ("t.a", "t.b")} == before


def test_a_deleted_index_is_rebuilt_on_open(cairn_dir: Path) -> None:
    with Store.open(cairn_dir) as store:
        store.append(draft("users.email", "reject", "x", alternative="text column"))
    for name in os.listdir(cairn_dir):
        if name.startswith("index.db"):
            os.unlink(cairn_dir / name)
    with Store.open(cairn_dir) as store:
        assert store.status("users.email").status is Status.REJECTED
        assert [h.event.entity for h in store.search("text column")] == ["users.email"]


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    out = subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env
    )
    return out.stdout


def test_branches_merge_with_union_and_status_sees_the_concurrent_change(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    cairn_dir = init_store(repo)
    with Store.open(cairn_dir) as s:
        add = s.append(draft("users.email_verified", reasoning="flag")).event
    git(repo, "add", ".cairn")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "feature")
    with Store.open(cairn_dir) as s:
        s.append(draft("users.email_verified", "modify", "make it NOT NULL"))
    git(repo, "commit", "-qam", "feature decision")
    git(repo, "checkout", "-q", "main")
    with Store.open(cairn_dir) as s:
        rv = s.append(draft("users.email_verified", "revert", "broke signup")).event
        assert s.status("users.email_verified").status is Status.REVERTED
    git(repo, "commit", "-qam", "main decision")
    git(repo, "merge", "-q", "--no-edit", "feature")  # union: no conflict
    lines = (cairn_dir / "decisions.jsonl").read_text().splitlines()
    assert len(lines) == 3
    with Store.open(cairn_dir) as s:
        assert len(s.heads()) == 2  # two branch tips
        st = s.status("users.email_verified")
        # The feature's modify was written without knowledge of the revert.
        assert st.status is Status.CONFLICT
        assert [v.id for v in st.open_verdicts] == [rv.id]
        merged = s.append(draft("users.email_verified", "supersede", "reconciled")).event
        assert len(merged.parents) == 2
        assert s.heads() == [merged.id]
        assert s.status("users.email_verified").status is Status.REOPENED
        assert add.id in {e.id for e in s.history("users.email_verified")}
    # Same answer from a fresh rebuild of the merged log.
    copy = tmp_path / "copy"
    shutil.copytree(cairn_dir, copy)
    for name in os.listdir(copy):
        if name.startswith("index.db"):
            os.unlink(copy / name)
    with Store.open(copy) as s:
        assert s.status("users.email_verified").status is Status.REOPENED
        assert s.heads() == [merged.id]


def test_a_long_log_in_reverse_order_is_indexed(store: Store) -> None:
    # Every line waits for its parent, which comes later: far deeper than recursion.
    store.append_many(draft(f"t.c{i % 7}", reasoning=f"step {i}") for i in range(3000))
    heads = store.heads()
    lines = store.log.path.read_text().splitlines()
    store.log.path.write_text("\n".join(reversed(lines)) + "\n")
    assert store.refresh() is True
    assert len(store) == 3000
    assert store.heads() == heads
    assert sum(store.status(f"t.c{i}").event_count for i in range(7)) == 3000


def test_batch_statuses_follow_writes_from_anywhere(cairn_dir: Path) -> None:
    with Store.open(cairn_dir) as a, Store.open(cairn_dir) as b:
        a.append(draft("users.email"))
        assert a.status_many(["users.email"])["users.email"].status is Status.ACTIVE
        b.append(draft("users.email", "revert", "broke signup"))  # another writer
        assert a.status_many(["users.email"])["users.email"].status is Status.REVERTED
        a.append(draft("users.email", "supersede", "fixed"))  # this store's own write
        assert a.status_many(["USERS.email"])["USERS.email"].status is Status.REOPENED


def test_a_garbled_line_in_the_middle_is_skipped_not_fatal(store: Store) -> None:
    store.append(draft("t.a"))
    store.append(draft("t.a", "revert", "no"))
    lines = store.log.path.read_text().splitlines()
    store.log.path.write_text(lines[0] + "\n{not json\n" + lines[1] + "\n")
    assert store.refresh() is True
    assert store.status("t.a").status is Status.REVERTED
    assert store.index.bad_lines == 1
    store.append(draft("t.b"))  # writing goes on; verify reports the bad line
    assert len(store) == 3
