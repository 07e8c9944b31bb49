"""Reading a git history cheaply: commits with their file changes, diffs, blobs.

One `git log --raw` gives every commit and, per file, the blob before and after: that
is enough to find exact reverts (a file put back to the blob it had before an earlier
commit) without computing a single line diff. Line diffs (`git show -U0`) are read only
for the few commits that need them, a few hundred per process.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from cairn import git as gitcmd
from cairn.importers.base import SourceError, normalise_time
from cairn.limits import MAX_STORED_TEXT, MAX_SUBJECT, capped

ZERO = "0" * 40
_REC = "\x01commit "  # starts `git show`'s header line; no diff line can start with it
_SHA = re.compile(rb"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
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
    clipped: int = 0  # the message's length when it was over the limits and cut
    authored: str = ""  # the author's date: a rebase moves `date` (the committer's), not this


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
    """Run git in `root` (neutralised: `cairn.git`) and return stdout; a failure is a
    one-line SourceError."""
    try:
        out = gitcmd.run(root, *args)
    except OSError as exc:
        raise SourceError(f"cannot run git: {exc}") from None
    if check and out.returncode != 0:
        err = out.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(f"git {args[0]} failed: {err[-1] if err else out.returncode}")
    return out.stdout.decode("utf-8", "replace")


def read_history(root: Path, since: str | None, renames: bool = False) -> list[Commit]:
    """Every commit reachable from HEAD, oldest first, with its file changes.

    Merges carry no file changes: what they bring in is in the merged commits, which
    the log lists too. Nothing a commit holds can pose as another commit: `git log -z`
    gives each commit's id and its `--raw` changes with NUL after every field (paths
    are bytes up to a NUL, never quoted), and each commit's author, date and message
    come from the commit object itself, read by its length (`git cat-file --batch`).
    A message may hold any byte, separators and fake records included: it is text.
    """
    args = ["--reverse", "-M" if renames else "--no-renames"]
    if since:
        args.append(f"--since={since}")
    return log_commits(root, *args)


def log_commits(root: Path, *args: str) -> list[Commit]:
    """`git log ARGS` as commits, with their `--raw` changes, parents, dates, authors
    and whole messages, read so that no commit's content can pose as another's (see
    `read_history`)."""
    # %P as git sees them: a shallow clone's boundary commit has none, whatever its object says
    args = ("log", "-z", "--raw", "--no-abbrev", "--format=%H %P", *args)
    errors = tempfile.TemporaryFile()  # noqa: SIM115 (a pipe could fill while stdout is read)
    try:
        proc = subprocess.Popen(gitcmd.argv(root, *args), stdout=subprocess.PIPE, stderr=errors)
    except OSError as exc:
        raise SourceError(f"cannot run git: {exc}") from None
    assert proc.stdout is not None
    commits: list[Commit] = []
    fields = _Fields()
    pending = b""
    # Read in large chunks and split on NUL: per-line reads cost more than git's own
    # work on a long history; git still runs while this parses.
    while True:
        chunk = proc.stdout.read(_CHUNK)
        pending += chunk
        tokens = pending.split(b"\0")
        pending = tokens.pop() if chunk else b""
        for token in tokens:
            fields.take(token, commits)
        if not chunk:
            break
    code = proc.wait()
    errors.seek(0)
    err = errors.read().decode("utf-8", "replace").strip().splitlines()
    errors.close()
    if code != 0:
        raise SourceError(f"git log failed: {err[-1] if err else code}")
    if pending.strip():
        fields.take(pending, commits)
    _describe(root, commits)
    return commits


class _Fields:
    """`git log -z --raw --format='%H %P'`, one NUL-ended field at a time: a commit id
    and its parents' (hex only), or a change (`:modes blobs status`) followed by one
    path, two for a rename or copy."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.wanted = 0
        self.meta: list[str] = []

    def take(self, token: bytes, commits: list[Commit]) -> None:
        if self.wanted:
            self.paths.append(sys.intern(token.decode("utf-8", "replace")))
            self.wanted -= 1
            if not self.wanted:
                self._change(commits[-1])
            return
        head = token.lstrip(b"\n")
        if head.startswith(b":"):
            self.meta = head.decode("ascii", "replace").split(" ")
            self.paths = []
            self.wanted = 2 if len(self.meta) >= 5 and self.meta[4][:1] in ("R", "C") else 1
            if not commits:
                raise SourceError("git log gave a change before any commit")
        elif head.strip() and all(map(_SHA.match, head.split())):
            sha, *parents = head.decode("ascii").split()
            commit = Commit(sha, parents, "", "", "", "")
            commit.index = len(commits)
            commits.append(commit)
        elif head.strip():
            raise SourceError(f"unexpected git log output: {head[:60]!r}")

    def _change(self, commit: Commit) -> None:
        parts = self.meta
        if len(parts) < 5:
            return
        if len(self.paths) == 2:
            commit.changes.append(FileChange(self.paths[1], parts[2], parts[3], self.paths[0]))
        else:
            commit.changes.append(FileChange(self.paths[0], parts[2], parts[3]))


def _describe(root: Path, commits: list[Commit]) -> None:
    """Fill each commit's parents, date, author, subject and message from its object."""
    if not commits:
        return
    request = "".join(f"{c.sha}\n" for c in commits).encode()
    try:
        out = gitcmd.run(root, "cat-file", "--batch", stdin=request)
    except OSError as exc:
        raise SourceError(f"cannot run git: {exc}") from None
    data = out.stdout
    at = 0
    for commit in commits:
        eol = data.find(b"\n", at)
        header = data[at:eol].split() if eol >= 0 else []
        if len(header) != 3 or header[1] != b"commit":
            raise SourceError(f"git cat-file could not read commit {commit.sha}")
        size = int(header[2])
        body = data[eol + 1 : eol + 1 + size]
        at = eol + 1 + size + 1  # the newline after the object
        seen_by_git = commit.parents  # a shallow clone's boundary has none, its object does
        _fill(commit, body)
        commit.parents = seen_by_git


def parse_commit_object(sha: str, raw: bytes) -> Commit:
    """A `Commit` (without changes) from a raw commit object."""
    commit = Commit(sha, [], "", "", "", "")
    _fill(commit, raw)
    return commit


def _fill(commit: Commit, raw: bytes) -> None:
    head, _, message = raw.partition(b"\n\n")
    encoding = "utf-8"
    parents: list[str] = []
    author = committer = b""
    for line in head.split(b"\n"):
        key, _, value = line.partition(b" ")
        if key == b"parent":
            parents.append(value.decode("ascii", "replace"))
        elif key == b"author" and not author:
            author = value
        elif key == b"committer" and not committer:
            committer = value
        elif key == b"encoding":
            encoding = value.decode("ascii", "replace").strip() or "utf-8"
    try:
        text = message.decode(encoding, "replace")
    except LookupError:  # an encoding Python does not know: git would fail to recode too
        text = message.decode("utf-8", "replace")
    name, email, when = _ident(author)
    commit.parents = parents
    commit.author = f"{name} <{email}>"
    commit.date = normalise_time(_ident(committer)[2] or when)
    commit.authored = normalise_time(when) if when else commit.date
    # A message is copied into every event a commit yields (a revert of 9 entities
    # copied a 1 MB subject 9 times): kept within the limits, with a marker.
    commit.subject, cut_subject = capped(_subject(text), MAX_SUBJECT)
    commit.message, cut_message = capped(text.strip(), MAX_STORED_TEXT)
    commit.clipped = len(text) if cut_subject or cut_message else 0


def _ident(value: bytes) -> tuple[str, str, str]:
    """(name, email, ISO date) of an `author`/`committer` value: `Name <email> ts tz`."""
    text = value.decode("utf-8", "replace")
    lt, gt = text.find("<"), text.rfind(">")
    if lt < 0 or gt < lt:
        return text.strip(), "", ""
    name, email = text[:lt].strip(), text[lt + 1 : gt].strip()
    stamp = text[gt + 1 :].split()
    when = ""
    if stamp and stamp[0].isdigit():
        # The seconds are UTC; the offset only says how to show them. Old tools wrote
        # offsets git itself tolerates (psf/requests has `+051800`): read those as UTC
        # rather than lose the commit's date.
        offset = timedelta(0)
        if len(stamp) == 2 and re.fullmatch(r"[+-]\d{4}", stamp[1]):
            sign = -1 if stamp[1][0] == "-" else 1
            offset = timedelta(hours=int(stamp[1][1:3]), minutes=int(stamp[1][3:5])) * sign
        with contextlib.suppress(OverflowError, ValueError, OSError):
            when = datetime.fromtimestamp(int(stamp[0]), timezone(offset)).isoformat()
    return name, email, when


def _subject(message: str) -> str:
    """git's `%s`: the first paragraph, its lines joined by spaces."""
    lines: list[str] = []
    for line in message.lstrip("\n").split("\n"):
        if not line.strip():
            break
        lines.append(line.strip())
    return " ".join(lines)


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
            "show",
            "--no-color",
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
            old_name = diff_path(line[4:])
        elif cur is None and line.startswith("+++ "):
            target = diff_path(line[4:])
            source = old_name
            if target == "/dev/null":
                name = source[2:] if source.startswith("a/") else source
                cur = files.setdefault(name, FileDiff(name, deleted=True))
            else:
                name = target[2:] if target.startswith("b/") else target
                cur = files.setdefault(name, FileDiff(name, created=source == "/dev/null"))
        elif line.startswith("Binary files ") and line.endswith(" differ"):
            m = _BINARY.match(line)
            if m:
                first, second = diff_path(m.group(1)), diff_path(m.group(2))
                name = second if second != "/dev/null" else first
                name = name[2:] if name[:2] in ("a/", "b/") else name
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


_QUOTED = r'"(?:[^"\\]|\\.)*"'
_BINARY = re.compile(rf"Binary files ({_QUOTED}|.*?) and ({_QUOTED}|.*?) differ$")
_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, '"': 34, "\\": 92}


def diff_path(text: str) -> str:
    """A path as a diff's `---`/`+++`/`Binary files` line gives it: git C-quotes one
    holding a quote, a backslash, a control character (tab, newline); an unquoted one
    holding a space is followed by a tab."""
    if not (len(text) >= 2 and text.startswith('"')):
        return text[:-1] if text.endswith("\t") else text
    end = text.rfind('"')
    body, out, i = text[1:end], bytearray(), 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out += ch.encode("utf-8")
            i += 1
        elif body[i + 1] in _ESCAPES:
            out.append(_ESCAPES[body[i + 1]])
            i += 2
        elif body[i + 1 : i + 4].isdigit():
            out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
            i += 4
        else:
            out += body[i + 1].encode("utf-8")
            i += 2
    return out.decode("utf-8", "replace")


class Blobs:
    """File contents at a revision through one long-lived `git cat-file --batch`."""

    def __init__(self, root: Path) -> None:
        self._proc = subprocess.Popen(
            gitcmd.argv(root, "cat-file", "--batch"),
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
        # "<oid> <type> <size>" when found; "<name> missing" (the name may hold spaces)
        # when not, or nothing when the process ended
        if len(header) != 3 or not header[2].isdigit() or header[1] == b"missing":
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
