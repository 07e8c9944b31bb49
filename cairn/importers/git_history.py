"""Reading a git history cheaply: commits with their file changes, diffs, blobs.

One `git log --raw` gives every commit and, per file, the blob before and after: that
is enough to find exact reverts (a file put back to the blob it had before an earlier
commit) without computing a single line diff. Line diffs (`git show -U0`) are read only
for the few commits that need them, a few hundred per process.
"""

from __future__ import annotations

import codecs
import contextlib
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from cairn.importers.base import SourceError, normalise_time

ZERO = "0" * 40
_SEP = "\x1f"
_REC = "\x01commit "  # not \x1e: str.splitlines treats that as a line break
_END = "\x02"
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_CHUNK = 1 << 20  # bytes of `git log` output parsed at a time
_SHOW_BATCH = 300  # shas per `git show` (argv stays far below any limit)
MAX_DIFF_LINES = 5000  # a file diff longer than this is generated; no line detail kept


@dataclass(slots=True)
class FileChange:
    """One file in a commit: blob before and after (ZERO when absent), path(s)."""

    path: str
    old: str
    new: str
    old_path: str | None = None  # set when git saw a rename


@dataclass
class Commit:
    """One commit as `git log` reports it."""

    sha: str
    parents: list[str]
    date: str
    author: str
    subject: str
    message: str
    changes: list[FileChange] = field(default_factory=list)
    index: int = -1  # position in the history, oldest first


@dataclass(slots=True)
class FileDiff:
    """A file's line changes in one commit (first parent, no context)."""

    path: str
    removed: dict[int, str] = field(default_factory=dict)  # old-side 1-based line -> text
    added: dict[int, str] = field(default_factory=dict)  # new-side 1-based line -> text
    binary: bool = False
    huge: bool = False
    deleted: bool = False
    created: bool = False


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


def read_history(root: Path, since: str | None, renames: bool = False) -> list[Commit]:
    """Every commit reachable from HEAD, oldest first, with its file changes.

    Merges carry no file changes: what they bring in is in the merged commits, which
    the log lists too. The output is streamed (a 20,000-commit history is ~20 MB of
    `--raw` lines) and parsed as it comes.
    """
    fmt = _REC + _SEP.join(["%H", "%P", "%cI", "%an <%ae>", "%s", "%B"]) + _END
    args = ["-c", "core.quotePath=false", "log", "--reverse", "--raw", "--no-abbrev"]
    args += [f"--format={fmt}", "-M" if renames else "--no-renames"]
    if since:
        args.append(f"--since={since}")
    errors = tempfile.TemporaryFile()  # noqa: SIM115 (a pipe could fill while stdout is read)
    try:
        proc = subprocess.Popen(
            ["git", "-C", str(root), *args], stdout=subprocess.PIPE, stderr=errors
        )
    except OSError as exc:
        raise SourceError(f"cannot run git: {exc}") from None
    assert proc.stdout is not None
    commits: list[Commit] = []
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending = ""
    # Read in large chunks and split on the record marker: per-line reads cost more
    # than git's own work on a long history; git still runs while this parses.
    while True:
        chunk = proc.stdout.read(_CHUNK)
        pending += decoder.decode(chunk, final=not chunk)
        records = pending.split(_REC)
        pending = records.pop() if chunk else ""
        for record in records:
            if record:
                commits.append(_commit(record, len(commits)))
        if not chunk:
            break
    code = proc.wait()
    errors.seek(0)
    err = errors.read().decode("utf-8", "replace").strip().splitlines()
    errors.close()
    if code != 0:
        raise SourceError(f"git log failed: {err[-1] if err else code}")
    return commits


def _commit(record: str, index: int) -> Commit:
    """One `--format` header plus its `--raw` lines."""
    head, _, raw = record.partition(_END)
    sha, parents, date, author, subject, message = head.split(_SEP, 5)
    commit = Commit(sha, parents.split(), normalise_time(date), author, subject, message.strip())
    commit.index = index
    changes = commit.changes
    for line in raw.split("\n"):
        if not line.startswith(":"):
            continue
        meta, _, paths = line.partition("\t")
        parts = meta.split(" ")
        if len(parts) < 5:
            continue
        names = [sys.intern(n) for n in paths.split("\t")]
        if parts[4][:1] in ("R", "C") and len(names) == 2:
            changes.append(FileChange(names[1], parts[2], parts[3], names[0]))
        elif names:
            changes.append(FileChange(names[0], parts[2], parts[3]))
    return commit


def read_diffs(
    root: Path, shas: list[str], paths: list[str] | None = None
) -> dict[str, dict[str, FileDiff]]:
    """sha -> {path: FileDiff}: line changes against the first parent, no renames;
    only `paths` when given (a candidate's other files are never diffed)."""
    out: dict[str, dict[str, FileDiff]] = {}
    spec = ["--", *(f":(literal){p}" for p in paths)] if paths else []
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
            f"--format={_REC}%H",
            *batch,
            *spec,
        )
        _parse_show(text, out)
    return out


def _parse_show(text: str, out: dict[str, dict[str, FileDiff]]) -> None:
    files: dict[str, FileDiff] = {}
    cur: FileDiff | None = None
    old_line = new_line = 0
    old_name = ""
    for line in text.split("\n"):
        if line.startswith(_REC):
            files = out.setdefault(line[len(_REC) :].strip(), {})
            cur = None
        elif line.startswith("diff --git "):
            cur = None
            old_name = ""
        elif cur is None and line.startswith("--- "):
            old_name = line[4:]
        elif cur is None and line.startswith("+++ "):
            target = line[4:]
            source = old_name
            if target == "/dev/null":
                name = source[2:] if source.startswith("a/") else source
                cur = files.setdefault(name, FileDiff(name, deleted=True))
            else:
                name = target[2:] if target.startswith("b/") else target
                cur = files.setdefault(name, FileDiff(name, created=source == "/dev/null"))
        elif line.startswith("Binary files ") and line.endswith(" differ"):
            m = re.match(r"Binary files (?:a/)?(.*?) and (?:b/)?(.*?) differ$", line)
            if m:
                name = m.group(2) if m.group(2) != "/dev/null" else m.group(1)
                files.setdefault(name, FileDiff(name, binary=True))
            cur = None
        elif cur is not None and line.startswith("@@"):
            m = _HUNK.match(line)
            if m:
                old_line, new_line = int(m.group(1)), int(m.group(3))
        elif cur is not None and line.startswith("-") and not cur.huge:
            cur.removed[old_line] = line[1:]
            old_line += 1
            if len(cur.removed) > MAX_DIFF_LINES:
                cur.huge, cur.removed, cur.added = True, {}, {}
        elif cur is not None and line.startswith("+") and not cur.huge:
            cur.added[new_line] = line[1:]
            new_line += 1
            if len(cur.added) > MAX_DIFF_LINES:
                cur.huge, cur.removed, cur.added = True, {}, {}


class Blobs:
    """File contents at a revision through one long-lived `git cat-file --batch`."""

    def __init__(self, root: Path) -> None:
        self._proc = subprocess.Popen(
            ["git", "-C", str(root), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def read(self, rev: str, path: str) -> bytes | None:
        """The blob at `rev:path`, or None when it is missing (or not fetched)."""
        assert self._proc.stdin is not None and self._proc.stdout is not None
        if "\n" in path:
            return None
        name = f"{rev}:{path}" if path else rev
        try:
            self._proc.stdin.write(f"{name}\n".encode())
            self._proc.stdin.flush()
        except BrokenPipeError:
            return None
        header = self._proc.stdout.readline().split()
        if len(header) != 3:  # "<name> missing", or the process ended
            return None
        data = self._proc.stdout.read(int(header[2]))
        self._proc.stdout.read(1)  # the newline after the contents
        return data

    def object(self, oid: str) -> bytes | None:
        """A blob by its id (a version of a file the raw log named)."""
        return self.read(oid, "")

    def close(self) -> None:
        """End the `cat-file` process."""
        if self._proc.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                self._proc.stdin.close()
        self._proc.wait()
