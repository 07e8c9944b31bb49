"""Loading, checking and caching the declarative queries (`queries/<language>.scm`).

Capture names carry meaning (see docs/indexer.md):

* `@<kind>.<role>` marks the node that names an entity: kind is one of KINDS, role one
  of `introduce` (alias `define`), `reference`, `remove`.
* helpers in the same pattern: `@range` (the whole construct), `@table` (a column's
  table), `@name` (overrides the name's text), `@scope` (an explicit qualifier, such as
  a Go receiver type), `@http.method`, `@call` (handed to a resolver), `@container` and
  `@container.name` (a block whose definitions are qualified by that name, e.g. a Rust
  `impl`). Names starting with `_` are private to predicates.
* `(#set! resolver "<name>")` hands the match to a framework resolver in
  `cairn.indexer.frameworks`; `(#set! files "<glob> ...")` limits the pattern to files
  whose name matches; `(#set! method "GET")` fixes a route's HTTP method.

Built-in queries compile once per language. User queries in `.cairn/queries/` compile
separately, so a broken one is reported (file, line, column) and skipped while the
built-in ones keep working.
"""

from __future__ import annotations

import fnmatch
import re
import threading
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Protocol

import msgspec
from tree_sitter import Node, Query, QueryCursor
from tree_sitter import QueryError as TSQueryError

from cairn.indexer.frameworks import RESOLVERS
from cairn.indexer.languages import GRAMMARS, grammar, parser
from cairn.indexer.model import CODE_KINDS, QueryError, Role
from cairn.indexer.sql_walk import SQL_WALK

KINDS = frozenset(
    {
        "table",
        "column",
        "function",
        "class",
        "method",
        "symbol",
        "constant",
        "route",
        "dependency",
        "env",
    }
)
# Grammars that read another grammar's query file (the TSX grammar is TypeScript's).
_QUERY_FILE = {"tsx": "typescript"}
_INHERITS = re.compile(r"^;\s*inherits:\s*([\w, ]+)")
ROLES = frozenset({"introduce", "define", "reference", "remove"})
HELPERS = frozenset(
    {
        "range",
        "table",
        "name",
        "scope",
        "http.method",
        "call",
        "container",
        "container.name",
        "version",
    }
)
SETTINGS = frozenset({"resolver", "files", "method"})
ROLE_OF = {
    "introduce": Role.INTRODUCE,
    "define": Role.INTRODUCE,
    "reference": Role.REFERENCE,
    "remove": Role.REMOVE,
}


class Patterns(Protocol):
    """What the generic layer (`extract`, `symbols.direct_symbols`, `splice`) reads of a
    language's rules: a `CompiledQuery`, or a walk of the tree that gives the same
    matches (`WALKS`)."""

    @property
    def source(self) -> str: ...
    @property
    def builtin(self) -> bool: ...
    @property
    def sees_comments(self) -> bool: ...
    @property
    def settings(self) -> tuple[dict[str, str | None], ...]: ...
    @property
    def primaries(self) -> tuple[tuple[tuple[str, str, Role], ...], ...]: ...
    @property
    def direct(self) -> tuple[bool, ...]: ...

    def matches(
        self, root: Node, byte_range: tuple[int, int] | None = None
    ) -> list[tuple[int, dict[str, list[Node]]]]: ...


# Languages whose built-in rules are a walk of the tree, not a query: compiling
# tree-sitter-sql's query cost more than a language server's whole start budget
# allowed (`ts_query_new` analyses the grammar's parse table, ~494 M instructions,
# whatever the patterns; docs/performance.md). User queries still compile.
WALKS: dict[str, Patterns] = {"sql": SQL_WALK}


# for_file answers remembered per query; bounded, since a huge tree has many names
_NAMES_KEPT = 4096
_ROW_COL = re.compile(r"row (\d+), column (\d+)")
_CAPTURE = re.compile(r"@([A-Za-z_][\w.\-]*)")


@dataclass(frozen=True, slots=True)
class CompiledQuery:
    """A compiled query plus its per-pattern `#set!` properties, read once."""

    source: str  # where it came from, for messages
    query: Query
    settings: tuple[dict[str, str | None], ...]
    # per pattern: its entity captures as (capture name, kind, role)
    primaries: tuple[tuple[tuple[str, str, Role], ...], ...]
    # built-in queries are tested against their resolvers; a user's may hand a resolver
    # nodes of any shape, so its resolver failures are contained
    builtin: bool = True
    # whether any pattern names a comment node: if none does, comments hold no symbols
    sees_comments: bool = False
    # the language and text, from which a narrower query for one kind of file is cut
    language: str = ""
    text: str = ""
    # narrower queries by the patterns they keep, compiled once and kept for the
    # process's lifetime (py-tree-sitter 0.26 can crash when Query objects are freed
    # in a loop, and `Query.disable_pattern` crashes outright)
    _narrowed: dict[tuple[int, ...], CompiledQuery] = field(
        default_factory=dict, compare=False, repr=False
    )
    # for_file's answer by file name (a scan asks once or more per file)
    _by_name: dict[str, CompiledQuery | None] = field(
        default_factory=dict, compare=False, repr=False
    )
    # how `matches` runs the patterns (`_plan`), made on first use
    _plan: list[tuple[Query, int | None, tuple[int, ...] | None]] = field(
        default_factory=list, compare=False, repr=False
    )
    # per pattern: True when a match becomes its symbols directly (`extract`'s direct
    # path): no resolver, no file filter, and only entity kinds that need no scope walk
    direct: tuple[bool, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "direct",
            tuple(
                "resolver" not in props
                and "files" not in props
                and all(kind not in CODE_KINDS for _, kind, _ in primaries)
                for props, primaries in zip(self.settings, self.primaries, strict=True)
            ),
        )

    def matches(
        self, root: Node, byte_range: tuple[int, int] | None = None
    ) -> list[tuple[int, dict[str, list[Node]]]]:
        """The query's matches under `root` (the tree's root), as `QueryCursor.matches`
        gives them, each with its pattern's index in this query.

        Patterns rooted at the grammar's root node (`(module ...)`: module-level
        constants) run apart, in a cursor that starts matches at the root only. In one
        cursor with the others, such a pattern's state stays in flight over the whole
        walk and is checked at every node of the file (a seventh of a Python file's
        query time); alone, the cursor descends only where that pattern needs it."""
        out: list[tuple[int, dict[str, list[Node]]]] = []
        for query, depth, index in self._plan or self._make_plan():
            cursor = QueryCursor(query)
            if depth is not None:
                cursor.set_max_start_depth(depth)
            if byte_range is not None:
                cursor.set_byte_range(*byte_range)
            found = cursor.matches(root)
            if index is None:
                out.extend(found)
            else:
                out.extend((index[pattern], nodes) for pattern, nodes in found)
        return out

    def _make_plan(self) -> list[tuple[Query, int | None, tuple[int, ...] | None]]:
        with _lock:
            if not self._plan:
                self._plan.extend(self._split_rooted())
        return self._plan

    def _split_rooted(self) -> list[tuple[Query, int | None, tuple[int, ...] | None]]:
        """(query, max start depth, pattern index map) per cursor to run: the patterns
        rooted at the grammar's root node apart from the others when the query has
        both (else the query as it is)."""
        whole: list[tuple[Query, int | None, tuple[int, ...] | None]] = [(self.query, None, None)]
        query = self.query
        if not self.text or not self.language:
            return whole
        root = _root_kind(self.language)
        source = self.text.encode("utf-8")
        rooted = tuple(
            i
            for i in range(query.pattern_count)
            if _pattern_head(
                source[query.start_byte_for_pattern(i) : query.end_byte_for_pattern(i)]
            )
            == root
        )
        if not rooted:
            return whole
        if len(rooted) == query.pattern_count:
            return [(query, 0, None)]
        others = tuple(i for i in range(query.pattern_count) if i not in rooted)
        plan: list[tuple[Query, int | None, tuple[int, ...] | None]] = []
        for keep, depth in ((others, None), (rooted, 0)):
            text = b"\n".join(
                source[query.start_byte_for_pattern(i) : query.end_byte_for_pattern(i)]
                for i in keep
            )
            try:
                part = Query(grammar(self.language), text.decode("utf-8"))
            except TSQueryError:
                return whole
            if part.pattern_count != len(keep) or tuple(
                _settings(part, i) for i in range(part.pattern_count)
            ) != tuple(self.settings[i] for i in keep):
                return whole
            plan.append((part, depth, keep))
        return plan

    def applies_to(self, basename: str) -> bool:
        """True when some pattern may match in a file of this name (`#set! files`)."""
        return bool(self._applicable(basename))

    def _applicable(self, basename: str) -> tuple[int, ...]:
        return tuple(
            index
            for index, props in enumerate(self.settings)
            if not (files := props.get("files"))
            or any(fnmatch.fnmatchcase(basename, g) for g in files.split())
        )

    def for_file(self, basename: str) -> CompiledQuery | None:
        """This query with only the patterns that apply to a file of this name, or None
        when none does. A pattern limited by `#set! files` to other names would still
        cost its share of every match attempt in every file (the pre-commit pattern
        made each YAML file's query several times slower than its parse), and the
        match would then be thrown away; a query without it never tries."""
        try:
            return self._by_name[basename]
        except KeyError:
            pass
        keep = self._applicable(basename)
        found: CompiledQuery | None = None
        if not keep:
            found = None
        elif len(keep) == len(self.settings) or not self.text or not self.language:
            found = self
        else:
            with _lock:
                found = self._narrowed.get(keep)
                if found is None:
                    found = self._narrowed[keep] = self._narrow(keep)
        if len(self._by_name) >= _NAMES_KEPT:
            self._by_name.clear()  # bounded: a huge tree has many distinct file names
        self._by_name[basename] = found
        return found

    def _narrow(self, keep: tuple[int, ...]) -> CompiledQuery:
        """A query of the patterns `keep`, cut from the text in their order; the whole
        query (whose matches are filtered per pattern anyway) if it does not compile
        to the same patterns."""
        source = self.text.encode("utf-8")
        query = self.query
        parts = [
            source[query.start_byte_for_pattern(i) : query.end_byte_for_pattern(i)] for i in keep
        ]
        try:
            narrowed = Query(grammar(self.language), b"\n".join(parts).decode("utf-8"))
        except TSQueryError:
            return self
        settings = tuple(_settings(narrowed, i) for i in range(narrowed.pattern_count))
        if settings != tuple(self.settings[i] for i in keep):
            return self
        return replace(
            self,
            query=narrowed,
            settings=settings,
            primaries=tuple(self.primaries[i] for i in keep),
            text="",
            _narrowed={},
            _by_name={},
            _plan=[],
        )


_HEAD = re.compile(rb"\(+\s*([A-Za-z_][\w]*)")
_roots: dict[str, str] = {}


def _pattern_head(pattern: bytes) -> str | None:
    """The node type a pattern's text starts with (`module` in `((module ...) @x)`)."""
    match = _HEAD.match(pattern)
    return match.group(1).decode("utf-8") if match else None


def _root_kind(language: str) -> str:
    """The type of the grammar's root node (`module`, `program`, `source_file`)."""
    found = _roots.get(language)
    if found is None:
        found = _roots[language] = parser(language).parse(b"").root_node.type
    return found


_lock = threading.Lock()
_builtin: dict[str, CompiledQuery | None] = {}
_user: dict[tuple[str, float, int], CompiledQuery | QueryError] = {}


def builtin_query(language: str) -> CompiledQuery | None:
    """The shipped query for a language (None when it ships none)."""
    with _lock:
        if language not in _builtin:
            text = _builtin_text(_QUERY_FILE.get(language, language))
            name = f"queries/{_QUERY_FILE.get(language, language)}.scm"
            _builtin[language] = compile_query(language, text, name) if text else None
        return _builtin[language]


def builtin_for_file(language: str, basename: str) -> CompiledQuery | None:
    """The shipped query's core for a language (every pattern outside a `; part:`
    section), with only the patterns that apply to a file of this name (None when none
    does). `builtin_queries` adds the parts a file's text needs.

    Compiling a query costs far more than running it on one file (30-300 ms, mostly
    tree-sitter's analysis of the grammar, whatever the number of patterns), so the
    patterns limited by `#set! files` are cut out of the text before compiling: an
    ordinary Python file never compiles the whole query, only the one it runs. The
    cut is checked against the compiled query in tests/indexer; if the text cannot be
    split, the whole query is compiled and narrowed (`CompiledQuery.for_file`)."""
    split = _split(language)
    if split is None:
        return None
    if split.spans is None:
        whole = builtin_query(language)
        return whole.for_file(basename) if whole is not None else None
    return _compiled_part(language, split, None, basename)


def builtin_queries(language: str, basename: str, data: bytes) -> list[Patterns]:
    """The shipped queries a file runs: the core (`builtin_for_file`) and each
    `; part:` section whose patterns can match in `data`; for a language in `WALKS`,
    its walk instead.

    A part holds framework patterns (an ORM, migrations, environment variables) whose
    predicates compare a capture with fixed words (`(#eq? @_fn "drop_table")`): such a
    pattern can only match where that word is in the file, since a node's text is a
    slice of it. A file without any of a part's words neither compiles nor runs the
    part: each pattern is tried at every node of its root type (every call), and in
    most files these patterns matched nothing after costing a third of the query's
    time. Each part is compiled once, when a file first needs it, and runs as its own
    query (compiling one query per combination of parts would cost more than it saves).
    """
    walk = WALKS.get(language)
    if walk is not None:
        return [walk]
    split = _split(language)
    if split is None:
        return []
    core = builtin_for_file(language, basename)
    found: list[Patterns] = [core] if core is not None else []
    if split.spans is None:
        return found
    found_words: dict[bytes, bool] = {}

    def holds(word: bytes) -> bool:
        held = found_words.get(word)
        if held is None:
            held = found_words[word] = word in data
        return held

    needed: list[str] = [
        part
        for part, words in split.parts.items()
        # the part's search words first (one search per word: cheap, and most files
        # hold none); then whether some pattern has all it needs (one of each of its
        # predicates' words), so that a common word alone does not run the part
        if any(holds(w) for w in words)
        and any(all(any(holds(w) for w in ws) for _, ws in gate) for gate in split.gates[part])
    ]
    if needed and len(data) >= COMBINE_FROM:
        # each query walks the whole tree: in a big file, one more walk per part costs
        # more than compiling the core and these parts together once
        combined = _compiled_parts(language, split, (None, *needed), basename)
        return [combined] if combined is not None else []
    for part in needed:
        compiled = _compiled_part(language, split, part, basename)
        if compiled is not None:
            found.append(compiled)
    return found


# From this size (bytes), a file that needs parts runs them and the core as one query
# (compiled once per combination of parts): a part's own walk of a 5,000-line file
# costs a fifth of its index, and compiling the combination about one index.
COMBINE_FROM = 128 * 1024


class _Split(msgspec.Struct, frozen=True):
    """A shipped query's text cut into patterns, read once per query file."""

    stem: str
    text: str
    spans: list[tuple[int, int, str | None]] | None
    # per pattern: the `; part:` section it is in (None: the core)
    part_of: tuple[str | None, ...] = ()
    # per part: words of which a file holds at least one wherever a pattern can match
    parts: dict[str, tuple[bytes, ...]] = {}  # (a struct copies an empty default)
    # per part: each pattern's gate (`pattern_gate`), all of which a match satisfies
    gates: dict[str, list[list[tuple[str, tuple[bytes, ...]]]]] = {}


def _split(language: str) -> _Split | None:
    stem = _QUERY_FILE.get(language, language)
    with _lock:
        split = _splits.get(stem, _UNREAD)
        if split is _UNREAD:
            text = _builtin_text(stem)
            split = _splits[stem] = _read_split(stem, text) if text else None
    return split


def _read_split(stem: str, text: str) -> _Split:
    spans = pattern_spans(text)
    if spans is None:
        return _Split(stem, text, None)
    source = text.encode("utf-8")
    part_of = pattern_parts(text, spans)
    declared = part_words(text)
    parts: dict[str, list[bytes]] = {}
    gates: dict[str, list[list[tuple[str, tuple[bytes, ...]]]]] = {}
    for (start, end, _), part in zip(spans, part_of, strict=True):
        if part is None:
            continue
        words = parts.setdefault(part, [])
        gate = pattern_gate(source[start:end])
        gates.setdefault(part, []).append(gate)
        given = declared.get(part)
        if given:
            # the part's own search words: each pattern needs a word set every word of
            # which holds one of them (a file with `drop_table` holds `_table`)
            covered = any(all(any(g in w for g in given) for w in ws) for _, ws in gate)
            chosen: tuple[bytes, ...] = given if covered else ()
        elif gate:
            # one necessary word set per pattern is enough: the rarest-looking one
            _, chosen = max(gate, key=lambda g: (min(len(w) for w in g[1]), -len(g[1])))
        else:
            chosen = ()
        if not chosen:
            what = (
                f"its words {' '.join(w.decode() for w in given)} are not in every match"
                if given
                else "it compares no capture with fixed words"
            )
            raise QueryError(
                f"queries/{stem}.scm",
                *_line_of_byte(text, start),
                f"a pattern cannot be in part {part!r}: {what}; move it out of the part",
            )
        words.extend(w for w in chosen if w not in words)
    # a word holding another is found wherever that one is: search the shorter only
    kept = {
        part: tuple(w for w in words if not any(o != w and o in w for o in words))
        for part, words in parts.items()
    }
    return _Split(stem, text, spans, tuple(part_of), kept, gates)


def _compiled_part(
    language: str, split: _Split, part: str | None, basename: str
) -> CompiledQuery | None:
    """The patterns of one part (None: the core) that apply to a file of this name,
    compiled once and kept."""
    return _compiled_parts(language, split, (part,), basename)


def _compiled_parts(
    language: str, split: _Split, parts: tuple[str | None, ...], basename: str
) -> CompiledQuery | None:
    """The patterns of these parts (None: the core) that apply to a file of this name,
    in the query file's order, compiled once and kept."""
    name_key = (language, parts, basename)
    try:
        return _part_by_name[name_key]  # a scan asks once or more per file
    except KeyError:
        pass
    spans = split.spans
    assert spans is not None
    keep = tuple(
        index
        for index, (_, _, files) in enumerate(spans)
        if split.part_of[index] in parts
        and (files is None or any(fnmatch.fnmatchcase(basename, g) for g in files.split()))
    )
    found: CompiledQuery | None = None
    if len(keep) == len(spans):
        found = builtin_query(language)
    elif keep:
        key = (language, keep)
        with _lock:
            found = _builtin_parts.get(key)
        if found is None:
            source = split.text.encode("utf-8")
            cut = b"".join(source[spans[i][0] : spans[i][1]] for i in keep).decode("utf-8")
            found = compile_query(language, cut, f"queries/{split.stem}.scm")
            with _lock:
                found = _builtin_parts.setdefault(key, found)  # kept for the process's lifetime
    with _lock:
        if len(_part_by_name) >= _NAMES_KEPT:
            _part_by_name.clear()  # bounded: a huge tree has many distinct file names
        _part_by_name[name_key] = found
    return found


_UNREAD = _Split("", "", None)
# query file stem -> its text cut into patterns (None: no such file), read once
_splits: dict[str, _Split | None] = {}
_builtin_parts: dict[tuple[str, tuple[int, ...]], CompiledQuery] = {}
# (language, parts, file name) -> what _compiled_parts answered
_part_by_name: dict[tuple[str, tuple[str | None, ...], str], CompiledQuery | None] = {}
_SET_FILES = re.compile(rb'\(#set!\s+files\s+"([^"\\]*)"\s*\)')
_PART = re.compile(r"^;\s*part:[ \t]*([\w-]*)((?:[ \t]+[^\s;]+)*)[ \t]*$", re.MULTILINE)
_STRING_OR_COMMENT = re.compile(rb'"(?:[^"\\]|\\.)*"|;[^\n]*')
_WORD_PREDICATE = re.compile(
    rb'\(#(eq|any-of|match)\?\s+@([\w.\-]+)((?:\s+"(?:[^"\\]|\\.)*")+)\s*\)'
)
_QUOTED = re.compile(rb'"((?:[^"\\]|\\.)*)"')
_REGEX_SYNTAX = re.compile(rb"[\\.^$*+?()\[\]{}|]")


def pattern_parts(text: str, spans: list[tuple[int, int, str | None]]) -> list[str | None]:
    """Each pattern's `; part: <name>` section (a comment line at the start of a line,
    in force until the next one; `; part:` alone returns to the core), None for the
    core."""
    marks = [
        (len(text[: m.start()].encode("utf-8")), m.group(1) or None) for m in _PART.finditer(text)
    ]
    out: list[str | None] = []
    for start, _, _ in spans:
        part: str | None = None
        for offset, name in marks:
            if offset > start:
                break
            part = name
        out.append(part)
    return out


def part_words(text: str) -> dict[str, tuple[bytes, ...]]:
    """The search words a `; part: <name> <word> ...` line gives its part (optional:
    without them, each pattern's own words are searched)."""
    out: dict[str, tuple[bytes, ...]] = {}
    for match in _PART.finditer(text):
        if match.group(1) and match.group(2).split():
            words = [w.encode("utf-8") for w in match.group(2).split()]
            out[match.group(1)] = (*out.get(match.group(1), ()), *words)
    return out


def pattern_gate(pattern: bytes) -> list[tuple[str, tuple[bytes, ...]]]:
    """What a pattern's text needs in a file to match: per predicate that compares a
    capture with fixed words (`#eq?`, `#any-of?`, a `#match?` whose regex is one plain
    word, anchored or not), the capture's name and the words, one of which the file
    must hold. Sound only when the capture is in every match (a predicate on a capture
    a match lacks holds), which tests/indexer checks for the shipped parts."""
    code = _STRING_OR_COMMENT.sub(lambda m: m.group(0) if m.group(0)[:1] == b'"' else b"", pattern)
    out: list[tuple[str, tuple[bytes, ...]]] = []
    for kind, capture, values in _WORD_PREDICATE.findall(code):
        words = _QUOTED.findall(values)
        if any(b"\\" in w for w in words) or not words:
            continue  # an escape: leave it to tree-sitter
        if kind == b"match":
            if len(words) != 1:
                continue
            word = words[0].removeprefix(b"^").removesuffix(b"$")
            if not word or _REGEX_SYNTAX.search(word):
                continue
            words = [word]
        if all(words):
            out.append((capture.decode("utf-8"), tuple(words)))
    return out


def pattern_spans(text: str) -> list[tuple[int, int, str | None]] | None:
    """The top-level patterns of a query text as (start byte, end byte, `#set! files`
    value or None): each runs to the next one's start, as tree-sitter's own pattern
    offsets do. None when the text is not plainly a list of patterns (unbalanced, or a
    predicate outside any pattern)."""
    source = text.encode("utf-8")
    starts: list[int] = []
    code = bytearray()  # the text without comments, to read `#set! files` from
    ends_code: list[int] = []
    depth = 0
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c == 0x3B:  # ; a comment, to the end of the line
            j = source.find(b"\n", i)
            i = n if j < 0 else j
            continue
        if depth == 0 and c in b'(["' and not (c == 0x28 and source[i + 1 : i + 2] == b"#"):
            # a new pattern at the top level (captures and quantifiers after a group
            # belong to it; they start with @ * + ?)
            starts.append(i)
            ends_code.append(len(code))
        elif depth == 0 and c == 0x28:
            return None  # a top-level predicate: leave it to tree-sitter
        if c == 0x22:  # a string, with escapes
            j = i + 1
            while j < n and source[j] != 0x22:
                j += 2 if source[j] == 0x5C else 1
            code += source[i : j + 1]
            i = j + 1
            continue
        if c in b"([":
            depth += 1
        elif c in b")]":
            depth -= 1
            if depth < 0:
                return None
        code.append(c)
        i += 1
    if depth != 0 or not starts:
        return None
    ends_code.append(len(code))
    spans: list[tuple[int, int, str | None]] = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else n
        found = _SET_FILES.findall(bytes(code[ends_code[k] : ends_code[k + 1]]))
        if len(found) > 1:
            return None
        spans.append((start, end, found[0].decode("utf-8") if found else None))
    return spans


def _builtin_text(stem: str) -> str | None:
    """A shipped query file with its `; inherits: a, b` parents prepended."""
    ref = resources.files("cairn.indexer").joinpath("queries").joinpath(f"{stem}.scm")
    if not ref.is_file():
        return None
    text = ref.read_text("utf-8")
    match = _INHERITS.match(text)
    if not match:
        return text
    parents = [_builtin_text(p.strip()) or "" for p in match.group(1).split(",") if p.strip()]
    # each parent ends in the core, so its last `; part:` does not take in what follows
    return "\n".join([*(f"{p}\n; part:\n" for p in parents), text])


def user_query(language: str, queries_dir: str | Path | None) -> CompiledQuery | None:
    """The user's `<queries_dir>/<language>.scm`, compiled; raises `QueryError` if broken."""
    if queries_dir is None:
        return None
    path = Path(queries_dir) / f"{language}.scm"
    try:
        stat = path.stat()
    except OSError:
        return None
    key = (str(path), stat.st_mtime, stat.st_size)
    with _lock:
        cached = _user.get(key)
    if cached is None:
        try:
            text = path.read_text("utf-8")
            cached = replace(compile_query(language, text, str(path)), builtin=False)
        except QueryError as exc:
            cached = exc
        except (OSError, UnicodeDecodeError) as exc:
            cached = QueryError(str(path), 1, 1, f"cannot read query file: {exc}")
        with _lock:
            _user[key] = cached
    if isinstance(cached, QueryError):
        raise cached
    return cached


def user_query_errors(queries_dir: str | Path | None) -> list[QueryError]:
    """Every problem with the user's query files, for `cairn scan` and the server to show."""
    if queries_dir is None or not Path(queries_dir).is_dir():
        return []
    errors: list[QueryError] = []
    for path in sorted(Path(queries_dir).glob("*.scm")):
        if path.stem not in GRAMMARS:
            errors.append(
                QueryError(
                    str(path),
                    1,
                    1,
                    f"no language called {path.stem!r}; name the file after one of "
                    + ", ".join(sorted(GRAMMARS)),
                )
            )
            continue
        try:
            user_query(path.stem, queries_dir)
        except QueryError as exc:
            errors.append(exc)
    return errors


def compile_query(language: str, text: str, source: str) -> CompiledQuery:
    """Compile and check a query; `QueryError` names the file, line and column."""
    try:
        query = Query(grammar(language), text)
    except TSQueryError as exc:
        line, column = _position(str(exc))
        raise QueryError(source, line, column, str(exc)) from None
    for index in range(query.capture_count):
        name = query.capture_name(index)
        if not _valid_capture(name):
            line, column = _locate(text, "@" + name)
            raise QueryError(
                source,
                line,
                column,
                f"unknown capture @{name}; use @<kind>.<role> with kind one of "
                f"{', '.join(sorted(KINDS))} and role one of {', '.join(sorted(ROLES))}, "
                f"a helper ({', '.join('@' + h for h in sorted(HELPERS))}) or @_private",
            )
    settings = tuple(_settings(query, i) for i in range(query.pattern_count))
    for index, props in enumerate(settings):
        bad = set(props) - SETTINGS
        resolver = props.get("resolver")
        if bad or (resolver is not None and resolver not in RESOLVERS):
            what = (
                f"unknown #set! key {sorted(bad)[0]!r}; known: {', '.join(sorted(SETTINGS))}"
                if bad
                else f"unknown resolver {resolver!r}; known: {', '.join(sorted(RESOLVERS))}"
            )
            line, column = _line_of_byte(text, query.start_byte_for_pattern(index))
            raise QueryError(source, line, column, what)
    primaries = _primaries(query, text)
    return CompiledQuery(
        source,
        query,
        settings,
        primaries,
        sees_comments="comment" in text,
        language=language,
        text=text,
    )


def _primaries(query: Query, text: str) -> tuple[tuple[tuple[str, str, Role], ...], ...]:
    """Each pattern's entity captures, read from the pattern's own source text."""
    source = text.encode("utf-8")
    out: list[tuple[tuple[str, str, Role], ...]] = []
    for pattern in range(query.pattern_count):
        body = source[query.start_byte_for_pattern(pattern) : query.end_byte_for_pattern(pattern)]
        found: dict[str, tuple[str, str, Role]] = {}
        for name in _CAPTURE.findall(body.decode("utf-8", "replace")):
            kind, _, role = name.partition(".")
            if kind in KINDS and role in ROLES:
                found[name] = (name, kind, ROLE_OF[role])
        out.append(tuple(found.values()))
    return tuple(out)


def _settings(query: Query, index: int) -> dict[str, str | None]:
    return dict(query.pattern_settings(index))


def _valid_capture(name: str) -> bool:
    if name.startswith("_") or name in HELPERS:
        return True
    kind, _, role = name.partition(".")
    return kind in KINDS and role in ROLES


def _position(message: str) -> tuple[int, int]:
    match = _ROW_COL.search(message)
    if not match:
        return 1, 1
    return int(match.group(1)) + 1, int(match.group(2)) + 1  # tree-sitter counts from 0


def _locate(text: str, needle: str) -> tuple[int, int]:
    match = re.search(re.escape(needle) + r"(?![\w.])", text)
    if not match:
        return 1, 1
    return _line_of_byte(text, len(text[: match.start()].encode("utf-8")))


def _line_of_byte(text: str, offset: int) -> tuple[int, int]:
    prefix = text.encode("utf-8")[:offset].decode("utf-8", "replace")
    line = prefix.count("\n") + 1
    return line, len(prefix) - (prefix.rfind("\n") + 1) + 1
