"""`init_store`: create a project's `.cairn/` folder (idempotent, never clobbers)."""

from __future__ import annotations

from pathlib import Path

from cairn.store.confine import check_confined
from cairn.store.log import LOG_NAME

__all__ = ["init_store"]

GITIGNORE = """# Derived or local-only: rebuilt from decisions.jsonl, never committed.
index.db
index.db-*
lock
drafts/
decisions.jsonl.quarantine
"""
GITATTRIBUTES_LINE = "decisions.jsonl merge=union"


def init_store(root: Path | str) -> Path:
    """Create `root/.cairn/` with an empty log, `.gitignore` and `.gitattributes`."""
    cairn_dir = Path(root) / ".cairn"
    if cairn_dir.is_symlink() or cairn_dir.is_dir():
        check_confined(cairn_dir)  # an existing folder from a clone may carry links
    cairn_dir.mkdir(parents=True, exist_ok=True)
    (cairn_dir / LOG_NAME).touch(exist_ok=True)
    (cairn_dir / "drafts").mkdir(exist_ok=True)
    ignore = cairn_dir / ".gitignore"
    if not ignore.exists():
        ignore.write_text(GITIGNORE, encoding="utf-8")
    attributes = cairn_dir / ".gitattributes"
    existing = attributes.read_text(encoding="utf-8") if attributes.exists() else ""
    if GITATTRIBUTES_LINE not in existing.splitlines():
        sep = "" if not existing or existing.endswith("\n") else "\n"
        attributes.write_text(existing + sep + GITATTRIBUTES_LINE + "\n", encoding="utf-8")
    return cairn_dir
