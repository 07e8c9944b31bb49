"""`cairn ls [PREFIX]`: the entities that have decisions, with their status and counts."""

from __future__ import annotations

from typing import Any

import click

from cairn.cli._common import CairnError, emit_json, json_option, plural

STATUSES = ("active", "reverted", "rejected", "reopened", "removed", "conflict")


def _as_folder(prefix: str) -> str | None:
    """`src` or `app/models` also as the folder `src/`, `app/models/`: without the slash
    the grammar reads a table (`src`) or a file, and `ls src` found nothing under
    `src/` (then suggested an entity there). None when that is no folder path."""
    from cairn.store.paths import EntityKind, EntityPathError, parse

    if prefix.endswith("/") or "::" in prefix:
        return None
    try:
        parsed = parse(prefix.rstrip("/") + "/")
    except (EntityPathError, ValueError):
        return None
    return prefix + "/" if parsed.kind is EntityKind.DIRECTORY else None


def register(group: click.Group) -> None:
    """Add `ls` to the root group."""
    group.add_command(ls_cmd)


@click.command("ls")
@click.argument("prefix", required=False, default="")
@click.option(
    "--status",
    "wanted",
    multiple=True,
    type=click.Choice(STATUSES, case_sensitive=False),
    help="Only entities with this status (repeatable).",
)
@json_option
def ls_cmd(prefix: str, wanted: tuple[str, ...], as_json: bool) -> None:
    """List the entities that have decisions, under PREFIX (`users`, `deps/`, `src/`).

    \b
    cairn ls                      everything the log knows
    cairn ls deps/ --status rejected
    cairn ls users --json         users and its columns, for machines
    """
    from cairn.cli.store_cmds import STATUS_STYLE, _console, _did_you_mean, esc, open_store
    from cairn.store.paths import EntityPathError, covers

    with open_store() as store:
        paths = store.entities()
        if prefix:
            try:
                covered = {p for p in paths if covers(prefix, p)}
            except EntityPathError as exc:
                raise CairnError(f"invalid PREFIX {prefix!r}: {exc}") from None
            folder = _as_folder(prefix)
            if folder is not None:
                covered |= {p for p in paths if covers(folder, p)}
            paths = [p for p in paths if p in covered]
        statuses = store.status_many(paths)
        rows: list[dict[str, Any]] = [
            {
                "entity": path,
                "status": statuses[path].status.value,
                "events": statuses[path].event_count,
                "open_verdicts": len(statuses[path].open_verdicts),
            }
            for path in paths
        ]
        if wanted:
            keep = {w.lower() for w in wanted}
            rows = [r for r in rows if r["status"] in keep]
        if prefix and not paths:
            _did_you_mean(store, prefix)
    if as_json:
        emit_json(rows)
        return
    console = _console()
    if not rows:
        console.print("no entities with decisions" + (f" under {esc(prefix)}" if prefix else ""))
        return
    width = max(len(r["entity"]) for r in rows)
    from cairn.store import Status

    for r in rows:
        style = STATUS_STYLE.get(Status(r["status"]), "")
        counts = plural(r["events"], "decision")
        if r["open_verdicts"]:
            counts += f", {plural(r['open_verdicts'], 'open verdict')}"
        console.print(
            f"[cyan]{esc(r['entity']).ljust(width)}[/]  [{style}]{r['status']:<8}[/]  {counts}"
        )
    console.print(f"[dim]{plural(len(rows), 'entity', 'entities')}[/]")
