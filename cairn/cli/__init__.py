"""The `cairn` command line.

Commands live in one module per area and are registered in one place (`COMMANDS`,
below; the click application is `cairn.cli.app`). Exit codes: 0 ok, 1 findings (verify
problems, `check` hits), 2 bad input, 3 an internal error (a bug: please report it;
CAIRN_DEBUG=1 shows the traceback).
"""

from __future__ import annotations

import sys

# `typing` costs a warm `cairn check` (cairn.cli.entry, inside this package) a fifth of
# its imports: the annotations below are strings, for the type checker alone.
TYPE_CHECKING = False
if TYPE_CHECKING:
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
    "rename": "cairn.cli.rename_cmd",
    "ls": "cairn.cli.ls_cmd",
    "which": "cairn.cli.which_cmd",
    "show": "cairn.cli.show_cmd",
    "annotate": "cairn.cli.annotate_cmd",
    "link-commit": "cairn.cli.annotate_cmd",
    "check": "cairn.cli.check_cmd",
    "scan": "cairn.cli.scan_cmd",
    "serve": "cairn.cli.serve_cmd",
    "demo": "cairn.cli.serve_cmd",
    "verify": "cairn.cli.trust_cmds",
    "redact": "cairn.cli.trust_cmds",
    "doctor": "cairn.cli.trust_cmds",
    "setup": "cairn.cli.setup_cmd",
    "import": "cairn.cli.import_cmds",
    "export": "cairn.cli.import_cmds",
    "digest": "cairn.cli.agent_cmds",
    "mcp": "cairn.cli.agent_cmds",
    "gate-daemon": "cairn.cli.agent_cmds",
}


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: one-line errors, meaningful exit codes, no tracebacks."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["serve"]:
        # The server parses its own options (cairn.lsp.command): an editor's start does
        # not pay for click and the click application (docs/performance.md).
        from cairn.lsp.command import main as serve

        sys.exit(serve(args[1:]))
    from cairn.cli.app import main as run

    run(args)


def __getattr__(name: str) -> Any:
    """The click application's names (`cli`, `LazyGroup`, `load_module_commands`),
    imported when first asked for."""
    if name in {"cli", "LazyGroup", "load_module_commands"}:
        from cairn.cli import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
