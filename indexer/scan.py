"""Walking files and folders for `cairn scan`, honouring `.gitignore` files and skipping
minified, bundled and generated files (skip.py says why each is skipped)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pathspec

from cairn.indexer.document import index_text
from cairn.indexer.frameworks.django_apps import app_model_tables
from cairn.indexer.languages import language_for
from cairn.indexer.model import Symbol
from cairn.indexer.skip import SKIPPED_DIRS, content_reason, load_generated, name_reason

# Never source code, whatever .gitignore says.
_ALWAYS_SKIP = frozenset({".git", ".hg", ".svn", ".cairn"})


@dataclass(frozen=True, slots=True)
class FileSymbols:
    """One scanned file: its path on disk, its path relative to the root, what it holds."""

    path: Path
    file: str
    size: int
    symbols: list[Symbol]
    error: str | None = None
    skipped: str | None = None  # why the file was not indexed (minified, generated)


def iter_files(
    paths: Iterable[Path], skipped: list[tuple[Path, str]] | None = None
) -> Iterator[Path]:
    """Indexable files under `paths`: files named explicitly always; folders walked in
    sorted order, skipping what their `.gitignore` files (and the ones above) ignore,
    and minified, bundled or generated files by name or `.gitattributes`
    (`linguist-generated`), which are appended to `skipped` with the reason."""
    specs: dict[Path, pathspec.PathSpec | None] = {}
    generated: dict[Path, pathspec.PathSpec | None] = {}
    sink = skipped if skipped is not None else []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            yield from _walk(path.resolve(), specs, generated, sink)
        elif language_for(path.name) is not None or language_for(str(path)) is not None:
            yield path.resolve()


def scan_paths(
    paths: Iterable[Path], root: Path, *, user_queries_dir: str | Path | None = None
) -> Iterator[FileSymbols]:
    """Index every file under `paths`; entity file paths are relative to `root`."""
    root = root.resolve()
    django_apps: dict[Path, object] = {}  # each Django app's files parsed once a scan
    for path in iter_files(paths):
        file = relative_name(path, root)
        try:
            data = path.read_bytes()
        except OSError as exc:
            yield FileSymbols(path, file, 0, [], f"cannot read: {exc.strerror or exc}")
            continue
        reason = content_reason(data)
        if reason is not None:
            yield FileSymbols(path, file, len(data), [], skipped=reason)
            continue
        tables = app_model_tables(root, file, django_apps)
        symbols = index_text(data, file, user_queries_dir=user_queries_dir, model_tables=tables)
        yield FileSymbols(path, file, len(data), symbols)


def relative_name(path: Path, root: Path) -> str:
    """`path` relative to `root` in POSIX form (the path itself if it lies outside)."""
    # iter_files yields resolved folders' children; only the file itself may be a link,
    # and resolving every path (an lstat per component) cost a scan a tenth of its time
    if path.is_absolute() and ".." not in path.parts and not os.path.islink(path):
        # the usual case, a file below the root, by string: PurePath.relative_to
        # re-parses both paths (2% of a parse's time over redash)
        text, prefix = str(path), str(root)
        if not prefix.endswith(os.sep):
            prefix += os.sep
        if text.startswith(prefix) and os.sep == "/":
            return text[len(prefix) :]
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.resolve().as_posix().lstrip("/")


def _walk(
    top: Path,
    specs: dict[Path, pathspec.PathSpec | None],
    generated: dict[Path, pathspec.PathSpec | None],
    skipped: list[tuple[Path, str]],
) -> Iterator[Path]:
    # A folder named explicitly is scanned even when an ancestor's .gitignore ignores
    # it (`cairn scan build/`); the .gitignore files inside it still apply.
    parent_chain = _ignore_chain(top.parent, specs) if top.parent != top else []
    stop = top if _ignored(top, True, parent_chain) else None
    # outside git, .gitattributes above the walked folder belong to nothing of ours
    limit = None if any((f / ".git").exists() for f in (top, *top.parents)) else top
    for directory, dirnames, filenames in os.walk(top):
        here = Path(directory)
        chain = _ignore_chain(here, specs, stop)
        kept = []
        for d in sorted(dirnames):
            if d in _ALWAYS_SKIP or os.path.islink(os.path.join(directory, d)):
                continue
            if _ignored(here / d, True, chain):
                continue
            if d in SKIPPED_DIRS:
                skipped.append((here / d, f"{d}/: third-party packages"))
                continue
            kept.append(d)
        dirnames[:] = kept
        marked = _generated_chain(here, generated, limit)
        for name in sorted(filenames):
            if language_for(name) is None and language_for(f"{here.name}/{name}") is None:
                continue
            path = here / name
            if _ignored(path, False, chain) or not path.is_file():
                continue
            reason = name_reason(name)
            if reason is None and _ignored(path, False, marked):
                reason = "generated (linguist-generated in .gitattributes)"
            if reason is not None:
                skipped.append((path, reason))
                continue
            yield path


def _ignore_chain(
    directory: Path, specs: dict[Path, pathspec.PathSpec | None], stop: Path | None = None
) -> list[tuple[Path, pathspec.PathSpec]]:
    """The .gitignore specs that apply in `directory`: its own and its ancestors' up to
    the repository root (the folder holding `.git`), or up to `stop`."""
    chain: list[tuple[Path, pathspec.PathSpec]] = []
    for folder in (directory, *directory.parents):
        if stop is not None and folder == stop.parent:
            break
        if folder not in specs:
            specs[folder] = _load(folder)
        spec = specs[folder]
        if spec is not None:
            chain.append((folder, spec))
        if (folder / ".git").exists():
            break
    return chain


def _generated_chain(
    directory: Path, cache: dict[Path, pathspec.PathSpec | None], limit: Path | None
) -> list[tuple[Path, pathspec.PathSpec]]:
    """`.gitattributes` `linguist-generated` patterns that apply in `directory`: its own
    and its ancestors' up to the repository root (or the walked folder, outside git)."""
    chain: list[tuple[Path, pathspec.PathSpec]] = []
    for folder in (directory, *directory.parents):
        if folder not in cache:
            cache[folder] = load_generated(folder)
        spec = cache[folder]
        if spec is not None:
            chain.append((folder, spec))
        if folder == limit or (folder / ".git").exists():
            break
    return chain


def _load(folder: Path) -> pathspec.PathSpec | None:
    lines: list[str] = []
    for name in (".gitignore", ".git/info/exclude"):
        try:
            lines.extend((folder / name).read_text("utf-8", "replace").splitlines())
        except OSError:
            continue
    if not lines:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _ignored(path: Path, is_dir: bool, chain: list[tuple[Path, pathspec.PathSpec]]) -> bool:
    for base, spec in chain:
        rel = path.relative_to(base).as_posix() + ("/" if is_dir else "")
        if spec.match_file(rel):
            return True
    return False
