"""A progress bar on a terminal, none in a pipe."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

from real_cli import BIN, env

from importers.fixtures import FLYWAY, write


def run_with_tty_stderr(cwd: Path, *args: str) -> tuple[int, bytes, str]:
    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "cairn"), *args],
        cwd=cwd,
        env=env(TERM="xterm", COLUMNS="100"),
        stdout=subprocess.PIPE,
        stderr=terminal,
    )
    os.close(terminal)
    seen = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    out = proc.stdout.read().decode() if proc.stdout else ""
    os.close(controller)
    return proc.wait(), seen, out


def test_progress_bar_only_on_a_terminal(project: Path) -> None:
    write(project / "db", FLYWAY)
    code, tty, out = run_with_tty_stderr(project, "import", "sql", "--dry-run", "db")
    assert code == 0
    assert b"import sql" in tty and b"5/5" in tty  # the bar counted the five files
    assert "would import" in out  # the report itself stays on stdout
    piped = subprocess.run(
        [str(BIN / "cairn"), "import", "sql", "--dry-run", "db"],
        cwd=project,
        env=env(),
        capture_output=True,
        text=True,
    )
    assert piped.returncode == 0 and piped.stderr == ""
