"""`cairn serve` and `python -m cairn.lsp`: the language server's one command line.

Its options, `--help` and mistakes are all defined here, with the standard library
alone, so the `cairn` command hands `serve` straight to this (`cairn.cli.main`) and the
server starts without importing click or the click application: that import was ~155M
instructions of a start whose budget is a ratio to a bare pygls server
(docs/performance.md). `cairn --help` lists `serve` through `cairn.cli.serve_cmd`,
which forwards its arguments here as well.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from cairn.terminal import printable

PROG = "cairn serve"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
SUMMARY = "Run the Cairn language server (editors start this; stdio by default)."


def fail(message: str) -> NoReturn:
    """Report a mistake as every `cairn` command does: one line on stderr, exit 2."""
    line = " ".join(printable(message).split())
    sys.stderr.write(f"cairn: error: {line}\n")
    sys.exit(2)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        fail(f"{message} (see `{PROG} --help`)")


def parse_hostport(text: str) -> tuple[str, int]:
    """`HOST:PORT` (or `:PORT`, or `PORT`) -> (host, port); ValueError says what is valid."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    try:
        number = int(port)
    except ValueError:
        raise ValueError(
            f"invalid --tcp {text!r}; expected HOST:PORT such as 127.0.0.1:2087"
        ) from None
    if not 0 < number < 65536:
        raise ValueError(f"invalid port {number} in --tcp {text!r}; expected 1-65535")
    return host or "127.0.0.1", number


def _log_level(text: str) -> str:
    if text.upper() not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(LOG_LEVELS)}")
    return text.upper()


def parser() -> argparse.ArgumentParser:
    """The parser of `cairn serve`'s options."""
    made = _Parser(
        prog=PROG,
        description=SUMMARY,
        epilog=(
            "examples:\n"
            "  cairn serve                      # what VS Code, Neovim, Helix... run\n"
            "  cairn serve --tcp 127.0.0.1:2087 # for a client that connects over TCP"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,  # as click: an option is spelt whole
    )
    transport = made.add_mutually_exclusive_group()
    transport.add_argument(
        "--tcp", metavar="HOST:PORT", help="listen on TCP (e.g. 127.0.0.1:2087) instead of stdio"
    )
    transport.add_argument(
        "--stdio", action="store_true", help="speak LSP on stdin/stdout (the default)"
    )
    made.add_argument(
        "--log-level",
        type=_log_level,
        default="WARNING",
        metavar="{" + ",".join(LOG_LEVELS) + "}",
        help="what the server logs on stderr (default: WARNING)",
    )
    return made


def main(argv: list[str] | None = None) -> int:
    """Parse `argv` (sys.argv's by default) and serve until the client says exit."""
    options = parser()
    args = options.parse_args(sys.argv[1:] if argv is None else argv)
    if args.tcp:
        try:
            parse_hostport(args.tcp)
        except ValueError as exc:
            options.error(str(exc))
    # Only now the server: `--help` and a mistake answer without loading it.
    from cairn.lsp.server import serve

    try:
        serve(tcp=args.tcp, log_level=args.log_level)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # a port in use, an address not on this machine
        where = f"listen on --tcp {args.tcp}" if args.tcp else "serve on stdio"
        fail(f"cannot {where}: {exc.strerror or exc}")
    return 0
