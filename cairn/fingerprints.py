"""Change fingerprints: recognise a reverted change when it comes back, under any name.

A revert event keeps hashes of the normalised lines the revert took out (never the
code itself): `metadata.fingerprint` is a space-separated list of 8-hex-digit hashes.
When a change adds back most of the lines one revert took out, wherever they land
(another file, a renamed function), that is the reverted change returning.

Normalisation drops all whitespace and a trailing `,`/`;` (so re-indented code and a
re-ordered argument list still match) and keeps identifiers. Lines too common to mean
anything (`}`, `pass`, `return None`, `else:`) are not fingerprinted at all, and a
match of only one or two lines counts only inside the reverted entity itself, so
boilerplate never matches alone.

Only lines that carry meaning in their file's language are fingerprinted
(`code_rows`): comments, imports and the lines of a multi-line string (a docstring, a
licence header) say nothing about a decision, and a licence header is in every file.
A file that is not code (LICENSE, docs, data: `is_code`) is fingerprinted apart
(`metadata.print_scope: text`), and its lines only ever match lines added to files that
are not code either: prose coming back never blocks code.

A revert also puts lines back (the change it undid had removed them). Those are
fingerprinted too, prefixed `+` in the same `metadata.fingerprint` list, when the
revert mostly restores (`restores_mostly`): taking them out again is the reverted
removal coming back, a *re-removal*, matched against the lines a change removes
(`match_removals`) at the same severity.

The importer (which writes fingerprints) and `cairn check` / the language server
(which match them) share this one module.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from tree_sitter import Tree

__all__ = [
    "DEFAULT_THRESHOLD",
    "PRINT_KEY",
    "AddedLine",
    "BringBack",
    "RevertPrint",
    "all_hashes",
    "bring_back_findings",
    "candidate_lines",
    "code_rows",
    "fingerprint",
    "is_code",
    "is_comment_line",
    "is_import_line",
    "line_hash",
    "match_prints",
    "match_removals",
    "normalise",
    "print_words",
    "prints_from_reverts",
    "restores_mostly",
    "row_kinds",
]

# Share of a revert's fingerprinted lines a change must bring back (bench/recall.py).
DEFAULT_THRESHOLD = 0.6
PRINT_KEY = "fingerprint"  # where a revert event's metadata keeps its change's line hashes
SCOPE_KEY = "print_scope"  # "text": the lines came from a file that is not code
RESTORED = "+"  # prefix of the hash of a line the revert put back (a re-removal's print)
# Below this many matched lines, a match counts only inside the reverted entity.
MIN_LINES_ANYWHERE = 3
MAX_HASHES = 400  # per event: a bigger revert is fingerprinted by a sample of its lines

_WS = re.compile(r"\s+")
_ALNUM = re.compile(r"[A-Za-z0-9_]")
# Normalised lines that appear everywhere; they say nothing about a particular change.
_COMMON = frozenset(
    {
        "returnNone",
        "returnnil",
        "returnnull",
        "returnfalse",
        "returntrue",
        "returnFalse",
        "returnTrue",
        "returnerr",
        "return",
        "else:",
        "}else{",
        "try:",
        "finally:",
        "pass",
        "break",
        "continue",
        "iferr!=nil{",
        "end",
        "<div>",
        "</div>",
        "defaultValue:",
        "exportdefault{",
        "self.assertTrue(True)",
    }
)


def normalise(line: str) -> str:
    """Whitespace-insensitive form of a line; a trailing comma or semicolon dropped."""
    return _WS.sub("", line).rstrip(",;")


def significant(norm: str) -> bool:
    """Whether a normalised line says enough to identify a change."""
    return len(norm) >= 6 and len(_ALNUM.findall(norm)) >= 4 and norm not in _COMMON


def line_hash(norm: str) -> str:
    """8 hex digits of BLAKE2b: enough to tell a revert's lines apart, too short to
    carry the code."""
    return hashlib.blake2b(norm.encode("utf-8", "replace"), digest_size=4).hexdigest()


def fingerprint(lines: Iterable[str]) -> list[str]:
    """Sorted distinct hashes of the significant lines (at most MAX_HASHES)."""
    hashes = sorted({line_hash(n) for n in map(normalise, lines) if significant(n)})
    if len(hashes) > MAX_HASHES:
        step = len(hashes) / MAX_HASHES
        hashes = [hashes[int(i * step)] for i in range(MAX_HASHES)]
    return hashes


# Extensions of source code (with or without a grammar here): lines in any other file
# (prose, licences, data, configuration) are text, whose return never blocks code.
_CODE_EXTENSIONS = frozenset(
    [
        ".py",
        ".pyi",
        ".pyx",
        ".js",
        ".jsx",
        ".mjs",
        ".cjs",
        ".ts",
        ".mts",
        ".cts",
        ".tsx",
        ".go",
        ".rs",
        ".java",
        ".kt",
        ".kts",
        ".scala",
        ".rb",
        ".rake",
        ".sql",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".cxx",
        ".hpp",
        ".hh",
        ".m",
        ".mm",
        ".cs",
        ".fs",
        ".php",
        ".swift",
        ".dart",
        ".lua",
        ".pl",
        ".pm",
        ".r",
        ".jl",
        ".ex",
        ".exs",
        ".erl",
        ".hrl",
        ".hs",
        ".ml",
        ".mli",
        ".clj",
        ".cljs",
        ".elm",
        ".zig",
        ".nim",
        ".sh",
        ".bash",
        ".zsh",
        ".ps1",
        ".vue",
        ".svelte",
        ".html",
        ".htm",
        ".jinja",
        ".j2",
        ".erb",
        ".haml",
        ".twig",
        ".css",
        ".scss",
        ".sass",
        ".less",
        ".graphql",
        ".gql",
        ".proto",
    ]
)
_CODE_NAMES = frozenset({"Makefile", "Rakefile", "Dockerfile", "Containerfile", "Justfile"})


def is_code(path: str) -> bool:
    """Whether a file is source code (by its name; no read): its lines can state a
    decision. LICENSE, README, docs, data and manifests are not."""
    name = path.rsplit("/", 1)[-1]
    if name in _CODE_NAMES or name.startswith("Dockerfile"):
        return True
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in _CODE_EXTENSIONS


# Whole-line forms where no grammar says: comments (`#define`, `#[derive]`, `#!` are
# code), and imports (with the preprocessor's `#include`).
_COMMENT_LINE = re.compile(
    rb"^\s*(?:"
    rb"#(?!\s*(?:define|undef|if|ifdef|ifndef|elif|else|endif|pragma|error|include)\b)"
    rb"(?!\[)(?!!)"
    rb"|//|/\*|\*(?:\s|/|$)|<!--|-->|\{#|\{%-?\s*(?:end)?comment\b|--(?!-)\s"
    rb")"
)
_IMPORT_LINE = re.compile(
    rb"^\s*(?:"
    rb"import\s|from\s+\S+\s+import\s|\#\s*include\b|using\s+[\w.]+\s*;|use\s+[\w:{}, *]+;"
    rb"|require(?:_relative)?[\s(]|package\s+[\w.]+\s*;?\s*$"
    rb")"
)
# Node kinds (besides anything named "comment") whose lines say nothing on their own.
_IMPORT_KINDS = frozenset(
    {
        "import_statement",
        "import_from_statement",
        "future_import_statement",
        "import_declaration",
        "package_clause",
        "package_declaration",
        "use_declaration",
        "extern_crate_declaration",
    }
)
_STRING_KINDS = frozenset(
    {"string", "template_string", "string_literal", "raw_string_literal", "heredoc_body"}
)
_PUNCT = frozenset(b" \t\r\n()[]{},;:.")  # what may stay outside a quiet node


def is_comment_line(line: str) -> bool:
    """A whole-line comment, by its form alone (no grammar)."""
    return _COMMENT_LINE.match(line.encode("utf-8", "replace")) is not None


def is_import_line(line: str) -> bool:
    """An import (`import`, `from … import`, `use`, `#include`, …), by its form alone."""
    return _IMPORT_LINE.match(line.encode("utf-8", "replace")) is not None


def code_rows(
    data: bytes | str, path: str, rows: Iterable[int], *, imports: bool = False
) -> set[int]:
    """The rows (0-based) among `rows` that carry meaning in the file's language.

    Dropped: whole-line comments, import/package/use lines (unless `imports`: for the
    entity whose only change they are, they are what it was about), and lines inside a
    string spanning several lines (docstrings, licence headers), as the file's
    tree-sitter grammar says; plus the whole-line comment and import forms, for
    languages with no grammar here. A file that is not code keeps every row (its
    prints are matched only against text, see `is_code`). Work is proportional to the
    rows asked about: the tree is walked only where they are.
    """
    code, import_rows = row_kinds(data, path, rows)
    return code | import_rows if imports else code


def row_kinds(
    data: bytes | str, path: str, rows: Iterable[int], *, tree: Tree | None = None
) -> tuple[set[int], set[int]]:
    """(the rows among `rows` that carry meaning, the rows that are imports): one parse
    for both (`code_rows`). `tree` is the file's syntax tree when the caller has it
    (`cairn.indexer.document.index_text_and_tree`): the file is then not parsed again."""
    wanted = sorted(set(rows))
    if not wanted or not is_code(path):
        return set(wanted), set()
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    lines = raw.split(b"\n")
    quiet: set[int] = set()
    import_rows: set[int] = set()
    for r in wanted:
        if r < len(lines):
            if _COMMENT_LINE.match(lines[r]):
                quiet.add(r)
            elif _IMPORT_LINE.match(lines[r]):
                import_rows.add(r)
    left = [r for r in wanted if r not in quiet and r not in import_rows]
    if left:
        by_tree, by_tree_imports = _quiet_by_grammar(raw, lines, path, left, tree)
        quiet |= by_tree
        import_rows |= by_tree_imports
    return set(wanted) - quiet - import_rows, import_rows


def _quiet_by_grammar(
    raw: bytes, lines: list[bytes], path: str, rows: list[int], tree: Tree | None = None
) -> tuple[set[int], set[int]]:
    """(the rows of `rows` wholly covered, but for punctuation, by comments or
    multi-line strings in the file's syntax tree; those covered only once imports
    count too); nothing when there is no grammar."""
    from cairn.indexer.languages import GRAMMARS, language_for, parser

    language = language_for(path)
    if language not in GRAMMARS or language in ("json", "toml", "yaml"):
        return set(), set()
    if tree is None:
        try:
            tree = parser(language).parse(raw)
        except (ValueError, RuntimeError):
            return set(), set()
    covered: dict[int, list[tuple[int, int, bool]]] = {}  # row -> (start, end, an import)
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        top, bottom = node.start_point[0], node.end_point[0]
        i = bisect.bisect_left(rows, top)
        if i == len(rows) or rows[i] > bottom:
            continue  # no asked-for row inside: never descend
        kind = node.type
        is_import = kind in _IMPORT_KINDS
        if "comment" in kind or is_import or (kind in _STRING_KINDS and bottom > top):
            for r in rows[i : bisect.bisect_right(rows, bottom)]:
                start = node.start_point[1] if r == top else 0
                end = node.end_point[1] if r == bottom else len(lines[r])
                covered.setdefault(r, []).append((start, end, is_import))
            continue
        stack.extend(node.children)
    quiet: set[int] = set()
    import_rows: set[int] = set()
    for r, spans in covered.items():
        line = bytearray(lines[r])
        for start, end, is_import in spans:
            if not is_import:
                line[start:end] = b" " * (end - start)
        if all(b in _PUNCT for b in line):
            quiet.add(r)
            continue
        for start, end, is_import in spans:
            if is_import:
                line[start:end] = b" " * (end - start)
        if all(b in _PUNCT for b in line):
            import_rows.add(r)
    return quiet, import_rows


def restores_mostly(taken_out: Iterable[str], put_back: Iterable[str]) -> bool:
    """Whether a revert puts back at least as many fingerprintable lines as it takes
    out: the change it undid was mostly a removal, and removing them again (a
    re-removal) is that change returning. A revert that mostly takes lines out keeps
    only the print of what it took out (its restored lines are the old code a
    re-application rewrites, not a decision)."""
    return len(fingerprint(put_back)) >= max(1, len(fingerprint(taken_out)))


class RevertPrint(msgspec.Struct):
    """All fingerprinted lines of one revert (one commit), over all its events."""

    commit: str
    date: str
    subject: str
    hashes: set[str] = msgspec.field(default_factory=set)
    entities: dict[str, str] = msgspec.field(default_factory=dict)  # entity -> verdict id
    per_entity: dict[str, set[str]] = msgspec.field(default_factory=dict)
    code: bool = True  # the lines came from code (else from text: matched only in text)
    restored: set[str] = msgspec.field(default_factory=set)  # lines it put back (`RESTORED`)
    restored_per_entity: dict[str, set[str]] = msgspec.field(default_factory=dict)


class AddedLine(msgspec.Struct, frozen=True):
    """A line a change adds: where, its text, and the innermost entity around it."""

    file: str
    line: int  # 0-based
    text: str
    entity: str | None


class BringBack(msgspec.Struct, frozen=True):
    """A change that brings back `hits` of the `total` lines one revert took out."""

    revert: RevertPrint
    hits: int
    total: int
    lines: tuple[AddedLine, ...]  # the added (or removed) lines that matched, in file order
    removal: bool = False  # a re-removal: the lines are ones the change takes out again

    @property
    def verdict_id(self) -> str:
        """The verdict the finding is about: the revert's event on the entity where the
        lines came back when there is one, else the revert's first event."""
        for line in self.lines:
            if line.entity in self.revert.entities:
                return self.revert.entities[line.entity]
        return next(iter(self.revert.entities.values()))

    @property
    def entity(self) -> str:
        """The reverted entity this is about (where the lines came back, if reverted)."""
        for line in self.lines:
            if line.entity in self.revert.entities:
                return line.entity
        return next(iter(self.revert.entities))

    def message(self) -> str:
        """`this brings back 9 of the 11 lines reverted on 2024-02-23 (`Revert "…"`, a19bf40)`"""
        subject = self.revert.subject
        if len(subject) > 72:
            subject = subject[:71] + "…"
        if self.removal:
            return (
                f"this takes out again {self.hits} of the {self.total} lines a revert put "
                f"back on {self.revert.date[:10]} (`{subject}`, {self.revert.commit[:7]})"
            )
        return (
            f"this brings back {self.hits} of the {self.total} lines reverted on "
            f"{self.revert.date[:10]} (`{subject}`, {self.revert.commit[:7]})"
        )


def prints_from_reverts(reverts: Iterable[Any]) -> list[RevertPrint]:
    """The open reverts (`Store.open_reverts`) that carry a fingerprint, grouped by the
    revert's commit and by whether the lines came from code (text never blocks code).
    Reverts that do not count (`cairn.significance.quiet`) are left out."""
    from cairn.significance import quiet

    by_commit: dict[tuple[str, bool], RevertPrint] = {}
    for event in reverts:
        if getattr(event, "type", None) != "revert":
            continue
        meta = getattr(event, "metadata", None) or {}
        raw = meta.get(PRINT_KEY) if isinstance(meta, dict) else None
        if not isinstance(raw, str) or not raw:
            continue
        if quiet(event):
            continue  # true history, but nothing anyone should be stopped by
        code = meta.get(SCOPE_KEY) != "text"
        commit = str(getattr(event, "commit", None) or event.id)
        key = (commit, code)
        rp = by_commit.get(key)
        if rp is None:
            subject = str(meta.get("revert_subject") or "").strip()
            if not subject:
                subject = (getattr(event, "reasoning", "") or "").strip().split("\n", 1)[0]
            when = getattr(event, "occurred_at", None) or getattr(event, "recorded_at", "")
            rp = by_commit[key] = RevertPrint(commit, str(when or ""), subject, code=code)
        words = raw.split()
        hashes = {h for h in words if not h.startswith(RESTORED)}
        restored = {h[1:] for h in words if h.startswith(RESTORED)}
        rp.hashes |= hashes
        rp.restored |= restored
        rp.entities.setdefault(event.entity, event.id)
        if hashes:
            rp.per_entity.setdefault(event.entity, set()).update(hashes)
        if restored:
            rp.restored_per_entity.setdefault(event.entity, set()).update(restored)
    return list(by_commit.values())


def match_prints(
    added: Sequence[AddedLine],
    prints: Iterable[RevertPrint],
    threshold: float = DEFAULT_THRESHOLD,
) -> list[BringBack]:
    """The reverts whose lines this change brings back (most of them, by `threshold`).

    A revert matches when the added lines cover at least `threshold` of its
    fingerprinted lines. When fewer than MIN_LINES_ANYWHERE lines match, the matched
    lines must also sit inside the reverted entity itself: a one-line change counts only
    together with its entity. Lines taken out of code match only lines added to code,
    and lines taken out of text only text.
    """
    return _match(added, prints, threshold, removal=False)


def match_removals(
    removed: Sequence[AddedLine],
    prints: Iterable[RevertPrint],
    threshold: float = DEFAULT_THRESHOLD,
) -> list[BringBack]:
    """The reverts whose put-back lines this change takes out again (a re-removal): the
    same rule as `match_prints`, over the lines a change removes and the lines a
    revert restored."""
    return _match(removed, prints, threshold, removal=True)


def _match(
    lines_in: Sequence[AddedLine],
    prints: Iterable[RevertPrint],
    threshold: float,
    *,
    removal: bool,
) -> list[BringBack]:
    by_kind: dict[bool, dict[str, list[AddedLine]]] = {True: {}, False: {}}
    for line in lines_in:
        norm = normalise(line.text)
        if significant(norm):
            by_kind[is_code(line.file)].setdefault(line_hash(norm), []).append(line)
    if not by_kind[True] and not by_kind[False]:
        return []
    found: list[BringBack] = []
    for rp in prints:
        hashes, per_entity = (
            (rp.restored, rp.restored_per_entity) if removal else (rp.hashes, rp.per_entity)
        )
        total = len(hashes)
        by_hash = by_kind[rp.code]
        if not total or not by_hash:
            continue
        common = hashes.intersection(by_hash)
        hits = len(common)
        if not hits or hits < math.ceil(threshold * total - 1e-9):
            continue
        lines = sorted({ln for h in common for ln in by_hash[h]}, key=lambda a: (a.file, a.line))
        if hits < MIN_LINES_ANYWHERE:
            inside = [
                ln
                for ln in lines
                if ln.entity is not None
                and line_hash(normalise(ln.text)) in per_entity.get(ln.entity, ())
            ]
            if len({line_hash(normalise(ln.text)) for ln in inside}) < hits:
                continue
            lines = inside
        found.append(BringBack(rp, hits, total, tuple(lines), removal))
    return found


def all_hashes(prints: Iterable[RevertPrint], *, restored: bool = False) -> set[str]:
    """Every hash any open revert carries (with `restored`, of the lines reverts put
    back): lines outside it need no further look."""
    out: set[str] = set()
    for rp in prints:
        out |= rp.restored if restored else rp.hashes
    return out


def print_words(added: Iterable[str], removed: Iterable[str] = ()) -> set[str]:
    """The fingerprint words a change's lines could match: the hash of each significant
    line it adds, and `+` and the hash of each it removes (a re-removal's). What the
    gate looks reverts up by (`Store.open_reverts_printing`)."""
    words = {line_hash(n) for n in map(normalise, added) if significant(n)}
    words.update(RESTORED + line_hash(n) for n in map(normalise, removed) if significant(n))
    return words


def candidate_lines(
    file: str, numbered: Iterable[tuple[int, str]], symbols: Sequence[Any], wanted: set[str]
) -> list[AddedLine]:
    """The lines (0-based number, text) whose hash some revert carries, each with the
    innermost entity around it (the file when none): the input of `match_prints`.

    Only hashed lines are placed, so a 5,000-line file costs one hash per line."""
    from cairn.indexer.enclosing import innermost_by_line
    from cairn.store.paths import EntityPathError, canonicalise

    if not wanted:
        return []
    try:
        file_entity: str | None = canonicalise(file)
    except EntityPathError:
        file_entity = None
    hits: list[tuple[int, str]] = []
    for number, text in numbered:
        norm = normalise(text)
        if significant(norm) and line_hash(norm) in wanted:
            hits.append((number, text))
    # one sweep for every hit (a line at a time was symbols x lines)
    around = innermost_by_line(symbols, (number for number, _text in hits))
    out: list[AddedLine] = []
    for number, text in hits:
        sym = around.get(number)
        entity = sym.entity if sym else (_pinned(file, text) or file_entity)
        out.append(AddedLine(file, number, text, entity))
    return out


def _pinned(file: str, text: str) -> str | None:
    """`deps/NAME` when the line is a lock file's pin of NAME (`cairn.lockfiles`): a
    lock-only revert's verdict is on the dependency, and its one line coming back
    counts inside it, as a manifest's line does."""
    from cairn.lockfiles import dependency, pin

    pinned = pin(file, text)
    return dependency(pinned[0]) if pinned else None


def bring_back_findings(backs: Iterable[BringBack], severities: Any = None) -> list[Any]:
    """Findings (`cairn.findings.Finding`) for reverted changes coming back: at the first
    line that came back, with the severity of code that re-introduces a verdict."""
    from cairn.core.findings import Finding, FindingKind, Severities
    from cairn.indexer import Range

    sev = (severities or Severities()).introduce
    out = []
    for back in backs:
        first = back.lines[0]
        width = len(first.text.encode("utf-16-le")) // 2
        out.append(
            Finding(
                entity=back.entity,
                verdict_id=back.verdict_id,
                severity=sev,
                message=back.message(),
                name_range=Range(first.line, 0, first.line, width),
                role="introduce",
                data={
                    "entity": back.entity,
                    "kind": FindingKind.FINGERPRINT.value,
                    "role": "introduce",
                    "removal": back.removal,
                    "verdict_ids": [back.verdict_id],
                    "verdict_types": ["revert"],
                    "hits": back.hits,
                    "total": back.total,
                    "file": first.file,
                    "lines": [ln.line for ln in back.lines],
                    "subject": back.revert.subject,
                },
            )
        )
    return [f for f in out if f.severity.value != "off"]


def document_bring_backs(
    file: str, text: str, symbols: Sequence[Any], prints: Sequence[RevertPrint], severities: Any
) -> list[Any]:
    """Findings where an open document holds most of the lines an open revert took out.

    The whole document counts (an editor does not know what changed since HEAD): what
    the language server adds to a document's diagnostics, on its first answer too."""
    wanted = all_hashes(prints)
    if not wanted:
        return []
    lines = candidate_lines(file, enumerate(text.split("\n")), symbols, wanted)
    return bring_back_findings(match_prints(lines, prints), severities)
