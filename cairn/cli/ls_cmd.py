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


def _under(prefix: str, folder: str | None, entity: str, covers: Any) -> bool:
    return bool(covers(prefix, entity)) or (folder is not None and bool(covers(folder, entity)))


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
    from cairn.cli.store_cmds import STATUS_STYLE, _console, _did_you_mean, esc, open_session
    from cairn.core.listing import listing
    from cairn.store.paths import EntityPathError, covers

    with open_session() as session:
        found = listing(session)
        if prefix:
            folder = _as_folder(prefix)
            try:
                found = [r for r in found if _under(prefix, folder, r.entity, covers)]
            except EntityPathError as exc:
                raise CairnError(f"invalid PREFIX {prefix!r}: {exc}") from None
        rows: list[dict[str, Any]] = [
            {
                "entity": r.entity,
                "status": r.status.status.value,
                "events": r.status.event_count,
                "decisions": r.status.decision_count,
                "notes": r.status.note_count,
                "open_verdicts": len(r.status.open_verdicts),
                "formerly": list(r.formerly),
                "file_removed": r.file_removed,
            }
            for r in found
        ]
        states = {r.entity: r.state for r in found}
        if wanted:
            keep = {w.lower() for w in wanted}
            rows = [r for r in rows if r["status"] in keep]
        if prefix and not found:
            _did_you_mean(session.store, prefix)
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
        counts = plural(r["decisions"], "decision")
        if r["open_verdicts"]:
            counts += f", {plural(r['open_verdicts'], 'open verdict')}"
        if r["formerly"]:
            counts += " · formerly " + ", ".join(r["formerly"])
        state = states[r["entity"]]
        console.print(
            f"[cyan]{esc(r['entity']).ljust(width)}[/]  [{style}]{state:<8}[/]  {esc(counts)}"
        )
    console.print(f"[dim]{plural(len(rows), 'entity', 'entities')}[/]")
