"""`cairn which PATH:LINE[:COL]`: the entity at a position, as the language server sees it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from cairn.cli._common import CairnError, emit_json, json_option, say, warn_if_damaged
from cairn.core.position import has_history, rank
from cairn.core.session import damage_message


def register(group: click.Group) -> None:
    """Add `which` to the root group."""
    group.add_command(which_cmd)


def parse_position(text: str) -> tuple[Path, int, int | None]:
    """`src/app.py:12` or `src/app.py:12:5` -> (path, line, column), 1-based."""
    parts = text.rsplit(":", 2)
    numbers: list[int] = []
    while len(parts) > 1 and parts[-1].isdigit() and len(numbers) < 2:
        numbers.insert(0, int(parts.pop()))
    if not numbers or not parts[0]:
        raise CairnError(f"expected PATH:LINE or PATH:LINE:COL, got {text!r}")
    if any(n < 1 for n in numbers):
        raise CairnError(f"lines and columns count from 1, got {text!r}")
    path = Path(":".join(parts))
    return path, numbers[0], numbers[1] if len(numbers) == 2 else None


@click.command("which")
@click.argument("position", metavar="PATH:LINE[:COL]")
@json_option
def which_cmd(position: str, as_json: bool) -> None:
    """Print the entity at a position: what hover and diagnostics use there.

    \b
    cairn which db/migrations/003_orders.sql:4
    cairn which app/models.py:12:9 --json
    Without COL every entity named on the line is printed (else the enclosing one).
    """
    from cairn.cli.scan_cmd import project_root
    from cairn.indexer import Document, app_model_tables

    path, line, column = parse_position(position)
    if not path.is_file():
        raise CairnError(f"{path}: no such file")
    root, cairn_dir = project_root(Path.cwd())
    absolute = path.resolve()
    try:
        rel = absolute.relative_to(root).as_posix()
    except ValueError:
        raise CairnError(f"{path} is outside the project at {root}") from None
    queries = cairn_dir / "queries" if cairn_dir is not None else None
    doc = Document(
        rel,
        absolute.read_bytes(),
        queries if queries and queries.is_dir() else None,
        model_tables=app_model_tables(root, rel),
    )
    lines = doc.text.splitlines()
    if line > max(len(lines), 1):
        raise CairnError(f"{path} has {len(lines)} lines; line {line} is past the end")
    symbols = _at(doc, line - 1, None if column is None else column - 1, lines)
    statuses = _statuses(cairn_dir, [s.entity for s in symbols])
    # the core's rule (`cairn.core.position`), as hover and code actions apply it
    symbols = rank(symbols, lambda entity: entity in statuses and statuses[entity][1])
    rows: list[dict[str, Any]] = [
        {
            "entity": s.entity,
            "kind": s.kind,
            "role": s.role.value,
            "line": s.name_range.start_line + 1,
            "column": s.name_range.start_character + 1,
            "status": statuses[s.entity][0] if s.entity in statuses else "unknown",
        }
        for s in symbols
    ]
    if as_json:
        emit_json(rows)
        return
    if not rows:
        click.echo(f"no entity at {position}")
        return
    width = max(len(r["entity"]) for r in rows)
    for r in rows:
        say(f"{r['entity'].ljust(width)}  {r['kind']:<10} {r['role']:<9} {r['status']}")


def _at(doc: Any, line: int, column: int | None, lines: list[str]) -> list[Any]:
    from cairn.indexer import symbols_at

    if column is not None:
        return symbols_at(doc.symbols, line, column)
    on_line = [s for s in doc.symbols if s.name_range.start_line <= line <= s.name_range.end_line]
    if on_line:
        return on_line
    text = lines[line] if line < len(lines) else ""
    return symbols_at(doc.symbols, line, len(text) - len(text.lstrip()))


def _statuses(cairn_dir: Path | None, entities: list[str]) -> dict[str, tuple[str, bool]]:
    """entity -> (status, has history)."""
    if cairn_dir is None or not entities:
        return {}
    from cairn.store import Store, StoreError

    try:
        with Store.open(cairn_dir) as store:
            warn_if_damaged(damage_message(store))
            found = store.status_many(entities)
    except StoreError as exc:
        raise CairnError(f"cannot read the decision log: {exc}") from None
    return {entity: (st.status.value, has_history(st)) for entity, st in found.items()}
