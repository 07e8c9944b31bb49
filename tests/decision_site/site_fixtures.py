"""A small but complete decision log built with the real CLI, for the site's tests.

It holds every kind of history the site must show: an applied change later reverted,
a rejected approach re-opened by a supersede, a conflict (re-applied without a
supersede), a due review, a redacted decision, a table with columns and a file with
functions, and a reason that tries to inject markup.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CAIRN = str(Path(sys.executable).with_name("cairn"))
HOSTILE = 'Tried <script>alert("pwned")</script> & <img src=x onerror=alert(1)> in a reason'
REVERT_REASON = "Verification mails bounced for 30% of users; reverted until batching lands"
REJECT_REASON = "Card numbers in our database put us in PCI scope"
NOTE_REASON = "Product asked for it after the spam wave of March"
SECRET_REASON = "Temporary note with the staging password hunter2 in it"


def cairn(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a project (no network, a fixed author)."""
    env = {**os.environ, "CAIRN_AUTHOR": "Ada <ada@example.com>", "NO_COLOR": "1"}
    proc = subprocess.run(
        [CAIRN, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env
    )
    if check:
        assert proc.returncode == 0, f"cairn {' '.join(args)}: {proc.stderr}"
    return proc


def read_piece(text: str) -> tuple[str, object]:
    """A search piece (`CAIRN_SHARD("name",data);`) as its name and data."""
    head, _, rest = text.partition(",")
    assert head.startswith("CAIRN_SHARD(") and rest.endswith(");\n"), text[:80]
    return json.loads(head[len("CAIRN_SHARD(") :]), json.loads(rest[: -len(");\n")])


def log(cwd: Path, *args: str) -> str:
    """`cairn log ... --json`; returns the new event's id."""
    out = cairn(cwd, "log", *args, "--json").stdout
    return str(json.loads(out)["id"])


def make_project(root: Path) -> Path:
    """The sample project under `root` (created)."""
    root.mkdir(parents=True, exist_ok=True)
    cairn(root, "init")
    log(root, "users", "create", "-r", "Accounts table", "--occurred-at", "2024-01-10")
    log(root, "users.email", "add", "-r", "Login by e-mail", "--occurred-at", "2024-01-10")
    added = log(
        root,
        "users.email_verified",
        "add",
        "-r",
        "Verify e-mail addresses at sign-up",
        "--occurred-at",
        "2024-03-02",
    )
    cairn(root, "annotate", added, "-r", NOTE_REASON)
    log(
        root,
        "users.email_verified",
        "revert",
        "-r",
        REVERT_REASON,
        "--reverts",
        added,
        "--occurred-at",
        "2024-04-15",
    )
    rejected = log(
        root,
        "src/payments.py::charge",
        "reject",
        "-r",
        REJECT_REASON,
        "--alternative",
        "Store encrypted card numbers",
        "--occurred-at",
        "2024-02-01",
    )
    log(
        root,
        "src/payments.py::charge",
        "supersede",
        "-r",
        "A tokenising vault keeps us out of scope; re-opening",
        "--supersedes",
        rejected,
        "--occurred-at",
        "2025-01-20",
    )
    log(
        root,
        "src/payments.py::charge",
        "modify",
        "-r",
        "Charge through the vault token",
        "--occurred-at",
        "2025-02-03",
    )
    log(root, "src/payments.py::Refunds.issue", "add", "-r", HOSTILE, "--occurred-at", "2024-06-01")
    dropped = log(
        root,
        "deps/left-pad",
        "reject",
        "-r",
        "Eleven lines we can own",
        "--alternative",
        "Depend on left-pad",
        "--occurred-at",
        "2024-05-05",
    )
    del dropped
    log(
        root,
        "deps/left-pad",
        "add",
        "-r",
        "Needed it for the CLI after all",
        "--occurred-at",
        "2024-09-09",
    )
    log(
        root,
        "orders.legacy_total",
        "add",
        "-r",
        "Totals before the tax rework",
        "--occurred-at",
        "2023-11-01",
        "--revisit-after",
        "2024-12-31",
    )
    secret = log(root, "env/STAGING_URL", "add", "-r", SECRET_REASON, "--occurred-at", "2024-07-07")
    cairn(root, "redact", secret, "--reason", "A password slipped into the reasoning")
    return root
