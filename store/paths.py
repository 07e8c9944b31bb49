"""The entity-path grammar: the one canonicaliser for every write and every read.

An entity path names the thing a decision is about. Every path that enters Cairn
(CLI argument, LSP command, indexer capture, importer) goes through `canonicalise`,
and every lookup compares canonical forms, so exact and prefix matching follow the
same case rule by construction. The grammar is written down in docs/entity-paths.md.

| kind                 | canonical form            | example                       |
|----------------------|---------------------------|-------------------------------|
| table / column       | `table`, `table.column`   | `users.email`                 |
| directory            | `dir/`                    | `src/`                        |
| file                 | repo-relative path        | `src/auth.py`                 |
| function/class/method| `file::Qualified.name`    | `src/auth.py::Session.login`  |
| one overload         | `file::Qualified.name(T)` | `Assert.java::Assert.geq(double)` |
| constant             | `file::Qualified.NAME`    | `app/settings.py::DEBUG`      |
| route                | `route/METHOD path`       | `route/GET /users/{id}`       |
| dependency           | `deps/name`               | `deps/stripe`                 |
| environment variable | `env/NAME`                | `env/STRIPE_KEY`              |

Classification, in order: `route/`, `deps/` and `env/` are reserved prefixes; a
leading `./` forces a file path (so a real folder called `deps` stays reachable);
anything with `/` or `::` is a file-system path; a single `name.ext` whose extension
is a known source or manifest extension is a file, and so is a conventional
extension-less root file (`Makefile`, `Dockerfile`, `LICENSE`, ...) or a dotfile;
everything else is SQL.

Unicode: paths are NFC-normalised (so a composed and a decomposed `é` are one
entity); invisible characters (zero-width, bidi controls, fillers, non-ASCII spaces)
are refused, because two paths that print the same must not be two entities.
`confusable_warnings` names identifiers that mix scripts (`emaіl` with a Cyrillic
`і`): legal, but worth a warning where a person writes one.
"""

from __future__ import annotations

import re
import unicodedata
from enum import Enum
from functools import lru_cache

import msgspec

__all__ = [
    "EntityKind",
    "EntityPath",
    "EntityPathError",
    "canonicalise",
    "column_path",
    "confusable_warnings",
    "covers",
    "dependency_path",
    "env_path",
    "kind_of",
    "overload_suffix",
    "parse",
    "parsed_or_none",
    "prefix_upper_bound",
    "route_path",
    "split_overload",
    "sql_identifier",
    "symbol_path",
    "table_path",
]


class EntityPathError(ValueError):
    """A string that is not a valid entity path; the message says why and what is valid."""


class EntityKind(str, Enum):
    """What an entity path names. FUNCTION/CLASS/METHOD/CONSTANT are refinements of
    SYMBOL that only the indexer (or a writer who knows) can supply; the grammar itself
    sees SYMBOL. A CONSTANT is a module- or class-level assignment (`settings.py::DEBUG`,
    `models.py::Order.STATUS_CHOICES`), written exactly like any other symbol."""

    TABLE = "table"
    COLUMN = "column"
    DIRECTORY = "directory"
    FILE = "file"
    SYMBOL = "symbol"
    FUNCTION = "function"
    CLASS = "class"
    METHOD = "method"
    CONSTANT = "constant"
    ROUTE = "route"
    DEPENDENCY = "dependency"
    ENV = "env"

    @property
    def coarse(self) -> EntityKind:
        """The kind the grammar can infer from the path alone."""
        if self in (EntityKind.FUNCTION, EntityKind.CLASS, EntityKind.METHOD, EntityKind.CONSTANT):
            return EntityKind.SYMBOL
        return self


class EntityPath(msgspec.Struct, frozen=True):
    """A parsed, canonical entity path."""

    path: str
    kind: EntityKind

    def __str__(self) -> str:
        return self.path


ROUTE_PREFIX = "route/"
DEPS_PREFIX = "deps/"
ENV_PREFIX = "env/"

HTTP_METHODS = frozenset(
    {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT", "ANY"}
)

# Extensions that make a bare `name.ext` a file rather than `table.column`. Kept to
# source, schema and manifest files: a column called `py` or `toml` is implausible.
_EXTENSION_WORDS = """py pyi sql js jsx mjs cjs ts tsx mts cts go rs java kt rb php cs c h cc
    cpp hpp swift scala ex exs erl clj lua sh bash zsh toml json jsonc yaml yml txt md rst
    cfg ini lock mod sum xml html css scss gradle proto graphql env conf"""
FILE_EXTENSIONS = frozenset(_EXTENSION_WORDS.split())

# Extension-less files that live at a repository's root under a conventional name.
# Matched case-sensitively in that spelling: `Dockerfile` is a file, while `license`
# typed in lower case stays a SQL table (tables fold to lower case). All-capital words
# that are also plausible upper-case table names (AUTHORS, VERSION) are left out:
# `./AUTHORS` reaches such a file.
_ROOT_FILE_WORDS = """Makefile GNUmakefile Dockerfile Containerfile Procfile LICENSE LICENCE
    COPYING CODEOWNERS Gemfile Rakefile Podfile Brewfile Vagrantfile Jenkinsfile Justfile
    Pipfile Guardfile Berksfile Earthfile Tiltfile Caddyfile Snakefile"""
ROOT_FILE_NAMES = frozenset(_ROOT_FILE_WORDS.split())

_IDENT = r"[A-Za-z_][A-Za-z0-9_$]*"
_SYMBOL_RE = re.compile(rf"^{_IDENT}(\.{_IDENT})*$")
_ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DEP_RE = re.compile(r"^@?[a-z0-9][a-z0-9._~+\-]*(/[a-z0-9._~+\-]+)*$")
_SQL_PART_RE = re.compile(r"^[^\s.\"`\[\]]+$")
_ROUTE_PARAM_RE = re.compile(
    r"<(?:[A-Za-z_][A-Za-z0-9_]*:)?([A-Za-z_][A-Za-z0-9_]*)>"  # Flask <int:id>
    r"|:([A-Za-z_][A-Za-z0-9_]*)"  # Express :id
    r"|\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?\}"  # FastAPI {id} / {path:path}
)
_BAD_PATH_CHARS = re.compile(r"[\x00-\x1f\x7f]")
# Invisible code points that are not format characters (Cf) yet render as nothing.
_INVISIBLE_EXTRA = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")
# Scripts that one identifier legitimately mixes (Japanese writes Han with kana).
_SCRIPT_FAMILY = {"CJK": "Han", "HIRAGANA": "Han", "KATAKANA": "Han", "HANGUL": "Hangul"}


def canonicalise(raw: str) -> str:
    """Return the canonical form of an entity path, or raise `EntityPathError`.

    Idempotent: `canonicalise(canonicalise(p)) == canonicalise(p)`.
    """
    return parse(raw).path


def kind_of(raw: str) -> EntityKind:
    """The coarse kind of an entity path (SYMBOL for `file::name`)."""
    return parse(raw).kind


@lru_cache(maxsize=1 << 17)
def parsed_or_none(raw: str) -> EntityPath | None:
    """`parse` of a string, or None for a path it refuses; cached for the process: the
    write path parses each draft's path and the index each path whose status row first
    names an event (its kind), at 1M events ~100k paths each, the same ones."""
    try:
        return parse(raw)
    except EntityPathError:
        return None


def parse(raw: str) -> EntityPath:
    """Classify and canonicalise an entity path."""
    if not isinstance(raw, str):
        raise EntityPathError(f"entity path must be a string, not {type(raw).__name__}")
    text = raw.strip()
    if not text:
        raise EntityPathError("entity path is empty; expected e.g. users.email or src/app.py")
    if _BAD_PATH_CHARS.search(text):
        raise EntityPathError(f"entity path {raw!r} contains control characters")
    if not text.isascii():
        text = _unicode_checked(text, raw)
    if text.startswith(ROUTE_PREFIX):
        return _parse_route(text)
    if text.startswith(DEPS_PREFIX):
        return EntityPath(dependency_path(text[len(DEPS_PREFIX) :]), EntityKind.DEPENDENCY)
    if text.startswith(ENV_PREFIX):
        return EntityPath(env_path(text[len(ENV_PREFIX) :]), EntityKind.ENV)
    if text.startswith("./") or "/" in text or "\\" in text or "::" in text:
        return _parse_fs(text)
    if _looks_like_file(text):
        return _parse_fs(text)
    return _parse_sql(text)


def confusable_warnings(path: str) -> list[str]:
    """Warnings for identifiers in `path` that mix writing systems (`emaіl` with a
    Cyrillic `і` looks like `email` and is not). Empty for ASCII and single-script text.
    """
    if path.isascii():
        return []
    out: list[str] = []
    for word in re.findall(r"[^\W\d_]+", path):  # runs of letters: one identifier's name
        scripts: dict[str, str] = {}
        for ch in word:
            script = _script(ch)
            if script:
                scripts.setdefault(script, ch)
        if len(scripts) > 1:
            foreign = ", ".join(
                f"{ch!r} is {unicodedata.name(ch, '?')}"
                for script, ch in scripts.items()
                if script != "LATIN"
            )
            out.append(
                f"{word!r} in {path!r} mixes scripts ({' and '.join(sorted(scripts))}: "
                f"{foreign}); check it is the name you meant"
            )
    return out


def _script(ch: str) -> str:
    """The writing system of a letter, from its Unicode name ('' when it has none)."""
    if ch.isascii():
        return "LATIN" if ch.isalpha() else ""
    name = unicodedata.name(ch, "")
    if not name:
        return ""
    first = name.split(" ", 1)[0]
    return _SCRIPT_FAMILY.get(first, first)


def _unicode_checked(text: str, raw: str) -> str:
    """NFC form of a non-ASCII path, or EntityPathError for an invisible character."""
    for ch in text:
        category = unicodedata.category(ch)
        if (
            category in ("Cf", "Zl", "Zp", "Cs", "Co", "Cc")
            or (category == "Zs" and ch != " ")
            or ch in _INVISIBLE_EXTRA
        ):
            label = unicodedata.name(ch, "a control character")
            raise EntityPathError(
                f"entity path {raw!r} contains an invisible character U+{ord(ch):04X} "
                f"({label}); retype it without hidden or direction-changing characters"
            )
    return unicodedata.normalize("NFC", text)


def covers(prefix: str, entity: str) -> bool:
    """True when `prefix` names `entity` or one of its ancestors.

    `users` covers `users.email`; `src/auth.py` covers `src/auth.py::Session.login`;
    `src/Assert.java::Assert.geq` covers every overload `...geq(double)` (a suffixed
    path covers only itself); `src/` covers everything below it; `route/GET /users` covers
    `route/GET /users/{id}`; `deps/` covers every dependency. Both arguments are
    canonicalised first, so the case rule is the same as for exact matches.
    """
    p = _canonical_prefix(prefix)
    e = canonicalise(entity)
    return _covers_canonical(p, e)


def prefix_upper_bound(canonical_prefix: str) -> str:
    """Exclusive upper bound for a range scan `prefix <= entity < bound` in an index.

    Every entity that `covers` matches sorts inside the range; callers still filter
    with `covers` because the range also admits siblings such as `users_archive`.
    """
    return canonical_prefix + "\U0010ffff"


def _canonical_prefix(prefix: str) -> str:
    text = prefix.strip()
    # Bare reserved roots ("route/", "deps/", "env/") are valid prefixes but not entities.
    if text in (ROUTE_PREFIX, DEPS_PREFIX, ENV_PREFIX):
        return text
    return canonicalise(text)


def _covers_canonical(p: str, e: str) -> bool:
    if e == p:
        return True
    if p.endswith("/"):  # directory or a reserved root
        return e.startswith(p)
    if not e.startswith(p):
        return False
    rest = e[len(p) :]
    if p.startswith(ROUTE_PREFIX):
        return rest.startswith("/")
    if "::" in p:  # symbol covers its members, and a bare name every overload of it
        return rest.startswith((".", "("))
    if "/" in p or "::" in e:  # file covers its symbols
        return rest.startswith("::")
    return rest.startswith(".")  # table covers its columns


# --- builders (for the indexer and importers, which know what they found) -------------


@lru_cache(maxsize=65536)
def sql_identifier(raw: str) -> str:
    """Fold one SQL identifier: strip quoting ("x", `x`, [x]) and lower-case it (cached:
    a migration names the same tables and columns again and again)."""
    text = raw.strip()
    if len(text) >= 2 and (
        (text[0] == text[-1] and text[0] in "\"`'") or (text[0] == "[" and text[-1] == "]")
    ):
        text = text[1:-1]
    text = text.strip().lower()
    if not text or not _SQL_PART_RE.match(text):
        raise EntityPathError(f"invalid SQL identifier {raw!r}")
    return text


def table_path(table: str) -> str:
    """`table` from a possibly quoted, possibly schema-qualified name (schema dropped)."""
    return sql_identifier(_split_sql(table)[-1])


def column_path(table: str, column: str) -> str:
    """`table.column` with both identifiers folded; a schema on the table is dropped."""
    return f"{table_path(table)}.{sql_identifier(column)}"


def symbol_path(file: str, qualified_name: str) -> str:
    """`file::Qualified.name`."""
    return canonicalise(f"{_canonical_file(file)}::{qualified_name}")


def route_path(method: str, path: str) -> str:
    """`route/METHOD path` with parameters written `{name}` whatever the framework."""
    return canonicalise(f"{ROUTE_PREFIX}{method} {path}")


def dependency_path(name: str) -> str:
    """`deps/name`: lower-cased; `_` folds to `-` for unscoped names (PEP 503's commonest
    confusion), while `.` is kept because npm treats `lodash.merge` as its own package."""
    text = name.strip().lower()
    if not text:
        raise EntityPathError("dependency name is empty; expected e.g. deps/stripe")
    if "/" not in text:
        text = text.replace("_", "-")
    if not _DEP_RE.match(text):
        raise EntityPathError(
            f"invalid dependency name {name!r}; expected a package name such as "
            "deps/stripe, deps/@types/node or deps/github.com/lib/pq"
        )
    return DEPS_PREFIX + text


def env_path(name: str) -> str:
    """`env/NAME`: case is kept (environment variables are case-sensitive on POSIX)."""
    text = name.strip()
    if not _ENV_RE.match(text):
        raise EntityPathError(
            f"invalid environment variable name {name!r}; expected e.g. env/STRIPE_KEY"
        )
    return ENV_PREFIX + text


# --- internals -------------------------------------------------------------------------


def _looks_like_file(text: str) -> bool:
    if '"' in text or "`" in text or "[" in text:
        return False
    if text in ROOT_FILE_NAMES:
        return True
    if text.startswith(".") and len(text) > 1:
        return True  # a dotfile: `.env.local`, `.gitignore` (no SQL name starts with a dot)
    if text.count(".") != 1:
        return False
    stem, ext = text.split(".")
    return bool(stem) and (ext.lower() in FILE_EXTENSIONS or stem in ROOT_FILE_NAMES)


def _split_sql(text: str) -> list[str]:
    """Split a dotted SQL name, respecting quotes: `"My.Schema".users` -> 2 parts."""
    if not ('"' in text or "`" in text or "[" in text):  # the usual case: no quoting
        plain = text.split(".")
        if not all(p.strip() for p in plain):
            raise EntityPathError(
                f"empty part in SQL name {text!r}; expected table or table.column"
            )
        return plain
    parts: list[str] = []
    buf: list[str] = []
    quote: str | None = None
    for ch in text:
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = None
        elif ch in '"`':
            quote = ch
            buf.append(ch)
        elif ch == "[":
            quote = "]"
            buf.append(ch)
        elif ch == ".":
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    if quote:
        raise EntityPathError(f"unterminated quote in SQL name {text!r}")
    parts.append("".join(buf))
    if any(not p.strip() for p in parts):
        raise EntityPathError(f"empty part in SQL name {text!r}; expected table or table.column")
    return parts


def _parse_sql(text: str) -> EntityPath:
    parts = _split_sql(text)
    if len(parts) > 3:
        raise EntityPathError(
            f"too many parts in {text!r}; expected table, table.column or schema.table.column"
        )
    if len(parts) == 3:  # schema.table.column: the schema qualifier is dropped
        parts = parts[1:]
    names = [sql_identifier(p) for p in parts]
    if len(names) == 1:
        return EntityPath(names[0], EntityKind.TABLE)
    return EntityPath(".".join(names), EntityKind.COLUMN)


def _canonical_file(path: str) -> str:
    text = path.strip().replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    if text.startswith("/"):
        raise EntityPathError(
            f"file path {path!r} is absolute; entity paths are relative to the repository root"
        )
    is_dir = text.endswith("/")
    segments = [s for s in text.split("/") if s not in ("", ".")]
    if not segments:
        raise EntityPathError(f"file path {path!r} is empty")
    if ".." in segments:
        raise EntityPathError(f"file path {path!r} leaves the repository (contains '..')")
    out = "/".join(segments)
    return out + "/" if is_dir else out


def _parse_fs(text: str) -> EntityPath:
    file_part, sep, symbol = text.partition("::")
    file = _canonical_file(file_part)
    if not sep:
        kind = EntityKind.DIRECTORY if file.endswith("/") else EntityKind.FILE
        return EntityPath(file, kind)
    if file.endswith("/"):
        raise EntityPathError(f"{text!r}: a symbol must belong to a file, not a directory")
    symbol = symbol.strip()
    name, paren, params = symbol.partition("(")
    name = name.rstrip()
    if not _SYMBOL_RE.match(name):
        raise EntityPathError(
            f"invalid symbol {symbol!r} in {text!r}; expected file::Qualified.name "
            "such as src/auth.py::Session.login"
        )
    if paren:
        name += overload_suffix(paren + params, text)
    return EntityPath(f"{file}::{name}", EntityKind.SYMBOL)


# --- overloads -------------------------------------------------------------------------

# One parameter's canonical type: erased, unqualified, arrays as `[]`.
_PARAM_TYPE_RE = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\[\])*\Z")
# Words that qualify a parameter but are not its type (Java, C#, TypeScript).
_PARAM_MODIFIERS = frozenset(
    [
        "final",
        "const",
        "volatile",
        "ref",
        "out",
        "in",
        "params",
        "this",
        "readonly",
        "public",
        "private",
        "protected",
    ]
)
_ANNOTATION_RE = re.compile(r"@[A-Za-z_$][\w$.]*(?:\s*\([^()]*\))?")


def split_overload(path: str) -> tuple[str, str]:
    """(`file::C.m`, `(int)`) for a canonical overload path; (path, "") for any other."""
    if "::" in path and path.endswith(")"):
        cut = path.find("(", path.index("::"))
        if cut > 0:
            return path[:cut], path[cut:]
    return path, ""


def overload_suffix(raw: str, where: str = "") -> str:
    """The canonical parameter-type suffix of one overload: `(double)`,
    `(byte[],OutputStream)`, `()`. Accepts a parameter list as written, in Java, C# or
    TypeScript (`(final Map<K, V> m, int... xs)`, `(a: string, b?: number[])`):
    annotations, modifiers and parameter names are dropped, generics erased,
    qualifications removed, varargs written as arrays. Anything it cannot reduce to one
    plain type per parameter is refused, so two spellings of one overload are one path."""
    text = raw.strip()
    label = where or raw
    if not (text.startswith("(") and text.endswith(")")):
        raise EntityPathError(
            f"invalid overload suffix {raw!r} in {label!r}; expected parameter types in "
            "parentheses after the last name, e.g. Assert.geq(double)"
        )
    inner = text[1:-1]
    if not inner.strip():
        return "()"
    return (
        "(" + ",".join(_param_type(p, raw, label) for p in _split_params(inner, raw, label)) + ")"
    )


def _split_params(inner: str, raw: str, label: str) -> list[str]:
    """Top-level commas only: `Map<K, V> m` is one parameter."""
    parts: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(inner):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
            if depth < 0:
                break
        elif ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    if depth != 0:
        raise EntityPathError(f"unbalanced brackets in overload suffix {raw!r} in {label!r}")
    parts.append(inner[start:])
    return parts


def _erase_generics(text: str) -> str:
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


def _param_type(param: str, raw: str, label: str) -> str:
    text = _ANNOTATION_RE.sub(" ", param).replace("::", ".")
    text = _erase_generics(text).split("=", 1)[0]  # a TypeScript default value
    if ":" in text:  # TypeScript: `name?: Type`
        text = text.split(":", 1)[1]
    text = re.sub(r"\s*\[\s*\]", "[]", text)
    text = re.sub(r"\s*\.\.\.\s*", "[] ", text)  # Java varargs: `int... xs` is `int[]`
    words = [w for w in text.split() if w not in _PARAM_MODIFIERS]
    if not words:
        raise EntityPathError(f"empty parameter in overload suffix {raw!r} in {label!r}")
    if len(words) == 2:  # `Type name`; C-style `byte b[]` keeps its brackets on the type
        name = words[1]
        words = [words[0] + name[len(name.rstrip("[]")) :]]
    elif len(words) == 1 and words[0].startswith("[]"):  # TypeScript `...xs: T[]`
        words = [words[0][2:]]
    found = words[0].rsplit(".", 1)[-1] if len(words) == 1 else ""
    if not _PARAM_TYPE_RE.match(found):
        raise EntityPathError(
            f"invalid parameter {param.strip()!r} in overload suffix {raw!r} in {label!r}; "
            "expected one type per parameter, e.g. (int,String[])"
        )
    return found


def _parse_route(text: str) -> EntityPath:
    rest = text[len(ROUTE_PREFIX) :].strip()
    method, _, path = rest.partition(" ")
    method = method.strip().upper()
    path = path.strip()
    if method == "*":
        method = "ANY"
    if method not in HTTP_METHODS:
        raise EntityPathError(
            f"invalid route {text!r}; expected route/METHOD /path with METHOD one of "
            + ", ".join(sorted(HTTP_METHODS))
        )
    if not path or " " in path:
        raise EntityPathError(f"invalid route {text!r}; expected e.g. route/GET /users/{{id}}")
    path = _ROUTE_PARAM_RE.sub(lambda m: "{" + next(g for g in m.groups() if g) + "}", path)
    if not path.startswith("/"):
        path = "/" + path
    path = re.sub(r"/{2,}", "/", path)
    if len(path) > 1:
        path = path.rstrip("/")
    return EntityPath(f"{ROUTE_PREFIX}{method} {path}", EntityKind.ROUTE)
