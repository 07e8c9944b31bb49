"""`cairn import git`: reverts in the history become `revert` events on what they undid.

A revert is found by what it does, not only by git's marker (see
`cairn.importers.git_reverts`): `metadata.found_by` says how (`marker`,
`inverse-patch`, `partial` with its `share`, or `message` when only the subject says
so and no earlier commit could be matched).

The entities are where the revert took lines out: each removed line belongs to the
innermost symbol of the file before the revert that contains it (a method, a class, a
constant, a model field, a dependency), or to the file when the indexer cannot read it
or the line is outside every symbol. Each event keeps a fingerprint of the lines it took
out (`metadata.fingerprint`, hashes only; `cairn.fingerprints`), so the same change
coming back is recognised wherever it lands.

Renames come from git's rename detection (`-M`; a rename undoes nothing) and carry
the verdicts to the new names as `rename` events, with symbol moves found by their body
(`cairn.importers.git_renames`).

A revert of a revert re-applies the change: it becomes a `supersede` of the earlier
revert's events. The reasoning is the revert's own explanation, then the reverted
commit's subject and body, then the issue/PR references; the author is the commit's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from cairn import git as gitcmd
from cairn.importers.base import Known, Note, Proposed, Skipped, SourceError, normalise_time
from cairn.importers.git_blame import by_blame
from cairn.importers.git_history import (
    Blobs,
    Commit,
    FileDiff,
    git,
    parse_commit_object,
    read_diffs,
    read_history,
)
from cairn.importers.git_placement import Entity, capped, removed_entities, trees_by_revert
from cairn.importers.git_reintroduced import Reintroduced, TakenOut, reintroductions
from cairn.importers.git_renames import RenameTracker, file_renames
from cairn.importers.git_reverts import (
    DEFAULT_WINDOW,
    REVERT_SUBJECT,
    REVERTS_BODY,
    Found,
    by_blobs,
    by_lines,
    by_marker,
    candidates_for,
    hinted,
    meaningful,
)
from cairn.importers.trees import Tree
from cairn.limits import MAX_STORED_TEXT, MAX_SUBJECT
from cairn.significance import KEY as SIGNIFICANCE
from cairn.significance import TRIVIAL

__all__ = ["DEFAULT_WINDOW", "SOURCE", "git", "import_git", "imported_counts", "since_arg"]

SOURCE = "git"
MAX_REASONING = 2000
MAX_HINTED_FILES = 200  # files a hand-made revert may touch and still be line-matched
MAX_PATHSPEC = 1000  # files named to `git show` to leave a revert's trees unread

# `--since` forms checked before git sees them: git reads any text as *some* date
# (`--since=notadate` silently means "now" and imports nothing).
_RELATIVE = re.compile(r"^(\d+)[ .]*(second|minute|hour|day|week|month|year)s?[ .]*ago$", re.I)
_BOILERPLATE = re.compile(r"^\s*This reverts commit [0-9a-f]{7,64}\.?\s*$", re.I)
_TRAILER = re.compile(
    r"^\s*(Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Change-Id|Reviewed-on|"
    r"Tested-by|Cc):",
    re.I,
)
_REF = re.compile(r"(?<![\w/])#\d{1,7}\b|https?://[^\s)>\]]+")


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


def _check_repository(root: Path) -> None:
    if not (root / ".git").exists() and not git(root, "rev-parse", "--git-dir", check=False):
        raise SourceError(f"{root} is not a git repository")
    promisor = git(
        root,
        "config",
        "--get-regexp",
        r"^(extensions\.partialclone|remote\..*\.promisor)$",
        check=False,
    )
    if promisor.strip():
        raise SourceError(
            f"{root} is a partial clone: its blobs are fetched on demand and the import "
            "never fetches; run `git fetch --refetch` (or use a full clone) first"
        )


def import_git(
    root: Path,
    since: str | None,
    unit_done: list | None = None,
    imported: dict[str, int] | None = None,
    window: int = DEFAULT_WINDOW,
    known: Iterable[str] = (),
) -> tuple[int, Iterator[Proposed | Skipped | Known]]:
    """(number of commits, the proposals, oldest first).

    `imported` counts the events an earlier run imported per sha: commits never change,
    so their diffs are not read again (this is what makes a re-run cheap). `known`: the
    entities the log already has history on, whose renames are recorded too
    (`cairn.importers.git_renames`).
    """
    if window < 1:
        raise SourceError(f"--window {window} must be at least 1 commit")
    since_value = since_arg(since) if since is not None else None
    _check_repository(root)
    if not git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip():
        return 0, iter(())  # a repository without commits has no reverts yet
    shallow = git(root, "rev-parse", "--is-shallow-repository", check=False).strip() == "true"
    commits = read_history(root, since_value, renames=True)
    known = list(known)
    known_deps = {e for e in known if e.startswith("deps/")}
    renames = RenameTracker(commits, file_renames(commits), known)
    done = imported or {}
    found = find_reverts(root, commits, window, done)

    def items() -> Iterator[Proposed | Skipped | Known]:
        if shallow:
            yield Skipped(
                "history",
                "a shallow clone: reverts of commits older than its history are skipped; "
                "`git fetch --unshallow` imports them",
            )
        blobs = Blobs(root)
        try:
            taken: dict[tuple[str, str], TakenOut] = {}
            walked = _walk(root, commits, found, done, blobs, unit_done or [], taken)
            yield from renames.watch(walked)
            # Reverted entities that came back and stayed: superseded in practice.
            for back in reintroductions(commits, list(taken.values()), blobs):
                yield _reintroduced(back)
            # Dependencies added or dropped by commits that say why (not reverts).
            from cairn.importers.git_deps import dependency_changes

            yield from dependency_changes(root, commits, blobs, skip=set(found), known=known_deps)
            yield from renames.proposals(blobs)  # what carries those verdicts to new names
        finally:
            blobs.close()

    return len(commits), items()


def find_reverts(
    root: Path, commits: list[Commit], window: int, done: dict[str, int]
) -> dict[str, Found]:
    """sha -> how that commit undoes an earlier one."""
    by_sha = {c.sha: c for c in commits}
    by_subject: dict[str, Commit] = {}
    resolved: dict[str, str | None] = {}

    def resolve(short: str) -> str | None:
        if short not in resolved:
            full = git(root, "rev-parse", "--verify", "--quiet", f"{short}^{{commit}}", check=False)
            resolved[short] = full.strip() or None
        return resolved[short]

    found: dict[str, Found] = {}
    for c in commits:
        target = by_marker(c, by_sha, by_subject, resolve)
        by_subject.setdefault(c.subject, c)
        if target is not None:
            found[c.sha] = Found(c, target, "marker")
    blob_found = by_blobs(commits, window)
    for sha, f in blob_found.items():
        if sha in found:
            m = found[sha]
            if m.original not in by_sha and resolve(m.original or "") is None:
                found[sha] = f  # the marker names a commit this repository lacks
                continue
            if m.original == f.original and f.files is not None:
                m.files, m.squash = f.files, f.squash  # a squash: only the undone files
            continue
        found[sha] = f
    _scope_markers(root, found, by_sha, resolve)
    # Subjects that say "revert"/"undo" without a marker: match their lines.
    # A hinted commit whose blob match is partial is matched by its lines too: the files
    # it put back blob for blob may say nothing (psf/requests' "Reverted hooks from
    # sub-package to module." put back three docstring-only files of 660e090, while the
    # code it moved back was in files later commits had edited); see `_weak`.
    partial_blobs = {
        sha
        for sha, f in found.items()
        if f.found_by == "partial" and blob_found.get(sha) is f and hinted(f.revert)
    }
    hinted_commits = [
        c
        for c in commits
        if (c.sha not in found or c.sha in partial_blobs)
        and c.sha not in done
        and hinted(c)
        and len(c.parents) == 1
    ]
    if hinted_commits:
        touched: dict[str, list[int]] = {}
        by_pr: dict[str, int] = {}
        pr_in_subject = re.compile(r"\(#(\d+)\)\s*$")
        for c in commits:
            for ch in c.changes:
                touched.setdefault(ch.path, []).append(c.index)
            pr = pr_in_subject.search(c.subject)
            if pr:
                by_pr.setdefault(pr.group(1), c.index)

        def resolve_index(short: str) -> int | None:
            full = resolve(short)
            hit = by_sha.get(full or "")
            return hit.index if hit is not None else None

        for c in hinted_commits:
            if len(c.changes) > MAX_HINTED_FILES:
                continue  # a sweeping change is not a hand-made revert we can match
            cands = [
                commits[i]
                for i in candidates_for(c, commits, touched, by_pr, resolve_index, window)
            ]
            # One small `git show` per hinted commit: its candidates, only its own files.
            paths = sorted({ch.path for ch in c.changes})
            diffs = read_diffs(root, [c.sha, *(o.sha for o in cands)], paths)
            if c.sha in found and not _weak(found[c.sha], diffs.get(c.sha, {})):
                continue  # its blob match carries lines that say something: it stands
            match = by_lines(c, diffs, cands)
            if match is None and _takes_back_lines(diffs.get(c.sha, {})):
                # Found by its message alone: name the commit it undid through the
                # paths' history (blame), or say why none could be named.
                match = by_blame(lambda args: git(root, *args, check=False), c, diffs[c.sha])
            if match is not None:
                found[c.sha] = match
    return found


def _scope_markers(
    root: Path,
    found: dict[str, Found],
    by_sha: dict[str, Commit],
    resolve: Callable[[str], str | None],
) -> None:
    """Narrow each marker revert to what its reverted commit(s) changed."""
    # A marker commit that changes files the reverted commit never touched did more
    # than revert it: only what the reverted commit changed belongs to the revert.
    for f in found.values():
        if f.found_by != "marker":
            continue
        # A squashed pull request's body lists every commit it reverted: all of them
        # are what the revert undid (`Revert "… (3 of 3)"` names three).
        # (only commits this repository has: a sha from another one is no diff to read)
        named = [r for m in REVERTS_BODY.findall(f.revert.message) if (r := resolve(m))]
        f.named = tuple(dict.fromkeys(n for n in named if n != f.original))
        orig = by_sha.get(f.original or "")
        if orig is None:
            full = resolve(f.original) if f.original else None
            if full is None:
                continue
            base = git(root, "merge-base", full, f.revert.sha, check=False).strip()
            if base != full and not f.revert.subject.lower().startswith("revert"):
                # A squash whose body reverts a commit only its own branch had: the
                # revert happened inside the pull request and undid nothing this
                # history holds (the rest of the squash is its own work).
                f.branch_only = True
            else:
                # Its lines say which hunks were the revert (a rebased branch).
                f.narrow = True
            continue
        theirs = {ch.path for ch in orig.changes}
        mine = {ch.path for ch in f.revert.changes}
        if not mine - theirs:
            continue
        if f.named:
            # Several commits undone: their lines, wherever they are (a file list
            # taken from one of them, by blobs, would drop the others).
            f.narrow, f.files = True, None
        elif not f.revert.subject.lower().startswith("revert"):
            # The marker inside a squash: the reverted commit's files, and its lines.
            f.files, f.squash = frozenset(mine & theirs), True
        else:
            # `Revert "…" (#55)` squash-merged with other work, or a revert landing
            # after a move: the lines the reverted commit added, in whichever file.
            f.narrow = True


def _weak(blob_match: Found, diff: dict[str, FileDiff]) -> bool:
    """Whether a partial blob match leaves out everything the commit takes back that
    says something: its files (put back blob for blob) carry no line to fingerprint,
    while the commit's other files do. Such a match names a side commit (one that only
    added docstrings), not the change undone; the commit's lines say which that was."""
    files = blob_match.files
    if files is None:
        return False
    mine = any(_says(fd) for p, fd in diff.items() if p in files)
    return not mine and any(_says(fd) for p, fd in diff.items() if p not in files)


def _says(fd: FileDiff) -> bool:
    """Whether a file's change takes out or puts back a line that carries meaning in
    its language (`git_reverts.meaningful`)."""
    from cairn.fingerprints import fingerprint

    return any(fingerprint(meaningful(side, fd.path)) for side in (fd.removed, fd.added))


def _takes_back_lines(diff: dict[str, FileDiff]) -> bool:
    """Whether a commit takes out lines that say something, or puts back lines that
    do (a revert of a removal: its print is of those, for re-removals)."""
    from cairn.fingerprints import fingerprint

    return any(
        fingerprint(fd.removed.values()) or fingerprint(fd.added.values()) for fd in diff.values()
    )


def _walk(
    root: Path,
    commits: list[Commit],
    found: dict[str, Found],
    done: dict[str, int],
    blobs: Blobs,
    unit_done: list,
    taken: dict[tuple[str, str], TakenOut],
) -> Iterator[Proposed | Skipped | Known]:
    """The revert and supersede proposals, oldest first. `taken` collects the entities
    the reverts took out whole and that no later revert of the revert put back."""
    by_sha = {c.sha: c for c in commits}
    todo = [f for sha, f in found.items() if sha not in done]
    # Vendored, generated and asset trees: one event each, and their diffs never read.
    trees = trees_by_revert(root, todo, blobs)
    diffs = _revert_diffs(root, todo, trees, by_sha)
    entity_cache: dict[str, list[Entity]] = {}

    def entities_of(f: Found) -> tuple[list[Entity], list[Skipped]]:
        if f.revert.sha in entity_cache:
            return entity_cache[f.revert.sha], []
        in_trees = trees.get(f.revert.sha, ([], []))[0]
        ents, skipped = removed_entities(f, diffs, blobs, in_trees)
        lock = _lock_dependency(root, f, by_sha.get(f.original or ""))
        if lock is not None and all(e.path != lock.path for e in ents):
            ents.append(lock)
        ents, cut = capped(f, ents)
        entity_cache[f.revert.sha] = ents
        return ents, skipped + cut + _clipped(f, by_sha.get(f.original or ""))

    for c in commits:
        for hook in unit_done:
            hook(1)
        f = found.get(c.sha)
        if f is None:
            if REVERT_SUBJECT.match(c.subject):
                yield Skipped(
                    f"{c.sha[:10]} {c.subject}",
                    "looks like a revert, but no earlier commit has that subject and "
                    "the message names no commit",
                )
            continue
        if c.sha in done:
            yield Known(done[c.sha])
            continue
        original = by_sha.get(f.original or "") or (
            _load_commit(root, f.original) if f.original else None
        )
        why = _unreadable(c, f, original)
        if why:
            yield Skipped(f"{c.sha[:10]} {c.subject}", why)
            continue
        # Otherwise a revert of a commit this repository lacks (a branch rebased or
        # squash-merged after the revert was written) is read from its own diff: the
        # lines it took out are the change it undid.
        if original is not None and original.sha not in by_sha:
            # Outside `--since`: still a revert itself when it carries git's marker.
            by_sha[original.sha] = original
            m = REVERTS_BODY.search(original.message)
            if m and original.sha not in found:
                found[original.sha] = Found(original, m.group(1), "marker")
        chain = _chain(f, found, by_sha)
        if chain % 2 == 0 and f.original in found:
            # A revert of a revert puts the change back: re-open the earlier verdicts.
            earlier = found[f.original]
            ents = entity_cache.get(earlier.revert.sha)
            if ents is None:
                if earlier.revert.sha not in diffs:
                    diffs.update(read_diffs(root, [earlier.revert.sha]))
                ents, skipped = entities_of(earlier)
                yield from skipped
            yield from _reapplied(c, f, original, earlier, ents, taken)
            continue
        ents, skipped = entities_of(f)
        yield from skipped
        if not ents:
            yield Skipped(
                f"{c.sha[:10]} {c.subject}", "the revert took out no lines Cairn can place"
            )
            continue
        from cairn.importers.git_deps import about

        ents = about(ents, c, original, diffs.get(f.original or "", {}))
        if not ents:
            yield Skipped(
                f"{c.sha[:10]} {c.subject}",
                "the revert restored or deleted a manifest whole, and names none of the "
                "dependencies it was about",
            )
            continue
        yield from _revert_events(c, f, original, ents, diffs.get(c.sha, {}), taken, root)


def _unreadable(c: Commit, f: Found, original: Commit | None) -> str:
    """Why a found revert cannot be imported ("" when it can)."""
    if f.branch_only:
        return (
            f"reverts {(f.original or '')[:10]}, a commit only on the branch this "
            "squash merged: the revert happened inside the pull request"
        )
    if (
        f.original is not None
        and original is None
        and (
            not c.parents
            or c.subject.startswith('Revert "Revert')
            or not c.subject.lower().startswith("revert")
        )
    ):
        # Without its parent (a shallow clone) there is no diff to read; a revert of
        # a revert we cannot see might re-apply rather than undo; in a squash, only
        # the reverted commit says which hunks were the revert.
        return f"reverts {f.original[:10]}, which is not in this repository's history"
    return ""


def _revert_diffs(
    root: Path,
    todo: list[Found],
    trees: dict[str, tuple[list[Tree], list[str]]],
    by_sha: dict[str, Commit],
) -> dict[str, dict[str, FileDiff]]:
    """The diffs the reverts to import need: their own (without their trees' files),
    and those of the commits that say which of their lines were the revert."""
    # The diffs of every revert to import (and of the originals of squashes, whose
    # lines say which hunks of the squash were the revert).
    need = {f.revert.sha for f in todo if f.revert.sha not in trees}
    need |= {f.original for f in todo if (f.squash or f.narrow) and f.original}
    need |= {n for f in todo if f.squash or f.narrow for n in f.named}
    # A revert of a manifest gives verdicts to the dependencies its reverted commit
    # changed (`git_deps.about`): that commit's diff says which.
    from cairn.importers.git_deps import declares_dependencies

    need |= {
        f.original
        for f in todo
        if f.original and any(declares_dependencies(ch.path) for ch in f.revert.changes)
    }
    # A reverted commit git's marker names may be in no repository here (a fork's, a
    # rebased branch's): there is no diff to read, and `git show` would fail on it.
    need = {s for s in need if s in by_sha or _has_commit(root, s)}
    diffs = read_diffs(root, sorted(need))
    for sha, (_found_trees, rest) in trees.items():
        # Only the files outside its trees (all of them when that list is too long).
        named = sorted(rest) if len(rest) <= MAX_PATHSPEC else None
        if named != []:
            diffs.update(read_diffs(root, [sha], named))
    return diffs


def _reapplied(
    c: Commit,
    f: Found,
    original: Commit | None,
    earlier: Found,
    ents: list[Entity],
    taken: dict[tuple[str, str], TakenOut],
) -> Iterator[Proposed]:
    """A revert of a revert: `supersede` events re-opening the earlier verdicts. Only
    what it puts back is re-opened: a commit that reinstates one file of a reverted
    change leaves the rest of the revert standing."""
    back = f.files if f.files is not None else {ch.path for ch in c.changes}
    for ent in ents:
        if ent.file and ent.file not in back:
            continue
        taken.pop((earlier.revert.sha, ent.path), None)
        yield _proposal(
            c,
            original,
            "supersede",
            ent,
            _metadata(f, original) | {"reapplies": True},
            supersedes_key=f"{SOURCE}:{earlier.revert.sha}:{ent.path}",
        )


def _revert_events(
    c: Commit,
    f: Found,
    original: Commit | None,
    ents: list[Entity],
    diff: dict[str, FileDiff],
    taken: dict[tuple[str, str], TakenOut],
    root: Path,
) -> Iterator[Proposed]:
    """One revert's events: what each entity's verdict says (its tree, part, versions,
    fingerprint) and whether it is quiet (`cairn.significance`)."""
    from cairn.fingerprints import PRINT_KEY, RESTORED, SCOPE_KEY, fingerprint, is_code
    from cairn.significance import (
        accident,
        ci_tweak,
        notes,
        planned_undo,
        release_tooling,
        trivial_files,
    )
    from cairn.significance.follows import ci_moved, is_test_data, left_with_code, planned_removal

    lines, judged = _changed_lines(diff, f.files)
    cosmetic = trivial_files(lines)
    words = "\n".join(filter(None, (c.subject, _body(c))))
    whole = {p for p, fd in diff.items() if fd.created or fd.deleted}
    # Found by its content alone: the commit does not call itself a revert.
    by_content = f.found_by in ("inverse-patch", "partial") and not hinted(c)
    # The whole revert is quiet when every file it undid was cosmetic (a binary or huge
    # one never is), or when what it undid went in by mistake. Author dates: a rebase
    # gives a change and its revert the same committer date.
    everything = (
        (judged and bool(lines) and len(cosmetic) == len(lines))
        or accident(
            words,
            c.author,
            c.authored or c.date,
            original.author if original is not None else None,
            (original.authored or original.date) if original is not None else None,
        )
        or planned_undo(original.subject if original is not None else _quoted_subject(c.subject))
        or planned_removal(words)
        # A CI matrix tweak taken back without a word of why: a trial of what to test on.
        or (judged and len(lines) == len(c.changes) and ci_tweak(lines, whole, words))
        # Tests that left with code the commit removed for its own reasons.
        or (
            by_content
            and original is not None
            and left_with_code(
                {e.file for e in ents if e.file},
                [ch.path for ch in c.changes],
                [ch.path for ch in original.changes],
            )
        )
    )
    # Data a test reads follows the code it exercises back, when the revert undid more.
    data = {p for p in diff if is_test_data(p)} if any(not is_test_data(p) for p in diff) else set()
    moved = ci_moved(
        [p for p, fd in diff.items() if fd.deleted], by_content, lambda: _listing(root, c.sha)
    )
    # One file alone is quiet only when it stayed: a file the revert deleted or created
    # whole is about its existence, not its lines (prettier's import-only test fixtures
    # deleted with the feature they tested).
    quiet_files = {p for p in cosmetic if not (diff[p].deleted or diff[p].created)}
    for ent in ents:
        meta = _metadata(f, original)
        if everything or (ent.file and ent.file in quiet_files):
            meta[SIGNIFICANCE] = TRIVIAL  # this entity's file only changed cosmetically
        if ent.tree:
            meta["tree"], meta["files"] = ent.tree, ent.files
            # Nobody hand-edits a vendored, generated or asset tree: a real undo,
            # history, but nothing to warn anyone of (`cairn.significance.quiet`).
            meta[SIGNIFICANCE] = TRIVIAL
        elif not ent.whole:
            meta["part"] = "body"  # lines inside an entity that stayed
        if ent.file and (notes(ent.file) or release_tooling(ent.file)):
            # A changelog line follows the code back; a release script is bookkeeping.
            meta[SIGNIFICANCE] = TRIVIAL
        if ent.file in data or ent.file in moved:
            meta[SIGNIFICANCE] = TRIVIAL  # a test's data; a CI service left for another
        if ent.before and ent.after and ent.before != ent.after:
            meta["from"], meta["to"] = ent.before, ent.after  # a version taken back
        prints = fingerprint(ent.lines) or fingerprint(ent.imports)
        prints += [RESTORED + h for h in fingerprint(ent.restored)]
        if prints:
            meta[PRINT_KEY] = " ".join(prints)
            if ent.file and not is_code(ent.file):
                meta[SCOPE_KEY] = "text"  # prose and data never block code
        if ent.whole and ent.kind != "file" and ent.file:
            taken[(c.sha, ent.path)] = TakenOut(c, ent.path, ent.kind, ent.file)
        yield _proposal(c, original, "revert", ent, meta)


def _lock_dependency(root: Path, f: Found, original: Commit | None) -> Entity | None:
    """The dependency a revert of a bump took back out of lock files only
    (`cairn.importers.git_lockdeps`); its lock diff is read only for such a revert (a
    lock file is a tree, whose diff is otherwise never read)."""
    from cairn.importers.git_lockdeps import lock_dependency

    sha = f.revert.sha
    return lock_dependency(
        f.revert, original, f.files, lambda paths: read_diffs(root, [sha], paths).get(sha, {})
    )


def _listing(root: Path, sha: str) -> list[str]:
    """The paths of commit `sha`'s tree."""
    return git(root, "ls-tree", "-r", "--name-only", sha, "--", check=False).splitlines()


def _proposal(
    c: Commit,
    original: Commit | None,
    kind: str,
    ent: Entity,
    meta: dict[str, object],
    supersedes_key: str | None = None,
) -> Proposed:
    """One revert (or, for a revert of a revert, supersede) event of commit `c`."""
    return Proposed(
        source_key=f"{SOURCE}:{c.sha}:{ent.path}",
        type=kind,
        entity=ent.path,
        entity_kind=ent.kind,
        reasoning=reasoning(c, original),
        occurred_at=c.date,
        author=c.author,
        commit=c.sha,
        metadata=meta,
        supersedes_key=supersedes_key,
    )


def _reintroduced(back: Reintroduced) -> Proposed:
    """The supersede a re-introduction that stayed stands for (`git_reintroduced`)."""
    t, c = back.taken, back.commit
    why = (
        f"{c.subject}\n\n{t.entity} came back in this commit and stayed for {back.commits} "
        f"commits over {back.days} days: the revert {t.revert.sha[:10]} "
        f"(`{t.revert.subject}`) no longer holds in practice."
    )
    return Proposed(
        source_key=f"{SOURCE}:reintroduced:{c.sha}:{t.entity}",
        type="supersede",
        entity=t.entity,
        entity_kind=t.kind,
        reasoning=why,
        occurred_at=c.date,
        author=c.author,
        commit=c.sha,
        metadata={
            "found_by": "reintroduced",
            "reverted_by": t.revert.sha,
            "survived_commits": back.commits,
            "survived_days": back.days,
        },
        supersedes_key=f"{SOURCE}:{t.revert.sha}:{t.entity}",
    )


def _chain(f: Found, found: dict[str, Found], by_sha: dict[str, Commit]) -> int:
    """How many reverts deep `f` is (1: reverts a plain change; 2: a revert of a revert)."""
    depth = 1
    seen = {f.revert.sha}
    cur = f.original
    while cur is not None and cur in found and cur not in seen:
        seen.add(cur)
        depth += 1
        cur = found[cur].original
    return depth


def _changed_lines(
    diff: dict[str, FileDiff], files: frozenset[str] | None
) -> tuple[dict[str, tuple[list[str], list[str]]], bool]:
    """(path -> (removed, added) lines of a revert's undone files, whether every one of
    them could be read), for `cairn.significance`: a binary or huge file is left out
    (never cosmetic), and a revert with one is never cosmetic as a whole."""
    out: dict[str, tuple[list[str], list[str]]] = {}
    judged = True
    for path, fd in diff.items():
        if files is not None and path not in files:
            continue
        if fd.binary or fd.huge:
            judged = False
            continue
        out[path] = (
            [t for _n, t in sorted(fd.removed.items())],
            [t for _n, t in sorted(fd.added.items())],
        )
    return out, judged


def _metadata(f: Found, original: Commit | None) -> dict[str, object]:
    meta: dict[str, object] = {"found_by": f.found_by, "revert_subject": f.revert.subject}
    if f.share is not None:
        meta["share"] = f"{round(f.share * 100)}%"  # the log keeps no floats
    if f.squash:
        meta["squash"] = True
    if f.original:
        meta["reverted_commit"] = f.original
    if f.named:
        meta["also_reverted"] = list(f.named)  # the other commits a squash's body names
    if f.traced_by:
        meta["reverted_commit_by"] = f.traced_by  # named by git blame, not the message
    if f.untraced:
        meta["reverted_commit_unknown"] = f.untraced
    if original is not None:
        meta["original_subject"] = original.subject
    return meta


def _has_commit(root: Path, sha: str) -> bool:
    return bool(git(root, "rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}", check=False))


def _clipped(f: Found, original: Commit | None) -> list[Skipped]:
    """The summary's word on each message of this revert that was cut to the limits."""
    return [
        Note(
            f"{c.sha[:10]} {c.subject[:80]}",
            f"its message is {c.clipped:,} characters: the log keeps the first "
            f"{MAX_STORED_TEXT:,} (subject {MAX_SUBJECT:,}), marked as clipped",
        )
        for c in (f.revert, original)
        if c is not None and c.clipped
    ]


def reasoning(revert: Commit, original: Commit | None) -> str:
    """Why, in the order worth reading: the revert's own words beyond git's boilerplate,
    the reverted change's subject and body, then the issue/PR references."""
    parts: list[str] = [revert.subject]
    own = _body(revert)
    if own:
        parts.append(own)
    if original is not None:
        text = f"Reverted change: {original.subject}"
        body = _body(original)
        parts.append(text + (f"\n{body}" if body else ""))
    refs = list(
        dict.fromkeys(_REF.findall(revert.message + "\n" + (original.message if original else "")))
    )
    if refs:
        parts.append("Refs: " + " ".join(refs[:12]))
    text = "\n\n".join(parts)
    return text if len(text) <= MAX_REASONING else text[: MAX_REASONING - 1] + "…"


def _quoted_subject(subject: str) -> str | None:
    """The reverted commit's subject as git's `Revert "..."` quotes it, when the
    reverted commit itself was not found."""
    from cairn.importers.git_reverts import REVERT_SUBJECT

    m = REVERT_SUBJECT.match(subject)
    return m.group(1) if m else None


def _body(c: Commit) -> str:
    lines = c.message.split("\n")[1:]
    kept = [ln for ln in lines if not _BOILERPLATE.match(ln) and not _TRAILER.match(ln)]
    return "\n".join(kept).strip()


def _load_commit(root: Path, sha: str) -> Commit | None:
    """A commit outside the `--since` window (the target of a revert inside it), read
    from its object by length, like every other commit (`read_history`)."""
    if not re.fullmatch(r"[0-9a-f]{40}(?:[0-9a-f]{24})?", sha):
        return None
    try:
        out = gitcmd.run(root, "cat-file", "commit", sha)
    except OSError:
        return None
    if out.returncode != 0:
        return None
    commit = parse_commit_object(sha, out.stdout)
    # the parents git sees (hex only): a shallow clone's boundary has none in its view
    commit.parents = git(root, "log", "-1", "--format=%P", sha, "--", check=False).split()
    return commit


def imported_counts(keys: set[str]) -> dict[str, int]:
    """sha -> number of events already imported from it, from `git:<sha>:<entity>` keys."""
    counts: dict[str, int] = {}
    for key in keys:
        sha = key.split(":", 2)[1]
        counts[sha] = counts.get(sha, 0) + 1
    return counts
