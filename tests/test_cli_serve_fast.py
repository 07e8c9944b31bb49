"""`cairn serve` as editors run it starts the server without click; every other form,
and every mistake, goes through the click application and behaves as before."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cairn.cli import plain_serve

PROBE = (
    "import atexit, sys\n"
    "said = lambda: sys.stderr.write('click imported: %s\\n' % ('click' in sys.modules))\n"
    "atexit.register(said)\n"
    "from cairn.cli import main\n"
    "main(sys.argv[1:])\n"
)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The entry point with these arguments and an empty stdin (the server sees the
    client gone at once and exits)."""
    return subprocess.run(
        [sys.executable, "-P", "-c", PROBE, *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONSAFEPATH": "1"},
        timeout=60,
    )


@pytest.mark.parametrize(
    ("args", "level"),
    [
        (["serve"], "WARNING"),
        (["serve", "--stdio"], "WARNING"),
        (["serve", "--log-level", "debug"], "DEBUG"),
        (["serve", "--stdio", "--log-level=Info"], "INFO"),
        (["serve", "--log-level", "ERROR", "--stdio"], "ERROR"),
        (["serve", "--log-level", "verbose"], None),  # click says what is valid
        (["serve", "--log-level"], None),
        (["serve", "--log-level", "info", "--log-level", "debug"], None),
        (["serve", "--stdio", "--stdio"], None),
        (["serve", "--tcp", "127.0.0.1:2087"], None),
        (["serve", "--help"], None),
        (["serve", "-h"], None),
        (["scan", "."], None),
        (["--version"], None),
        ([], None),
    ],
)
def test_which_forms_take_the_short_way(args: list[str], level: str | None) -> None:
    assert plain_serve(args) == level


def test_the_short_way_serves_without_importing_click() -> None:
    done = run("serve", "--log-level", "info")
    assert done.returncode == 0, done.stderr
    assert "click imported: False" in done.stderr


def test_the_long_way_still_reports_mistakes_as_click_did() -> None:
    done = run("serve", "--log-level", "verbose")
    assert done.returncode == 2
    assert "cairn: error:" in done.stderr and "'verbose' is not one of" in done.stderr
    assert "click imported: True" in done.stderr
    both = run("serve", "--tcp", "127.0.0.1:2087", "--stdio")
    assert both.returncode == 2
    assert "choose one of --tcp and --stdio" in both.stderr
