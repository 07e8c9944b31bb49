"""Decisions linked to the commit that landed them, without rewriting any event.

A decision is usually recorded while the change is being written, before its commit
exists, so its `commit` header is empty. The post-commit hook (`cairn link-commit`,
written by `cairn setup`) then finds the decisions that the new commit added to the
log and appends, for each, a *commit link*: an `annotate` event on the same entity
whose `metadata` names the event (`annotates`) and the commit (`landed_in`), with the
commit in its own `commit` header too. Nothing already written changes, so the DAG
still verifies and the link merges like any other line.

"Landed" means the commit's diff adds the event's line to `.cairn/decisions.jsonl`
(against its first parent): exact, whoever recorded the decision and however long
ago. A log that is not committed links nothing; the hook says so once.

Every surface reads the commit through `commits_of`: an event's own `commit` wins;
otherwise the newest link. Links are notes, not decisions: `split_notes` and the cards
keep them out of the lists of decisions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cairn.core.session import Session
    from cairn.store import Store
    from cairn.store.model import Event

__all__ = ["LINK_KEY", "LinkError", "LinkResult", "commits_of", "link_commit", "linked_commit"]

LINK_KEY = "landed_in"  # metadata key of a commit link (beside `annotates`)


class LinkError(ValueError):
    """Why the commit cannot be linked (not a repository, an unknown revision)."""


def linked_commit(event: Event) -> str:
    """The commit a commit link names, or '' for any other event."""
    if str(event.type) != "annotate":
        return ""
    metadata = event.metadata if isinstance(event.metadata, Mapping) else {}
    sha = metadata.get(LINK_KEY)
    return sha if isinstance(sha, str) else ""


def commits_of(events: Iterable[Event]) -> dict[str, str]:
    """Event id -> the commit that landed it: its own `commit`, else its newest link
    among `events` (pass the entity's history, links included)."""
    own: dict[str, str] = {}
    links: dict[str, tuple[str, str]] = {}  # id -> (recorded_at, commit)
    for event in events:
        sha = linked_commit(event)
        if sha:
            target = event.metadata.get("annotates")
            newer = isinstance(target, str) and (
                target not in links or links[target][0] <= event.recorded_at
            )
            if newer:
                links[str(target)] = (event.recorded_at, sha)
        elif event.commit:
            own[event.id] = event.commit
    return {**{k: sha for k, (_, sha) in links.items()}, **own}


@dataclass
class LinkResult:
    """What `link_commit` did: the commit, the events it linked, those already linked."""

    commit: str
    linked: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    log_tracked: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "linked": self.linked,
            "already_linked": self.already,
            "log_tracked": self.log_tracked,
        }


def _git(root: Path, *args: str) -> tuple[int, str]:
    # Imported here: every surface imports this module for `commits_of`, and only
    # `cairn link-commit` runs git (subprocess, signal) or parses lines (orjson).
    from cairn import git as gitcmd

    try:
        proc = gitcmd.run(root, *args)
    except OSError as exc:
        raise LinkError(f"git cannot run: {exc}") from None
    return proc.returncode, proc.stdout.decode("utf-8", "replace")


def _landed_ids(top: Path, sha: str, log: str) -> list[str] | None:
    """Ids of the events the commit's diff adds to the log (None: the commit's tree
    does not hold the log at all)."""
    code, _ = _git(top, "cat-file", "-e", f"{sha}:{log}")
    if code != 0:
        return None
    # First parent: a merge lands what its branch brought; a root commit, everything.
    code, out = _git(
        top, "diff-tree", "-p", "-U0", "--root", "-m", "--first-parent", "--no-commit-id",
        "--no-color", sha, "--", log,
    )  # fmt: skip
    if code != 0:
        raise LinkError(f"git diff-tree {sha[:12]} failed")
    import orjson

    ids: list[str] = []
    for line in out.splitlines():
        if not line.startswith("+{"):
            continue
        try:
            value = orjson.loads(line[1:])
        except orjson.JSONDecodeError:
            continue  # a damaged line: verify reports it; it lands nothing
        eid = value.get("id") if isinstance(value, dict) else None
        if isinstance(eid, str) and eid not in ids:
            ids.append(eid)
    return ids


def link_commit(session: Session, rev: str = "HEAD") -> LinkResult:
    """Link each decision the commit `rev` added to the log to that commit (the
    post-commit hook). Idempotent: an event linked to a commit still in `rev`'s
    history is left alone; one linked to a commit that an amend or a rebase replaced
    is linked again, and the newer link wins."""
    from cairn.store import EventDraft

    project = session.project
    code, top_text = _git(project.root, "rev-parse", "--show-toplevel")
    if code != 0:
        raise LinkError(f"{project.root} is not in a git repository")
    top = Path(top_text.strip())
    if rev.startswith("-"):
        raise LinkError(f"{rev!r} is not a revision")
    code, sha_text = _git(
        top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"
    )
    if code != 0:
        raise LinkError(f"{rev!r} names no commit")
    sha = sha_text.strip()
    log = (project.cairn_dir / "decisions.jsonl").resolve().relative_to(top.resolve()).as_posix()
    result = LinkResult(sha)
    ids = _landed_ids(top, sha, log)
    if ids is None:
        result.log_tracked = False
        return result
    store = session.store
    for event in _events(store, ids):
        if str(event.type) == "annotate" or event.commit:
            continue  # notes and links are no decisions; an event with a commit has one
        history = store.history(event.entity)
        current = commits_of(history).get(event.id)
        if current == sha or (current and _ancestor(top, current, sha)):
            result.already.append(event.id)
            continue
        store.append(
            EventDraft(
                type="annotate",
                entity=event.entity,
                reasoning=f"Landed in commit {sha[:12]}.",
                commit=sha,
                metadata={"annotates": event.id, LINK_KEY: sha},
            )
        )
        result.linked.append(event.id)
    return result


def _events(store: Store, ids: list[str]) -> list[Event]:
    """The events the log holds among `ids` (a line verification rejected is skipped)."""
    from cairn.store import StoreError

    found: list[Event] = []
    for eid in ids:
        try:
            found.append(store.get(eid))
        except StoreError:
            continue
    return found


def _ancestor(top: Path, older: str, newer: str) -> bool:
    """`older` is in `newer`'s history (false for a commit an amend replaced)."""
    code, _ = _git(top, "merge-base", "--is-ancestor", older, newer)
    return code == 0
