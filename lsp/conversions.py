"""Conversions between LSP types and the core's: ranges, findings, URIs, draft problems.

Pure functions, no server state: the one place that knows both vocabularies, so a
handler never builds an LSP range or severity by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.protocol import default_converter

from cairn.core.findings import Finding
from cairn.lsp.wire import SEVERITY, SOURCE, path_uri, relative_to, uri_path

if TYPE_CHECKING:
    from cairn.core.decisions import DraftProblem
    from cairn.indexer.model import Range

__all__ = [
    "LSP_SEVERITY",
    "SOURCE",
    "converter",
    "draft_diagnostics",
    "error_diagnostic",
    "lsp_range",
    "path_uri",
    "relative_to",
    "to_diagnostic",
    "uri_path",
    "wire_diagnostics",
]

LSP_SEVERITY = {severity: types.DiagnosticSeverity(n) for severity, n in SEVERITY.items()}


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


def converter() -> Any:
    """pygls's converter, with a direct encoder for the one type sent by the hundred.

    A publish of a file's diagnostics went through cattrs' generic machinery object by
    object (about a tenth of a millisecond per diagnostic); the wire form of a
    `Diagnostic` as Cairn builds it is a small dict. One already in that form (what the
    analysis keeps: `cairn.lsp.wire.diagnostic`, e.g. in a pull report's items) is
    written as it is. Anything with the fields Cairn never
    sets (tags, related information, a code description) keeps the generic path.
    """
    conv = default_converter()
    generic: Callable[[types.Diagnostic], Any] = conv.get_unstructure_hook(types.Diagnostic)

    def diagnostic(d: types.Diagnostic) -> Any:
        if type(d) is dict:  # already the wire form (`cairn.lsp.wire.diagnostic`)
            return d
        if d.tags or d.related_information or d.code_description is not None:
            return generic(d)
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
