"""Pure pieces of the server: hover rendering, drafts, command validation, code actions,
settings. Inputs are the store's real types."""

from __future__ import annotations

import json
from urllib.parse import unquote

import pytest
from lsprotocol import types

from cairn.core.decisions import (
    DecisionRequest,
    InvalidRequest,
    parse_draft,
    render_draft,
    request_from_command,
)
from cairn.core.findings import Severity
from cairn.core.present import hover_markdown, lens_title, rollup_line
from cairn.lsp.features.code_actions import actions_for
from cairn.lsp.settings import Settings
from cairn.store import EntityStatus, Event, EventType, Review, Status

REVERT = Event(
    id="a1b2c3d4" + "0" * 56,
    type=EventType.REVERT,
    entity="users.email_verified",
    reasoning="Mails bounced for corporate domains. " * 20,
    author="maria",
    occurred_at="2026-03-05T10:00:00.000Z",
    recorded_at="2026-03-06T10:00:00.000Z",
)
ADD = Event(
    id="ffff0000" + "1" * 56,
    type=EventType.ADD,
    entity="users.email_verified",
    reasoning="Verify at signup.",
    agent="claude",
    recorded_at="2026-03-02T10:00:00.000Z",
)


def test_hover_card_shows_verdict_reason_date_author_and_history_link() -> None:
    status = EntityStatus(
        entity="users.email_verified",
        status=Status.REVERTED,
        open_verdicts=[REVERT],
        event_count=2,
        latest=REVERT,
    )
    card = hover_markdown("users.email_verified", status, [REVERT, ADD])
    lines = card.splitlines()
    assert lines[0] == "**`users.email_verified`** · reverted · 2 decisions"
    assert "⛔ **Reverted** 2026-03-05 by maria · `a1b2c3d40000`" in card
    assert REVERT.id not in card  # ids shortened for display
    assert "…" in card and len(card) < 1200  # long reasoning is clipped
    assert "- 2026-03-02 **add** by claude: Verify at signup." in card
    assert "**revert**" not in card  # the verdict is not repeated among the newest
    link = lines[-1]
    assert link.startswith("[Full history](command:cairn.history?")
    assert json.loads(unquote(link.split("?", 1)[1].rstrip(")"))) == [
        {"entity": "users.email_verified"}
    ]
    assert len(lines) <= 15


def test_hover_card_reopened_due_review_and_table_rollup() -> None:
    review = Review(event=ADD, reason="revisit_after", due="2026-06-01")
    status = EntityStatus(
        entity="users",
        status=Status.ACTIVE,
        reopened={REVERT.id: ADD.id},
        event_count=3,
        due_reviews=[review],
        rollup={"users.email_verified": Status.REVERTED, "users.legacy": Status.REJECTED},
    )
    card = hover_markdown("users", status)
    [reopened] = [line for line in card.splitlines() if line.startswith("↺")]
    assert reopened.startswith(
        "↺ `a1b2c3d40000` re-opened by [`ffff00001111`](command:cairn.history?"
    )
    assert json.loads(unquote(reopened.split("?", 1)[1].rstrip(")"))) == [{"entity": "users"}]
    assert "⏰ **Review due** since 2026-06-01: Verify at signup." in card
    assert "Columns: 1 reverted (email_verified) · 1 rejected (legacy)" in card


def test_many_verdicts_stay_within_fifteen_lines() -> None:
    verdicts = [
        Event(id=f"{i:08x}" + "0" * 56, type=EventType.REJECT, entity="deps/x",
              alternative=f"option {i}", reasoning="no", recorded_at="2026-01-01")
        for i in range(12)
    ]  # fmt: skip
    status = EntityStatus("deps/x", Status.REJECTED, open_verdicts=verdicts, event_count=12)
    card = hover_markdown("deps/x", status, verdicts)
    assert len(card.splitlines()) <= 15
    assert "*…and 9 more open verdicts*" in card


def test_a_card_with_everything_still_fits_fifteen_lines() -> None:
    verdicts = [
        Event(id=f"{i:08x}" + "0" * 56, type=EventType.REVERT, entity="users",
              reasoning="line one\nline two", recorded_at="2026-01-01")
        for i in range(5)
    ]  # fmt: skip
    status = EntityStatus(
        "users",
        Status.REVERTED,
        open_verdicts=verdicts,
        conflicts=[ADD],
        reopened={REVERT.id: ADD.id, "b" * 64: "c" * 64},
        event_count=9,
        due_reviews=[Review(event=ADD, reason="revisit_after", due="2026-06-01")],
        rollup={"users.email_verified": Status.REVERTED},
    )
    card = hover_markdown("users", status, [REVERT, ADD])
    lines = card.splitlines()
    assert len(lines) <= 15
    assert lines[-1].startswith("[Full history](command:cairn.history?")
    assert card.count("⛔ **Reverted**") == 3  # the open verdicts are never what is cut


def test_lens_title_and_rollup_line() -> None:
    status = EntityStatus("users.email_verified", Status.REVERTED, [REVERT], event_count=3)
    assert lens_title(status) == "3 decisions · reverted 2026-03-05"
    assert lens_title(EntityStatus("x", Status.ACTIVE, event_count=1)) == "1 decision"
    assert rollup_line("t", {}) == "Columns: no decisions"
    # a class's children are its members, a file's its symbols: no "Columns" (issue 29.8)
    members = {"app/s3.py::Client.upload": Status.REVERTED, "app/s3.py::Client.MAX": Status.ACTIVE}
    assert rollup_line("app/s3.py::Client", members) == "Members: 1 reverted (upload) · 1 active"
    in_file = {"app/s3.py::upload": Status.REJECTED}
    assert rollup_line("app/s3.py", in_file) == "Symbols: 1 rejected (upload)"
    assert rollup_line("users", {"users.email": Status.REVERTED}) == "Columns: 1 reverted (email)"


def test_draft_renders_and_parses_back() -> None:
    request = DecisionRequest(entity="deps/stripe", type="reject", alternative="Connect")
    text = render_draft(request, context="quoted\ncontext")
    assert text.startswith("---\nentity: deps/stripe\ntype: reject\nalternative: Connect\n---\n")
    parsed, problems = parse_draft(text + "Fees are too high.\n\nSee the spreadsheet.")
    assert problems == []
    assert parsed == DecisionRequest(
        entity="deps/stripe",
        type="reject",
        reason="Fees are too high.\n\nSee the spreadsheet.",
        alternative="Connect",
    )


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("no front matter", 0, "starts with a '---'"),
        ("---\nentity: x\n", 0, "not closed"),
        ("---\nentity: x\ntype: modify\ncolour: red\n---\nwhy", 3, "unknown front-matter"),
        ("---\nentity: x\ntype: modify\n---\n<!-- only a comment -->\n", 4, "write the reasoning"),
        ("---\nentity: x\ntype: explode\n---\nwhy", 2, "invalid type"),
        ("---\nentity: a..b\ntype: add\n---\nwhy", 1, "empty part"),
    ],
)
def test_draft_problems_point_at_their_line(text: str, line: int, message: str) -> None:
    request, problems = parse_draft(text)
    assert request is None
    assert problems[0].line == line and message in problems[0].message


def test_command_arguments_are_validated_and_canonicalised() -> None:
    request = request_from_command("cairn.supersede", [{"entity": " Users.Email ", "of": "abc"}])
    assert request == DecisionRequest(entity="users.email", type="supersede", supersedes="abc")
    draft = request_from_command("cairn.log", {"entity": "users.email", "reason": "  "})
    assert draft.reason is None and draft.type == "modify"
    with pytest.raises(InvalidRequest, match="'type' is required"):
        request_from_command("cairn.log", [{"entity": "users.email", "reason": "why"}])
    with pytest.raises(InvalidRequest, match="'reverts' only goes with type revert"):
        request_from_command(
            "cairn.log", [{"entity": "x", "type": "add", "reason": "r", "reverts": "abcdef"}]
        )


def diag(data: object, source: str = "cairn") -> types.Diagnostic:
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=1, character=2), end=types.Position(line=1, character=9)
        ),
        message="m",
        source=source,
        code="id1",
        data=data,
    )


def test_code_actions_are_a_function_of_the_diagnostic_data() -> None:
    d = diag({"entity": "deps/stripe", "kind": "verdict", "verdict_ids": ["r1", "r2"],
              "verdict_types": ["reject", "revert"]})  # fmt: skip
    actions = actions_for("file:///p/pyproject.toml", [d], "deps/stripe")
    assert [a.title for a in actions] == [
        "Supersede the rejection of deps/stripe…",
        "Supersede the revert of deps/stripe…",
        "Show history of deps/stripe",
        "Log a decision for deps/stripe…",
        "Record that deps/stripe was rejected…",
        "Record that deps/stripe was reverted…",
    ]
    first = actions[0]
    assert first.kind == types.CodeActionKind.QuickFix and first.diagnostics == [d]
    assert first.command is not None and first.command.arguments == [
        {"entity": "deps/stripe", "of": "r1", "uri": "file:///p/pyproject.toml"}
    ]
    assert actions[3].kind == "refactor.cairn"
    # Foreign diagnostics and reviews get no supersede; no symbol, no decision actions.
    review = diag({"entity": "users", "kind": "review", "verdict_ids": ["e"],
                   "verdict_types": ["modify"]})  # fmt: skip
    assert [a.title for a in actions_for("u", [diag({"entity": "x"}, "pylint"), review], None)] == [
        "Show history of users"
    ]


def test_settings_keep_defaults_for_bad_values_and_say_why() -> None:
    settings, problems = Settings.from_options(
        {"cairn": {"debounceMs": -3, "codeLens": "yes", "severity": {"reference": "hint"},
                   "diagnosticMode": "pull", "colour": 1}}
    )  # fmt: skip
    assert settings.debounce_ms == 150 and settings.code_lens is True
    assert settings.severity.reference is Severity.HINT
    assert settings.diagnostic_mode == "pull"
    assert len(problems) == 3
    assert any("unknown cairn setting 'colour'" in p for p in problems)
    assert Settings.from_options("nonsense")[1] == ["cairn settings must be an object, not str"]
