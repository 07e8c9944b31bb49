"""A gate report in the formats CI systems put on a pull request's diff.

- `sarif`: SARIF 2.1.0, what GitHub code scanning (and most security dashboards) read;
- `github`: GitHub Actions workflow commands (`::error file=…,line=…::…`), which the
  runner turns into annotations on the changed lines without any upload step;
- `gitlab`: GitLab's Code Quality report (a JSON array), shown in the merge request.

The findings are `cairn check`'s (`Report.findings`, the core gate's), so the words
and the severity are the gate's: each format only maps the one `Severity` onto its own
vocabulary (`LEVELS`, the one table) and names the rule a finding breaks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from cairn.core.findings import Severity
from cairn.core.present import finding_kinds, reason_text, short_id

__all__ = ["FORMATS", "LEVELS", "RULES", "render", "rule_id"]

FORMATS = ("sarif", "github", "gitlab")

# Severity -> (SARIF `level`, GitHub workflow command, GitLab Code Quality severity).
# A blocking finding is reported as "error" by the gate (`gate._finding_dict`).
LEVELS: dict[Severity, tuple[str, str, str]] = {
    Severity.ERROR: ("error", "error", "blocker"),
    Severity.WARNING: ("warning", "warning", "major"),
    Severity.INFORMATION: ("note", "notice", "info"),
    Severity.HINT: ("note", "notice", "info"),
    Severity.OFF: ("none", "notice", "info"),  # (dropped before a report; kept total)
}

# Rule id -> (short description, what to do). The id is stable: code scanning keys its
# alert history on it, so renaming one re-opens every alert.
RULES: dict[str, tuple[str, str]] = {
    "cairn/reverted": (
        "Re-introduces an entity whose change was reverted",
        "Read the revert's reason (`cairn history ENTITY`); if the change is wanted now, "
        "record why with `cairn supersede`.",
    ),
    "cairn/rejected": (
        "Re-introduces an approach the team rejected",
        "Read the rejection's reason (`cairn history ENTITY`); if the approach is wanted "
        "now, record why with `cairn supersede`.",
    ),
    "cairn/reapplied": (
        "Touches an entity re-applied after a verdict without a supersede",
        "Record the supersede that explains why the verdict no longer holds.",
    ),
    "cairn/returned-change": (
        "Brings back most of the lines a revert took out",
        "Read the revert's reason (`cairn history ENTITY`) before bringing the change back.",
    ),
    "cairn/removed": (
        "Re-introduces an entity whose status is removed",
        "If it is meant to come back, record why with `cairn log add ENTITY`.",
    ),
    "cairn/review-due": (
        "A decision on this entity asked to be revisited and the date has passed",
        "Review the decision and record the outcome.",
    ),
}


def rule_id(finding: Mapping[str, Any]) -> str:
    """The rule a finding breaks (a key of `RULES`)."""
    kind = str(finding.get("kind"))
    if kind == "conflict":
        return "cairn/reapplied"
    if kind == "fingerprint":
        return "cairn/returned-change"
    if kind == "removed":
        return "cairn/removed"
    if kind == "review":
        return "cairn/review-due"
    types = finding.get("verdict_types") or ()
    return "cairn/rejected" if "reject" in types and "revert" not in types else "cairn/reverted"


def _levels(finding: Mapping[str, Any]) -> tuple[str, str, str]:
    try:
        return LEVELS[Severity.parse(finding.get("severity", "warning"))]
    except ValueError:
        return LEVELS[Severity.WARNING]


def _text(finding: Mapping[str, Any]) -> str:
    """The message with the verdict's reason: what a reviewer needs on the diff."""
    why = reason_text(finding.get("reasoning"))
    alternative = finding.get("alternative")
    rejected = f" Rejected approach: {alternative}." if alternative else ""
    return (
        f"{finding['message']} [{finding_kinds(finding)} {short_id(finding['verdict_id'])}]"
        f"{rejected} Reason: {why}"
    )


def _path(prefix: str, finding: Mapping[str, Any]) -> str:
    return f"{prefix}{finding['file']}"


def _fingerprint(prefix: str, finding: Mapping[str, Any]) -> str:
    """Stable across runs and line moves: the rule, the entity, the verdict, the file."""
    key = "\0".join(
        (
            rule_id(finding),
            str(finding["entity"]),
            str(finding["verdict_id"]),
            _path(prefix, finding),
        )
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def sarif(findings: Sequence[Mapping[str, Any]], version: str, prefix: str = "") -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run. `prefix`: the project's folder within the
    repository ("" or "sub/dir/"), since code scanning reads repository-relative uris."""
    used = sorted({rule_id(f) for f in findings})
    rules = [
        {
            "id": rid,
            "name": rid.split("/", 1)[1].title().replace("-", ""),
            "shortDescription": {"text": RULES[rid][0]},
            "help": {"text": RULES[rid][1]},
        }
        for rid in used
    ]
    index = {rid: i for i, rid in enumerate(used)}
    results = []
    for f in findings:
        rid = rule_id(f)
        results.append(
            {
                "ruleId": rid,
                "ruleIndex": index[rid],
                "level": _levels(f)[0],
                "message": {"text": _text(f)},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": _path(prefix, f), "uriBaseId": "%SRCROOT%"},
                            "region": {
                                "startLine": int(f["line"]),
                                "startColumn": int(f["column"]),
                                "endLine": int(f.get("end_line") or f["line"]),
                                "endColumn": int(f.get("end_column") or f["column"]),
                            },
                        },
                        "logicalLocations": [{"fullyQualifiedName": str(f["entity"])}],
                    }
                ],
                "partialFingerprints": {"cairnFinding/v1": _fingerprint(prefix, f)},
                "properties": {
                    "entity": f["entity"],
                    "verdictId": f["verdict_id"],
                    "blocking": bool(f.get("blocking")),
                },
            }
        )
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "cairn",
                        "version": version,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }


def _escape_data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF are escaped (the runner decodes them)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow command's property value: also `:` and `,`, which end it."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github(findings: Sequence[Mapping[str, Any]], prefix: str = "") -> list[str]:
    """One workflow command per finding (`::error file=…,line=…,col=…,title=…::…`)."""
    out = []
    for f in findings:
        props = {
            "file": _path(prefix, f),
            "line": str(f["line"]),
            "col": str(f["column"]),
            "endLine": str(f.get("end_line") or f["line"]),
            "title": f"cairn: {f['entity']} ({rule_id(f)})",
        }
        joined = ",".join(f"{k}={_escape_property(v)}" for k, v in props.items())
        out.append(f"::{_levels(f)[1]} {joined}::{_escape_data(_text(f))}")
    return out


def gitlab(findings: Sequence[Mapping[str, Any]], prefix: str = "") -> list[dict[str, Any]]:
    """GitLab Code Quality issues (the `codequality` report artifact)."""
    return [
        {
            "description": _text(f),
            "check_name": rule_id(f),
            "fingerprint": _fingerprint(prefix, f),
            "severity": _levels(f)[2],
            "location": {
                "path": _path(prefix, f),
                "lines": {"begin": int(f["line"]), "end": int(f.get("end_line") or f["line"])},
            },
        }
        for f in findings
    ]


def render(fmt: str, findings: Sequence[Mapping[str, Any]], version: str, prefix: str = "") -> str:
    """The whole report in `fmt` (one of FORMATS), ready to print."""
    if fmt == "sarif":
        return json.dumps(sarif(findings, version, prefix), ensure_ascii=False, indent=2)
    if fmt == "github":
        return "\n".join(github(findings, prefix))
    if fmt == "gitlab":
        return json.dumps(gitlab(findings, prefix), ensure_ascii=False, indent=2)
    raise ValueError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}")
