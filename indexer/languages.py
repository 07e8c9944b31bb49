"""Which grammar parses which file, and one cached `Language`/`Parser` per grammar."""

from __future__ import annotations

import fnmatch
import importlib
import re
import threading
from functools import cache

from tree_sitter import Language, Parser

# language name -> (grammar module, function returning the language pointer)
GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "sql": ("tree_sitter_sql", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "toml": ("tree_sitter_toml", "language"),
    "json": ("tree_sitter_json", "language"),
    "yaml": ("tree_sitter_yaml", "language"),
}

# Formats with no grammar wheel; a line parser reads them (see manifests.py).
LINE_FORMATS = ("requirements", "gomod", "dockerfile")

_EXTENSIONS = {
    ".py": "python",
    ".pyi": "python",
    ".sql": "sql",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".rb": "ruby",
    ".rake": "ruby",
    ".toml": "toml",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
}
_NAMES = {
    "Rakefile": "ruby",
    "Gemfile": "ruby",
    "go.mod": "gomod",
    "Pipfile": "toml",
    "poetry.lock": "toml",
    "uv.lock": "toml",
    "Cargo.lock": "toml",
}
_REQUIREMENTS = (
    "*requirements*.txt",
    "*requirements*.in",
    "constraints*.txt",
    "requirements*.pip",
)
_DOCKERFILES = ("Dockerfile", "Dockerfile.*", "*.Dockerfile", "*.dockerfile", "Containerfile")


# one regular expression per family, so a file name costs one match, not one per pattern
_REQUIREMENTS_RE = re.compile("|".join(fnmatch.translate(p) for p in _REQUIREMENTS))
_DOCKERFILES_RE = re.compile("|".join(fnmatch.translate(p) for p in _DOCKERFILES))


def language_for(path: str) -> str | None:
    """The language name for a file path (a grammar or a line format), or None.

    Plain string work (no `PurePosixPath`, no pattern loop): a scan asks this for every
    file, and the path object and fnmatch calls cost a fifth of a bare parse."""
    path = path.replace("\\", "/").rstrip("/")
    slash = path.rfind("/")
    name = path[slash + 1 :]
    if name in _NAMES:
        return _NAMES[name]
    if _REQUIREMENTS_RE.match(name):
        return "requirements"
    if _DOCKERFILES_RE.match(name):
        return "dockerfile"
    dot = name.rfind(".")
    suffix = name[dot:] if 0 < dot < len(name) - 1 else ""  # PurePosixPath.suffix's rule
    if suffix == ".txt" and path[:slash].rstrip("/").rsplit("/", 1)[-1] == "requirements":
        return "requirements"
    return _EXTENSIONS.get(suffix.lower())


@cache
def grammar(language: str) -> Language:
    """The tree-sitter `Language` for a language name (loaded once)."""
    module_name, function = GRAMMARS[language]
    module = importlib.import_module(module_name)
    return Language(getattr(module, function)())


_local = threading.local()


def parser(language: str) -> Parser:
    """A parser for `language`; one per thread, because parsers are not thread-safe."""
    parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    found = parsers.get(language)
    if found is None:
        found = parsers[language] = Parser(grammar(language))
    return found
