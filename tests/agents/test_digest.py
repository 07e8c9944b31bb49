"""`cairn digest` on real git repositories: what the branch touches comes first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "check"))
from check_fixtures import REJECT_REASON, cairn, git, make_project  # noqa: E402

from cairn.core.present import short_id  # noqa: E402
from cairn.store import EventDraft, Store  # noqa: E402

MIGRATION = "ALTER TABLE users ADD COLUMN email_verified boolean;\n"
REVERT_FIRST = "Verification mails bounced for 30% of users; reverted in 002"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def ids(project: Path) -> dict[str, str]:
    with Store.open(project / ".cairn") as store:
        return {
            e: store.status(e).open_verdicts[0].id for e in ("users.email_verified", "deps/stripe")
        }


def digest_json(project: Path, *args: str) -> dict[str, object]:
    out = cairn(project, "digest", "--json", *args)
    assert out.returncode == 0, out.stderr
    data: dict[str, object] = json.loads(out.stdout)
    return data


def test_a_branch_that_re_adds_a_reverted_column_sees_that_verdict_first(project: Path) -> None:
    verdicts = ids(project)
    git(project, "checkout", "-q", "-b", "feature")
    (project / "db" / "003_verify.sql").write_text(MIGRATION)
    git(project, "add", ".")
    git(project, "commit", "-qm", "bring verification back")
    out = cairn(project, "digest")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Cairn decision digest:")
    assert lines[1] == "On the 1 file this branch touches:"
    today = lines[2].split()[3]
    short = short_id(verdicts["users.email_verified"])
    assert lines[2] == f"- users.email_verified: revert {today} {short}: {REVERT_FIRST}"
    assert lines[3] == "Newest open verdicts project-wide:"
    assert lines[4].startswith("- deps/stripe: reject of “stripe-python v1 client” ")
    assert lines[4].endswith(f"{short_id(verdicts['deps/stripe'])}: {REJECT_REASON}")
    assert lines[5].startswith("To go against one, ask the user")
    assert len(out.stdout) <= 4000


def test_staged_unstaged_and_untracked_work_count_and_paths_add_files(project: Path) -> None:
    # On the default branch itself: only the working tree differs from the merge base.
    (project / "requirements.txt").write_text("requests==2.32\nstripe==1.0\n")  # unstaged
    (project / "db" / "003_verify.sql").write_text(MIGRATION)  # untracked
    data = digest_json(project)
    assert data["files"] == ["requirements.txt", "db/003_verify.sql"]
    branch = [i for i in data["items"] if i["section"] == "branch"]  # type: ignore[union-attr]
    assert {(i["entity"], i["kind"]) for i in branch} == {
        ("users.email_verified", "revert"),
        ("deps/stripe", "reject"),
    }
    git(project, "add", "requirements.txt")  # staged counts too
    (project / "db" / "003_verify.sql").unlink()
    data = digest_json(project, "--paths", "db/001_users.sql")
    assert data["files"] == ["requirements.txt", "db/001_users.sql"]
    branch = [i for i in data["items"] if i["section"] == "branch"]  # type: ignore[union-attr]
    assert [i["entity"] for i in branch] == ["deps/stripe"]


def test_json_carries_full_ids_and_first_sentences(project: Path) -> None:
    with Store.open(project / ".cairn") as store:
        store.append(
            EventDraft(
                type="reject",
                entity="deps/left-pad",
                alternative="vendoring it",
                reasoning="It vanished from the registry once. Never again! Pin a fork instead.",
            )
        )
    data = digest_json(project)
    items = data["items"]
    assert isinstance(items, list)
    newest = items[0]
    assert newest["section"] == "recent"
    assert newest["entity"] == "deps/left-pad"
    assert newest["reason"] == "It vanished from the registry once."
    assert newest["alternative"] == "vendoring it"
    assert len(newest["id"]) == 64
    assert data["omitted"] == 0
    assert "deps/left-pad: reject of “vendoring it”" in str(data["text"])


def test_a_superseded_verdict_is_no_longer_in_the_digest(project: Path) -> None:
    out = cairn(project, "supersede", "deps/stripe", "-r", "The v2 client fixed the retries.")
    assert out.returncode == 0, out.stderr
    data = digest_json(project)
    entities = [i["entity"] for i in data["items"]]  # type: ignore[union-attr]
    assert entities == ["users.email_verified"]


def test_max_chars_is_a_hard_limit_and_says_what_was_left_out(project: Path) -> None:
    with Store.open(project / ".cairn") as store:
        store.append_many(
            EventDraft(
                type="revert",
                entity=f"t{i}.c{i}",
                reasoning=f"Decision {i} broke production in a way worth a long sentence. More.",
            )
            for i in range(60)
        )
    for budget in (600, 1500, 4000):
        out = cairn(project, "digest", "--max-chars", str(budget))
        assert out.returncode == 0, out.stderr
        text = out.stdout.rstrip("\n")
        assert len(text) <= budget
        assert "more not shown: cairn digest --json" in text
        assert text.splitlines()[-1].startswith("To go against one")
    full = digest_json(project, "--max-chars", "1000000")
    assert full["omitted"] == 0
    assert len(full["items"]) == 40 + 0  # type: ignore[arg-type]  # the newest 40 project-wide


def test_due_reviews_on_the_branch_are_listed(project: Path) -> None:
    out = cairn(
        project, "log", "users.name", "add", "-r", "Names are free text. For now.",
        "--revisit-after", "2026-01-01",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    (project / "db" / "002_name.sql").write_text("ALTER TABLE users ADD COLUMN name text;\n")
    data = digest_json(project, "--today", "2026-06-01")
    reviews = [i for i in data["items"] if i["kind"] == "review"]  # type: ignore[union-attr]
    assert [(r["entity"], r["reason"]) for r in reviews] == [
        ("users.name", "review due 2026-01-01: Names are free text.")
    ]
    before = digest_json(project, "--today", "2025-06-01")
    assert not [i for i in before["items"] if i["kind"] == "review"]  # type: ignore[union-attr]


def test_outside_git_the_digest_is_project_wide(tmp_path: Path) -> None:
    project = make_project(tmp_path, repo=False)
    data = digest_json(project)
    assert data["base"] is None and data["files"] == []
    assert {i["section"] for i in data["items"]} == {"recent"}  # type: ignore[union-attr]


def test_an_empty_log_says_so(tmp_path: Path) -> None:
    assert cairn(tmp_path, "init").returncode == 0
    out = cairn(tmp_path, "digest")
    assert out.returncode == 0
    assert out.stdout == "Cairn decision digest: no open verdicts or due reviews recorded.\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--today", "soon"], "cairn: error: --today 'soon' is not a date; use YYYY-MM-DD\n"),
        (["--max-chars", "10"], "10 is not in the range 200<=x<=1000000"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(project: Path, args: list[str], message: str) -> None:
    out = cairn(project, "digest", *args)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1
    assert message in out.stderr


def test_outside_a_project_it_says_how_to_make_one(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-P", "-m", "cairn.cli", "digest"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert out.returncode == 2
    assert "not inside a Cairn project" in out.stderr


AGAIN = "Support asked for it back. The bounce rate is fixed now."


def test_a_re_applied_verdict_shows_the_change_whole_in_the_digest_status_and_why(
    project: Path,
) -> None:
    # The digest reads a batch of statuses, whose conflict is what the status row keeps
    # (`Reapplied`); it, `cairn status` and `cairn_why` still show the change's reason.
    from cairn.agents.tools import AgentTools

    with Store.open(project / ".cairn") as store:
        again = store.append(
            EventDraft(type="modify", entity="users.email_verified", reasoning=AGAIN)
        ).event
    git(project, "checkout", "-q", "-b", "feature")
    (project / "db" / "003_verify.sql").write_text(MIGRATION)
    data = digest_json(project)
    items = data["items"]
    assert isinstance(items, list)
    conflict = next(i for i in items if i["kind"] == "conflict")
    assert conflict["id"] == again.id
    assert conflict["reason"] == "re-applied without a supersede: Support asked for it back."
    out = cairn(project, "status", "users.email_verified")
    assert out.returncode == 0, out.stderr
    assert "re-applied without a supersede:" in out.stdout
    assert f"modify {again.recorded_at[:10]} {short_id(again.id)}: {AGAIN}" in out.stdout
    tools = AgentTools(project)
    try:
        answer = tools.call("cairn_why", {"entities": ["users.email_verified"]})
    finally:
        tools.close()
    assert not answer.is_error
    assert f"conflict: modify {again.recorded_at[:10]} {short_id(again.id)} re-applied" in (
        answer.text
    )
    assert AGAIN in answer.text
