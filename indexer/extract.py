"""The generic layer: query matches -> captures -> canonical entity paths -> symbols.

Kinds that name code (function, class, method, symbol) are qualified by nesting: a
definition inside another takes its name as a prefix (`Session.login`), and a function
directly inside a class or a `@container` (a Rust `impl`) is a method. Everything else
becomes an entity through the store's builders, so there is one canonicaliser.

Work is done per top-level node ("chunk": a statement, a definition, a DDL statement)
and remembered by the chunk's text. After an edit only the chunks whose text changed are
queried again (`QueryCursor.set_byte_range`); the others reuse their symbols, shifted if
they moved. Nothing a chunk yields depends on another chunk: scopes, models and
migrations all live inside one top-level node.
"""

from __future__ import annotations

import fnmatch
from bisect import bisect_right
from collections.abc import Sequence

import msgspec
from tree_sitter import Language, Node, Tree

from cairn.indexer.capture import Capture, FileContext, node_text
from cairn.indexer.frameworks import CONTEXTS, RESOLVERS
from cairn.indexer.model import CODE_KINDS as CODE_KINDS  # re-exported: its old home
from cairn.indexer.model import (
    Range,
    Role,
    Symbol,
)
from cairn.indexer.queries import Patterns
from cairn.indexer.symbols import (
    capture_entity,
    capture_symbol,
    captures_of,
    code_symbols,
    direct_symbols,
    file_prefix,
)
from cairn.indexer.text import LineIndex


class ChunkCache(msgspec.Struct):
    """Symbols per top-level chunk, keyed by the chunk's kind and bytes, valid for one
    file-wide context (`context`: what resolvers read outside a chunk, and the root's
    type); owned by a Document."""

    entries: dict[tuple[int, bytes], tuple[tuple[int, int], list[Symbol]]] = msgspec.field(
        default_factory=dict
    )
    context: bytes | None = None


def extract(
    tree: Tree,
    ctx: FileContext,
    lines: LineIndex,
    queries: Sequence[Patterns],
    cache: ChunkCache | None = None,
) -> list[Symbol]:
    """All symbols the queries find in `tree`, sorted by position. With a `cache`, only
    chunks whose text is new are queried; the cache is updated in place."""
    root = tree.root_node
    if cache is None:
        # A one-shot index: the whole file is one chunk, and nothing is remembered (no
        # chunk keys, no file-wide context for them).
        return _index_chunks(root, [root], [0], ctx, lines, queries)[0]
    chunks = _chunk_nodes(tree, queries)
    if not chunks:
        cache.entries = {}
        return []
    context, keys, broken, positions = _layout(tree, ctx, lines, chunks)
    old = cache.entries if cache.context == context else {}
    dirty = [i for i, key in enumerate(keys) if key not in old or i in broken]
    fresh: dict[int, list[Symbol]] = {}
    if dirty:
        fresh = _index_chunks(root, chunks, dirty, ctx, lines, queries, positions)
    entries: dict[tuple[int, bytes], tuple[tuple[int, int], list[Symbol]]] = {}
    out: list[Symbol] = []
    for index, position in enumerate(positions):
        symbols = fresh.get(index)
        if symbols is None:
            cached_position, symbols = old[keys[index]]
            if cached_position != position:
                symbols = [_shift(s, cached_position, position) for s in symbols]
        if index not in broken:
            entries[keys[index]] = (position, symbols)
        out.extend(symbols)
    cache.entries = entries
    cache.context = context
    return out


def first_index(
    tree: Tree, ctx: FileContext, lines: LineIndex, queries: Sequence[Patterns]
) -> list[Symbol] | None:
    """What `extract` returns with an empty cache, without its chunk bookkeeping; None
    when that takes building chunk by chunk (a scope reaching outside its top-level
    chunk, or every top-level node a comment: `extract` then decides).

    With nothing cached every chunk is indexed, in one pass over the file that
    `_build_together` splits back per chunk, so the symbols are that pass's. What
    `extract` adds is the bookkeeping the next edit reuses (every top-level node as an
    object, its bytes as a key, its position, the split), a tenth of a 5,000-line
    migration's open; `remember` does it later from these symbols, once the editor
    has its diagnostics."""
    root = tree.root_node
    found, held = _collect(root, [root], None, ctx, lines, queries)
    if not found:
        return []
    scoped = [c for _, c in found if isinstance(c, Capture) and c.kind in CODE_KINDS]
    if scoped or held:
        chunks = _chunk_nodes(tree, queries)
        if not chunks or not _within_chunks(chunks, scoped, [node for _, node, _ in held]):
            return None
    elif root.child_count > 1 and not _any_code_chunk(tree, queries):
        return None
    return build_symbols(
        ctx, lines, file_prefix(ctx.path), [c for _, c in found], [(n, t) for _, n, t in held]
    )


def remember(
    cache: ChunkCache,
    tree: Tree,
    ctx: FileContext,
    lines: LineIndex,
    queries: Sequence[Patterns],
    symbols: list[Symbol],
) -> None:
    """Fill `cache` with what `extract` would have left in it after returning `symbols`
    for `tree` with nothing cached (`first_index`'s answer): each clean chunk's key,
    position and share of the symbols."""
    chunks = _chunk_nodes(tree, queries)
    if not chunks:
        cache.entries = {}
        return
    context, keys, broken, positions = _layout(tree, ctx, lines, chunks)
    every = list(range(len(chunks)))
    shares = _split(symbols, positions, every) if len(every) > 1 else {0: list(symbols)}
    cache.entries = {
        key: (positions[i], shares[i]) for i, key in enumerate(keys) if i not in broken
    }
    cache.context = context


def _chunk_nodes(tree: Tree, queries: Sequence[Patterns]) -> list[Node]:
    """The top-level nodes that are indexed (and cached) one by one."""
    root = tree.root_node
    chunks = root.children or [root]
    if len(chunks) > 1 and not any(q.sees_comments for q in queries):
        # No pattern names a comment, so a top-level comment holds no symbol: leave it
        # out of the bookkeeping (a migration is often mostly comment lines).
        comments = _comment_kinds(tree)
        chunks = [c for c in chunks if c.kind_id not in comments]
    return chunks


def _any_code_chunk(tree: Tree, queries: Sequence[Patterns]) -> bool:
    """True when `_chunk_nodes` would find a top-level node (asked without making all
    of them: a migration's first statement usually comes within a few)."""
    if any(q.sees_comments for q in queries):
        return True
    comments = _comment_kinds(tree)
    cursor = tree.walk()
    if not cursor.goto_first_child():
        return True
    while True:
        if cursor.node is not None and cursor.node.kind_id not in comments:
            return True
        if not cursor.goto_next_sibling():
            return False


def _layout(
    tree: Tree, ctx: FileContext, lines: LineIndex, chunks: list[Node]
) -> tuple[bytes, list[tuple[int, bytes]], set[int], list[tuple[int, int]]]:
    """The chunks' file-wide context, keys, syntax-error chunks and LSP start positions."""
    root = tree.root_node
    data = ctx.data
    # File-wide context some resolvers read (a router's prefix) and the root's type
    # (module-level patterns need a `module` root, not an ERROR) hold for every chunk:
    # when either changes, nothing cached is reused. A chunk is then known by its kind
    # (a number: no string made per chunk) and bytes.
    reader = CONTEXTS.get(ctx.language)
    context = (reader(root, ctx) if reader is not None else b"") + root.type.encode()
    keys = [(c.kind_id, data[c.start_byte : c.end_byte]) for c in chunks]
    # A chunk with a syntax error is never reused: error recovery can read the same
    # bytes differently in another context. A tree without one (asked once) has none.
    broken = {i for i, c in enumerate(chunks) if c.has_error} if root.has_error else set()
    positions: list[tuple[int, int]]
    if lines.ascii:
        positions = [c.start_point for c in chunks]  # Points are (row, column) tuples
    else:
        positions = []
        for chunk in chunks:
            row, column = chunk.start_point
            positions.append((row, lines.utf16_column(row, column)))
    return context, keys, broken, positions


def _comment_kinds(tree: Tree) -> frozenset[int]:
    """The grammar's node kinds whose name holds "comment" (a node's `type` is its kind's
    name; comparing the kind's number spares making a string per top-level node, and
    a 5,000-line migration has 5,000 of them)."""
    language = tree.language
    found = _COMMENT_KINDS.get(language)
    if found is None:
        found = _COMMENT_KINDS[language] = frozenset(
            kind
            for kind in range(language.node_kind_count)
            if "comment" in (language.node_kind_for_id(kind) or "")
        )
    return found


_COMMENT_KINDS: dict[Language, frozenset[int]] = {}


def _index_chunks(
    root: Node,
    chunks: list[Node],
    dirty: list[int],
    ctx: FileContext,
    lines: LineIndex,
    queries: Sequence[Patterns],
    positions: list[tuple[int, int]] | None = None,
) -> dict[int, list[Symbol]]:
    """Symbols of the `dirty` chunks (indexes into `chunks`, ascending); `positions`
    are the chunks' LSP start positions when the caller has them."""
    wanted = set(dirty) if len(dirty) < len(chunks) else None  # None: every chunk
    spans = _runs(chunks, dirty) if wanted is not None else None
    found, held = _collect(root, chunks, wanted, ctx, lines, queries, spans)
    prefix = file_prefix(ctx.path)
    together = _build_together(ctx, lines, prefix, chunks, dirty, found, held, positions)
    if together is not None:
        return together
    captures: dict[int, list[Capture | Symbol]] = {i: [] for i in dirty}
    containers: dict[int, list[tuple[Node, str]]] = {i: [] for i in dirty}
    for chunk, item in found:
        captures[chunk].append(item)
    for chunk, node, name in held:
        containers[chunk].append((node, name))
    return {
        index: build_symbols(ctx, lines, prefix, captures[index], containers[index])
        if captures[index]
        else []
        for index in dirty
    }


def _collect(
    root: Node,
    chunks: list[Node],
    wanted: set[int] | None,
    ctx: FileContext,
    lines: LineIndex,
    queries: Sequence[Patterns],
    spans: Sequence[tuple[int, int] | None] | None = None,
) -> tuple[list[tuple[int, Capture | Symbol]], list[tuple[int, Node, str]]]:
    """The queries' captures (or the direct path's symbols) in match order, and the
    named containers, each with its chunk; only the `wanted` chunks' (None: all), from
    matches in `spans` (None: the whole file)."""
    starts = [c.start_byte for c in chunks]
    # (chunk, capture), or (chunk, symbol) from the direct path, in match order
    found: list[tuple[int, Capture | Symbol]] = []
    held: list[tuple[int, Node, str]] = []  # (chunk, container, its name)
    one_chunk = len(chunks) == 1  # a one-shot index: everything is in chunk 0
    for compiled in queries:
        direct = compiled.direct
        for span in spans or (None,):
            for pattern, nodes in compiled.matches(root, span):
                if "container" in nodes and "container.name" in nodes:
                    node = nodes["container"][0]
                    chunk = max(0, bisect_right(starts, node.start_byte) - 1)
                    if wanted is None or chunk in wanted:
                        held.append((chunk, node, node_text(nodes["container.name"][0])))
                if direct[pattern]:
                    for start, symbol in direct_symbols(compiled, pattern, nodes, ctx, lines):
                        chunk = 0 if one_chunk else max(0, bisect_right(starts, start) - 1)
                        if wanted is None or chunk in wanted:
                            found.append((chunk, symbol))
                    continue
                if one_chunk:
                    found.extend(
                        (0, capture) for capture in match_captures(compiled, pattern, nodes, ctx)
                    )
                    continue
                for capture in match_captures(compiled, pattern, nodes, ctx):
                    chunk = max(0, bisect_right(starts, capture.name_node.start_byte) - 1)
                    # else a match reaching into a clean chunk: known already
                    if wanted is None or chunk in wanted:
                        found.append((chunk, capture))
    return found, held


def _build_together(
    ctx: FileContext,
    lines: LineIndex,
    prefix: str | None,
    chunks: list[Node],
    dirty: list[int],
    found: list[tuple[int, Capture | Symbol]],
    held: list[tuple[int, Node, str]],
    positions: list[tuple[int, int]] | None = None,
) -> dict[int, list[Symbol]] | None:
    """The dirty chunks' symbols from one `build_symbols` over all of them, split back
    per chunk; None when a scope reaches outside its chunk (then a single pass could
    nest one chunk's definitions in another's, and each chunk is built alone).

    Building per chunk cost a 5,000-line migration (250 statements, two symbols each)
    half its symbol time in per-call set-up. One pass is the same computation: chunks
    are disjoint, so no definition nests in another chunk's, no two chunks share a
    name's position (the key duplicates are dropped by), and sorting the union then
    splitting it by position gives each chunk its own sorted list."""
    if len(dirty) < 2:
        return None
    for chunk, capture in found:
        if capture.kind in CODE_KINDS and isinstance(capture, Capture):
            node, outer = capture.range_node, chunks[chunk]
            if node.start_byte < outer.start_byte or node.end_byte > outer.end_byte:
                return None
    for chunk, node, _ in held:
        outer = chunks[chunk]
        if node.start_byte < outer.start_byte or node.end_byte > outer.end_byte:
            return None
    if not found:
        return {index: [] for index in dirty}
    if positions is None:
        ascii = lines.ascii
        positions = []
        for chunk_node in chunks:
            row, column = chunk_node.start_point
            positions.append((row, column if ascii else lines.utf16_column(row, column)))
    symbols = build_symbols(
        ctx, lines, prefix, [c for _, c in found], [(n, name) for _, n, name in held]
    )
    return _split(symbols, positions, dirty)


def _split(
    symbols: list[Symbol], positions: list[tuple[int, int]], dirty: list[int]
) -> dict[int, list[Symbol]]:
    """Sorted symbols of the `dirty` chunks (at least two), split back per chunk by the
    chunks' start positions."""
    out: dict[int, list[Symbol]] = {index: [] for index in dirty}
    # symbols come sorted by position, and chunks are in order: one walk splits them
    at = 0
    last = len(dirty) - 1
    following = positions[dirty[1]]
    for symbol in symbols:
        name = symbol.name_range
        where = (name.start_line, name.start_character)
        while at < last and following <= where:
            at += 1
            following = positions[dirty[at + 1]] if at < last else following
        out[dirty[at]].append(symbol)
    return out


def _within_chunks(chunks: list[Node], scoped: list[Capture], containers: list[Node]) -> bool:
    """True when each code capture's range and each container lies inside the chunk
    its name (its start) is in: `_build_together`'s condition for one pass."""
    if len(chunks) < 2:
        return True  # one chunk: built alone, it is the one pass
    starts = [c.start_byte for c in chunks]
    for node, at in [(c.range_node, c.name_node.start_byte) for c in scoped] + [
        (n, n.start_byte) for n in containers
    ]:
        outer = chunks[max(0, bisect_right(starts, at) - 1)]
        if node.start_byte < outer.start_byte or node.end_byte > outer.end_byte:
            return False
    return True


def match_captures(
    compiled: Patterns, pattern: int, nodes: dict[str, list[Node]], ctx: FileContext
) -> list[Capture]:
    """The captures one query match yields, after its pattern's file filter and resolver."""
    settings = compiled.settings[pattern]
    if settings:
        files = settings.get("files")
        if files and not _file_matches(ctx, files):
            return []
        resolver = settings.get("resolver")
    else:
        resolver = None
    primaries = compiled.primaries[pattern]
    if len(primaries) == 1:  # the usual pattern: one entity capture
        capture_name, kind, role = primaries[0]
        found = captures_of(nodes, capture_name, kind, role, settings, ctx.data, ctx.language)
    else:
        found = []
        for capture_name, kind, role in primaries:
            found.extend(
                captures_of(nodes, capture_name, kind, role, settings, ctx.data, ctx.language)
            )
    if resolver is None or not found:
        return found
    out: list[Capture] = []
    for capture in found:
        if compiled.builtin:
            out.extend(RESOLVERS[resolver](capture, ctx))
        else:
            try:
                out.extend(RESOLVERS[resolver](capture, ctx))
            except Exception:
                continue
    return out


def _file_matches(ctx: FileContext, files: str) -> bool:
    """Whether the file's name matches one of a pattern's `#set! files` globs (asked
    per match, answered once per file)."""
    key = ("files", files)
    found = ctx.memo.get(key)
    if found is None:
        basename = ctx.basename
        found = ctx.memo[key] = any(fnmatch.fnmatchcase(basename, g) for g in files.split())
    return bool(found)


def build_symbols(
    ctx: FileContext,
    lines: LineIndex,
    prefix: str | None,
    captures: Sequence[Capture | Symbol],
    containers: list[tuple[Node, str]],
    outer: tuple[str, str] | None = None,
) -> list[Symbol]:
    """Symbols for the captures of one region, settled and sorted. `outer` is the
    qualified name and kind of the scope enclosing the region, if any. A `Symbol`
    among the captures was made by the direct path (an entity kind): it is kept as is,
    in its place (the order decides which of two equal symbols `_settle` keeps)."""
    symbols = code_symbols(ctx, lines, prefix, _definitions(captures), containers, outer)
    for capture in captures:
        if capture.kind not in CODE_KINDS:
            if isinstance(capture, Symbol):
                symbols.append(capture)
                continue
            entity = capture_entity(capture)
            if entity is not None:
                symbols.append(capture_symbol(ctx, lines, capture, entity, capture.kind))
    return _settle(symbols)


def _definitions(captures: Sequence[Capture | Symbol]) -> list[Capture]:
    """The captures that name code. An assignment whose value is a function or class
    (`const f = () => ...`) is that definition, not also a constant."""
    code = [c for c in captures if c.kind in CODE_KINDS and isinstance(c, Capture)]
    named = {c.name_node.start_byte for c in code if c.kind != "constant"}
    return [c for c in code if c.kind != "constant" or c.name_node.start_byte not in named]


def _runs(chunks: list[Node], dirty: list[int]) -> list[tuple[int, int] | None]:
    """Byte ranges covering consecutive dirty chunks."""
    spans: list[tuple[int, int] | None] = []
    first = previous = dirty[0]
    for index in [*dirty[1:], None]:
        if index is not None and index == previous + 1:
            previous = index
            continue
        spans.append((chunks[first].start_byte, chunks[previous].end_byte))
        if index is not None:
            first = previous = index
    return spans


def _settle(symbols: list[Symbol]) -> list[Symbol]:
    """Drop duplicates, and a reference where another pattern saw the same name
    introduced or removed (`ALTER TABLE t RENAME TO u` removes `t`, it does not just
    mention it); then sort by position."""
    if len(symbols) < 2:
        return symbols
    # Keys are plain tuples of ints and strings: equal exactly when the Range fields,
    # entity and role are, but hashed and compared in C (Range's and Role's own
    # __hash__ are Python functions, a third of this function's time).
    unique: dict[tuple[int, int, int, int, str, int], Symbol] = {}
    introduce, reference = Role.INTRODUCE, Role.REFERENCE
    for s in symbols:
        n = s.name_range
        role = s.role
        rank = 0 if role is introduce else _REFERENCE if role is reference else 2
        key = (n.start_line, n.start_character, n.end_line, n.end_character, s.entity, rank)
        seen = unique.get(key)
        # two patterns may see one dependency, one of them with its version: keep that
        if seen is None or s.version or not seen.version:
            unique[key] = s
    decided = {key[:5] for key in unique if key[5] != _REFERENCE}
    # (name range, range, entity, role): the order of the Range objects' own fields;
    # the keys are unique, so the symbols themselves are never compared
    kept = [
        ((*key[:4], (r := s.range).start_line, r.start_character, r.end_line, r.end_character,
          *key[4:]), s)
        for key, s in unique.items()
        if key[5] != _REFERENCE or key[:5] not in decided
    ]  # fmt: skip
    kept.sort()
    return [s for _, s in kept]


# Roles ranked in the order of their values ("introduce" < "reference" < "remove"), so
# sorting on the rank is sorting on `role.value`.
_REFERENCE = 1


def _shift(symbol: Symbol, old: tuple[int, int], new: tuple[int, int]) -> Symbol:
    return Symbol(
        symbol.file,
        symbol.entity,
        symbol.kind,
        symbol.role,
        _shift_range(symbol.name_range, old, new),
        _shift_range(symbol.range, old, new),
        symbol.version,
    )


def _shift_range(r: Range, old: tuple[int, int], new: tuple[int, int]) -> Range:
    rows = new[0] - old[0]
    cols = new[1] - old[1]
    return Range(
        r.start_line + rows,
        r.start_character + (cols if r.start_line == old[0] else 0),
        r.end_line + rows,
        r.end_character + (cols if r.end_line == old[0] else 0),
    )
