"""`cairn import git`: revert commits become `revert` events on what they undid.

A revert is found by its subject (`Revert "…"`) or its body ("This reverts commit
<sha>"). The entities are those the reverted commit *introduced*: the post-image of
each file it changed is indexed and the symbols whose name falls on an added line are
kept, so reverting "add users.email_verified" lands on `users.email_verified`, not on
the migration's file name. A revert of a revert re-applies the change: it becomes a
`supersede` naming the earlier revert, not another revert.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cairn.importers.base import Known, Proposed, Skipped, SourceError, normalise_time

SOURCE = "git"
MAX_FILE_BYTES = 1_000_000  # bigger post-images are generated or vendored; not indexed

# Git writes these two lines itself; they are the documented revert markers.
_REVERTS_BODY = re.compile(r"This reverts commit ([0-9a-f]{7,64})", re.I)
_REVERT_SUBJECT = re.compile(r'^Revert "(.*)"\s*$')
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")

# `--since` forms checked before git sees them: git reads any text as *some* date
# (`--since=notadate` silently means "now" and imports nothing).
_RELATIVE = re.compile(r"^(\d+)[ .]*(second|minute|hour|day|week|month|year)s?[ .]*ago$", re.I)

_SEP = "\x1f"
_END = "\x1e"


@dataclass
class Commit:
    """One commit as `git log` reports it."""

    sha: str
    parents: list[str]
    date: str
    author: str
    subject: str
    message: str
    reverted: str | None = None  # full sha of the commit this one reverts
    entities: list[tuple[str, str]] = field(default_factory=list)


def git(root: Path, *args: str, check: bool = True) -> str:
    """Run git in `root` and return stdout; a failure is a one-line SourceError."""
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)
    except OSError as exc:
        raise SourceError(f"cannot run git: {exc}") from None
    if check and out.returncode != 0:
        err = out.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(f"git {args[0]} failed: {err[-1] if err else out.returncode}")
    return out.stdout.decode("utf-8", "replace")


def since_arg(raw: str) -> str:
    """A `--since` value git reads one way: an ISO date/date-time (UTC if no offset;
    a bare date is its midnight, not git's time-of-day-now) or `<N> <unit>s ago`."""
    text = raw.strip()
    if _RELATIVE.match(text):
        return " ".join(_RELATIVE.sub(r"\1 \2s ago", text).split())
    try:
        utc = normalise_time(text)
    except SourceError:
        raise SourceError(
            f"--since {raw!r} is not a date; give YYYY-MM-DD, an ISO 8601 date-time, "
            "or '<N> days|weeks|months|years ago'"
        ) from None
    return utc.replace("T", " ").replace("Z", " +0000")


def read_log(root: Path, since: str | None) -> list[Commit]:
    """Every commit reachable from HEAD, oldest first."""
    fmt = _SEP.join(["%H", "%P", "%cI", "%an <%ae>", "%s", "%B"]) + _END
    args = ["log", "--reverse", f"--format={fmt}"]
    if since:
        args.append(f"--since={since_arg(since)}")
    out = git(root, *args)
    commits: list[Commit] = []
    for record in out.split(_END):
        record = record.lstrip("\n")
        if not record:
            continue
        sha, parents, date, author, subject, message = record.split(_SEP, 5)
        commits.append(
            Commit(sha, parents.split(), normalise_time(date), author, subject, message.strip())
        )
    return commits


def find_reverted(
    commit: Commit, by_sha: dict[str, Commit], by_subject: dict[str, Commit], root: Path
) -> str | None:
    """The full sha this commit reverts, or None when it is not a revert."""
    m = _REVERTS_BODY.search(commit.message)
    if m:
        short = m.group(1)
        if short in by_sha:
            return short
        full = git(root, "rev-parse", "--verify", "--quiet", f"{short}^{{commit}}", check=False)
        return full.strip() or short
    m = _REVERT_SUBJECT.match(commit.subject)
    if m and m.group(1) in by_subject:
        return by_subject[m.group(1)].sha
    return None


_COMMIT_MARK = "\x01commit "  # not \x1e: str.splitlines treats that as a line break
_SHOW_BATCH = 400  # shas per `git show` (argv stays far below any limit)


def added_lines(root: Path, shas: list[str]) -> dict[str, dict[str, set[int]]]:
    """sha -> {file: the 1-based post-image lines that commit added} (first parent).

    One `git show -U0` for many commits: hunk headers carry the line numbers, and one
    process per few hundred commits instead of one per commit.
    """
    out: dict[str, dict[str, set[int]]] = {}
    for start in range(0, len(shas), _SHOW_BATCH):
        batch = shas[start : start + _SHOW_BATCH]
        text = git(
            root,
            "-c",
            "core.quotePath=false",
            "show",
            "--no-color",
            "--no-ext-diff",
            "--no-renames",
            "--diff-merges=first-parent",
            "-U0",
            f"--format={_COMMIT_MARK}%H",
            *batch,
        )
        files: dict[str, set[int]] = {}
        current: set[int] | None = None
        for line in text.splitlines():
            if line.startswith(_COMMIT_MARK):
                files = out.setdefault(line[len(_COMMIT_MARK) :].strip(), {})
                current = None
            elif line.startswith("+++ "):
                target = line[4:]
                if target == "/dev/null":
                    current = None  # deleted: nothing was introduced there
                else:
                    name = target[2:] if target.startswith("b/") else target
                    current = files.setdefault(name, set())
            elif line.startswith("@@ ") and current is not None:
                m = _HUNK.match(line)
                if m:
                    first, count = int(m.group(1)), int(m.group(2) or "1")
                    current.update(range(first, first + count))
    return out


class Blobs:
    """File contents at a commit through one long-lived `git cat-file --batch`."""

    def __init__(self, root: Path) -> None:
        self._proc = subprocess.Popen(
            ["git", "-C", str(root), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def read(self, sha: str, path: str) -> bytes | None:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(f"{sha}:{path}\n".encode())
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().split()
        if len(header) != 3:  # "<name> missing"
            return None
        data = self._proc.stdout.read(int(header[2]))
        self._proc.stdout.read(1)  # the newline after the contents
        return data

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait()


def introduced_entities(
    commit: Commit, changed: dict[str, set[int]], blobs: Blobs
) -> tuple[list[tuple[str, str]], list[Skipped]]:
    """[(entity, kind)] that `commit` introduced on added lines, plus files not indexed."""
    from cairn.indexer import index_text
    from cairn.store.paths import EntityPathError, canonicalise

    entities: list[tuple[str, str]] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()
    for path, lines in changed.items():
        blob = blobs.read(commit.sha, path)
        if blob is None or len(blob) > MAX_FILE_BYTES or b"\0" in blob[:8000]:
            skipped.append(Skipped(f"{commit.sha[:10]} {path}", "binary or over 1 MB; not indexed"))
            continue
        found = False
        for sym in index_text(blob, path):
            if str(sym.role) == "introduce" and sym.name_range.start_line + 1 in lines:
                found = True
                if sym.entity not in seen:
                    seen.add(sym.entity)
                    entities.append((sym.entity, str(sym.kind)))
        if not found:
            # Nothing the indexer can name was added: the file itself is what changed.
            try:
                file_entity = canonicalise(path)
            except EntityPathError as exc:
                skipped.append(Skipped(f"{commit.sha[:10]} {path}", str(exc)))
                continue
            if file_entity not in seen:
                seen.add(file_entity)
                entities.append((file_entity, "file"))
    return entities, skipped


def import_git(
    root: Path,
    since: str | None,
    unit_done: list | None = None,
    imported: dict[str, int] | None = None,
) -> tuple[int, Iterator[Proposed | Skipped | Known]]:
    """(number of commits, the proposals, oldest first).

    `imported` counts the events an earlier run imported per sha: commits never change,
    so their diffs are not read again (this is what makes a re-run cheap).
    """
    if since is not None:
        since_arg(since)  # a bad date is an error before git is asked anything
    if not (root / ".git").exists() and not git(root, "rev-parse", "--git-dir", check=False):
        raise SourceError(f"{root} is not a git repository")
    if not git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip():
        return 0, iter(())  # a repository without commits has no reverts yet
    commits = read_log(root, since)
    by_sha = {c.sha: c for c in commits}
    by_subject: dict[str, Commit] = {}
    for c in commits:
        c.reverted = find_reverted(c, by_sha, by_subject, root)
        by_subject[c.subject] = c

    def items() -> Iterator[Proposed | Skipped | Known]:
        blobs = Blobs(root)
        try:
            yield from walk(blobs)
        finally:
            blobs.close()

    def walk(blobs: Blobs) -> Iterator[Proposed | Skipped | Known]:
        cache: dict[str, list[tuple[str, str]]] = {}
        todo = [c for c in commits if c.reverted is not None and c.sha not in (imported or {})]
        chains = {c.sha: _chain(c, by_sha, root) for c in todo}
        originals = list(dict.fromkeys(ch[0].sha for ch in chains.values() if ch is not None))
        diffs = added_lines(root, originals)
        for c in commits:
            for hook in unit_done or []:
                hook(1)
            if c.reverted is None:
                if _REVERT_SUBJECT.match(c.subject):
                    yield Skipped(
                        f"{c.sha[:10]} {c.subject}",
                        "looks like a revert, but no earlier commit has that subject and "
                        "the message names no commit",
                    )
                continue
            if imported and c.sha in imported:
                yield Known(imported[c.sha])
                continue
            chain = chains[c.sha]
            if chain is None:
                yield Skipped(
                    f"{c.sha[:10]} {c.subject}",
                    f"reverts {c.reverted[:10]}, which is not in this repository's history",
                )
                continue
            original, depth = chain
            if original.sha not in cache:
                found, skipped = introduced_entities(original, diffs.get(original.sha, {}), blobs)
                cache[original.sha] = found
                yield from skipped
            entities = cache[original.sha]
            if not entities:
                yield Skipped(f"{c.sha[:10]} {c.subject}", "the reverted commit changed no files")
                continue
            reapply = depth % 2 == 0
            for entity, kind in entities:
                meta = {
                    "reverted_commit": c.reverted,
                    "original_commit": original.sha,
                    "original_subject": original.subject,
                }
                yield Proposed(
                    source_key=f"{SOURCE}:{c.sha}:{entity}",
                    type="supersede" if reapply else "revert",
                    entity=entity,
                    entity_kind=kind,
                    reasoning=c.message,
                    occurred_at=c.date,
                    author=c.author,
                    commit=c.sha,
                    metadata=meta | ({"reapplies": True} if reapply else {}),
                    supersedes_key=f"{SOURCE}:{c.reverted}:{entity}" if reapply else None,
                )

    return len(commits), items()


def _chain(c: Commit, by_sha: dict[str, Commit], root: Path) -> tuple[Commit, int] | None:
    """(the original non-revert commit, how many reverts deep `c` is)."""
    depth = 0
    current = c
    seen: set[str] = set()
    while current.reverted is not None:
        if current.sha in seen:
            return None
        seen.add(current.sha)
        depth += 1
        target = by_sha.get(current.reverted)
        if target is None:
            target = _load_commit(root, current.reverted)
            if target is None:
                return None
            by_sha[target.sha] = target
            target.reverted = find_reverted(target, by_sha, {}, root)
        current = target
    return current, depth


def _load_commit(root: Path, sha: str) -> Commit | None:
    """A commit outside the `--since` window (the target of a revert inside it)."""
    fmt = _SEP.join(["%H", "%P", "%cI", "%an <%ae>", "%s", "%B"])
    out = git(root, "show", "-s", f"--format={fmt}", sha, check=False)
    if not out:
        return None
    sha_, parents, date, author, subject, message = out.split(_SEP, 5)
    return Commit(sha_, parents.split(), normalise_time(date), author, subject, message.strip())


def imported_counts(keys: set[str]) -> dict[str, int]:
    """sha -> number of events already imported from it, from `git:<sha>:<entity>` keys."""
    counts: dict[str, int] = {}
    for key in keys:
        sha = key.split(":", 2)[1]
        counts[sha] = counts.get(sha, 0) + 1
    return counts
