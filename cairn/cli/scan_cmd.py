"""`cairn scan`: what the indexer sees in files and folders (no `.cairn/` needed)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from cairn.cli._common import CairnError, json_option, say
from cairn.core.project import ProjectNotFound, find_project
from cairn.terminal import printable


def register(group: click.Group) -> None:
    """Add `scan` to the root group."""
    group.add_command(scan)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--queries",
    "queries_dir",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Folder of extra <language>.scm queries (default: the project's .cairn/queries).",
)
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="List each file skipped as minified, bundled or generated, and why.",
)
@json_option
def scan(paths: tuple[Path, ...], queries_dir: Path | None, verbose: bool, as_json: bool) -> None:
    """Print the entities the indexer finds in PATHS (default: the current folder).

    \b
    cairn scan db/migrations/            tables and columns each migration touches
    cairn scan src/app.py --json         symbols with 0-based LSP ranges
    Folders are walked honouring .gitignore. Minified files, bundles, source maps and
    generated code (by name, `linguist-generated` in .gitattributes, or content) are
    skipped; --verbose lists them. Entity file paths are relative to the project root:
    the nearest .cairn/, else the git top level, else the current folder.
    """
    from cairn.indexer import iter_files, scan_paths, user_query_errors
    from cairn.indexer.scan import relative_name

    targets = list(paths) or [Path(".")]
    for target in targets:
        if not target.exists():
            raise CairnError(f"{target}: no such file or directory")
    root, cairn_dir = project_root(Path.cwd())
    if queries_dir is None and cairn_dir is not None and (cairn_dir / "queries").is_dir():
        queries_dir = cairn_dir / "queries"
    for error in user_query_errors(queries_dir):
        _warn(f"{error} (skipped; the built-in queries still run)")

    walked: list[tuple[Path, str]] = []
    files = list(iter_files(targets, walked))
    skipped = [(relative_name(path, root), reason) for path, reason in walked]
    results = []
    with _progress(len(files)) as advance:
        for result in scan_paths(files, root, user_queries_dir=queries_dir):
            if result.error:
                _warn(f"{result.file}: {result.error}")
            if result.skipped:
                skipped.append((result.file, result.skipped))
            results.append(result)
            advance()
    _report_skipped(skipped, verbose)

    if as_json:
        _emit_symbols([s.as_json() for r in results for s in r.symbols])
        return
    for result in results:
        if not result.symbols:
            continue
        name = printable(result.file)  # a file name may hold any byte but NUL and slash
        click.echo(click.style(name, bold=True) if sys.stdout.isatty() else name)
        for s in result.symbols:
            where = f"{s.name_range.start_line + 1}:{s.name_range.start_character + 1}"
            say(f"  {where:<9} {s.role.value:<9} {s.kind:<10} {s.entity}")


def project_root(cwd: Path) -> tuple[Path, Path | None]:
    """(root, .cairn folder or None): the nearest `.cairn/`, else git's top level, else cwd."""
    try:
        project = find_project(cwd)
        return project.root, project.cairn_dir
    except ProjectNotFound:
        pass
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        top = None
    if top is not None and top.returncode == 0 and top.stdout.strip():
        return Path(top.stdout.strip()).resolve(), None
    return cwd.resolve(), None


def _emit_symbols(symbols: list[dict[str, object]]) -> None:
    """A JSON list with one symbol per line: still readable, and written by the C encoder
    (`indent=` would switch json to its pure-Python encoder, 10x slower on a big tree)."""
    if not symbols:
        click.echo("[]")
        return
    lines = ",\n".join("  " + json.dumps(s, ensure_ascii=False) for s in symbols)
    click.echo(f"[\n{lines}\n]")


def _report_skipped(skipped: list[tuple[str, str]], verbose: bool) -> None:
    """What was not indexed: each file with --verbose, else a one-line count."""
    if not skipped:
        return
    if verbose:
        for file, reason in sorted(skipped):
            click.echo(f"cairn: skipped {printable(file)}: {reason}", err=True)
        return
    click.echo(
        f"cairn: skipped {len(skipped)} minified, bundled or generated file(s) "
        "(--verbose lists them)",
        err=True,
    )


def _warn(message: str) -> None:
    line = " ".join(message.split())
    click.secho(f"cairn: warning: {line}", err=True, fg="yellow" if sys.stderr.isatty() else None)


@contextmanager
def _progress(total: int) -> Iterator[Callable[[], None]]:
    """A rich progress bar on an interactive stderr; a no-op otherwise."""
    if not sys.stderr.isatty() or total < 2:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(
        TextColumn("scanning"),
        BarColumn(),
        MofNCompleteColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as progress:
        task = progress.add_task("scan", total=total)
        yield lambda: progress.advance(task)
