"""`cairn annotate ID -r TEXT`: a reason added to an earlier event, as its own event.

History stays append-only: the note is an `annotate` event on the same entity whose
`metadata.annotates` names the event it explains, and `history` and the hover show it
with that event. The usual case is an imported event whose reason was never written.
"""

from __future__ import annotations

from typing import Any

import click

from cairn.cli._common import CairnError, emit_json, json_option, key_option


def register(group: click.Group) -> None:
    """Add `annotate` to the root group."""
    group.add_command(annotate_cmd)


@click.command("annotate")
@click.argument("event_id", metavar="ID")
@click.option("-r", "--reason", help="The reason to add (without -r: written in $EDITOR).")
@click.option("--author", default="", help="Who adds it (default: CAIRN_AUTHOR, git user, $USER).")
@key_option
@json_option
def annotate_cmd(event_id: str, reason: str | None, author: str, key: str, as_json: bool) -> None:
    """Add a reason to the event ID (an id or a unique prefix, as `cairn history` prints).

    \b
    cairn annotate 3cb5f069 -r "dropped because support moved notes to tickets"
    """
    from cairn.cli.reason_editor import ask_reason
    from cairn.cli.store_cmds import _console, _short, esc, open_store
    from cairn.core.present import clip
    from cairn.store import EventDraft, StoreError

    with open_store() as store:
        try:
            target = store.get(event_id)
        except StoreError as exc:
            raise CairnError(str(exc)) from None
    if target.type.value == "annotate":
        raise CairnError(f"{_short(target.id)} is itself a note; annotate the event it explains")
    if reason is None:
        context = [
            f"annotates: {target.type.value} {_short(target.id)} ({target.when[:10]})",
            "its reasoning: " + clip(target.reasoning or "(none)", 100),
        ]
        reason = ask_reason(target.entity, "note", context)
    draft = EventDraft(
        type="annotate",
        entity=target.entity,
        reasoning=reason,
        author=author,
        metadata={"annotates": target.id},
        key=key,
    )
    with open_store() as store:
        result = store.append(draft)
    event = result.event
    if as_json:
        emit_json({**event.to_dict(), "masked": result.masked, "replayed": result.replayed})
        return
    note: Any = _console()
    done = "already logged" if result.replayed else "logged"
    note.print(
        f"{done} note on [cyan]{esc(event.entity)}[/]  {_short(event.id)}"
        f"  (annotates {target.type.value} {_short(target.id)})"
        + (f"  (key {esc(key.strip())}: nothing written)" if result.replayed else "")
    )
