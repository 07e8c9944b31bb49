"""`cairn serve`'s command line is the server's own (cairn.lsp.command): its help and its
mistakes come from that one parser, whether reached from the `cairn` command, from the
click application (`cairn --help` lists it there) or from `python -m cairn.lsp`."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from click.testing import CliRunner

from cairn.cli.app import cli


def run(
    *args: str, via: str = "from cairn.cli import main; main()"
) -> subprocess.CompletedProcess[str]:
    """`cairn ARGS` with an empty stdin (the server sees the client gone at once)."""
    return subprocess.run(
        [sys.executable, "-P", "-c", via, *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONSAFEPATH": "1"},
        timeout=60,
    )


def test_serve_with_an_editor_s_options_serves_until_stdin_ends() -> None:
    done = run("serve", "--stdio", "--log-level", "info")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_help_lists_every_option_and_exits_0() -> None:
    done = run("serve", "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: cairn serve ")
    for option in ("--tcp HOST:PORT", "--stdio", "--log-level", "cairn serve --tcp 127.0.0.1:2087"):
        assert option in done.stdout
    # the same text through the click application (what `cairn --help` lists)
    through_click = CliRunner().invoke(cli, ["serve", "--help"])
    assert through_click.exit_code == 0
    assert through_click.output == done.stdout
    listing = CliRunner().invoke(cli, ["--help"])
    assert "  serve " in listing.output and "Run the Cairn language server" in listing.output


def test_mistakes_are_one_line_and_exit_2() -> None:
    cases = {
        ("serve", "--log-level", "verbose"): "'verbose' is not one of DEBUG, INFO, WARNING, ERROR",
        ("serve", "--tcp", "127.0.0.1:2087", "--stdio"): "not allowed with argument --tcp",
        ("serve", "--tcp", "127.0.0.1:99999"): "invalid port 99999",
        ("serve", "--bogus"): "unrecognized arguments: --bogus",
        ("serve", "--log"): "unrecognized arguments: --log",  # no abbreviations, as click
        ("serve", "--log-level"): "expected one argument",
    }
    for args, message in cases.items():
        done = run(*args)
        assert done.returncode == 2, args
        assert done.stdout == ""
        [line] = done.stderr.splitlines()
        assert line.startswith("cairn: error: ") and message in line, line
        assert line.endswith("(see `cairn serve --help`)")


def test_python_m_cairn_lsp_has_the_same_command_line() -> None:
    done = run("--log-level", "verbose", via="from cairn.lsp.command import main; main()")
    direct = run("serve", "--log-level", "verbose")
    assert done.returncode == direct.returncode == 2
    assert done.stderr == direct.stderr


def test_a_port_in_use_is_one_line_and_exit_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run("serve", "--tcp", f"127.0.0.1:{port}")
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"cairn: error: cannot listen on --tcp 127.0.0.1:{port}: "), line
