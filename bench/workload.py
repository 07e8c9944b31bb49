"""The shared Selvedge workload, as Cairn drafts: one place for the mapping rules.

The generator lives in ../shared/bench/peer_selvedge.py (loaded by path, never
copied). Two rules keep Cairn's semantics: a workload `supersede` of anything but a
verdict becomes `add` (Cairn re-opens only reverts and rejects), and a `reject`
gets an alternative (optional in Cairn; kept so each reject carries one).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from cairn.store import EventDraft

REPO = Path(__file__).resolve().parent.parent
# Beside the repository; a worktree (/work/wt/NAME) finds it one folder further up.
PEER_SCRIPT = next(
    (
        found
        for folder in REPO.parents
        if (found := folder / "shared" / "bench" / "peer_selvedge.py").is_file()
    ),
    (REPO / ".." / "shared" / "bench" / "peer_selvedge.py").resolve(),
)


def load_peer() -> Any:
    """The peer script as a module (its generator and timing helpers)."""
    spec = importlib.util.spec_from_file_location("peer_selvedge", PEER_SCRIPT)
    if spec is None or spec.loader is None:
        sys.exit(f"cannot load the workload generator from {PEER_SCRIPT}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def to_draft(e: dict[str, Any], ids: dict[str, tuple[str, str]]) -> EventDraft:
    """One workload event as a draft; `ids` maps workload ids to (cairn id, type)."""
    ctype, supersedes, alternative = e["change_type"], "", ""
    if ctype == "supersede":
        target = ids.get(e["supersedes"])
        if target and target[1] in ("revert", "reject"):
            supersedes = target[0]
        else:
            ctype = "add"
    elif ctype == "reject":
        alternative = "the approach in the diff"
    return EventDraft(
        type=ctype,
        entity=e["entity_path"],
        reasoning=e["reasoning"],
        diff=e["diff"],
        alternative=alternative,
        supersedes=supersedes,
        agent=e["agent"],
        author="bench",
        session=e["session_id"],
        recorded_at=e["timestamp"],
        entity_kind=e["entity_type"],
    )
