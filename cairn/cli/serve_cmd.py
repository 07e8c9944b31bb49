"""`cairn serve` (the language server) and `cairn demo` (a tour of it)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from cairn.cli._common import CairnError


def register(group: click.Group) -> None:
    """Add `serve` and `demo`."""
    group.add_command(serve)
    group.add_command(demo)


@click.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
    add_help_option=False,  # `--help` is the server's parser's, as every option
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def serve(args: tuple[str, ...]) -> None:
    """Run the Cairn language server (editors start this; stdio by default).

    Listed here for `cairn --help`; `cairn serve` itself goes straight to the server's
    own command line (cairn.lsp.command), which parses, documents and checks its options.
    """
    from cairn.lsp.command import main

    sys.exit(main(list(args)))


@click.command()
@click.option(
    "--keep",
    "keep",
    type=click.Path(file_okay=False, path_type=Path),
    help="Build the sample project in DIR and keep it (to open it in your editor).",
)
def demo(keep: Path | None) -> None:
    """Show what an editor shows: build a sample project, start the server, drive it.

    \b
    Examples:
      cairn demo                 # a temporary project, removed afterwards
      cairn demo --keep /tmp/cd  # keep the project and open it in VS Code or Neovim
    """
    from cairn.demo import run_demo

    try:
        run_demo(keep)
    except (OSError, ValueError) as exc:
        raise CairnError(f"demo failed: {exc}") from None
