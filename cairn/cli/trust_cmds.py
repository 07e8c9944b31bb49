"""Trust commands: `verify` (is the log what was written?), `redact` (erase content),
`doctor` (is the project set up so the log stays trustworthy and travels with git?)."""

from __future__ import annotations

import os

import click

from cairn.cli._common import (
    CairnError,
    current_project,
    emit_json,
    json_option,
    key_option,
    say,
)
from cairn.doctor import run_checks
from cairn.gitrefs import git_author, refs_holding
from cairn.store.author import default_author
from cairn.store.errors import StoreError
from cairn.store.redact import redact
from cairn.store.verify import reconcile_index, verify


def register(group: click.Group) -> None:
    """Add this module's commands to the root group."""
    group.add_command(verify_cmd)
    group.add_command(redact_cmd)
    group.add_command(doctor_cmd)


@click.command("verify")
@click.option(
    "--full", is_flag=True, help="Re-check every line, not only those appended since the last run."
)
@click.option(
    "--accept",
    is_flag=True,
    help="After a deliberate reset: take the log as it is, missing heads and all.",
)
@json_option
@click.pass_context
def verify_cmd(ctx: click.Context, full: bool, accept: bool, as_json: bool) -> None:
    """Recompute every event id, check every parent, and check that nothing the index
    saw has vanished from the log. Exit 1 when a problem is found.

    A prefix proven by the last run is re-hashed as a whole (any edit in it means a full
    check), and only lines appended since are parsed again.

    \b
    Examples:
      cairn verify
      cairn verify --json | jq '.problems[] | .line'
    """
    project = current_project()
    report = verify(
        project.cairn_dir, full=full, accept=accept, refs_holding=refs_holding(project.cairn_dir)
    )
    if report.ok:
        # The log is sound: make the derived index agree with it (rebuild if edited).
        try:
            reconcile_index(project.cairn_dir, report)
        except StoreError as exc:
            raise CairnError(str(exc)) from None
    if as_json:
        emit_json(report.to_dict())
    else:
        for finding in report.problems:
            say(f"problem: {finding}")
        for finding in report.notices:
            say(f"notice: {finding}")
        if report.ok:
            click.echo(
                f"ok: {report.events} events verified, {len(report.heads)} "
                f"head{'s' if len(report.heads) != 1 else ''}"
            )
        else:
            count = len(report.problems)
            click.echo(
                f"FAILED: {count} problem{'s' if count != 1 else ''} in "
                f"{os.path.relpath(report.log)} "
                f"({report.events} of {report.lines} lines verified)"
            )
    if not report.ok:
        ctx.exit(1)


@click.command("redact")
@click.argument("event_id")
@click.option("-r", "--reason", required=True, help="Why the content is being erased.")
@click.option("--author", default="", help="Who is erasing it (default: git's user).")
@key_option
@json_option
def redact_cmd(event_id: str, reason: str, author: str, key: str, as_json: bool) -> None:
    """Erase an event's content (reasoning, alternative, diff, metadata) from the log,
    the index and the full-text index; keep its digest so the log still verifies, and
    record who erased it, when and why.

    Git history still holds the old text: rewrite it (git filter-repo) and rotate any
    secret.

    \b
    Example:
      cairn redact 3f2a9c -r "pasted a customer's email address"
    """
    project = current_project()
    try:
        # who erased it: --author, else CAIRN_AUTHOR, git's user, $USER (as for any write)
        who = author or default_author(git_author(project.root))
        result = redact(project.cairn_dir, event_id, reason, author=who, key=key)
    except StoreError as exc:
        raise CairnError(str(exc)) from None
    if as_json:
        emit_json(
            {
                "redacted": result.target.id,
                "entity": result.target.entity,
                "redact_event": result.redact_event.id if result.redact_event else None,
                "lines_rewritten": result.lines_rewritten,
                "masked": result.masked,
                "drafts_removed": [str(p) for p in result.drafts_removed],
                "replayed": result.replayed,
            }
        )
        return
    if result.replayed and result.redact_event is not None:
        say(
            f"already redacted {result.target.id[:12]} on {result.target.entity}, recorded as "
            f"{result.redact_event.id[:12]} (key {key.strip()}: nothing written)"
        )
        return
    click.echo(
        f"redacted {result.target.id[:12]} on {result.target.entity}: content erased from "
        f"{result.lines_rewritten} line{'s' if result.lines_rewritten != 1 else ''}, "
        "the index and the search index"
    )
    if result.redact_event is not None:
        click.echo(f"recorded as {result.redact_event.id[:12]} (redact)")
    if result.masked:
        click.echo(f"masked in the reason: {', '.join(result.masked)}")
    for path in result.drafts_removed:
        click.echo(f"removed draft {path}")
    click.echo(
        "note: earlier git commits still hold the text; rewrite history and rotate any secret"
    )


@click.command("doctor")
@click.option("--fix", is_flag=True, help="Apply the safe fixes (git attributes, ignores, index).")
@json_option
@click.pass_context
def doctor_cmd(ctx: click.Context, fix: bool, as_json: bool) -> None:
    """Check the set-up: union merges for the log, ignored index, a sane lock, a fresh
    index. Says how to fix each problem; exit 1 when something is wrong.

    \b
    Examples:
      cairn doctor
      cairn doctor --fix
    """
    project = current_project()
    checks = run_checks(project, fix=fix)
    failed = [c for c in checks if not c.ok]
    if as_json:
        emit_json({"ok": not failed, "checks": [c.to_dict() for c in checks]})
    else:
        for check in checks:
            mark = "ok  " if check.ok else "FAIL"
            say(f"{mark} {check.name}: {check.detail}")
            if not check.ok and check.fix:
                say(f"     fix: {check.fix}")
            if check.fixed:
                click.echo("     fixed")
    if failed:
        ctx.exit(1)
