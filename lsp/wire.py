"""What the server writes on the wire, built without the LSP types.

The start-up path (`cairn.lsp.bootstrap`) answers the first document before lsprotocol,
cattrs and pygls are imported (~300 ms of CPU), so it needs the JSON of a diagnostic,
the severity numbers, a frame's header and the URI <-> path rules as plain functions.
The server uses the same ones (`cairn.lsp.conversions` re-exports the URI helpers and
builds its severities from `SEVERITY`); tests/lsp/test_bootstrap.py holds this JSON
equal to what the server's converter writes for the same findings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pygls.uris import from_fs_path, to_fs_path  # a leaf module: urllib, no pygls server

from cairn.core.findings import Finding, Severity

SOURCE = "cairn"  # every diagnostic's `source`
# LSP DiagnosticSeverity numbers (the protocol's own; lsprotocol's enum has the same).
SEVERITY = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFORMATION: 3, Severity.HINT: 4}
CONTENT_TYPE = "application/vscode-jsonrpc; charset=utf-8"  # what pygls writes


def diagnostic(finding: Finding) -> dict[str, Any]:
    """One finding as the JSON diagnostic the server publishes (its converter's form)."""
    r = finding.name_range
    out: dict[str, Any] = {
        "range": {
            "start": {"line": r.start_line, "character": r.start_character},
            "end": {"line": r.end_line, "character": r.end_character},
        },
        "message": finding.message,
        "severity": SEVERITY[finding.severity],
    }
    if finding.verdict_id is not None:
        out["code"] = finding.verdict_id
    out["source"] = SOURCE
    if finding.data is not None:
        out["data"] = finding.data
    return out


def publish_params(uri: str, diagnostics: list[Any], version: int | None) -> dict[str, Any]:
    """The params of a `textDocument/publishDiagnostics` as the server's converter writes
    them (its fields in lsprotocol's order; an absent version left out)."""
    out: dict[str, Any] = {"uri": uri, "diagnostics": diagnostics}
    if version is not None:
        out["version"] = version
    return out


def notification(method: str, params: Any) -> dict[str, Any]:
    """A JSON-RPC notification in the key order pygls' messages are written in."""
    return {"params": params, "method": method, "jsonrpc": "2.0"}


def frame(body: bytes) -> bytes:
    """A JSON-RPC body with the header the server's protocol writes before it."""
    header = f"Content-Length: {len(body)}\r\nContent-Type: {CONTENT_TYPE}\r\n\r\n"
    return header.encode("ascii") + body


def uri_path(uri: str) -> Path | None:
    """The file-system path of a `file:` URI; None for other schemes."""
    try:
        fs = to_fs_path(uri)
    except Exception:
        return None
    return Path(fs) if fs else None


def path_uri(path: Path) -> str:
    """A `file:` URI for a path (as editors spell them)."""
    return from_fs_path(str(path)) or path.as_uri()


def relative_to(path: Path, root: Path) -> str | None:
    """`path` relative to `root` in POSIX form, or None when it lies outside."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
