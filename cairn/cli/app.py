"""The click application behind `cairn` (see `cairn.cli`): the lazy command group, and
the one place an error becomes a one-line message and an exit code.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import sys
from typing import NoReturn

import click

from cairn import __version__
from cairn.cli import COMMANDS
from cairn.cli._common import CairnError, report_error


def load_module_commands(module: str) -> dict[str, click.Command]:
    """The commands one module registers, by name."""
    holder = click.Group()
    __import__(module)  # (not importlib's: `-X importtime` sees only this path)
    sys.modules[module].register(holder)
    return dict(holder.commands)


class LazyGroup(click.Group):
    """A root group that imports a command's module only when the command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        return load_module_commands(module).get(cmd_name)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(version=__version__, prog_name="cairn")
def cli() -> None:
    """Cairn: decision memory for code. Record what was decided, tried, reverted or
    rejected against named entities, and see it where you work."""


def main(argv: list[str] | None = None) -> None:
    """Run the command line: one-line errors, meaningful exit codes, no tracebacks."""
    try:
        code = cli.main(args=argv, prog_name="cairn", standalone_mode=False)
    except (Exception, KeyboardInterrupt) as exc:
        exit_for(exc)
    sys.exit(code if isinstance(code, int) else 0)


def exit_for(error: BaseException) -> NoReturn:
    """Report `error` as one line and exit with its code (re-raised when it is no error
    of ours to report, such as SystemExit)."""
    try:
        raise error
    except CairnError as exc:
        report_error(str(exc))
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        report_error("aborted")
        sys.exit(130)
    except click.ClickException as exc:
        hint = ""
        ctx = getattr(exc, "ctx", None)
        if ctx is not None:
            hint = f" (see `{ctx.command_path} --help`)"
        report_error(exc.format_message() + hint)
        sys.exit(2 if isinstance(exc, click.UsageError) else exc.exit_code)
    except BrokenPipeError:
        # `cairn history x | head`: the reader left; that is not an error.
        sys.stderr.close()
        sys.exit(0)
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            # a full disk is not a permission problem: say what it is and that the write
            # was taken back (appends truncate, exports write a temporary file first)
            on = f" writing {exc.filename}" if exc.filename else ""
            report_error(
                f"the disk is full{on} ({exc.strerror or exc}); nothing was written: "
                "free some space and run the command again"
            )
            sys.exit(2)
        # Permissions, a read-only disk, a folder where a file should be: the user's to fix.
        where = f" {exc.filename}" if exc.filename else ""
        report_error(
            f"cannot use{where}: {exc.strerror or exc}; check that .cairn/ and its files are "
            "writable regular files (the index, .cairn/index.db, may be deleted: it is rebuilt)"
        )
        sys.exit(2)
    except sqlite3.Error as exc:
        report_error(
            f"cannot use the index .cairn/index.db: {exc}; make it a writable file, or delete "
            "it (it is rebuilt from decisions.jsonl)"
        )
        sys.exit(2)
    except ValueError as exc:
        if "null byte" not in str(exc):
            _internal(exc)
        # The OS takes no NUL in a path or an environment value (`cairn check $'\0'`):
        # whichever command met it, that is the user's input, not a bug.
        report_error("an argument holds a NUL character (\\0), which no path or name can hold")
        sys.exit(2)
    except Exception as exc:
        _internal(exc)


def _internal(exc: Exception) -> NoReturn:
    """A bug: one line (the traceback with CAIRN_DEBUG=1), exit 3."""
    if os.environ.get("CAIRN_DEBUG"):
        raise exc
    report_error(
        f"internal error: {type(exc).__name__}: {exc} "
        "(this is a bug; rerun with CAIRN_DEBUG=1 for the traceback)"
    )
    sys.exit(3)
