"""A venv holding the real `selvedge` package, built once under build/test-cache.

Selvedge pulls in an MCP server stack Cairn does not need; its storage layer, which
writes the database, uses only the standard library, so it is installed without its
dependencies. The venv is created without pip (no `ensurepip` needed) and filled by
the running interpreter's pip through `--python`; an exclusive file lock lets
concurrent test runs (xdist workers, two checkouts' CI jobs) build it once, and a
marker written last means an interrupted build is redone, not trusted.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SELVEDGE_VERSION = "0.3.17"
SELVEDGE = f"selvedge=={SELVEDGE_VERSION}"
CACHE_ROOT = Path(__file__).resolve().parents[2] / "build" / "test-cache"
INSTALL_TIMEOUT = 300  # seconds: a hung connection must fail the test, not hang CI


def selvedge_python(cache_root: Path = CACHE_ROOT, env: dict[str, str] | None = None) -> Path:
    """The venv's python, building the venv first if it is missing or incomplete."""
    venv = cache_root / f"selvedge-{SELVEDGE_VERSION}"
    python = venv / "bin" / "python"
    ready = venv / ".cairn-ready"
    cache_root.mkdir(parents=True, exist_ok=True)
    with open(cache_root / f"selvedge-{SELVEDGE_VERSION}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if ready.exists() and python.exists():
            return python
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run(
            [sys.executable, "-m", "venv", "--without-pip", str(venv)],
            check=True,
            capture_output=True,
        )
        _install(python, env)
        probe = subprocess.run(
            [str(python), "-c", "import selvedge, selvedge.storage; print(selvedge.__version__)"],
            capture_output=True,
            text=True,
        )
        if probe.returncode != 0 or probe.stdout.strip() != SELVEDGE_VERSION:
            pytest.fail(
                f"{SELVEDGE} installed but does not import: {_last_line(probe.stderr)}",
                pytrace=False,
            )
        ready.write_text(SELVEDGE + "\n")
    return python


def _install(python: Path, env: dict[str, str] | None) -> None:
    command = [
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(python),
        "install",
        "--quiet",
        "--no-deps",
        "--disable-pip-version-check",
        "--no-input",
        "--timeout",
        "20",
        "--retries",
        "2",
        SELVEDGE,
    ]
    why = ""
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
            env=env if env is not None else dict(os.environ),
        )
        if done.returncode != 0:
            why = _last_line(done.stderr or done.stdout)
    except subprocess.TimeoutExpired:
        why = f"pip did not finish within {INSTALL_TIMEOUT} s"
    if why:
        pytest.fail(
            f"could not install {SELVEDGE} from the package index into {python.parents[1]} "
            f"(the Selvedge import test needs the real package; is the index reachable?): {why}",
            pytrace=False,
        )


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"
