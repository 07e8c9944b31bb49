"""`cairn check` end to end: the real CLI on a real git repository and decision log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from check_fixtures import MIGRATION, REJECT_REASON, REJECTED, REVERT_REASON, cairn, git
from check_fixtures import make_project as _make_project

from cairn.store import Store


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return _make_project(tmp_path)


def revert_id(project: Path) -> str:
    with Store.open(project / ".cairn") as store:
        return store.status("users.email_verified").open_verdicts[0].id


def test_a_file_that_re_adds_a_reverted_column_fails(project: Path) -> None:
    (project / "db" / "003_verify.sql").write_text(MIGRATION)
    proc = cairn(project, "check", "db/003_verify.sql")
    assert proc.returncode == 1, proc.stderr
    column = MIGRATION.splitlines()[1].index("email_verified") + 1
    first = proc.stdout.splitlines()[0]
    assert first.startswith(
        f"db/003_verify.sql:2:{column}: error: users.email_verified was reverted"
    )
    assert "bounced" in first
    assert f"[revert {revert_id(project)[:12]}]" in first
    assert (
        "1 blocking finding in 1 file: the change re-introduces users.email_verified" in proc.stdout
    )
    assert '`cairn supersede users.email_verified --reason "..."`' in proc.stdout


def test_json_report_carries_the_full_reasoning(project: Path) -> None:
    (project / "db" / "003_verify.sql").write_text(MIGRATION)
    (project / "requirements.txt").write_text("requests==2.32\nstripe==2.0\n")
    proc = cairn(project, "check", "--json", "db", "requirements.txt")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["blocking"] is True
    assert report["files_checked"] == 3
    by_entity = {f["entity"]: f for f in report["findings"]}
    assert set(by_entity) == {"users.email_verified", "deps/stripe"}
    column = by_entity["users.email_verified"]
    assert (column["file"], column["line"], column["role"]) == ("db/003_verify.sql", 2, "introduce")
    assert column["reasoning"] == REVERT_REASON
    assert column["verdict_id"] == revert_id(project)
    assert column["verdict_types"] == ["revert"]
    dep = by_entity["deps/stripe"]
    assert (dep["file"], dep["line"], dep["blocking"]) == ("requirements.txt", 2, True)
    assert dep["alternative"] == REJECTED and dep["reasoning"] == REJECT_REASON


def test_a_reference_is_reported_but_does_not_fail(project: Path) -> None:
    (project / "db" / "report.sql").write_text("CREATE INDEX ix_ev ON users (email_verified);\n")
    proc = cairn(project, "check", "--json", "db/report.sql")
    assert proc.returncode == 0, proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    assert [(f["entity"], f["blocking"]) for f in findings] == [("users.email_verified", False)]
    human = cairn(project, "check", "db/report.sql")
    assert human.returncode == 0
    assert human.stdout.splitlines()[-1] == "cairn check: ok, 1 file checked (1 informational)"


def test_clean_files_pass(project: Path) -> None:
    proc = cairn(project, "check", "db/001_users.sql", "requirements.txt")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "cairn check: ok, 2 files checked"


def test_staged_counts_only_staged_lines(project: Path) -> None:
    # Committed before the gate existed: the old line must not block unrelated commits.
    (project / "db" / "003_verify.sql").write_text(MIGRATION)
    git(project, "add", ".")
    git(project, "commit", "-qm", "old migration")
    (project / "db" / "003_verify.sql").write_text(MIGRATION + "-- reviewed\n")
    git(project, "add", ".")
    assert cairn(project, "check", "--staged").returncode == 0
    git(project, "commit", "-qm", "reviewed")
    # Now stage a new line that re-adds the rejected dependency; an unstaged re-add is ignored.
    (project / "requirements.txt").write_text("requests==2.32\nstripe==2.0\n")
    git(project, "add", "requirements.txt")
    (project / "db" / "004.sql").write_text("ALTER TABLE users ADD COLUMN email_verified int;\n")
    proc = cairn(project, "check", "--staged", "--json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert [(f["file"], f["entity"]) for f in report["findings"]] == [
        ("requirements.txt", "deps/stripe")
    ]
    assert report["files_checked"] == 1


def test_diff_against_a_branch(project: Path) -> None:
    git(project, "checkout", "-qb", "topic")
    (project / "db" / "003_verify.sql").write_text(MIGRATION)
    git(project, "add", ".")
    git(project, "commit", "-qm", "re-add")
    proc = cairn(project, "check", "--diff", "main")
    assert proc.returncode == 1
    assert "db/003_verify.sql:2:" in proc.stdout
    # A committed range reads the new side from git, not from the working tree.
    (project / "db" / "003_verify.sql").unlink()
    ranged = cairn(project, "check", "--json", "--diff", "main..topic")
    assert ranged.returncode == 1
    assert json.loads(ranged.stdout)["findings"][0]["entity"] == "users.email_verified"
    # Restricting the diff to other paths finds nothing.
    assert cairn(project, "check", "--diff", "main..topic", "requirements.txt").returncode == 0


def test_stdin_counts_only_lines_that_differ_from_disk(project: Path) -> None:
    (project / "db" / "003_verify.sql").write_text(MIGRATION)
    unrelated = MIGRATION.replace("-- 003", "-- 003 (reviewed)")
    proc = cairn(project, "check", "--stdin-filename", "db/003_verify.sql", stdin=unrelated)
    assert proc.returncode == 0, proc.stdout
    new_file = cairn(project, "check", "--stdin-filename", "db/005.sql", stdin=MIGRATION)
    assert new_file.returncode == 1
    assert new_file.stdout.startswith("db/005.sql:2:")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--staged", "--diff", "main"), "--diff and --staged are exclusive"),
        (("missing.sql",), "no such file or directory: missing.sql"),
        (("--diff", "no-such-branch"), "is not a commit in the repository"),
        (("--stdin-filename", "a.sql", "b.sql"), "--stdin-filename checks one file"),
        (("/etc/passwd",), "is outside the project"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    project: Path, args: tuple[str, ...], message: str
) -> None:
    proc = cairn(project, "check", *args, stdin="")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
    assert message in proc.stderr


def test_outside_a_project_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "a.sql").write_text(MIGRATION)
    proc = cairn(tmp_path, "check", "a.sql")
    assert proc.returncode == 2
    assert "not inside a Cairn project" in proc.stderr


def test_binary_files_are_skipped(project: Path) -> None:
    (project / "db" / "blob.sql").write_bytes(b"\0\1\2ALTER TABLE users ADD COLUMN email_verified")
    proc = cairn(project, "check", "--json", "db/blob.sql")
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == {"blocking": False, "files_checked": 0, "findings": []}


def test_a_project_in_a_subfolder_of_the_repository(tmp_path: Path) -> None:
    # A monorepo: git at the top, the Cairn project in services/api.
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "README").write_text("top\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "top")
    api = tmp_path / "services" / "api"
    api.mkdir(parents=True)
    _make_project(api, repo=False)
    (api / "db" / "003.sql").write_text(MIGRATION)
    (tmp_path / "other.sql").write_text(MIGRATION)  # outside the project: not ours to judge
    git(tmp_path, "add", ".")
    proc = cairn(api / "db", "check", "--staged", "--json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert [f["file"] for f in report["findings"]] == ["db/003.sql"]
    # PATHs are relative to where the command runs, findings to the project root.
    assert json.loads(cairn(api / "db", "check", "--json", "003.sql").stdout)["blocking"]


def test_no_arguments_checks_staged_unstaged_and_untracked_changes(project: Path) -> None:
    assert cairn(project, "check").stdout.strip() == "cairn check: ok, 0 files checked"
    # Unstaged edit of a tracked file.
    (project / "requirements.txt").write_text("requests==2.32\nstripe==2.0\n")
    # An untracked new migration (not staged yet: the usual state while writing it).
    (project / "db" / "003_verify.sql").write_text(MIGRATION)
    proc = cairn(project, "check", "--json")
    assert proc.returncode == 1, proc.stderr
    found = {(f["file"], f["entity"]) for f in json.loads(proc.stdout)["findings"]}
    assert found == {
        ("requirements.txt", "deps/stripe"),
        ("db/003_verify.sql", "users.email_verified"),
    }
    # Staged counts too; committed lines do not.
    git(project, "add", "db/003_verify.sql")
    git(project, "checkout", "requirements.txt")
    staged = cairn(project, "check", "--json")
    assert [f["entity"] for f in json.loads(staged.stdout)["findings"]] == ["users.email_verified"]
    git(project, "commit", "-qm", "bring it back")
    assert cairn(project, "check").returncode == 0


def test_no_arguments_outside_git_asks_for_paths(tmp_path: Path) -> None:
    project = _make_project(tmp_path, repo=False)
    proc = cairn(project, "check")
    assert proc.returncode == 2
    assert "nothing to check: not in a git repository" in proc.stderr
