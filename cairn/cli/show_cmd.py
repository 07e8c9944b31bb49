"""`cairn show FILE`: what the editor shows for a file, in a terminal.

The diagnostics, the code lenses and the hover card of each entity with history come
from the core functions the language server calls (`cairn.core.view`), with the
server's default settings, so a person (or a test) sees what the editor would without
opening one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cairn.cli._common import CairnError, emit_json, json_option, say, warn_if_damaged

if TYPE_CHECKING:
    from cairn.core.view import FileView
    from cairn.indexer.model import Range


def register(group: click.Group) -> None:
    """Add `show` to the root group."""
    group.add_command(show_cmd)


@click.command("show")
@click.argument("file", type=click.Path(path_type=Path))
@json_option
def show_cmd(file: Path, as_json: bool) -> None:
    """Print what the editor shows for FILE: diagnostics, lenses and hover cards.

    \b
    cairn show app/models.py
    cairn show db/migrations/003_orders.sql --json
    Lines and columns count from 1 (columns in UTF-16 units, as editors count them).
    """
    from cairn.cli._common import current_project
    from cairn.core.session import Session
    from cairn.core.view import file_view
    from cairn.indexer import app_model_tables
    from cairn.limits import source_text
    from cairn.store import StoreError

    if not file.is_file():
        raise CairnError(f"{file}: no such file")
    project = current_project()
    absolute = file.resolve()
    try:
        rel = absolute.relative_to(project.root.resolve()).as_posix()
    except ValueError:
        raise CairnError(f"{file} is outside the project at {project.root}") from None
    try:
        data = absolute.read_bytes()
    except OSError as exc:
        raise CairnError(f"{file}: {exc.strerror or exc}") from None
    text = source_text(data)
    if text is None:
        raise CairnError(f"{file}: binary or too large; the editor does not analyse it")
    queries = project.cairn_dir / "queries"
    try:
        with Session.open(project) as session:
            warn_if_damaged(session.damage())
            view = file_view(
                session,
                rel,
                text,
                user_queries_dir=queries if queries.is_dir() else None,
                model_tables=app_model_tables(project.root, rel),
            )
    except StoreError as exc:
        raise CairnError(f"cannot read the decision log: {exc}") from None
    if as_json:
        emit_json(to_dict(view))
        return
    _print(view)


def _at(r: Range) -> dict[str, int]:
    return {"line": r.start_line + 1, "column": r.start_character + 1}


def to_dict(view: FileView) -> dict[str, Any]:
    """The JSON document `cairn show --json` prints (1-based lines and columns)."""
    return {
        "file": view.file,
        "diagnostics": [
            {
                **_at(f.name_range),
                "severity": f.severity.value,
                "entity": f.entity,
                "kind": f.kind.value,
                "role": f.role,
                "message": f.message,
                "code": f.verdict_id,
            }
            for f in view.findings
        ],
        "lenses": [
            {**_at(lens.name_range), "entity": lens.entity, "title": lens.title}
            for lens in view.lenses
        ],
        "hovers": [
            {**_at(card.name_range), "entity": card.entity, "markdown": card.markdown}
            for card in view.cards
        ],
    }


def _print(view: FileView) -> None:
    from cairn.core.present import plain_links, plural, short_id

    counts = [
        plural(len(view.findings), "diagnostic"),
        plural(len(view.lenses), "lens", "lenses"),
        plural(len(view.cards), "hover card"),
    ]
    say(f"{view.file}: {', '.join(counts)}")
    if view.findings:
        say("\nDiagnostics")
    for f in view.findings:
        where = _where(f.name_range)
        code = f" [{short_id(f.verdict_id)}]" if f.verdict_id else ""
        say(f"  {where}  {f.severity.value}: {f.message}{code}")
    if view.lenses:
        say("\nLenses")
    for lens in view.lenses:
        say(f"  {_where(lens.name_range)}  {lens.entity}: {lens.title}")
    if view.cards:
        say("\nHover cards")
    for card in view.cards:
        say(f"  {_where(card.name_range)}  {card.entity}")
        for line in plain_links(card.markdown).splitlines():
            say(f"    {line}".rstrip())


def _where(r: Range) -> str:
    return f"{r.start_line + 1}:{r.start_character + 1}"
