"""What every command shares: errors, project lookup, JSON and human output."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from cairn.core.present import plural as plural  # the one home of presentation words
from cairn.core.project import Project, ProjectNotFound, find_project
from cairn.terminal import printable


class CairnError(Exception):
    """A problem the user can fix. Printed as one line on stderr; exit code 2 by default."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def report_error(message: str) -> None:
    """One line on stderr, red on a terminal."""
    line = " ".join(printable(message).split())  # never more than one line, no escapes
    click.secho(f"cairn: error: {line}", err=True, fg="red" if sys.stderr.isatty() else None)


def warn_if_damaged(damage: str) -> None:
    """One line on stderr when the log holds lines that verification rejects (they are
    ignored by every answer; `cairn verify` says which). `damage` is the session's
    (`Session.damage()`) or the gate report's message, "" when the log is sound."""
    if damage:
        click.secho(
            f"cairn: warning: {printable(damage)}",
            err=True,
            fg="yellow" if sys.stderr.isatty() else None,
        )


def current_project() -> Project:
    """The project for the current directory, or a CairnError saying how to make one."""
    try:
        return find_project()
    except ProjectNotFound as exc:
        raise CairnError(str(exc)) from None


def emit_json(value: Any) -> None:
    """Machine output: stable key order, UTF-8, one document on stdout."""
    click.echo(json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False, default=str))


# Every write command takes it: a retry after a crash cannot duplicate (the rule is the
# store's, `cairn.store.idempotency.replay`).
key_option = click.option(
    "--key",
    default="",
    help="Idempotency key (e.g. a UUID): running the command again with the same key "
    "writes nothing and prints the first event; with other content it is refused.",
)


def say(message: object = "", *, err: bool = False, nl: bool = True) -> None:
    """Plain human output that may quote stored text: control and bidi characters are
    shown as escapes (`cairn.terminal`). Rich output escapes with `esc`/`body` instead."""
    click.echo(printable(str(message)), err=err, nl=nl)


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
