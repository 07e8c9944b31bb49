"""The `cairn` command line.

Commands live in one module per area and are registered here, in one place.
Exit codes: 0 ok, 1 findings (verify problems, `check` hits), 2 bad input,
3 an internal error (a bug: please report it; CAIRN_DEBUG=1 shows the traceback).
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from cairn.cli._common import CairnError, report_error

# Each module defines `register(group: click.Group) -> None`.
COMMAND_MODULES = (
    "cairn.cli.store_cmds",  # init log reject revert supersede status history prior-attempts search review
    "cairn.cli.trust_cmds",  # verify redact doctor
    "cairn.cli.scan_cmd",  # scan
    "cairn.cli.serve_cmd",  # serve demo
    "cairn.cli.check_cmd",  # check
    "cairn.cli.import_cmds",  # import sql|alembic|rails|git|adr|selvedge, export
)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="cairn-lsp", prog_name="cairn")
def cli() -> None:
    """Cairn: decision memory for code. Record what was decided, tried, reverted or
    rejected against named entities, and see it where you work."""


for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(cli)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: one-line errors, meaningful exit codes, no tracebacks."""
    try:
        code = cli.main(args=argv, prog_name="cairn", standalone_mode=False)
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
    except Exception as exc:
        if os.environ.get("CAIRN_DEBUG"):
            raise
        report_error(
            f"internal error: {type(exc).__name__}: {exc} "
            "(this is a bug; rerun with CAIRN_DEBUG=1 for the traceback)"
        )
        sys.exit(3)
    sys.exit(code if isinstance(code, int) else 0)
