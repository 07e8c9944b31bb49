"""`cairn import sql|alembic|rails|git|adr|selvedge` and `cairn export markdown|jsonl`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import click

from cairn.cli._common import CairnError, current_project, emit_json, json_option
from cairn.importers.base import ImportReport, Proposed, Skipped, SourceError, run_import

ItemsFactory = Callable[[Path, list], tuple[int | None, Iterator[Proposed | Skipped]]]

dry_run_option = click.option(
    "--dry-run", is_flag=True, help="Show what would be imported; write nothing."
)


def _run(source: str, factory: ItemsFactory, dry_run: bool, as_json: bool) -> None:
    from cairn.store import Store

    project = current_project()
    hooks: list = []
    try:
        units, items = factory(project.root, hooks)
        store = Store.open(project.cairn_dir)
        report = run_import(store, source, items, dry_run=dry_run, units=units, unit_done=hooks)
    except SourceError as exc:
        raise CairnError(str(exc)) from None
    _print_report(report, as_json)


def _print_report(report: ImportReport, as_json: bool) -> None:
    if as_json:
        emit_json(report.to_json())
        return
    verb = "would import" if report.dry_run else "imported"
    for event in report.imported:
        click.echo(f"  {event['type']:<10} {event['entity']}  ({event['source_key']})")
    click.echo(
        f"{report.source}: {verb} {len(report.imported)} event(s); "
        f"{report.already} already imported; {len(report.skipped)} skipped"
    )
    for s in report.skipped:
        click.echo(f"  skipped {s.item}: {s.reason}")


@click.group("import")
def import_group() -> None:
    """Import the decision history a repository already holds (idempotent)."""


@import_group.command("sql")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@dry_run_option
@json_option
def import_sql_cmd(paths: tuple[Path, ...], dry_run: bool, as_json: bool) -> None:
    """SQL migrations (Flyway, golang-migrate, dbmate, timestamped, plain) in apply order."""
    from cairn.importers.sql import import_sql

    _run("sql", lambda root, hooks: import_sql(list(paths), root, hooks), dry_run, as_json)


def register(group: click.Group) -> None:
    """Add `import` and `export` to the root group."""
    group.add_command(import_group)
