"""The `cairn` command line.

Commands live in one module per area and are registered in one place (`COMMANDS`,
below; the click application is `cairn.cli.app`). Exit codes: 0 ok, 1 findings (verify
problems, `check` hits), 2 bad input, 3 an internal error (a bug: please report it;
CAIRN_DEBUG=1 shows the traceback).

`cairn serve` as editors run it (no options, or only `--stdio` and `--log-level`) goes
straight to the language server without importing click or the command table (and
answers the first document before the LSP framework is imported: `cairn.lsp.bootstrap`):
its start-up is what an editor waits for. Anything else, including every error, goes
through the click application, so both paths behave the same.
"""

from __future__ import annotations

import sys
from typing import Any

# Which module defines each command, in the order `cairn --help` lists them. Each
# module defines `register(group: click.Group) -> None`. Modules are imported only
# when one of their commands runs, so `cairn check` in an agent's hook does not pay
# for the language server or the importers (tests/test_cli_registry.py keeps this
# table and the modules in step).
COMMANDS: dict[str, str] = {
    "init": "cairn.cli.store_cmds",
    "log": "cairn.cli.store_cmds",
    "reject": "cairn.cli.store_cmds",
    "revert": "cairn.cli.store_cmds",
    "supersede": "cairn.cli.store_cmds",
    "status": "cairn.cli.store_cmds",
    "history": "cairn.cli.store_cmds",
    "prior-attempts": "cairn.cli.store_cmds",
    "search": "cairn.cli.store_cmds",
    "review": "cairn.cli.store_cmds",
    "ls": "cairn.cli.ls_cmd",
    "which": "cairn.cli.which_cmd",
    "show": "cairn.cli.show_cmd",
    "annotate": "cairn.cli.annotate_cmd",
    "check": "cairn.cli.check_cmd",
    "scan": "cairn.cli.scan_cmd",
    "serve": "cairn.cli.serve_cmd",
    "demo": "cairn.cli.serve_cmd",
    "verify": "cairn.cli.trust_cmds",
    "redact": "cairn.cli.trust_cmds",
    "doctor": "cairn.cli.trust_cmds",
    "import": "cairn.cli.import_cmds",
    "export": "cairn.cli.import_cmds",
    "digest": "cairn.cli.agent_cmds",
    "mcp": "cairn.cli.agent_cmds",
}


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")  # `cairn serve --log-level`


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: one-line errors, meaningful exit codes, no tracebacks."""
    args = sys.argv[1:] if argv is None else list(argv)
    level = plain_serve(args)
    if level is None:
        from cairn.cli.app import main as run

        run(args)
        return
    try:
        from cairn.lsp.bootstrap import serve_stdio

        serve_stdio(level)  # the first answer before the LSP imports: cairn.lsp.bootstrap
    except (Exception, KeyboardInterrupt) as exc:
        from cairn.cli.app import exit_for

        exit_for(exc)
    sys.exit(0)


def plain_serve(args: list[str]) -> str | None:
    """The log level when `args` are `serve` with at most `--stdio` and one valid
    `--log-level`, as `cairn serve` would read them; None for anything else."""
    if not args or args[0] != "serve":
        return None
    level: str | None = None
    stdio = False
    rest = iter(args[1:])
    for arg in rest:
        if arg == "--stdio" and not stdio:
            stdio = True
            continue
        name, eq, value = arg.partition("=")
        if name != "--log-level" or level is not None:
            return None
        if not eq:
            value = next(rest, "")
        matches = [choice for choice in LOG_LEVELS if choice.lower() == value.lower()]
        if not matches:
            return None  # click reports it
        level = matches[0]
    return level or "WARNING"


def __getattr__(name: str) -> Any:
    """The click application's names (`cli`, `LazyGroup`, `load_module_commands`),
    imported when first asked for."""
    if name in {"cli", "LazyGroup", "load_module_commands"}:
        from cairn.cli import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
