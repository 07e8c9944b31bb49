"""Every install command Cairn prints works where Cairn is on no package index.

The commands are read from where a user reads them (the README's Install section, the
message `cairn mcp` prints without its extra), with `$CAIRN_GIT` pointing at a local
clone (file://), and run as written in a fresh venv. pip fetches Cairn's dependencies
from the package registry: this is the one test that does (marker `registry`), and
the venv's own pip is brought up to date from there too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PIP_COMMAND = re.compile(r'pip install "[^"]*\$CAIRN_GIT[^"]*"')


def sh(command: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", command], env=env, cwd=cwd, capture_output=True, text=True, timeout=900
    )


@pytest.mark.registry
def test_each_printed_install_command_works_from_a_local_git_url(tmp_path: Path) -> None:
    clone = tmp_path / "cairn-src"
    subprocess.run(["git", "clone", "-q", "--no-local", str(REPO), str(clone)], check=True)
    venv = tmp_path / "venv"
    # A current pip: the pip a Python 3.11 venv starts with (23.2) refuses `name @
    # git+file:///…` (its URL check wants a host), which a real clone URL has.
    subprocess.run([sys.executable, "-m", "venv", "--upgrade-deps", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    # The fresh venv first on PATH, as after `source venv/bin/activate`; not ours.
    path = [
        p for p in env.get("PATH", "").split(os.pathsep) if Path(p) != Path(sys.executable).parent
    ]
    env["PATH"] = os.pathsep.join([str(venv / "bin"), *path])
    env["CAIRN_GIT"] = clone.as_uri()
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    work = tmp_path / "project"
    work.mkdir()

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    install = readme.split("### Install", 1)[1]
    [first] = sorted(set(PIP_COMMAND.findall(install)))  # one command, said the same way
    done = sh(first, env, work)
    assert done.returncode == 0, done.stderr[-2000:]
    assert sh("cairn --version", env, work).returncode == 0

    missing = sh("cairn mcp < /dev/null", env, work)
    assert missing.returncode == 2
    [extra] = PIP_COMMAND.findall(missing.stderr)
    done = sh(extra, env, work)
    assert done.returncode == 0, done.stderr[-2000:]
    served = sh("cairn mcp < /dev/null", env, work)
    assert "needs the MCP SDK" not in served.stderr, served.stderr
