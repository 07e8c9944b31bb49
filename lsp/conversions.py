"""Conversions between LSP types and the core's: ranges, findings, URIs, draft problems.

Pure functions, no server state: the one place that knows both vocabularies, so a
handler never builds an LSP range or severity by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path, to_fs_path

from cairn.core.findings import Finding, Severity

if TYPE_CHECKING:
    from cairn.core.decisions import DraftProblem
    from cairn.indexer.model import Range

__all__ = [
    "LSP_SEVERITY",
    "SOURCE",
    "converter",
    "diagnostic",
    "draft_diagnostics",
    "error_diagnostic",
    "lsp_range",
    "path_uri",
    "relative_to",
    "to_diagnostic",
    "uri_path",
    "wire_diagnostics",
]

SOURCE = "cairn"  # every diagnostic's `source`
# The core's severities as LSP's DiagnosticSeverity numbers.
SEVERITY = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFORMATION: 3, Severity.HINT: 4}
LSP_SEVERITY = {severity: types.DiagnosticSeverity(n) for severity, n in SEVERITY.items()}


def uri_path(uri: str) -> Path | None:
    """The file-system path of a `file:` URI; None for other schemes."""
    try:
        fs = to_fs_path(uri)
    except Exception:  # pygls raises what urllib does on a malformed URI
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


def diagnostic(finding: Finding) -> dict[str, Any]:
    """One finding as the diagnostic the server publishes, in wire form: what the
    converter writes for `to_diagnostic(finding)` (tests/lsp/test_conversions.py holds
    them equal), without building the object (see `converter`)."""
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


def lsp_range(r: Range) -> types.Range:
    """An indexer `Range` as an LSP range."""
    return types.Range(
        start=types.Position(line=r.start_line, character=r.start_character),
        end=types.Position(line=r.end_line, character=r.end_character),
    )


def to_diagnostic(finding: Finding) -> types.Diagnostic:
    """One finding as the diagnostic editors show."""
    return types.Diagnostic(
        range=lsp_range(finding.name_range),
        message=finding.message,
        severity=LSP_SEVERITY[finding.severity],
        code=finding.verdict_id,
        source=SOURCE,
        data=finding.data,
    )


def draft_diagnostics(
    text: str, problems: Sequence[DraftProblem], *, refused: bool
) -> list[types.Diagnostic]:
    """Problems in a decision draft, each on its whole line: errors once a save was
    refused, hints before (the person is still writing)."""
    severity = types.DiagnosticSeverity.Error if refused else types.DiagnosticSeverity.Hint
    lines = text.splitlines() or [""]
    out = []
    for problem in problems:
        line = min(problem.line, len(lines) - 1)
        out.append(
            types.Diagnostic(
                range=types.Range(
                    start=types.Position(line=line, character=0),
                    end=types.Position(line=line, character=len(lines[line])),
                ),
                message=problem.message,
                severity=severity,
                source=SOURCE,
            )
        )
    return out


def error_diagnostic(message: str) -> types.Diagnostic:
    """An error at the top of a document (a draft whose save could not be logged)."""
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=0, character=3)
        ),
        message=message,
        severity=types.DiagnosticSeverity.Error,
        source=SOURCE,
    )


@cache
def _converter() -> Any:
    return converter()


def wire_diagnostics(diagnostics: Iterable[types.Diagnostic]) -> tuple[dict[str, Any], ...]:
    """Diagnostics built as LSP types (a draft's few) in the wire form the analysis keeps."""
    unstructure = _converter().unstructure
    return tuple(unstructure(d) for d in diagnostics)


@cache
def _generic_diagnostic() -> Callable[[types.Diagnostic], Any]:
    """cattrs' own encoder of a `Diagnostic`, from a converter of its own (this one's
    hook is the direct one), built on first use: Cairn sets none of the fields that
    need it, and building it with every server was ~13M instructions of the start."""
    hook: Callable[[types.Diagnostic], Any] = default_converter().get_unstructure_hook(
        types.Diagnostic
    )
    return hook


def converter() -> Any:
    """pygls's converter, with a direct encoder for the one type sent by the hundred.

    A publish of a file's diagnostics went through cattrs' generic machinery object by
    object (about a tenth of a millisecond per diagnostic); the wire form of a
    `Diagnostic` as Cairn builds it is a small dict. One already in that form (what the
    analysis keeps: `diagnostic`, e.g. in a pull report's items) is
    written as it is. Anything with the fields Cairn never
    sets (tags, related information, a code description) keeps the generic path.
    """
    conv = default_converter()

    def diagnostic(d: types.Diagnostic) -> Any:
        if type(d) is dict:  # already the wire form (`diagnostic`)
            return d
        if d.tags or d.related_information or d.code_description is not None:
            return _generic_diagnostic()(d)
        r = d.range
        out: dict[str, Any] = {
            "range": {
                "start": {"line": r.start.line, "character": r.start.character},
                "end": {"line": r.end.line, "character": r.end.character},
            },
            "message": d.message,
        }
        if d.severity is not None:
            out["severity"] = d.severity.value
        if d.code is not None:
            out["code"] = d.code
        if d.source is not None:
            out["source"] = d.source
        if d.data is not None:
            out["data"] = d.data
        return out

    conv.register_unstructure_hook(types.Diagnostic, diagnostic)
    return conv
