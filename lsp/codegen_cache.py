"""Generated methods compiled once per machine, not at every server start.

attrs writes the methods of each class it builds (`__init__`, `__eq__`, `__repr__`, ...)
as Python source and compiles it; cattrs does the same for its (un)structure functions.
lsprotocol defines about 550 classes, so every start of the server compiled about a
thousand snippets: ~250 ms, half of `import lsprotocol.types` and of the whole start.
The snippets are the same at every start, so their compiled code is too: this keeps
it in one file in the user's cache folder, as Python keeps a module's bytecode in
`__pycache__`.

How: the name `compile` in those libraries' modules (a global lookup, so by default
the builtin) is shadowed by a `CodeCache` that answers with the stored code object
for the same source, filename, mode and flags, and compiles (and remembers) anything
else. Nothing of the libraries is replaced or called differently: if a later version
stops calling `compile` by name, the cache is simply not used.

Correct by construction: an entry's key is the whole source text plus everything else
`compile` is given (the future flags the calling module would have passed on
included), and the file records the interpreter's bytecode magic number, so an
entry can only ever stand for what `compile` would have returned. A file that is
missing, unreadable, owned by someone else or corrupt is ignored (and rewritten).
The file holds what one session used, so entries that no longer match (after an
upgrade) drop out at the next save.
"""

from __future__ import annotations
import __future__

import builtins
import logging
import marshal
import os
import sys
import zlib
from importlib import import_module
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

log = logging.getLogger(__name__)

# The modules whose generated code the server's start-up compiles, and the builtin each
# compiles it with: attrs' class builder and cattrs' hook generators call `compile`;
# dataclasses hands its methods' source to `exec`.
MODULES = (
    ("attr._make", "compile"),
    ("cattrs.gen", "compile"),
    ("cattrs.gen.typeddicts", "compile"),
    ("dataclasses", "exec"),
)
FORMAT = b"cairn-codegen 1\n"
REWRITE_AFTER = 8  # misses under known names that make a save worth it (see `save`)
_compile = builtins.compile
_exec = builtins.exec

Key = tuple[str, str, str, int]


def cache_path() -> Path:
    """The cache file: `$XDG_CACHE_HOME/cairn/` (or `~/.cache/cairn/`), one per
    interpreter and environment (two virtualenvs with other library versions would
    otherwise rewrite each other's file at every start)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    tag = sys.implementation.cache_tag or "python"
    env = zlib.crc32(sys.prefix.encode("utf-8", "surrogateescape"))
    return Path(base) / "cairn" / f"lsp-codegen-{tag}-{env:08x}.marshal"


class CodeCache:
    """Compiled generated code, keyed by everything `compile` was given."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stored: dict[Key, CodeType] = _load(path)
        self.used: dict[Key, CodeType] = {}  # what this process compiled or reused
        self.hits = 0
        self.misses = 0
        self._saved_misses = 0
        self._known_files = {key[1] for key in self.stored}
        self._new_files = False  # a miss under a filename the file does not hold

    def compiler(self, module_flags: int) -> Any:
        """A `compile` for a module whose own future imports set `module_flags`."""

        def cached_compile(
            source: Any,
            filename: Any,
            mode: str,
            flags: int = 0,
            dont_inherit: bool = False,
            optimize: int = -1,
            **kwargs: Any,
        ) -> Any:
            # What the builtin would have done if that module had called it itself:
            # it inherits the caller's future flags unless told not to.
            effective = flags if dont_inherit else flags | module_flags
            if type(source) is not str or flags or optimize != -1 or kwargs:
                return _compile(source, filename, mode, effective, True, optimize, **kwargs)
            key = (source, str(filename), mode, effective)
            code = self.stored.get(key) or self.used.get(key)
            if code is None:
                code = _compile(source, filename, mode, effective, True)
                self.misses += 1
                self._new_files = self._new_files or key[1] not in self._known_files
            else:
                self.hits += 1
            self.used[key] = code
            return code

        return cached_compile

    def executor(self, module_flags: int) -> Any:
        """An `exec` for a module whose own future imports set `module_flags`: source
        text is compiled through the cache (as `exec` would, file name `<string>`)."""
        compile_ = self.compiler(module_flags)

        def cached_exec(source: Any, *args: Any, **kwargs: Any) -> Any:
            if type(source) is str:
                source = compile_(source, "<string>", "exec")
            return _exec(source, *args, **kwargs)

        return cached_exec

    def save(self) -> bool:
        """Write what this process used, if that would help the next one; True if written.

        Some sources differ at every start and never hit: attrs writes the process's
        (randomised) string hash of a name into a frozen class's `__hash__`. So a few
        misses under names the file already holds are no reason to rewrite it; a new
        name, or many misses (an upgraded library), are. Never raises: a cache that
        cannot be written only costs the next start time.
        """
        fresh = self.misses - self._saved_misses
        if not fresh or not (self._new_files or fresh >= REWRITE_AFTER):
            return False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            data = MAGIC_NUMBER + FORMAT + marshal.dumps(dict(self.used))
            tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, self.path)
        except (OSError, ValueError) as exc:
            log.debug("could not save the code cache %s: %s", self.path, exc)
            return False
        self._saved_misses = self.misses
        self._known_files = {key[1] for key in self.used}
        self._new_files = False
        return True


_installed: CodeCache | None = None


def install(path: Path | None = None) -> CodeCache | None:
    """Shadow `compile` (or `exec`) in the code-generating modules (once per process);
    the cache.

    Must run before `lsprotocol.types` is imported to help. None when none of the
    modules can be imported (then nothing changes).
    """
    global _installed
    if _installed is not None:
        return _installed
    cache = CodeCache(path or cache_path())
    patched = 0
    for name, builtin in MODULES:
        try:
            module = import_module(name)
        except ImportError:
            continue
        original = getattr(builtins, builtin)
        if module.__dict__.get(builtin, original) is not original:
            continue  # the module defines its own: not ours to shadow
        flags = future_flags(module)
        shim = cache.compiler(flags) if builtin == "compile" else cache.executor(flags)
        setattr(module, builtin, shim)
        patched += 1
    if not patched:
        return None
    _installed = cache
    return cache


def installed() -> CodeCache | None:
    """The cache `install` set up in this process, if any."""
    return _installed


def future_flags(module: ModuleType) -> int:
    """The compiler flags of a module's `from __future__ import ...` statements."""
    flags = 0
    for name in __future__.all_feature_names:
        feature: __future__._Feature = getattr(__future__, name)
        if module.__dict__.get(name) is feature:
            flags |= feature.compiler_flag
    return flags


def _load(path: Path) -> dict[Key, CodeType]:
    """The stored entries, or {} when the file is missing, foreign or corrupt."""
    try:
        with path.open("rb") as f:
            if hasattr(os, "getuid") and os.fstat(f.fileno()).st_uid != os.getuid():
                return {}  # someone else's file in a shared folder: not trusted
            data = f.read()
    except OSError:
        return {}
    header = MAGIC_NUMBER + FORMAT
    if not data.startswith(header):
        return {}
    try:
        stored = marshal.loads(memoryview(data)[len(header) :])
    except (EOFError, ValueError, TypeError) as exc:
        log.debug("ignoring a corrupt code cache %s: %s", path, exc)
        return {}
    if not isinstance(stored, dict):
        return {}
    return {k: v for k, v in stored.items() if _valid(k, v)}


def _valid(key: object, value: object) -> bool:
    return (
        isinstance(key, tuple)
        and len(key) == 4
        and isinstance(key[0], str)
        and isinstance(key[1], str)
        and isinstance(key[2], str)
        and isinstance(key[3], int)
        and isinstance(value, CodeType)
    )
