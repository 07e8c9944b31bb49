"""Redaction: erase an event's content everywhere under `.cairn/`, keep the DAG verifiable.

The event's line keeps its header and trades its content (reasoning, alternative, diff,
metadata) for `content_digest` plus `redacted: true`, so its id still recomputes. A
`redact` event records who erased it, when and why (never what). The JSONL is rewritten
under the write lock through a temp file, fsync and rename; the index is rebuilt from
the rewritten log and vacuumed with `secure_delete`, so no SQLite page, full-text
segment or WAL frame keeps the text. Redaction is a human act: it is on the CLI only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.store.canonical import CONTENT_FIELDS, canonical_json, content_digest
from cairn.store.confine import real_path
from cairn.store.errors import StoreError, ValidationError
from cairn.store.log import LogFile, write_lock
from cairn.store.model import Event, EventDraft, EventType, line_id
from cairn.store.store import Store

__all__ = ["RedactResult", "redact", "redacted_line", "scrub_index"]

# Where the redact event names its target (metadata, so a redaction carries no header
# field an older reader does not know).
TARGET_KEY = "redacts"


@dataclass(slots=True)
class RedactResult:
    """What `redact` did."""

    target: Event
    redact_event: Event | None  # None when a previous run already recorded it
    lines_rewritten: int
    masked: list[str] = field(default_factory=list)
    drafts_removed: list[Path] = field(default_factory=list)
    replayed: bool = False  # the key named this redaction, already done: nothing written


def redacted_line(raw: dict[str, Any]) -> dict[str, Any]:
    """The redacted form of a parsed line: header kept, content replaced by its digest."""
    digest = content_digest({k: raw.get(k) for k in CONTENT_FIELDS})
    out = {k: v for k, v in raw.items() if k not in CONTENT_FIELDS and k != "content_digest"}
    out["redacted"] = True
    out["content_digest"] = digest
    return out


def _content_strings(raw: dict[str, Any]) -> list[str]:
    """The erased text, as strings worth searching other files for."""
    found: list[str] = []
    for name in CONTENT_FIELDS:
        value = raw.get(name)
        if isinstance(value, str) and value.strip():
            found.append(value)
        elif value:
            found.append(json.dumps(value, ensure_ascii=False))
    return found


def _rewrite_log(cairn_dir: Path, target: str) -> tuple[int, list[str]]:
    """Replace every full copy of `target` with its redacted form. Caller holds the lock."""
    log = LogFile(cairn_dir)
    log.repair_tail()
    data = log.path.read_bytes()
    out: list[bytes] = []
    rewritten = 0
    erased: list[str] = []
    for number, chunk in enumerate(data.split(b"\n")[:-1] if data else [], start=1):
        if target.encode() not in chunk:
            out.append(chunk)
            continue
        try:
            raw = json.loads(chunk)
        except ValueError:
            out.append(chunk)
            continue
        if not isinstance(raw, dict) or raw.get("id") != target or raw.get("redacted"):
            out.append(chunk)
            continue
        if line_id(raw) != target:
            raise StoreError(
                f"line {number} claims id {target} but does not hash to it (edited by hand?); "
                "run `cairn verify` and fix the log before redacting"
            )
        new = redacted_line(raw)
        if line_id(new) != target:  # pragma: no cover - guards the digest contract
            raise StoreError(f"redacting line {number} would break its id; nothing was written")
        erased.extend(_content_strings(raw))
        out.append(canonical_json(new).encode("utf-8"))
        rewritten += 1
    if not rewritten:
        return 0, []
    # A link (confined to the project by Store.open) is rewritten at its target: replacing
    # the link itself would leave the erased text in the file it points to.
    real = real_path(log.path)
    tmp = real.with_name(f".{real.name}.{os.getpid()}.tmp")
    mode = os.stat(real).st_mode & 0o777
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(b"".join(line + b"\n" for line in out))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, real)
    finally:
        tmp.unlink(missing_ok=True)
    dir_fd = os.open(real.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return rewritten, erased


def scrub_index(store: Store) -> None:
    """Rewrite every page of the index so no freed page, segment or WAL frame keeps old text."""
    store.index.scrub()


def _remove_drafts(cairn_dir: Path, erased: list[str]) -> list[Path]:
    """Delete decision drafts that hold the erased text (the server writes them)."""
    removed: list[Path] = []
    drafts = cairn_dir / "drafts"
    if not drafts.is_dir() or not erased:
        return removed
    for path in sorted(drafts.rglob("*")):
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if any(s in text for s in erased):
            path.unlink()
            removed.append(path)
    return removed


def _scrub_quarantine(log: LogFile, erased: list[str]) -> None:
    """Erase the text from the quarantine too (a crashed write of the same event)."""
    if not erased or not log.quarantine.is_file():
        return
    data = log.quarantine.read_bytes()
    cleaned = data
    for text in erased:
        cleaned = cleaned.replace(text.encode("utf-8"), b"[REDACTED]")
    if cleaned != data:
        real = real_path(log.quarantine)
        tmp = real.with_name(real.name + ".tmp")
        tmp.write_bytes(cleaned)
        os.replace(tmp, real)


def redact(
    cairn_dir: Path, target: str, reason: str, *, author: str = "", key: str = ""
) -> RedactResult:
    """Erase the content of the event `target` (an id or unique prefix) for `reason`;
    `key` is an idempotency key for the redact event (a retry writes nothing)."""
    if not reason.strip():
        raise ValidationError("say why the content is being erased (-r/--reason)")
    with Store.open(cairn_dir) as store:
        event = store.get(target)
        if event.type is EventType.REDACT:
            raise ValidationError(
                f"{event.id[:12]} is itself a redaction record; redact the event it names"
            )
        draft = EventDraft(
            type=EventType.REDACT,
            entity=event.entity,
            reasoning=reason,
            author=author,
            metadata={TARGET_KEY: event.id},
            key=key,
        )
        has_content = any(
            isinstance(raw, dict) and raw.get("id") == event.id and not raw.get("redacted")
            for raw in _lines_naming(store.log.path, event.id)
        )
        if not has_content:
            done = store.replay(draft)
            if done is None:
                raise ValidationError(f"event {event.id[:12]} is already redacted")
            return RedactResult(event, done, 0, replayed=True)
        # Record the act first: if we crash before the rewrite, rerunning finishes the
        # job without a second record.
        recorded = [
            e
            for e in store.history(event.entity)
            if e.type is EventType.REDACT and e.metadata.get(TARGET_KEY) == event.id
        ]
        result = RedactResult(target=event, redact_event=None, lines_rewritten=0)
        if not recorded:
            appended = store.append(draft)
            result.redact_event = appended.event
            result.masked = appended.masked
    with write_lock(cairn_dir):
        result.lines_rewritten, erased = _rewrite_log(cairn_dir, event.id)
        _scrub_quarantine(LogFile(cairn_dir), erased)
        result.drafts_removed = _remove_drafts(cairn_dir, erased)
    with Store.open(cairn_dir) as store:  # the rewrite changed the file: this rebuilds
        scrub_index(store)
    return result


def _lines_naming(path: Path, event_id: str) -> list[Any]:
    """Parsed lines that mention `event_id` as their id."""
    needle = f'"id":"{event_id}"'.encode()
    out: list[Any] = []
    with open(path, "rb") as fh:
        for chunk in fh:
            if needle in chunk:
                try:
                    out.append(json.loads(chunk))
                except ValueError:
                    continue
    return out
