"""`cairn mcp` end to end: the MCP SDK's own client starts the real server on a real store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from mcp_helpers import CLIENT_NAME, log_lines, make_project, mcp_session, text_of

from cairn.agents.tools import TOOLS, schemas_json
from cairn.core.present import short_id
from cairn.store import Store

REVERT_REASON = "Verification mails bounced for 30% of users; reverted in 002"
MIGRATION = "ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false;\n"
SCHEMA_BUDGET = 6000  # characters for every tool's name, description and schemas together


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def _verdict_id(project: Path, entity: str) -> str:
    with Store.open(project / ".cairn") as store:
        return store.status(entity).open_verdicts[0].id


def test_the_schemas_fit_the_budget() -> None:
    names = [t["name"] for t in TOOLS]
    assert names == ["cairn_why", "cairn_search", "cairn_check", "cairn_record"]
    assert len(schemas_json()) <= SCHEMA_BUDGET
    for tool in TOOLS:
        assert len(tool["description"]) <= 200, tool["name"]


async def test_tools_list_is_what_the_budget_counts(project: Path) -> None:
    async with mcp_session(project) as session:
        listed = await session.list_tools()
    wire = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed.tools]
    assert [t["name"] for t in wire] == [t["name"] for t in TOOLS]
    assert [t["inputSchema"] for t in wire] == [t["inputSchema"] for t in TOOLS]
    assert len(json.dumps(wire, separators=(",", ":"), ensure_ascii=False)) <= SCHEMA_BUDGET


async def test_why_search_check_and_the_resource_answer_from_the_store(project: Path) -> None:
    verdict = _verdict_id(project, "users.email_verified")
    (project / "db" / "003_verify.sql").write_text(MIGRATION)
    before = log_lines(project)
    async with mcp_session(project) as session:
        why = await session.call_tool(
            "cairn_why", {"entities": ["users.email_verified", "deps/stripe", "orders.total"]}
        )
        by_path = await session.call_tool("cairn_why", {"path": "db/003_verify.sql"})
        search = await session.call_tool("cairn_search", {"query": "bounced", "limit": 5})
        blocked = await session.call_tool(
            "cairn_check", {"path": "db/004_again.sql", "content": MIGRATION}
        )
        clean = await session.call_tool(
            "cairn_check", {"path": "db/004_orders.sql", "content": "CREATE TABLE orders (id int);"}
        )
        history = await session.read_resource("cairn://entity/users.email_verified")
        templates = await session.list_resource_templates()
    assert log_lines(project) == before  # reading writes nothing

    assert not why.is_error
    text = text_of(why)
    assert text.startswith("users.email_verified: reverted (2 decisions)\n")
    assert f"{short_id(verdict)}: {REVERT_REASON}" in text
    assert "prior attempts: 1 reverted" in text
    assert "deps/stripe: rejected (1 decision)" in text  # one, not "1 decisions"
    assert "reject of “stripe-python v1 client”" in text
    # (no code names orders.total, so there is nothing to suggest; the hint says what to do)
    assert text.endswith(
        "no decisions recorded on orders.total; cairn_search finds decisions by their words"
    )
    data = why.structured_content
    assert [e["entity"] for e in data["entities"]] == ["users.email_verified", "deps/stripe"]
    first = data["entities"][0]
    assert first["status"] == "reverted"
    assert first["open_verdicts"][0]["id"] == verdict
    assert first["open_verdicts"][0]["reason"] == REVERT_REASON
    assert first["prior_attempts"] == {"reverted": 1}
    assert data["no_decisions"] == ["orders.total"]

    assert by_path.structured_content["file"] == "db/003_verify.sql"
    assert [e["entity"] for e in by_path.structured_content["entities"]] == ["users.email_verified"]

    assert text_of(search).startswith("users.email_verified revert ")
    assert [h["id"] for h in search.structured_content["hits"]] == [verdict]

    assert not blocked.is_error
    assert blocked.structured_content["blocking"] is True
    finding = blocked.structured_content["findings"][0]
    assert (finding["file"], finding["line"], finding["entity"], finding["verdict_id"]) == (
        "db/004_again.sql",
        1,
        "users.email_verified",
        verdict,
    )
    assert "db/004_again.sql:1: error: " in text_of(blocked)  # `cairn check`'s line
    assert "Cairn blocked this edit: it re-introduces" in text_of(blocked)
    assert f'reasoning: "{REVERT_REASON}"' in text_of(blocked)
    assert clean.structured_content == {"blocking": False, "files_checked": 1, "findings": []}

    markdown = history.contents[0]
    assert isinstance(markdown, types.TextResourceContents)
    assert markdown.mime_type == "text/markdown"
    assert markdown.text.startswith("# History of `users.email_verified`")
    assert REVERT_REASON in markdown.text
    assert [t.uri_template for t in templates.resource_templates] == ["cairn://entity/{path}"]


async def test_cairn_check_matches_the_cli_gate(project: Path) -> None:
    """Same findings as `cairn check --stdin-filename`, from the same analysis."""
    gate = ["check", "--json", "--stdin-filename", str(project / "db" / "004.sql")]
    cli = subprocess.run(
        [sys.executable, "-P", "-m", "cairn.cli", *gate],
        input=MIGRATION,
        capture_output=True,
        text=True,
        cwd=project,
    )
    assert cli.returncode == 1, cli.stderr
    async with mcp_session(project) as session:
        answer = await session.call_tool(
            "cairn_check", {"path": "db/004.sql", "content": MIGRATION}
        )
    data = dict(answer.structured_content or {})
    report = json.loads(cli.stdout)
    # The same findings and the same explanation, but for its last line: what to do next
    # is named in each surface's terms (a command there, a tool call here).
    mcp_words, cli_words = data.pop("explanation"), report.pop("explanation")
    assert data == report
    assert mcp_words.splitlines()[:-1] == cli_words.splitlines()[:-1]
    assert "cairn_record type=supersede" in mcp_words.splitlines()[-1]
    assert "`cairn supersede" in cli_words.splitlines()[-1]


async def test_record_writes_one_event_attributed_to_the_client_and_session(project: Path) -> None:
    verdict = _verdict_id(project, "users.email_verified")
    async with mcp_session(project, name="claude-code") as session:
        logged = await session.call_tool(
            "cairn_record",
            {"entity": "users.email", "type": "add", "reasoning": "Login needs a unique email."},
        )
        reopened = await session.call_tool(
            "cairn_record",
            {
                "entity": "users.email_verified",
                "type": "supersede",
                "reasoning": "The bounce handler landed in #412.",
                "of": verdict[:10],
            },
        )
        rejected = await session.call_tool(
            "cairn_record",
            {
                "entity": "deps/requests",
                "type": "reject",
                "reasoning": "Blocking I/O in the async service.",
                "alternative": "requests",
            },
        )
    assert not logged.is_error and not reopened.is_error and not rejected.is_error
    assert text_of(logged).startswith("logged add on users.email ")
    assert text_of(reopened).endswith(f"(re-opens {short_id(verdict)})")
    written = log_lines(project)[-3:]
    assert [(e["type"], e["entity"]) for e in written] == [
        ("add", "users.email"),
        ("supersede", "users.email_verified"),
        ("reject", "deps/requests"),
    ]
    assert {e["agent"] for e in written} == {"claude-code"}
    sessions = {e["session"] for e in written}
    assert len(sessions) == 1 and next(iter(sessions)).startswith("mcp-")
    assert written[1]["supersedes"] == verdict
    assert written[2]["alternative"] == "requests"
    assert written[0]["author"].startswith("Agent Owner")
    assert logged.structured_content["id"] == written[0]["id"]
    with Store.open(project / ".cairn") as store:
        assert store.status("users.email_verified").status.value == "reopened"


async def test_a_retried_record_with_a_key_writes_once(project: Path) -> None:
    """An agent that retries after a lost answer (a crash, a timeout) passes the same key:
    the second call writes nothing and returns the first event; the same key for another
    decision is refused."""
    record = {"entity": "users.name", "type": "modify", "reasoning": "Why.", "key": "k-1"}
    before = len(log_lines(project))
    async with mcp_session(project) as session:
        first = await session.call_tool("cairn_record", record)
    async with mcp_session(project) as session:  # the retry comes on a new connection
        again = await session.call_tool("cairn_record", record)
        other = await session.call_tool("cairn_record", {**record, "reasoning": "Other."})
    assert not first.is_error and not again.is_error
    assert text_of(again).startswith("already logged modify on users.name ")
    assert again.structured_content["id"] == first.structured_content["id"]
    assert again.structured_content["replayed"] is True
    assert first.structured_content["replayed"] is False
    assert other.is_error and "k-1" in text_of(other)
    assert len(log_lines(project)) == before + 1


async def test_a_second_connection_is_a_second_session(project: Path) -> None:
    for _ in range(2):
        async with mcp_session(project) as session:
            await session.call_tool(
                "cairn_record", {"entity": "users.name", "type": "modify", "reasoning": "Why."}
            )
    written = log_lines(project)[-2:]
    assert written[0]["session"] != written[1]["session"]
    assert {e["agent"] for e in written} == {CLIENT_NAME}


INVALID_RECORDS: list[tuple[dict[str, object], str]] = [
    (
        {"entity": "users.name", "type": "add", "reasoning": "  "},
        # the store's words, naming the tool's argument where the CLI names its flag
        "reasoning is empty for add on users.name; say why (the 'reasoning' argument)",
    ),
    ({"entity": "users.name", "type": "frobnicate", "reasoning": "x"}, "frobnicate"),
    ({"entity": "users..name", "type": "add", "reasoning": "x"}, "users..name"),
    ({"entity": "orders.total", "type": "supersede", "reasoning": "x"}, "orders.total"),
    ({"entity": "users.name", "type": "add"}, "cairn_record: 'reasoning' is required"),
    (
        {"entity": "users.name", "type": "add", "reasoning": 42},
        "cairn_record: 'reasoning' must be a string, not a number",
    ),
    (
        {"entity": "users.name", "type": "add", "reasoning": "x", "author": "me"},
        "cairn_record: unknown argument author;",
    ),
]


async def test_invalid_records_are_tool_errors_with_one_line_and_write_nothing(
    project: Path,
) -> None:
    before = (project / ".cairn" / "decisions.jsonl").read_bytes()
    async with mcp_session(project) as session:
        for arguments, message in INVALID_RECORDS:
            answer = await session.call_tool("cairn_record", arguments)
            assert answer.is_error, arguments
            assert message in text_of(answer), (arguments, text_of(answer))
            assert "\n" not in text_of(answer)
    assert (project / ".cairn" / "decisions.jsonl").read_bytes() == before


async def test_invalid_record_message_is_the_cli_message_in_mcp_terms(project: Path) -> None:
    """The store's message as `cairn log` prints it after `cairn: error: `, with the
    CLI's flag replaced by the tool's argument."""
    cli = subprocess.run(
        [sys.executable, "-P", "-m", "cairn.cli", "log", "users.name", "add", "-r", " "],
        capture_output=True,
        text=True,
        cwd=project,
    )
    assert cli.returncode == 2
    async with mcp_session(project) as session:
        answer = await session.call_tool(
            "cairn_record", {"entity": "users.name", "type": "add", "reasoning": " "}
        )
    expected = cli.stderr.strip().replace("-r/--reason", "the 'reasoning' argument")
    assert expected != cli.stderr.strip()
    assert expected == f"cairn: error: {text_of(answer)}"


async def test_redact_is_refused_and_writes_nothing(project: Path) -> None:
    verdict = _verdict_id(project, "users.email_verified")
    before = (project / ".cairn" / "decisions.jsonl").read_bytes()
    async with mcp_session(project) as session:
        answer = await session.call_tool(
            "cairn_record",
            {"entity": "users.email_verified", "type": "redact", "reasoning": verdict},
        )
        listed = await session.list_tools()
    assert answer.is_error
    assert text_of(answer).startswith("redact is refused over MCP: erasing history is a human act")
    assert (project / ".cairn" / "decisions.jsonl").read_bytes() == before
    record = next(t for t in listed.tools if t.name == "cairn_record")
    assert "redact" not in record.input_schema["properties"]["type"]["enum"]
    assert all("redact" not in t.name for t in listed.tools)


async def test_outside_a_project_the_tools_say_how_to_make_one(tmp_path: Path) -> None:
    async with mcp_session(tmp_path) as session:
        listed = await session.list_tools()
        answer = await session.call_tool("cairn_why", {"entities": ["users.email"]})
    assert len(listed.tools) == 4
    assert answer.is_error
    assert "not inside a Cairn project" in text_of(answer)
    assert "cairn init" in text_of(answer)


async def test_a_malformed_resource_uri_is_a_protocol_error(project: Path) -> None:
    async with mcp_session(project) as session:
        with pytest.raises(MCPError) as raised:
            await session.read_resource("cairn://entity/users..email")
        with pytest.raises(MCPError):
            await session.read_resource("cairn://other/users.email")
        # The server keeps serving after both.
        ok = await session.read_resource("cairn://entity/deps%2Fstripe")
    assert raised.value.code == types.INVALID_PARAMS
    assert "stripe-python v1 client" in ok.contents[0].text  # type: ignore[union-attr]


def test_cairn_mcp_without_the_sdk_says_how_to_install_it(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "sys.modules['mcp'] = None\n"  # what an install without the extra looks like
        "from cairn.cli import main\n"
        "main(['mcp'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-P", "-c", probe], capture_output=True, text=True, cwd=tmp_path
    )
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "cairn: error: `cairn mcp` needs the MCP SDK, which is an optional extra: "
        'pip install "cairn-lsp[mcp] @ git+$CAIRN_GIT" (in a checkout: make venv)'
    )
