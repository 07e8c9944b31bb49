"""`cairn check --format sarif|github|gitlab`: the gate's findings where CI shows them.

The SARIF is validated against the published OASIS SARIF 2.1.0 schema, vendored beside
this file (sarif-schema-2.1.0.json, unchanged), so no test reaches the network.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from check_fixtures import MIGRATION, REJECT_REASON, REJECTED, REVERT_REASON, cairn, git
from check_fixtures import make_project as _make_project

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = _make_project(tmp_path)
    (root / "db" / "003_verify.sql").write_text(MIGRATION)
    (root / "requirements.txt").write_text("requests==2.32\nstripe==2.0\n")
    return root


def test_sarif_validates_and_names_the_rule_and_the_reason(project: Path) -> None:
    proc = cairn(project, "check", "--format", "sarif", "db", "requirements.txt")
    assert proc.returncode == 1, proc.stderr
    log = json.loads(proc.stdout)  # stdout is the document and nothing else
    jsonschema.Draft7Validator(SCHEMA).validate(log)
    run = log["runs"][0]
    results = {r["ruleId"]: r for r in run["results"]}
    assert set(results) == {"cairn/reverted", "cairn/rejected"}
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == sorted(results)
    column = results["cairn/reverted"]
    assert column["level"] == "error"
    assert REVERT_REASON in column["message"]["text"]
    where = column["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "db/003_verify.sql"
    assert where["region"]["startLine"] == 2
    dep = results["cairn/rejected"]
    assert REJECT_REASON in dep["message"]["text"] and REJECTED in dep["message"]["text"]
    assert run["tool"]["driver"]["rules"][dep["ruleIndex"]]["id"] == "cairn/rejected"


def test_sarif_of_a_clean_change_is_an_empty_valid_run(project: Path) -> None:
    proc = cairn(project, "check", "--format", "sarif", "db/001_users.sql")
    assert proc.returncode == 0, proc.stderr
    log = json.loads(proc.stdout)
    jsonschema.Draft7Validator(SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []


def test_sarif_paths_are_repository_relative_for_a_project_in_a_subfolder(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    sub = tmp_path / "services" / "api"
    sub.mkdir(parents=True)
    _make_project(sub, repo=False)
    (sub / "db" / "003_verify.sql").write_text(MIGRATION)
    proc = cairn(sub, "check", "--format", "sarif", "db")
    assert proc.returncode == 1, proc.stderr
    uri = json.loads(proc.stdout)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert uri["artifactLocation"]["uri"] == "services/api/db/003_verify.sql"


def test_github_annotations_are_workflow_commands_on_the_line(project: Path) -> None:
    proc = cairn(project, "check", "--format", "github", "db/003_verify.sql")
    assert proc.returncode == 1, proc.stderr
    commands = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert len(commands) == 1
    head, _, message = commands[0][2:].partition("::")
    level, _, props = head.partition(" ")
    fields = dict(p.split("=", 1) for p in props.split(","))
    assert level == "error"
    assert (fields["file"], fields["line"]) == ("db/003_verify.sql", "2")
    # a title's ':' and ',' would end the property early: they are escaped
    assert fields["title"] == "cairn%3A users.email_verified (cairn/reverted)"
    assert REVERT_REASON.replace("%", "%25") in message
    assert "1 blocking finding" in proc.stdout  # the summary stays for the job's log


def test_gitlab_code_quality_report(project: Path) -> None:
    proc = cairn(project, "check", "--format", "gitlab", "db", "requirements.txt")
    assert proc.returncode == 1, proc.stderr
    issues = json.loads(proc.stdout)
    assert {i["check_name"] for i in issues} == {"cairn/reverted", "cairn/rejected"}
    for issue in issues:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] == "blocker"
        assert isinstance(issue["location"]["lines"]["begin"], int)
    assert len({i["fingerprint"] for i in issues}) == 2
    again = json.loads(
        cairn(project, "check", "--format", "gitlab", "db", "requirements.txt").stdout
    )
    assert [i["fingerprint"] for i in again] == [i["fingerprint"] for i in issues]


def test_format_and_json_together_is_a_one_line_error(project: Path) -> None:
    proc = cairn(project, "check", "--json", "--format", "sarif", "db")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "exclusive" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
