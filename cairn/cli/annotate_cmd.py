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
    """Add `annotate` and `link-commit` to the root group."""
    group.add_command(annotate_cmd)
    group.add_command(link_commit_cmd)


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


@click.command("link-commit")
@click.argument("rev", default="HEAD")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing when all went well (hooks).")
@json_option
def link_commit_cmd(rev: str, quiet: bool, as_json: bool) -> None:
    """Link the decisions commit REV added to the log to REV (default HEAD).

    The post-commit hook `cairn setup` writes runs this after every commit: each
    decision that landed gets a note naming its commit (nothing is rewritten), and
    `status`, `history`, the hover and the site show the commit. Running it again
    writes nothing.
    """
    from cairn.cli.store_cmds import _short, open_session
    from cairn.core.commits import LinkError, link_commit

    with open_session() as session:
        try:
            result = link_commit(session, rev)
        except LinkError as exc:
            raise CairnError(str(exc)) from None
    if as_json:
        emit_json(result.to_dict())
        return
    if not result.log_tracked:
        # The one case worth a line even from a hook: nothing will ever be linked.
        click.echo(
            f"cairn: commit {result.commit[:12]} does not hold the decision log; commit "
            ".cairn/decisions.jsonl so decisions travel (and link) with the code",
            err=True,
        )
        return
    if quiet:
        return
    linked = ", ".join(_short(i) for i in result.linked)
    click.echo(
        f"linked {len(result.linked)} decision(s) to commit {result.commit[:12]}"
        + (f": {linked}" if linked else "")
        + (f" ({len(result.already)} already linked)" if result.already else "")
    )
