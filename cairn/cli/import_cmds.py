"""`cairn import <source>` (sql, alembic, django, rails, git, adr, selvedge) and `cairn export`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from cairn.cli._common import CairnError, current_project, emit_json, json_option, plural, say
from cairn.importers.base import (
    ImportReport,
    Known,
    ProgressHook,
    Proposed,
    Skipped,
    SourceError,
    one_import_at_a_time,
    run_import,
)

Items = tuple[int | None, Iterator[Proposed | Skipped | Known]]
ItemsFactory = Callable[[Path, list[ProgressHook], Any], Items]

dry_run_option = click.option(
    "--dry-run", is_flag=True, help="Show what would be imported; write nothing."
)
existing_path = click.Path(exists=True, path_type=Path)


def _run(source: str, factory: ItemsFactory, dry_run: bool, as_json: bool) -> None:
    from cairn.gitrefs import git_author
    from cairn.store import Store, StoreError
    from cairn.store.paths import EntityPathError

    project = current_project()
    hooks: list[ProgressHook] = []

    def waiting() -> None:
        click.echo("cairn: waiting for another import into this log to finish...", err=True)

    try:
        with (
            one_import_at_a_time(project.cairn_dir, waiting),
            Store.open(project.cairn_dir, author=git_author(project.root)) as store,
        ):
            units, items = factory(project.root, hooks, store)
            report = run_import(store, source, items, dry_run=dry_run, units=units, unit_done=hooks)
    except SourceError as exc:
        raise CairnError(str(exc)) from None
    except (StoreError, EntityPathError) as exc:
        raise CairnError(str(exc)) from None
    except OSError as exc:  # a source folder or file that vanished or cannot be read
        where = f"{exc.filename}: " if exc.filename else ""
        raise CairnError(f"{where}{exc.strerror or exc}") from None
    _print_report(report, as_json)


def _print_report(report: ImportReport, as_json: bool) -> None:
    if as_json:
        emit_json(report.to_json())
        return
    verb = "would import" if report.dry_run else "imported"
    for event in report.imported:
        say(f"  {event['type']:<10} {event['entity']}  ({event['source_key']})")
    for n in report.notes:
        say(f"  note: {n.item}: {n.reason}")
    for s in report.skipped:
        say(f"  skipped: {s.item}: {s.reason}")
    click.echo(
        f"{report.source}: {verb} {plural(len(report.imported), 'event')}, "
        f"{report.already} already imported, {len(report.skipped)} skipped"
    )


@click.group("import")
def import_group() -> None:
    """Import the decision history a repository already holds.

    Every importer is idempotent (running it twice adds nothing), dates events from
    the source (`occurred_at`), marks them `agent: cairn-import/<source>`, and reports
    what it skipped and why.
    """


@import_group.command("sql")
@click.argument("paths", nargs=-1, required=True, type=existing_path)
@dry_run_option
@json_option
def import_sql_cmd(paths: tuple[Path, ...], dry_run: bool, as_json: bool) -> None:
    """SQL migrations (Flyway, golang-migrate, dbmate, timestamped, plain) in apply order."""
    from cairn.importers.sql import import_sql

    _run("sql", lambda root, hooks, _store: import_sql(list(paths), root, hooks), dry_run, as_json)


@import_group.command("alembic")
@click.argument("directory", type=existing_path)
@dry_run_option
@json_option
def import_alembic_cmd(directory: Path, dry_run: bool, as_json: bool) -> None:
    """Alembic revisions in down_revision graph order.

    DIR is the versions folder, its script folder, or the project root (alembic.ini's
    script_location, else alembic/ or migrations/).
    """
    from cairn.importers.alembic import import_alembic

    _run(
        "alembic",
        lambda root, hooks, _store: import_alembic(directory, root, hooks),
        dry_run,
        as_json,
    )


@import_group.command("django")
@click.argument("paths", nargs=-1, required=True, type=existing_path)
@dry_run_option
@json_option
def import_django_cmd(paths: tuple[Path, ...], dry_run: bool, as_json: bool) -> None:
    """Django migrations (<app>/migrations/NNNN_*.py) in dependency-graph order.

    PATH is a project, an app, a migrations folder or migration files; table names
    follow Django's rule (<app_label>_<model>, or db_table when the migration states it).
    """
    from cairn.importers.django import import_django

    _run(
        "django",
        lambda root, hooks, _store: import_django(list(paths), root, hooks),
        dry_run,
        as_json,
    )


@import_group.command("rails")
@click.argument("directory", type=existing_path)
@dry_run_option
@json_option
def import_rails_cmd(directory: Path, dry_run: bool, as_json: bool) -> None:
    """Rails migrations (DIR/db/migrate or DIR) in timestamp order."""
    from cairn.importers.rails import import_rails

    _run(
        "rails", lambda root, hooks, _store: import_rails(directory, root, hooks), dry_run, as_json
    )


@import_group.command("git")
@click.option(
    "--since",
    metavar="DATE",
    help="Only commits since DATE: YYYY-MM-DD (UTC midnight), an ISO 8601 date-time, "
    "or 'N days|weeks|months|years ago'.",
)
@click.option(
    "--repo",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The repository to read (default: the project root).",
)
@click.option(
    "--window",
    type=int,
    default=3000,
    show_default=True,
    metavar="N",
    help="How far back (in commits) a revert found by content may reach for what it undid.",
)
@dry_run_option
@json_option
def import_git_cmd(
    since: str | None, repo: Path | None, window: int, dry_run: bool, as_json: bool
) -> None:
    """Reverts, found by marker or by content: `revert` events where they took lines out;
    dependencies added or dropped by commits whose messages name them: `add`/`remove`."""
    from cairn.importers.git import import_git, imported_counts

    def items(root: Path, hooks: list[ProgressHook], store: Any) -> Items:
        done = imported_counts(store.source_keys("git:"))
        return import_git(repo or root, since, hooks, done, window, known=store.entities())

    _run("git", items, dry_run, as_json)


@import_group.command("adr")
@click.argument("directory", type=existing_path)
@dry_run_option
@json_option
def import_adr_cmd(directory: Path, dry_run: bool, as_json: bool) -> None:
    """Architecture decision records (MADR, Nygard) as decisions on the entities they name."""
    from cairn.importers.adr import import_adr

    _run("adr", lambda root, hooks, _store: import_adr(directory, root, hooks), dry_run, as_json)


@import_group.command("selvedge")
@click.argument("database", type=existing_path)
@dry_run_option
@json_option
def import_selvedge_cmd(database: Path, dry_run: bool, as_json: bool) -> None:
    """A Selvedge SQLite database, every event and link, losslessly."""
    from cairn.importers.selvedge import import_selvedge

    _run(
        "selvedge",
        lambda root, hooks, _store: import_selvedge(database, root, hooks),
        dry_run,
        as_json,
    )


@click.group("export")
def export_group() -> None:
    """Export the log: a Markdown digest for review, or canonical JSONL for backups."""


output_option = click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to FILE (atomically) instead of stdout.",
)


def _outside_cairn_dir(output: Path | None, cairn_dir: Path) -> None:
    """Refuse an export target inside .cairn/ or .git, or one that is the project:
    `-o .cairn/decisions.jsonl` would replace the log with a copy that leaves out any
    unreadable line, `-o .git/config` the repository's configuration."""
    from cairn.export import UnsafeTarget, refuse_project_target

    if output is None:
        return
    try:
        refuse_project_target(output, cairn_dir.parent, cairn_dir)
    except UnsafeTarget as exc:
        raise CairnError(str(exc)) from None


@export_group.command("markdown")
@output_option
def export_markdown_cmd(output: Path | None) -> None:
    """A deterministic digest grouped by entity, suitable for committing and reviewing."""
    from cairn.export import export_markdown, write_output
    from cairn.store import Store, StoreError

    project = current_project()
    _outside_cairn_dir(output, project.cairn_dir)
    try:
        with Store.open(project.cairn_dir) as store:
            text = export_markdown(store)
        write_output(text, output, say)
    except StoreError as exc:
        raise CairnError(str(exc)) from None
    except OSError as exc:
        raise CairnError(f"cannot write {output}: {exc.strerror or exc}") from None


@export_group.command("jsonl")
@output_option
def export_jsonl_cmd(output: Path | None) -> None:
    """The log in canonical JSON lines, parents first (backups, migration)."""
    from cairn.export import export_jsonl, read_log, write_output

    project = current_project()
    _outside_cairn_dir(output, project.cairn_dir)
    lines, bad = read_log(project.cairn_dir)
    try:
        write_output(export_jsonl(lines), output, click.echo)
    except OSError as exc:
        raise CairnError(f"cannot write {output}: {exc.strerror or exc}") from None
    if bad:
        click.echo(
            f"cairn: warning: left out {plural(bad, 'unreadable line')}; `cairn verify` says more",
            err=True,
        )


@export_group.command("html")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
def export_html_cmd(out: Path) -> None:
    """A static site in OUT/ to browse decisions without an editor: open OUT/index.html.

    Search, status filters, a page per entity with its timeline, the entity tree and
    the log's integrity. No server and no network needed; OUT/ must be new, empty, or
    a previous export written on this machine (which it replaces); never a link.
    """
    from cairn.gitrefs import refs_holding
    from cairn.site import SiteError, export_site
    from cairn.store import Store, StoreError
    from cairn.store.verify import verify

    project = current_project()
    try:
        report = verify(project.cairn_dir, refs_holding=refs_holding(project.cairn_dir))
        with Store.open(project.cairn_dir) as store:
            summary = export_site(
                store,
                report,
                out,
                project.cairn_dir,
                project.root.name or "project",
                root=project.root,
            )
    except (SiteError, StoreError) as exc:
        raise CairnError(str(exc)) from None
    except OSError as exc:
        raise CairnError(f"cannot write {out}: {exc.strerror or exc}") from None
    click.echo(
        f"cairn: wrote {summary.entities} entity pages ({summary.events} events) to {out}/; "
        f"open {out / 'index.html'}",
        err=True,
    )
    if not summary.verified:
        click.echo("cairn: warning: the log does not verify; the site says where", err=True)
    if not summary.remembered:
        click.echo(
            "cairn: warning: could not note in $XDG_STATE_HOME/cairn that this machine wrote "
            f"{out}/, so the next export will not replace it; delete it first then",
            err=True,
        )


def register(group: click.Group) -> None:
    """Add `import` and `export` to the root group."""
    group.add_command(import_group)
    group.add_command(export_group)
