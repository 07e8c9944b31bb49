"""`cairn serve` goes through the click application like every command: its mistakes
are reported as click reports them, and a valid form serves until the client leaves."""

from __future__ import annotations

import os
import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """`cairn ARGS` with an empty stdin (the server sees the client gone at once)."""
    return subprocess.run(
        [sys.executable, "-P", "-c", "from cairn.cli import main; main()", *args],
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


def test_mistakes_are_reported_as_click_reports_them() -> None:
    done = run("serve", "--log-level", "verbose")
    assert done.returncode == 2
    assert "cairn: error:" in done.stderr and "'verbose' is not one of" in done.stderr
    both = run("serve", "--tcp", "127.0.0.1:2087", "--stdio")
    assert both.returncode == 2
    assert "choose one of --tcp and --stdio" in both.stderr
