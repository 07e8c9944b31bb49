#!/usr/bin/env python3
"""Claude Code PreToolUse hook: refuse an edit that re-introduces a reverted or rejected entity.

Claude Code passes the tool call as JSON on stdin. For Write, Edit and MultiEdit this
computes the file's content after the edit, runs `cairn check --stdin-filename` on it
(only the lines the edit changes count), and exits 2 with the recorded reasoning on
stderr when the check fails, which blocks the call and shows Claude why. Anything else
(other tools, files outside a Cairn project, an edit that would not apply) passes.
Standard library only, so it runs with whatever `python3` is on PATH; CAIRN_BIN names
the `cairn` executable when it is not on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

EDIT_TOOLS = ("Write", "Edit", "MultiEdit")
CHECK_TIMEOUT_S = 30
# `cairn check` errors that mean "no decision log governs this file", not a failure.
NOT_OURS = ("not inside a Cairn project", "is outside the project")


def apply_edit(text: str, old: str, new: str, replace_all: bool) -> str | None:
    """The text after one Edit, or None when Claude Code would reject it (no match)."""
    if old == "" or old not in text:
        return None
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


def new_content(tool: str, args: dict[str, Any], path: Path) -> str | None:
    """The file's content after the tool call, or None when it cannot be known."""
    if tool == "Write":
        content = args.get("content")
        return content if isinstance(content, str) else None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    edits = args.get("edits") if tool == "MultiEdit" else [args]
    if not isinstance(edits, list):
        return None
    for edit in edits:
        if not isinstance(edit, dict):
            return None
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        result = apply_edit(text, old, new, bool(edit.get("replace_all")))
        if result is None:
            return None
        text = result
    return text


def explain(report: dict[str, Any]) -> str:
    """What Claude reads on stderr: each blocked entity and the recorded reasoning."""
    lines = ["Cairn blocked this edit: it re-introduces an entity the team decided against."]
    for f in report.get("findings", []):
        if not f.get("blocking"):
            continue
        kinds = "/".join(t for t in f.get("verdict_types", []) if t) or f.get("kind", "verdict")
        lines.append(f"- {f['file']}:{f['line']}: {f['entity']} ({kinds} {f['verdict_id'][:8]})")
        if f.get("alternative"):
            lines.append(f"  rejected approach: {f['alternative']}")
        if f.get("reasoning"):
            lines.append(f'  reasoning: "{f["reasoning"]}"')
    lines.append(
        "Do not re-add it. If the user confirms it is needed, record why first with "
        '`cairn supersede ENTITY --reason "..."`, then retry the edit.'
    )
    return "\n".join(lines)


def main() -> int:
    """Exit 0 to allow, 2 to block (stderr goes to Claude), 1 for a hook problem."""
    try:
        payload = json.loads(sys.stdin.read() or "{}")
    except json.JSONDecodeError as exc:
        print(f"cairn hook: invalid hook input: {exc}", file=sys.stderr)
        return 1
    tool = payload.get("tool_name")
    args = payload.get("tool_input") or {}
    if tool not in EDIT_TOOLS or not isinstance(args, dict):
        return 0
    raw_path = args.get("file_path")
    if not isinstance(raw_path, str) or not raw_path:
        return 0
    cwd = Path(payload.get("cwd") or os.getcwd())
    path = Path(raw_path) if Path(raw_path).is_absolute() else cwd / raw_path
    content = new_content(tool, args, path)
    if content is None:
        return 0
    cairn = os.environ.get("CAIRN_BIN") or shutil.which("cairn")
    if not cairn:
        print("cairn hook: `cairn` is not on PATH; edit not checked", file=sys.stderr)
        return 1
    # Project discovery walks up from the file's folder, like the language server's.
    folder = next((p for p in (path.parent, *path.parents) if p.is_dir()), cwd)
    try:
        proc = subprocess.run(
            [cairn, "check", "--json", f"--stdin-filename={path}"],
            input=content.encode("utf-8"),
            cwd=folder,
            capture_output=True,
            timeout=CHECK_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"cairn hook: check did not run: {exc}", file=sys.stderr)
        return 1
    if proc.returncode == 0:
        return 0
    stderr = proc.stderr.decode("utf-8", errors="replace").strip()
    if proc.returncode == 2:
        if any(marker in stderr for marker in NOT_OURS):
            return 0  # no decision log governs this file: nothing to enforce
        print(f"cairn hook: edit not checked: {stderr}", file=sys.stderr)
        return 1
    if proc.returncode != 1:
        print(f"cairn hook: check failed: {stderr}", file=sys.stderr)
        return 1
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        print(proc.stdout.decode(errors="replace"), file=sys.stderr)
        return 2
    print(explain(report), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
