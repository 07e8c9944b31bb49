"""Vendored, generated and static-asset trees: one decision, not one per file.

A revert that takes back a vendored SDK, a regenerated bundle or an icon font touches
thousands of files nobody edits by hand; one event per file floods the log, the digest
and the gate. Such files are recognised here (the one place for this rule) and a revert
records one event per tree, on its directory, with the number of files.

A file belongs to a tree when:

- `.gitattributes` says `linguist-vendored` or `linguist-generated` (GitHub's own
  convention; `=false` takes a file *out* of a tree the patterns below would put it in;
  such a file's directory is a tree only when every file in it is one),
  read through `git check-attr --cached` (the attributes of the current index, applied
  to every commit: git 2.39 has no `--source`);
- a directory on its path is a usual vendor root (`vendor/`, `third_party/`,
  `node_modules/`, `bower_components/`, `dist/`, ...): the tree is that directory and
  the one below it (`static/vendor/sdk/`), so two SDKs stay two decisions;
- it is a translation catalog (`.po`, `.mo`, `.pot`, or a `.yml` / `.json` under a
  `locale(s)/` directory, as Rails and JavaScript keep them): the tree is its
  `locale/` directory (one per app), when that directory holds nothing else; the
  strings of a reverted feature follow its code back;
- it is a lock file (`Gemfile.lock`, `package-lock.json`, `yarn.lock`, `go.sum`, ...):
  written by the package manager from the manifest, whose own lines carry the
  dependency verdicts (`cairn.importers.git_deps`); or a schema dumped from the
  migrations (`db/schema.rb`, `db/structure.sql`), whose migrations carry the verdicts;
- it is in a directory a tool writes whole: Jest's test snapshots (`__snapshots__/`),
  an IDE's project files (`.idea/`, `.vscode/`); the tree is that directory. A
  `.snap` / `.golden` file elsewhere is a test snapshot too (grouped like an asset): a
  test's recorded output follows the code it tests back;
- it is minified (`*.min.js`, `*-min.css`, source maps), a font or image, or a quiet
  asset (a spelling word list, a diagram, a design file, an editor's swap file): the tree
  is its directory, when the revert touches at least `MIN_GROUP` such files there and
  every file in that directory is of a tree (an event on a directory covers all of
  it).

- it is a copy of another project with no marker (`copied_in`): its header names
  copyright holders the repository's own licence does not (rubygems.org's copied
  rubygems test helpers, "Copyright 2006 by Chad Fowler, ..." beside an MIT-LICENSE of
  Nick Quaranto's), or the revert says it takes out or puts back a vendored copy and
  the file is added or deleted whole ("Remove vendored rubygems codebase"); grouped
  like a `linguist-vendored` file. Such a licence file below the root makes its whole
  directory a copy (wagtail's bundled `l18n`, whose code files carry no header).

A file of a tree's kind that makes no tree (one alone, or beside hand-written files)
is still nobody's decision: it is a tree of one, an event on the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

VENDOR_DIRS = frozenset(
    {
        "vendor",
        "vendors",
        "vendored",
        "_vendor",  # pip's
        "third_party",
        "third-party",
        "thirdparty",
        "node_modules",
        "bower_components",
        "dist",
    }
)
ASSET_SUFFIXES = frozenset(
    {
        ".woff", ".woff2", ".ttf", ".otf", ".eot",  # fonts
        ".png", ".jpg", ".jpeg", ".gif", ".ico", ".webp", ".bmp", ".tif", ".tiff", ".svg",
        ".map",  # source maps
        # Quiet assets: drawn or spelled, never a decision in code. Diagrams, design
        # files, an editor's swap files.
        ".dot", ".gv",  # Graphviz: rubygems.org's `doc/erd.dot`, an ERD drawn by a rake task
        ".drawio", ".dio", ".puml", ".plantuml", ".pu", ".mermaid", ".mmd", ".excalidraw",
        ".sketch", ".fig", ".psd", ".xd", ".ai", ".xcf",
        ".swp", ".swo",
    }
)  # fmt: skip
# Spelling word lists (cspell's `cspell.json`, `project-words.txt`, `.cspell/`; Sphinx's
# `spelling_wordlist.txt`; `.wordlist.txt`; hunspell's `.dic`): a word allowed is no
# decision ("Add blog post for experimental ternaries" reverted takes its words back).
# And what an editor or a file manager leaves behind (`.DS_Store`). And a tool's ignore
# list (`.gitignore`, `.npmignore`, `.dockerignore`, `.prettierignore`): which files a
# tool skips follows the files back (prettier's "Remove .npmignore and update .ignore",
# requests' stray `.gitignore` line taken out of a PR, both labelled trivial).
_QUIET_NAMES = re.compile(
    r"^(\.?cspell[\w.-]*\.(json|ya?ml|txt)|[\w.-]*wordlist[\w.-]*|[\w.-]*\.dic|\.spelling|"
    r"project-words\.txt|\.DS_Store|\.[\w-]*ignore)$",
    re.I,
)
_QUIET_DIRS = frozenset({".cspell", "cspell-dicts"})
# Directories a tool writes whole: Jest's test snapshots, JetBrains' and VS Code's
# project files.
GENERATED_DIRS = frozenset({"__snapshots__", ".idea", ".vscode"})
# Test snapshots elsewhere.
SNAPSHOT_SUFFIXES = frozenset({".snap", ".golden"})
_MINIFIED = re.compile(r"[.-]min\.(js|mjs|css)$", re.I)
# Translation catalogs: written by `makemessages` and a translation service's sync
# ("Fetch new translations from Transifex" puts hundreds back to older versions).
CATALOG_SUFFIXES = frozenset({".po", ".mo", ".pot"})
LOCALE_DIRS = frozenset({"locale", "locales"})
DATA_CATALOG_SUFFIXES = frozenset({".yml", ".yaml", ".json"})  # only inside a locale dir
LOCK_FILES = frozenset(
    {
        "Gemfile.lock",
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "go.sum",
        "Cargo.lock",
        "composer.lock",
        "poetry.lock",
        "Pipfile.lock",
        "uv.lock",
        "mix.lock",
        "Podfile.lock",
    }
)
# A database schema dumped from the migrations (Rails' `db/schema.rb`, `db/structure.sql`,
# and a second database's `db/cache_schema.rb`): written by `db:migrate` like a lock
# file by the package manager, so its revert is no decision of its own; the migration
# beside it is (rubygems.org: "announcements", "oauth_applications.owner_id" were
# verdicts on schema.rb lines of reverted migrations).
_SCHEMA_DUMP = re.compile(r"^(?:\w+_)?(?:schema\.rb|structure\.sql)$")
MIN_GROUP = 2  # assets in one directory that make a tree of it
ATTRIBUTES = ("linguist-vendored", "linguist-generated")

Runner = Callable[[list[str], bytes], str]  # git args, stdin -> stdout ("" on failure)


@dataclass
class Tree:
    """One tree a revert touched: its directory and the files of it the revert changed."""

    path: str  # the directory, ending in `/`; or a generated file that makes no tree
    kind: str  # vendored | generated | asset
    files: list[str] = field(default_factory=list)


def attributes(run: Runner, paths: Iterable[str]) -> dict[str, str]:
    """path -> `vendored` / `generated` / `no` (an explicit `=false`), for the paths
    `.gitattributes` says something about; one `git check-attr` for all of them."""
    names = sorted(set(paths))
    if not names:
        return {}
    out = run(
        ["check-attr", "--cached", "-z", "--stdin", *ATTRIBUTES],
        b"".join(n.encode() + b"\0" for n in names),
    )
    said: dict[str, str] = {}
    parts = out.split("\0")
    for i in range(0, len(parts) - 2, 3):
        path, attr, value = parts[i], parts[i + 1], parts[i + 2]
        if value in ("set", "true"):
            said[path] = attr.removeprefix("linguist-")
        elif value in ("unset", "false") and path not in said:
            said[path] = "no"
    return said


def _rule(
    path: str, said: dict[str, str], bundles: frozenset[str] = frozenset()
) -> tuple[str, str] | None:
    """(tree directory, kind) for a file that belongs to a tree by its attributes or
    its path alone (`bundles`: more vendor roots, from `bundle_roots`); None otherwise."""
    pure = PurePosixPath(path)
    parts = pure.parts
    attr = said.get(path)
    if attr == "no":
        return None
    for i, part in enumerate(parts[:-1]):
        if part.lower() in VENDOR_DIRS or (bundles and "/".join(parts[: i + 1]) + "/" in bundles):
            depth = i + 2 if i + 2 < len(parts) else i + 1  # `vendor/<name>/`
            return "/".join(parts[:depth]) + "/", attr or "vendored"
    for i, part in enumerate(parts[:-1]):
        if part in GENERATED_DIRS:
            return "/".join(parts[: i + 1]) + "/", "generated"
    parent = "/".join(parts[:-1]) + "/" if len(parts) > 1 else ""
    if pure.suffix.lower() in SNAPSHOT_SUFFIXES:
        return parent, "generated"
    if pure.name in LOCK_FILES:
        return parent, "generated"
    if len(parts) > 1 and parts[-2] == "db" and _SCHEMA_DUMP.match(pure.name):
        return parent, "generated"
    suffix = pure.suffix.lower()
    if suffix in CATALOG_SUFFIXES or suffix in DATA_CATALOG_SUFFIXES:
        for i in range(len(parts) - 2, -1, -1):  # the innermost: `wagtail/locales/` is an app
            if parts[i].lower() in LOCALE_DIRS:
                return "/".join(parts[: i + 1]) + "/", "generated"  # `app/locale/`
        if suffix in CATALOG_SUFFIXES:
            return parent, "generated"
    if attr in ("vendored", "generated"):
        return parent, attr
    if _MINIFIED.search(pure.name) or pure.suffix.lower() in ASSET_SUFFIXES:
        return parent, "asset"
    if _QUIET_NAMES.match(pure.name) or any(p.lower() in _QUIET_DIRS for p in parts[:-1]):
        return parent, "asset"
    return None


MAX_LISTED = 100_000  # files listed to check that a directory is wholly one tree


MAX_COPIED = 2_000  # a revert's files read for a foreign header; beyond, none is
# Name words of a copyright line that say nothing about who holds it.
_NOT_NAMES = frozenset(
    {
        "and", "others", "the", "authors", "author", "contributors", "contributor", "all",
        "rights", "reserved", "inc", "llc", "ltd", "gmbh", "see", "for", "license",
        "licence", "copyright", "its", "affiliates", "project", "team", "permissions",
        "with", "without",
    }
)  # fmt: skip
_HOLDER = re.compile(
    r"copyright\s*(?:\(c\)|©)?\s*(?:19|20)\d\d(?:\s*[-,–]\s*(?:19|20)?\d\d)*\s*,?\s*(?:by\s+)?(.*)",
    re.I,
)
_HEADER_LINES = 15  # a file's own notice is at its top
# "Vendored", "vendoring", "vendorize": not a bare "vendor" ("vendor prefix", "vendor/").
_VENDOR_WORDS = re.compile(r"\bvendor(?:ed|ing|i[sz](?:e|ed|ing))\b", re.I)
_LICENCE_NAME = re.compile(r"^(licen[cs]e|copying)([-_.][\w.-]*)?$", re.I)


def _holders(line: str) -> frozenset[str]:
    """The name words of a copyright line ("Copyright 2006 by Chad Fowler, Rich
    Kilmer" -> chad, fowler, rich, kilmer); empty when it names nobody."""
    m = _HOLDER.search(line)
    if not m:
        return frozenset()
    words = re.findall(r"[^\W\d_]{3,}", m.group(1).casefold())
    return frozenset(w for w in words if w not in _NOT_NAMES)


def copied_in(
    run: Runner, notices: Notices, rev: str, paths: list[str], words: str = ""
) -> set[str]:
    """The files among a revert's `paths` that are another project's code copied in
    without a vendor marker (`rev` is the tree before the revert; the revert's own tree
    is read too, for files it puts back). By a header naming holders the repository's
    own licence does not name (both with a year: a licence template names nobody, and
    then nothing is foreign; the licence at HEAD when there was none then), or, when
    the revert's `words` say "vendored", by being added or deleted whole. The notices
    are read through the import's blob reader (`Notices`); none past `MAX_COPIED` files."""
    if not paths or len(paths) > MAX_COPIED:
        return set()
    after = rev.removesuffix("^")
    theirs: dict[str, frozenset[str]] = {}
    for tree in (rev, after):
        for path in paths:
            names = notices.header(tree, path)
            if names:
                theirs[path] = theirs.get(path, frozenset()) | names
    copied: set[str] = set()
    if theirs:  # a licence only says something against a header that names someone
        # A licence file the revert itself changed is one of its files, not the licence.
        ours = notices.licence(rev, paths) | notices.licence(after, paths)
        # The licence of today when the revert's time had none (rubygems.org got its
        # MIT-LICENSE a week after the copied helpers left): read only then.
        ours = ours or notices.licence("HEAD", paths)
        copied = {p for p, names in theirs.items() if ours and not (names & ours)}
    # Another project's licence below the root marks its directory as that project's
    # copy, files without a header of their own too (wagtail's bundled l18n, unbundled
    # for the PyPI package: only its LICENSE.txt named its author).
    homes = {p.rsplit("/", 1)[0] + "/" for p in copied if "/" in p and _licence(p)}
    copied |= {p for p in paths if p.startswith(tuple(homes))}
    if _VENDOR_WORDS.search(words):
        before = _listed(run, rev, paths)
        now = _listed(run, after, paths)
        copied |= {p for p in paths if (p in before) != (p in now)}
    return copied


def _licence(path: str) -> bool:
    """A licence file by its name (`LICENSE.txt`, `COPYING`)."""
    return _LICENCE_NAME.match(path.rsplit("/", 1)[-1]) is not None


Reader = Callable[[str, str], "bytes | None"]  # (rev, path) -> the blob, None if missing


class Notices:
    """Copyright holders named in files' headers and in the licence files at a tree's
    root, read through one blob reader (the import's `git cat-file --batch`): no git
    process per revert, and each version of a licence file read once."""

    def __init__(self, read: Reader, oid_bytes: int = 20) -> None:
        self._read = read
        self._oid_bytes = oid_bytes  # 32 in a SHA-256 repository
        self._licences: dict[bytes, frozenset[str]] = {}  # licence blob id -> holders

    def header(self, rev: str, path: str) -> frozenset[str]:
        """The holders the file's own notice names (its first `_HEADER_LINES` lines)."""
        blob = self._read(rev, path)
        if blob is None or _binary(blob):
            return frozenset()
        return _named(blob.split(b"\n", _HEADER_LINES)[:_HEADER_LINES])

    def licence(self, rev: str, besides: Iterable[str] = ()) -> frozenset[str]:
        """The holders the licence files at the root of `rev` name (`*licence*` or
        `*license*` in any case, `COPYING*`), but for those named in `besides`."""
        tree = self._read(f"{rev}^{{tree}}", "")
        skip = {p.encode() for p in besides if "/" not in p}
        out: frozenset[str] = frozenset()
        for name, oid in _root_files(tree or b"", self._oid_bytes):
            if name in skip or not _LICENCE_FILE.match(name):
                continue
            if oid not in self._licences:
                blob = self._read(oid.hex(), "")
                binary = blob is None or _binary(blob)
                self._licences[oid] = frozenset() if binary else _named((blob or b"").split(b"\n"))
            out |= self._licences[oid]
        return out


# A licence file at the root: `*licence*` or `*license*` in any case, `COPYING*`.
_LICENCE_FILE = re.compile(rb"^(?:.*(?i:licen[cs]e).*|COPYING.*)$", re.S)
_COPYRIGHT = re.compile(rb"copyright.*(19|20)[0-9]{2}", re.I)


def _binary(blob: bytes) -> bool:
    """Binary as git takes it: a NUL in the first 8,000 bytes."""
    return b"\0" in blob[:8000]


def _named(lines: list[bytes]) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for line in lines:
        if _COPYRIGHT.search(line):
            out |= _holders(line.decode("utf-8", "replace"))
    return out


def _root_files(tree: bytes, size: int) -> Iterable[tuple[bytes, bytes]]:
    """(name, blob id) of the files (and links) a raw tree object lists."""
    i = 0
    while i < len(tree):
        space = tree.index(b" ", i)
        nul = tree.index(b"\0", space)
        mode, name, oid = tree[i:space], tree[space + 1 : nul], tree[nul + 1 : nul + 1 + size]
        i = nul + 1 + size
        if mode.startswith((b"100", b"120")):
            yield name, oid


def _listed(run: Runner, rev: str, paths: list[str]) -> set[str]:
    out = run(["ls-tree", "-r", "-z", "--name-only", rev, "--", *paths], b"")
    return {n for n in out.split("\0") if n}


def trees_of(
    run: Runner,
    notices: Notices,
    rev: str,
    paths: Iterable[str],
    said: dict[str, str],
    words: str = "",
) -> tuple[list[Tree], list[str]]:
    """The trees among a revert's files (`rev` is the tree before it), and the files
    outside every tree.

    A tree found by a file's own kind (an attribute, an asset) is its directory only
    when every file there is of a tree too, checked with `git ls-tree` at `rev`: an
    event on a directory covers all of it, code included. A file of a tree's kind
    that makes no tree (one image, a generated file beside code, anything at the
    repository's root) is a tree of one: an event on the file, quiet all the same.
    """
    paths = list(paths)
    bundles = bundle_roots(run, rev, paths)
    # Copies of another project are vendored as if `.gitattributes` said so, for the
    # directory checks too (`copies`).
    copies = frozenset(
        copied_in(run, notices, rev, [p for p in paths if _rule(p, said, bundles) is None], words)
    )
    said = said | dict.fromkeys(copies, "vendored")
    groups: dict[str, Tree] = {}
    rest: list[str] = []
    out: dict[str, Tree] = {}
    for path in paths:
        hit = _rule(path, said, bundles)
        if hit is None:
            rest.append(path)
            continue
        if not hit[0]:  # at the root: no directory tree, a file of its kind alone
            out[path] = Tree(path, hit[1], [path])
            continue
        tree = groups.setdefault(hit[0], Tree(hit[0], hit[1]))
        tree.files.append(path)
    whole: dict[tuple[str, str], bool] = {}

    def wholly(directory: str, kind: str) -> bool:
        if (directory, kind) not in whole:
            whole[directory, kind] = _wholly_tree(run, rev, directory, kind, bundles, copies)
        return whole[directory, kind]

    for tree in groups.values():
        by_root = _rooted(tree.path, bundles)
        few = tree.kind == "asset" and len(tree.files) < MIN_GROUP
        if not by_root and (few or not wholly(tree.path, tree.kind)):
            for path in tree.files:
                out[path] = Tree(path, tree.kind, [path])
            continue
        if not by_root and said.get(tree.files[0]) in ("vendored", "generated"):
            # A generated tree spans many directories (`sdk/**` in .gitattributes):
            # lift it to the highest directory still wholly of that kind.
            top = tree.path
            parent = PurePosixPath(top).parent
            while str(parent) != "." and wholly(f"{parent}/", tree.kind):
                top = f"{parent}/"
                parent = parent.parent
            tree.path = top
        merged = out.setdefault(tree.path, Tree(tree.path, tree.kind))
        merged.files.extend(tree.files)
    return sorted(out.values(), key=lambda t: t.path), rest


def bundle_roots(run: Runner, rev: str, paths: Iterable[str]) -> frozenset[str]:
    """The `<package>/packages/` directories among `paths` whose parent is a Python
    package at `rev`: Python's convention for bundled third-party code with no marker
    (`requests/packages/urllib3/`, `urllib3/packages/six.py`). A top-level `packages/`,
    or one in a directory that is no Python package, stays first-party: it is the
    code of every JavaScript monorepo."""
    found: set[str] = set()
    for path in paths:
        parts = PurePosixPath(path).parts
        found.update(
            "/".join(parts[: i + 1]) + "/"
            for i, part in enumerate(parts[:-1])
            if part == "packages" and i >= 1
        )
    return frozenset(
        d
        for d in sorted(found)
        if run(
            ["ls-tree", "--name-only", rev, "--", f"{d.removesuffix('packages/')}__init__.py"], b""
        )
    )


def _rooted(directory: str, bundles: frozenset[str] = frozenset()) -> bool:
    """A tree by where it is (a vendor root, a tool's directory), whatever it holds."""
    parts = PurePosixPath(directory).parts
    return any(p.lower() in VENDOR_DIRS or p in GENERATED_DIRS for p in parts) or any(
        "/".join(parts[: i + 1]) + "/" in bundles for i in range(len(parts))
    )


def _wholly_tree(
    run: Runner,
    rev: str,
    directory: str,
    kind: str,
    bundles: frozenset[str] = frozenset(),
    copies: frozenset[str] = frozenset(),
) -> bool:
    """Every file under `directory` at `rev` is of a `kind` tree by its own attribute or
    name (none under a vendor root, which is a tree of its own)."""
    listed = [
        n
        for n in run(["ls-tree", "-r", "-z", "--name-only", rev, "--", directory], b"").split("\0")
        if n
    ]
    if not listed or len(listed) > MAX_LISTED:
        return False
    said = attributes(run, listed) | dict.fromkeys(copies, "vendored")
    return all(
        (hit := _rule(n, said, bundles)) is not None
        and hit[1] == kind
        and not _rooted(hit[0], bundles)
        for n in listed
    )
