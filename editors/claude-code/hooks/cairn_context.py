#!/usr/bin/env python3
"""Claude Code SessionStart and PreCompact hooks: put Cairn's decision digest in front of Claude.

Agents rarely ask for memory, so the digest is delivered, not offered:

- SessionStart (sources startup, resume, clear and compact) answers with
  `hookSpecificOutput.additionalContext` = `cairn digest`: the open reverts, rejects,
  conflicts and due reviews on the files this branch touches, then the newest verdicts
  project-wide. After a compaction Claude Code fires SessionStart with source
  `compact`, so the digest comes back into the new window.
- PreCompact cannot add model context in Claude Code (its `hookSpecificOutput` is not
  accepted for that event), so it answers with a `systemMessage` telling the user how
  many open verdicts the digest will carry across the compaction.

Outside a Cairn project, or when `cairn` is missing, the hooks print nothing and exit 0:
a session must never fail to start because of them. Standard library only, so it runs
with whatever `python3` is on PATH; CAIRN_BIN names the `cairn` executable.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

DIGEST_CHARS = 4000  # Claude Code caps hook context at 10,000 characters
TIMEOUT_S = 20


def digest(cwd: Path) -> dict[str, Any] | None:
    """`cairn digest --json` for the project at cwd, or None when there is none."""
    cairn = os.environ.get("CAIRN_BIN") or shutil.which("cairn")
    if not cairn or not cwd.is_dir():
        return None
    try:
        proc = subprocess.run(
            [cairn, "digest", "--json", "--max-chars", str(DIGEST_CHARS)],
            cwd=cwd,
            capture_output=True,
            timeout=TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    try:
        found = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return None
    return found if isinstance(found, dict) else None


def answer(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON Claude Code reads on stdout, or None to say nothing."""
    event = payload.get("hook_event_name")
    if event not in ("SessionStart", "PreCompact"):
        return None
    found = digest(Path(str(payload.get("cwd") or os.getcwd())))
    if found is None or not found.get("items"):
        return None
    if event == "SessionStart":
        return {
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": str(found.get("text", "")),
            }
        }
    items = found["items"]
    mine = sum(1 for i in items if i.get("section") == "branch")
    return {
        "systemMessage": (
            f"Cairn: {mine} open verdict{'s' if mine != 1 else ''} on this branch's files, "
            f"{len(items) - mine} more project-wide; the digest is re-injected after compaction."
        )
    }


def main() -> int:
    try:
        payload = json.loads(sys.stdin.read() or "{}")
    except json.JSONDecodeError as exc:
        print(f"cairn hook: invalid hook input: {exc}", file=sys.stderr)
        return 1
    if not isinstance(payload, dict):
        return 0
    reply = answer(payload)
    if reply is not None:
        print(json.dumps(reply, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
