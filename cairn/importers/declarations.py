"""Code elements matched across one commit, in the spirit of RefactoringMiner/CodeTracker:
a declaration that left is paired with one that arrived by kind, name, container and
token-level body similarity, so a rename with a body or signature change, a move with a
rename, and a class renamed together with its file are each one link.

Lines are a poor unit here: a split `} catch` or a re-indented body changes every line
fingerprint while the tokens barely move. Tokens (identifiers, numbers, punctuation) are
compared as multisets (the Dice coefficient), the element's own name left out so a
rename does not count against itself. A kept parameter list weighs like a kept name
(RefactoringMiner's strongest sign of a rename). Overloads are grouped under their bare
name (`Pool.get`), each keeping its own path (`Pool.get(int)`, `cairn.indexer.overloads`)
as `Decl.entity`.

    decls = declarations(text, "src/Pool.java")      # {"Pool.get": [Decl, ...], ...}
    best(gone, arrived)                              # (Decl, "rename") or None
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator

from cairn.indexer.languages import language_for
from cairn.store.paths import EntityPathError, overload_suffix, split_overload

__all__ = [
    "Decl",
    "best",
    "change_type",
    "declarations",
    "declared_as",
    "declared_names",
    "may_declare",
    "similarity",
]

# A body this alike (Dice over tokens) is the same element under another name; one that
# keeps its name needs less, since the name already says much.
RENAMED_MIN = 0.5
SAME_NAME_MIN = 0.3
MARGIN = 0.05  # a runner-up this close is a look-alike: say nothing
MIN_TOKENS = 8  # a body this short (`return x;`) says too little to be recognised

_TOKEN = re.compile(r"[A-Za-z_$][\w$]*|\d+|[^\s\w]")


class Decl:
    """One declaration in one version of a file. Its tokens are counted when first
    asked for: most declarations are only looked up by name."""

    __slots__ = ("_flat", "_lines", "_params", "_signature", "_tokens", "entity", "kind")

    def __init__(self, entity: str, kind: str, lines: list[str]) -> None:
        self.entity = entity  # file::Qualified.name
        self.kind = kind
        self._lines = lines  # its own source lines
        self._tokens: Counter[str] | None = None
        self._params: str | None = None
        self._flat: str | None = None
        self._signature: str | None = None

    def __repr__(self) -> str:
        return f"Decl({self.entity!r}, {self.kind!r})"

    @property
    def tokens(self) -> Counter[str]:
        if self._tokens is None:
            tokens = Counter(_TOKEN.findall("\n".join(self._lines)))
            if tokens[self.name]:
                tokens[self.name] -= 1  # the name it is declared under: a rename changes that
            self._tokens = +tokens
        return self._tokens

    @property
    def params(self) -> str:
        """Its parameter list as written, blanks removed (`(Stringa,LineText[]b)`); ""
        when it has none to read. Overloads share a path and differ here, and a rename
        that keeps the parameters is RefactoringMiner's strongest sign of one."""
        if self._flat is None:  # compared pairwise across a commit's overloads: once
            self._flat = "".join(self.params_as_written.split())
        return self._flat

    @property
    def params_as_written(self) -> str:
        """Its parameter list with its blanks (`(String a, LineText[] b)`): where a type
        ends and a name starts."""
        if self._params is None:
            self._params = _params("\n".join(self._lines), self.name)
        return self._params

    @property
    def signature(self) -> str:
        """Its canonical parameter types (`(int,String[])`): from its path when it is an
        overload, else read from its parameter list; "" when that cannot be written.
        Read once: each link out of a file version lists its declarations' signatures
        (`git_renames._members`), and several links leave one version."""
        if self._signature is None:
            self._signature = self._read_signature()
        return self._signature

    def _read_signature(self) -> str:
        suffix = split_overload(self.entity)[1]
        if suffix or not self.params:
            return suffix
        try:
            return overload_suffix(self.params_as_written)
        except EntityPathError:
            return ""

    @property
    def file(self) -> str:
        return self.entity.partition("::")[0]

    @property
    def qualified(self) -> str:
        """Its path inside the file without an overload's suffix: `Pool.get`."""
        return split_overload(self.entity)[0].partition("::")[2]

    @property
    def name(self) -> str:
        return self.qualified.rsplit(".", 1)[-1]

    @property
    def container(self) -> str:
        return self.qualified.rpartition(".")[0]

    @property
    def size(self) -> int:
        return sum(self.tokens.values())


def declarations(text: str, file: str) -> dict[str, list[Decl]]:
    """The code elements `text` declares, by their path inside the file (`Class.name`);
    overloads share that bare name, so each holds a list (each `Decl.entity` is the
    overload's own path)."""
    from cairn.indexer import index_text
    from cairn.indexer.model import CODE_KINDS
    from cairn.indexer.overloads import overloaded_names

    lines = text.split("\n")
    out: dict[str, list[Decl]] = {}
    symbols = index_text(text, file)
    twins = overloaded_names({s.entity for s in symbols})
    for sym in symbols:
        if str(sym.role) != "introduce" or "::" not in sym.entity or sym.kind not in CODE_KINDS:
            continue
        if sym.entity in twins:  # each overload is read under its own path
            continue
        r = sym.range
        decl = Decl(sym.entity, sym.kind, lines[r.start_line : r.end_line + 1])
        out.setdefault(decl.qualified, []).append(decl)
    return out


def declared_names(text: str, file: str) -> frozenset[str]:
    """The bare paths inside the file (`Class.name`) that `text` declares: the keys of
    `declarations`, without naming overloads or keeping their lines. Following a symbol
    asks only this of most of its file's versions."""
    from cairn.indexer import index_text
    from cairn.indexer.model import CODE_KINDS

    return frozenset(
        sym.entity.partition("::")[2]
        for sym in index_text(text, file, overloads=False)
        if str(sym.role) == "introduce" and "::" in sym.entity and sym.kind in CODE_KINDS
    )


def declared_as(decls: dict[str, list[Decl]], name: str) -> list[Decl]:
    """The declarations of `decls` (one file's) that the inner path `name` names: all
    overloads of a bare name, the one overload of a suffixed one."""
    bare, suffix = _split_inner(name)
    found = decls.get(bare, [])
    if not suffix:
        return found
    return [d for d in found if d.entity.endswith("::" + name)]


def may_declare(blob: bytes, file: str, qualified: str) -> bool:
    """Whether `blob` may declare the element `qualified` (`Class.name`) as
    `declarations` reads it: False only when parsing it could not find one, so it need
    not be parsed. Following a moved symbol reads every later version of its file, and
    most of them only use the name. In Python (python.scm) an element is a `def`/`class`
    name or an assignment's target (`N = 1`, `N: T`, `N, b = f()`, one logical line),
    nested in the `def`s/`class`es its path names: a file where the name is only called,
    imported, passed or in another class's method of that name lacks one of them."""
    bare, suffix = _split_inner(qualified)  # an overload's suffix is no word
    *containers, name = (part.encode() for part in bare.split("."))
    if name not in blob:
        return False
    if language_for(file) != "python":
        if suffix:
            return _may_declare_overload(blob, name, suffix)
        return any(True for _ in _words(blob, name))
    return all(_python_def(blob, c) for c in containers) and (
        _python_def(blob, name) or _python_target(blob, name)
    )


def _may_declare_overload(blob: bytes, name: bytes, suffix: str) -> bool:
    """Whether some `name` in `blob` is followed by a parameter list holding the
    suffix's types in order (`visit(QualifiedNameExpr,A)`): read as the indexer reads
    an overload's list (`cairn.indexer.overloads`, the balanced parentheses after the
    name), whose canonical types are words of it. A visitor's `visit` is in every
    version; the type it took, once deleted from the code base, is in none."""
    from cairn.indexer.overloads import MAX_PARAMS_BYTES

    types = [t.rstrip("[]").encode() for t in suffix[1:-1].split(",") if t]
    if not all(t in blob for t in types):
        return False
    # `find`, not a regex over the whole file: a name may be in it hundreds of times.
    at = blob.find(name)
    while at >= 0:
        end = at + len(name)
        if _is_word_at(blob, at - 1) or _is_word_at(blob, end):
            at = blob.find(name, at + 1)
            continue
        at = blob.find(name, end)
        open_at = blob.find(b"(", end, end + MAX_PARAMS_BYTES)
        if open_at < 0:
            continue
        close = _close_paren(blob, open_at, open_at + MAX_PARAMS_BYTES)
        pos = open_at
        for t in types:  # in order: one type per parameter
            pos = blob.find(t, pos, close)
            if pos < 0:
                break
            pos += len(t)
        else:
            return True
    return False


def _is_word_at(blob: bytes, i: int) -> bool:
    """Whether `blob[i]` is part of a word (`_word_re`'s `[\\w$]`); False off either end."""
    return 0 <= i < len(blob) and blob[i] in _WORD_BYTES


_WORD_BYTES = frozenset(b"$_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _close_paren(blob: bytes, open_at: int, end: int) -> int:
    """Where the parentheses opened at `open_at` close (`end` when not before it)."""
    depth = 0
    for m in _PARENS.finditer(blob, open_at, end):
        depth += 1 if m.group() == b"(" else -1
        if depth == 0:
            return m.end()
    return end


_PARENS = re.compile(rb"[()]")


def _split_inner(name: str) -> tuple[str, str]:
    """`split_overload` of a path inside a file (`Pool.get(int)` -> `Pool.get`, `(int)`)."""
    bare, suffix = split_overload("::" + name)
    return bare[2:], suffix


# Each test below finds the name with `bytes.find` and reads what stands around each
# hit: the same test as a regex `(?<![\w$])name(?![\w$])`, but a regex that opens with
# a look-behind is tried at every byte of the file, and a module's every version is
# asked (docs/performance.md).
def _words(blob: bytes, word: bytes, before: frozenset[int] = frozenset()) -> Iterator[int]:
    """Where `word` stands in `blob` as a whole word (no `[\\w$]`, nor a byte of
    `before`, right before it; no `[\\w$]` right after), overlapping hits too."""
    at = blob.find(word)
    while at >= 0:
        prev = blob[at - 1] if at else None
        if prev not in _WORD_BYTES and prev not in before and not _is_word_at(blob, at + len(word)):
            yield at
        at = blob.find(word, at + 1)


_SEPARATORS = frozenset(b" \t\n\r\f\v\\")  # `[\s\\]` of a bytes pattern
_KEYWORDS = (b"def", b"class")


def _python_def(blob: bytes, word: bytes) -> bool:
    """Whether `def word` or `class word` is in `blob` (any whitespace or backslashes
    between, `def` itself a whole word). Looser than the grammar on purpose (a keyword
    argument, a dict key pass too): a false "may" costs one parse, a false "not" would
    lose a link."""
    for at in _words(blob, word):
        start = at
        while start and blob[start - 1] in _SEPARATORS:
            start -= 1
        if start == at:
            continue
        for kw in _KEYWORDS:
            k = start - len(kw)
            if k >= 0 and blob.startswith(kw, k) and not _is_word_at(blob, k - 1):
                return True
    return False


# What follows an assignment's target: `:` (annotated) right after it, or an `=` later
# on its logical line (backslashes join lines; a pattern list is never bracketed).
_TARGET_TAIL = re.compile(rb"[ \t]*(?:\\\r?\n[ \t]*)*:|(?:[^\n]|(?<=\\)\n)*=")
_DOT = frozenset(b".")


def _python_target(blob: bytes, word: bytes) -> bool:
    """Whether `word` is an assignment's target somewhere in `blob` (not an attribute:
    no `.` before it)."""
    return any(_TARGET_TAIL.match(blob, at + len(word)) for at in _words(blob, word, _DOT))


def _params(text: str, name: str) -> str:
    """The balanced parentheses after the first `name(` in `text`."""
    start = re.search(rf"(?<![\w$]){re.escape(name)}\s*\(", text)
    if start is None:
        return ""
    depth, i = 0, start.end() - 1
    for i in range(start.end() - 1, min(len(text), start.end() + 2000)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                break
    return text[start.end() - 1 : i + 1]


def similarity(a: Counter[str], b: Counter[str]) -> float:
    """The Dice coefficient of two token multisets: 1.0 the same tokens, 0.0 none shared."""
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 0.0


def change_type(before: Decl, after: Decl) -> str:
    """What changed: `rename` (its own name), `move` (another file), `container` (its
    class was renamed or it went to another), else `signature` (same path, new shape)."""
    if before.name != after.name:
        return "rename"
    if before.file != after.file and before.container == after.container:
        return "move"
    if before.container != after.container:
        return "container"
    return "signature"


def best(gone: Decl, arrived: Iterable[Decl]) -> tuple[Decl, str] | None:
    """The one arrived declaration `gone` became, and how; None when none is alike
    enough or two are (look-alikes say nothing rather than guess)."""
    if gone.size < MIN_TOKENS:
        return None
    scored: list[tuple[float, Decl]] = []
    for cand in arrived:
        if cand.kind != gone.kind or cand.entity == gone.entity:
            continue
        sim = similarity(gone.tokens, cand.tokens)
        floor = SAME_NAME_MIN if cand.name == gone.name else RENAMED_MIN
        if sim < floor:
            continue
        # The name kept, the parameters kept, then the container kept, break ties
        # between equally alike bodies.
        bonus = (
            0.2 * (cand.name == gone.name)
            + 0.2 * (len(gone.params) > 2 and cand.params == gone.params)  # not `()`
            + 0.1 * (cand.container == gone.container)
        )
        scored.append((sim + bonus, cand))
    if not scored:
        return None
    scored.sort(key=lambda s: -s[0])
    if len(scored) > 1 and scored[0][0] - scored[1][0] < MARGIN:
        return None
    found = scored[0][1]
    return found, change_type(gone, found)
