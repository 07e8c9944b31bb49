"""`cairn serve` (the language server) and `cairn demo` (a tour of it)."""

from __future__ import annotations

from pathlib import Path

import click

from cairn.cli._common import CairnError


def register(group: click.Group) -> None:
    """Add `serve` and `demo`."""
    group.add_command(serve)
    group.add_command(demo)


@click.command()
@click.option(
    "--tcp",
    metavar="HOST:PORT",
    help="Listen on TCP (e.g. 127.0.0.1:2087) instead of stdio.",
)
@click.option("--stdio", is_flag=True, help="Speak LSP on stdin/stdout (the default).")
@click.option(
    "--log-level",
    type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False),
    default="WARNING",
    show_default=True,
    help="What the server logs on stderr.",
)
def serve(tcp: str | None, stdio: bool, log_level: str) -> None:
    """Run the Cairn language server (editors start this; stdio by default).

    \b
    Examples:
      cairn serve                      # what VS Code, Neovim, Helix... run
      cairn serve --tcp 127.0.0.1:2087 # for a client that connects over TCP
    """
    from cairn.lsp.server import parse_hostport
    from cairn.lsp.server import serve as run

    if tcp and stdio:
        raise CairnError("choose one of --tcp and --stdio")
    if tcp:
        try:
            parse_hostport(tcp)
        except ValueError as exc:
            raise CairnError(str(exc)) from None
    run(tcp=tcp, log_level=log_level)


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
