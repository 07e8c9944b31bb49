"""Writing a reason the way `git commit` writes a message: in `$VISUAL` or `$EDITOR`.

When `-r` is missing, the command opens the editor on a template (the entity, the
event type, its open verdicts) and logs what is saved. As git does, the editor runs
even without a terminal when one is configured; lines starting with `#` are dropped;
an empty reason aborts with nothing written. With no editor configured and no
terminal to fall back to `vi` on, the command asks for `-r`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from cairn.cli._common import CairnError

COMMENT = "#"


def editor_command() -> str | None:
    """`$VISUAL` (on a capable terminal), else `$EDITOR`, else `vi` on a terminal, else None."""
    dumb = os.environ.get("TERM", "") in ("", "dumb")
    for name in ("VISUAL", "EDITOR"):
        value = os.environ.get(name, "").strip()
        if value and not (name == "VISUAL" and dumb and os.environ.get("EDITOR")):
            return value
    if sys.stdin.isatty() and sys.stdout.isatty() and not dumb:
        return "vi"
    return None


def template(entity: str, type_: str, context: Sequence[str] = ()) -> str:
    """The file the editor opens: an empty first line to write on, then comments."""
    lines = [
        "",
        f"{COMMENT} Why? Write the reason for this {type_} on {entity} above.",
        f"{COMMENT} Lines starting with '{COMMENT}' are ignored; an empty reason aborts and "
        "nothing is written.",
        f"{COMMENT}",
        f"{COMMENT} entity: {entity}",
        f"{COMMENT} type:   {type_}",
    ]
    lines += [f"{COMMENT} {line}" if line else COMMENT for line in context]
    return "\n".join(lines) + "\n"


def strip_comments(text: str) -> str:
    """What was written: comment lines dropped, surrounding blank lines trimmed."""
    kept = [line.rstrip() for line in text.splitlines() if not line.startswith(COMMENT)]
    return "\n".join(kept).strip()


def ask_reason(entity: str, type_: str, context: Sequence[str] = ()) -> str:
    """Open the editor on the template and return the reason written, or raise CairnError."""
    editor = editor_command()
    if editor is None:
        raise CairnError(
            f"no reason given for {type_} on {entity}: pass -r TEXT "
            "(or set $EDITOR to write it in an editor)"
        )
    handle, name = tempfile.mkstemp(prefix="cairn-reason-", suffix=".txt")
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(template(entity, type_, context))
        # As git does: the editor setting is a shell snippet ("code --wait", "vim -f").
        try:
            proc = subprocess.run(["/bin/sh", "-c", f'{editor} "$@"', editor, str(path)])
        except OSError as exc:
            raise CairnError(f"cannot start the editor {editor!r}: {exc}") from None
        if proc.returncode != 0:
            raise CairnError(
                f"the editor {editor!r} exited with status {proc.returncode}; nothing written"
            )
        reason = strip_comments(path.read_text(encoding="utf-8", errors="replace"))
    finally:
        path.unlink(missing_ok=True)
    if not reason:
        raise CairnError(f"empty reason: aborted the {type_} on {entity}, nothing written")
    return reason
