"""The real `cairn` command on real folders (and git repositories) for the first-hour tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CAIRN = str(Path(sys.executable).parent / "cairn")


def cairn(
    cwd: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed console script as a person would."""
    environ = {k: v for k, v in os.environ.items() if k not in ("CAIRN_DIR", "VISUAL", "EDITOR")}
    environ["CAIRN_AUTHOR"] = "Ada <ada@example.org>"
    environ.update(env or {})
    if stdin is None:  # no terminal and nothing to read, as in a hook or CI job
        return subprocess.run(
            [CAIRN, *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            env=environ,
        )
    return subprocess.run(
        [CAIRN, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
    )


def ok(cwd: Path, *args: str, **kw: object) -> str:
    """stdout of a command that must succeed."""
    proc = cairn(cwd, *args, **kw)  # type: ignore[arg-type]
    assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc.stdout


def git(cwd: Path, *args: str) -> str:
    """git with a fixed identity and no user configuration."""
    proc = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout


def flask_app(root: Path) -> Path:
    """A small Flask project: requirements, a model migration, a route."""
    (root / "db").mkdir(parents=True)
    (root / "app").mkdir()
    (root / "requirements.txt").write_text("flask==3.0\ncelery==5.3\n")
    (root / "db" / "001_orders.sql").write_text(
        "CREATE TABLE orders (id integer primary key, gift_wrap boolean);\n"
    )
    (root / "app" / "views.py").write_text(
        "from flask import Flask\n"
        "app = Flask(__name__)\n"
        "\n"
        '@app.route("/users/<int:user_id>")\n'
        "def show(user_id):\n"
        "    return str(user_id)\n"
    )
    return root
