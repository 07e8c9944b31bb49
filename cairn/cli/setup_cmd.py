"""`cairn setup`: wire Cairn into the tools this repository and machine use.

The rules (what each tool is, how its config is merged) are `cairn.integrations`';
this module asks which to wire, shows the plan and writes it.
"""

from __future__ import annotations

import sys

import click

from cairn.cli._common import CairnError, current_project, say


def register(group: click.Group) -> None:
    """Add `setup` to the root group."""
    group.add_command(setup_cmd)


@click.command("setup")
@click.option("-y", "--yes", is_flag=True, help="Wire every detected tool without asking.")
@click.option(
    "--only",
    "only",
    multiple=True,
    metavar="NAME",
    help="Wire only this tool (repeatable), detected or not. `cairn setup --list` names them.",
)
@click.option("--dry-run", is_flag=True, help="Print the changes as a diff; write nothing.")
@click.option("--ask", is_flag=True, help="Ask about each tool, also with --only.")
@click.option(
    "--list", "list_only", is_flag=True, help="List the tools and whether each is detected."
)
def setup_cmd(yes: bool, only: tuple[str, ...], dry_run: bool, ask: bool, list_only: bool) -> None:
    """Wire Cairn into git hooks, agents, editors and CI: the gate before commits and
    agent edits, decisions linked to commits, the MCP server, the check on pull requests.

    \b
    cairn setup               asks about each tool it detects
    cairn setup --yes         wires every detected tool
    cairn setup --dry-run     shows the diff it would write
    cairn setup --only mcp    one tool, detected or not

    Idempotent: a second run changes nothing. Your own settings are kept byte for byte;
    a file Cairn cannot merge that way stops the run before anything is written.
    """
    from cairn.integrations import INTEGRATIONS, Context, MergeRefused, apply, by_name, plan

    project = current_project()
    ctx = Context.for_project(project.root)
    if list_only:
        for integration in INTEGRATIONS:
            mark = "detected" if integration.detect(ctx) else "-"
            say(f"{integration.name:15} {mark:9} {integration.what}")
        return
    try:
        chosen = [by_name(n) for n in only] if only else [i for i in INTEGRATIONS if i.detect(ctx)]
    except ValueError as exc:
        raise CairnError(str(exc)) from None
    if not chosen:
        say("cairn setup: no tool detected; `cairn setup --list` names them, --only NAME wires one")
        return
    if ask or not (yes or only or dry_run):
        if not sys.stdin.isatty():
            raise CairnError("cairn setup asks before it writes; pass --yes (or --only NAME)")
        chosen = [i for i in chosen if click.confirm(f"Wire {i.name} ({i.what})?", default=True)]
    try:
        planned = plan(ctx, chosen)
    except MergeRefused as exc:
        raise CairnError(f"{exc}; nothing was written") from None
    changes = [c for cs in planned.values() for c in cs]
    if dry_run:
        for change in changes:
            click.echo(change.diff(ctx.repo), nl=False)
        say(f"cairn setup: {len(changes)} file(s) would change (dry run: nothing written)")
        return
    try:
        apply(changes)
    except OSError as exc:
        raise CairnError(f"cannot write: {exc}") from None
    for name, cs in planned.items():
        state = ", ".join(str(c.path.relative_to(ctx.repo)) for c in cs) or "already wired"
        say(f"{name}: {state}")
    if planned.get("pre-commit"):
        say("next: `pre-commit install` (once per clone) runs the new hook on each commit")
    say("`cairn doctor` checks what setup wrote")
