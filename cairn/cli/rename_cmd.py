"""`cairn rename OLD NEW`: record a rename by hand, the event the editor and the git
importer already write (`cairn.core.aliases.rename_drafts`), so what was decided under
OLD holds under NEW."""

from __future__ import annotations

import click

from cairn.cli._common import emit_json


@click.command("rename")
@click.argument("old")
@click.argument("new")
@click.option("-r", "--reason", default="", help="Why (default: 'Renamed by hand: OLD -> NEW').")
@click.option("--agent", default="", help="The coding agent that did it, if any.")
@click.option(
    "--key",
    default="",
    help="Idempotency key: running the command again with it writes nothing more.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
def rename_cmd(old: str, new: str, reason: str, agent: str, key: str, as_json: bool) -> None:
    """Record that OLD is now called NEW (a file, a symbol, a table, a folder ending in
    /): its decisions, and those of what it covers, follow it.

    \b
    cairn rename src/auth.py::login src/session.py::sign_in
    cairn rename src/billing/ src/payments/ -r "billing is payments now"
    """
    from cairn.cli.store_cmds import open_session

    with open_session() as session:
        carried = session.decisions_under(old)
        events = session.record_rename(
            old, new, reason.strip() or f"Renamed by hand: {old} -> {new}", agent=agent, key=key
        )
    if as_json:
        emit_json({"events": [e.to_dict() for e in events], "decisions_carried": carried})
        return
    before, after = events[0].entity, events[-1].entity
    follow = "1 event on it follows" if carried == 1 else f"{carried} events on it follow"
    click.echo(f"renamed {before} -> {after} ({follow})")


def register(group: click.Group) -> None:
    """Add this module's command to the root group."""
    group.add_command(rename_cmd)
