"""The server's settings: one frozen record, read from `initializationOptions` and
`workspace/configuration` (section `cairn`).

Keys are camelCase as editors write them. A bad value never stops the server: it
keeps the default and the problem is reported once to the client's log.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import replace

from cairn.core.attention import DEFAULT_BUSY_AFTER, AttentionPolicy
from cairn.core.findings import Severities, Severity
from cairn.limits import MAX_FILE_BYTES

DIAGNOSTIC_MODES = ("auto", "push", "pull")


class Settings(msgspec.Struct, frozen=True):
    """Everything a user can tune; defaults suit an editor with a human at the keyboard."""

    severity: Severities = msgspec.field(default_factory=Severities)
    debounce_ms: int = 150  # quiet time after the last keystroke before re-analysing
    code_lens: bool = True
    # the quiet rule (cairn.core.attention): lenses and full hover cards only where history
    # matters; off, every entity with history gets them
    quiet: bool = True
    quiet_max_decisions: int = DEFAULT_BUSY_AFTER  # more decisions than this is worth a lens
    hover_no_decisions: bool = False  # hover "no decisions yet" on entities without history
    # auto: pull when the client can pull and be refreshed, push otherwise (never both)
    diagnostic_mode: str = "auto"
    poll_interval_ms: int = 2000  # cheap check of the log when the client cannot watch files
    # larger documents are not analysed; the setting can lower the one limit, not raise it
    max_file_bytes: int = MAX_FILE_BYTES
    # larger LSP messages are skipped unread (cairn.lsp.frames); 0 would refuse all
    max_message_bytes: int = 64 * 1024 * 1024

    @property
    def attention(self) -> AttentionPolicy:
        """The quiet rule's settings, in the core's terms."""
        return AttentionPolicy(quiet=self.quiet, busy_after=self.quiet_max_decisions)

    @classmethod
    def from_options(cls, raw: object, base: Settings | None = None) -> tuple[Settings, list[str]]:
        """Settings from a client's JSON object, plus one message per ignored value."""
        settings = base or cls()
        problems: list[str] = []
        if raw is None:
            return settings, problems
        if not isinstance(raw, Mapping):
            return settings, [f"cairn settings must be an object, not {type(raw).__name__}"]
        # Editors nest settings under "cairn" in initializationOptions; accept both.
        options: Mapping[str, Any] = raw
        if isinstance(raw.get("cairn"), Mapping):
            options = raw["cairn"]
        changes: dict[str, Any] = {}
        for key, value in options.items():
            if key == "removed":  # `cairn.removed`: shorthand for `cairn.severity.removed`
                continue
            spec = _KEYS.get(key)
            if spec is None:
                problems.append(f"unknown cairn setting {key!r} ignored")
                continue
            name, convert = spec
            try:
                changes[name] = convert(value)
            except (TypeError, ValueError) as exc:
                problems.append(f"cairn setting {key!r}: {exc}; keeping the default")
        if "removed" in options:
            try:
                removed = Severity.parse(options["removed"])
            except ValueError as exc:
                problems.append(f"cairn setting 'removed': {exc}; keeping the default")
            else:
                base_severity = changes.get("severity", settings.severity)
                changes["severity"] = replace(base_severity, removed=removed)
        return replace(settings, **changes), problems


def pulls_diagnostics(mode: str, can_pull: bool, can_refresh: bool) -> bool:
    """True when diagnostics are served on pull instead of pushed (the one rule).

    `auto` pulls only when the client can pull and can also be asked to re-pull
    (`workspace/diagnostic/refresh`): without it (Neovim 0.11) pulled warnings would stay
    stale after the log changes until the next edit, so we push.
    """
    if mode == "auto":
        return can_pull and can_refresh
    return mode == "pull"


def _severities(value: object) -> Severities:
    if not isinstance(value, Mapping):
        raise ValueError('expected an object such as {"introduce": "warning"}')
    return Severities.from_mapping(value)


def _non_negative_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"expected a non-negative number, got {value!r}")
    return int(value)


def _file_bytes(value: object) -> int:
    number = _non_negative_int(value)
    if number > MAX_FILE_BYTES:
        raise ValueError(f"expected at most {MAX_FILE_BYTES} (the indexer's limit), got {number}")
    return number


def _message_limit(value: object) -> int:
    # Below 64 KB the server could not even read a client's initialize request.
    number = _non_negative_int(value)
    if number < 64 * 1024:
        raise ValueError(f"expected at least 65536 bytes, got {value!r}")
    return number


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _mode(value: object) -> str:
    if value not in DIAGNOSTIC_MODES:
        raise ValueError(f"expected one of {', '.join(DIAGNOSTIC_MODES)}, got {value!r}")
    return str(value)


_KEYS: dict[str, tuple[str, Any]] = {
    "severity": ("severity", _severities),
    "debounceMs": ("debounce_ms", _non_negative_int),
    "codeLens": ("code_lens", _bool),
    "quiet": ("quiet", _bool),
    "quietMaxDecisions": ("quiet_max_decisions", _non_negative_int),
    "hoverNoDecisions": ("hover_no_decisions", _bool),
    "diagnosticMode": ("diagnostic_mode", _mode),
    "pollIntervalMs": ("poll_interval_ms", _non_negative_int),
    "maxFileBytes": ("max_file_bytes", _file_bytes),
    "maxMessageBytes": ("max_message_bytes", _message_limit),
}


class SettingsByFolder:
    """The settings in force: the workspace's, and each workspace folder's.

    `workspace/configuration` is asked once without a scope and once per workspace
    folder (`scopeUri`), so a multi-root workspace can set, say, severities per
    folder. A document takes the settings of the innermost folder that holds it, else
    the workspace's. Settings the server reads once for all documents (the diagnostic
    mode, the poll, the message limit) are the workspace's.
    """

    def __init__(self) -> None:
        self.workspace = Settings()
        self._folders: dict[Path, Settings] = {}

    def replace(self, workspace: Settings, folders: Mapping[Path, Settings]) -> None:
        """New settings, whole (initialize, a configuration change)."""
        self.workspace = workspace
        # innermost first: a nested folder wins over the one holding it
        self._folders = dict(sorted(folders.items(), key=lambda kv: -len(kv[0].parts)))

    def for_path(self, path: Path | None) -> Settings:
        """The settings of the innermost folder holding `path`, else the workspace's."""
        if path is not None:
            for folder, settings in self._folders.items():
                if path == folder or folder in path.parents:
                    return settings
        return self.workspace
