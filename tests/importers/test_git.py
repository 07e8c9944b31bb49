"""`cairn import git` on a real repository with real reverts."""

from __future__ import annotations

from pathlib import Path

from real_cli import cairn, cairn_json, commit, git

from cairn.store import Store

AUTH_V1 = "def login(user):\n    return user.check()\n"
AUTH_V2 = AUTH_V1 + "\n\ndef verify_email(user):\n    return user.email_verified\n"


def build_history(root: Path) -> dict[str, str]:
    shas = {}
    shas["init"] = commit(
        root,
        "Create users",
        "2023-01-01T10:00:00Z",
        {
            "db/001_users.sql": "CREATE TABLE users (id bigint PRIMARY KEY, email text);\n",
            "src/auth.py": AUTH_V1,
            "requirements.txt": "requests==2.31\n",
        },
    )
    shas["feature"] = commit(
        root,
        "Add email verification",
        "2023-02-01T10:00:00Z",
        {
            "db/002_verify.sql": "ALTER TABLE users ADD COLUMN email_verified boolean;\n",
            "src/auth.py": AUTH_V2,
            "requirements.txt": "requests==2.31\nstripe==5.4\n",
        },
    )
    commit(root, "Unrelated docs", "2023-02-10T10:00:00Z", {"README.md": "# app\n"})
    git(root, "revert", "--no-edit", "HEAD~1", date="2023-03-01T09:00:00Z")
    shas["revert"] = git(root, "rev-parse", "HEAD")
    git(root, "revert", "--no-edit", "HEAD", date="2023-04-01T09:00:00Z")
    shas["reapply"] = git(root, "rev-parse", "HEAD")
    # a revert whose body was cut, found by its subject alone
    commit(
        root, "Use bcrypt", "2023-05-01T10:00:00Z", {"src/hash.py": "def digest(p):\n    pass\n"}
    )
    git(root, "rm", "-q", "src/hash.py")
    git(
        root,
        "commit",
        "-q",
        "-m",
        'Revert "Use bcrypt"\n\nargon2 instead',
        date="2023-05-02T10:00:00Z",
    )
    shas["subject_revert"] = git(root, "rev-parse", "HEAD")
    commit(root, 'Revert "Ship the old search"', "2023-05-03T10:00:00Z", {"README.md": "# app 2\n"})
    return shas


def test_reverts_land_on_the_entities_the_reverted_commit_introduced(project: Path) -> None:
    shas = build_history(project)
    report = cairn_json(project, "import", "git")
    by_key = {e["source_key"]: e for e in report["events"]}
    reverted = {e["entity"] for e in report["events"] if e["type"] == "revert"}
    # symbols on added lines, not file names; `login` was unchanged and `requests` kept
    assert {"users.email_verified", "src/auth.py::verify_email", "deps/stripe"} <= reverted
    assert "src/auth.py::login" not in reverted and "deps/requests" not in reverted
    assert "src/hash.py::digest" in reverted
    [unmatched] = [s for s in report["skipped_items"] if "old search" in s["item"]]
    assert "no earlier commit has that subject" in unmatched["reason"]
    key = f"git:{shas['revert']}:users.email_verified"
    assert by_key[key]["occurred_at"] == "2023-03-01T09:00:00Z"
    with Store.open(project / ".cairn") as store:
        history = store.history("users.email_verified")
    assert [e.type.value for e in history] == ["revert", "supersede"]
    revert, reapply = history
    assert revert.commit == shas["revert"]
    assert revert.agent == "cairn-import/git"
    assert revert.author == "Ann Example <ann@example.com>"
    assert revert.reasoning.startswith('Revert "Add email verification"')
    # git's boilerplate is gone; what was reverted is named, the sha kept in metadata
    assert "This reverts commit" not in revert.reasoning
    assert "Reverted change: Add email verification" in revert.reasoning
    assert revert.metadata["reverted_commit"] == shas["feature"]
    assert revert.metadata["found_by"] == "marker"
    assert revert.metadata["fingerprint"]
    assert revert.metadata["source_key"] == key
    # the revert of the revert re-applies: it supersedes the revert, it is not a revert
    assert reapply.supersedes == revert.id
    assert reapply.occurred_at.startswith("2023-04-01T09:00:00")
    assert revert.recorded_at > "2026"  # recorded now, not at the commit date


def test_second_run_adds_nothing_and_dry_run_writes_nothing(project: Path) -> None:
    build_history(project)
    dry = cairn_json(project, "import", "git", "--dry-run")
    assert dry["dry_run"] is True and dry["imported"] > 0
    log = project / ".cairn" / "decisions.jsonl"
    assert log.read_text() == ""
    first = cairn_json(project, "import", "git")
    assert first["imported"] == dry["imported"]
    size = log.stat().st_size
    again = cairn_json(project, "import", "git")
    assert again["imported"] == 0
    assert again["already_imported"] == first["imported"]
    assert log.stat().st_size == size


def test_a_second_run_counts_each_event_once(project: Path) -> None:
    """A dependency bumped in two manifests by one commit is one event, written once and
    counted once as already imported (it was counted twice: the second run's summary
    differed from the first's; seen on HackSoftware/Django-Styleguide-Example)."""
    two = {
        "requirements/base.txt": "whitenoise==5.1.0\n",
        "requirements/prod.txt": "whitenoise==5.1.0\n",
    }
    commit(project, "Add whitenoise for static files", "2023-01-01T10:00:00Z", two)
    bumped = {name: "whitenoise==5.3.0\n" for name in two}
    commit(project, "Bump whitenoise from 5.1.0 to 5.3.0", "2023-02-01T10:00:00Z", bumped)
    first = cairn_json(project, "import", "git")
    keys = [e["source_key"] for e in first["events"]]
    assert len(keys) == len(set(keys)) and any(":deps/whitenoise" in k for k in keys)
    again = cairn_json(project, "import", "git")
    assert (again["imported"], again["already_imported"]) == (0, first["imported"])


def test_dry_run_says_what_the_log_would_refuse_as_the_real_run_does(project: Path) -> None:
    shas = build_history(project)
    git(project, "checkout", "-q", shas["revert"])  # history as it stood after the revert
    assert cairn(project, "import", "git").returncode == 0
    # someone re-opened the revert by hand before the revert of the revert was imported
    manual = cairn(project, "supersede", "users.email_verified", "-r", "fixed in #412")
    assert manual.returncode == 0, manual.stderr
    git(project, "checkout", "-q", "main")
    dry = cairn_json(project, "import", "git", "--dry-run")
    refusals = {s["item"]: s["reason"] for s in dry["skipped_items"] if "refuse" in s["reason"]}
    reason = refusals["supersede users.email_verified"]
    assert reason.startswith("the log would refuse it: ") and "open verdict" in reason
    real = cairn_json(project, "import", "git")
    assert [e["source_key"] for e in real["events"]] == [e["source_key"] for e in dry["events"]]
    refused = {s["item"]: s["reason"] for s in real["skipped_items"] if "refuse" in s["reason"]}
    assert refused.keys() == refusals.keys()
    assert refused["supersede users.email_verified"] == reason.replace("would refuse", "refused")


def test_since_limits_the_range_and_links_back_to_earlier_imports(project: Path) -> None:
    build_history(project)
    early = cairn_json(project, "import", "git", "--since", "2023-03-15")
    # the re-application alone is in range, but the revert it supersedes is not in the log
    assert [e["type"] for e in early["events"]] == ["revert"]  # only the bcrypt revert
    assert any("not in the log" in s["reason"] for s in early["skipped_items"])
    full = cairn_json(project, "import", "git")
    assert {e["type"] for e in full["events"]} == {"revert", "supersede"}


def test_since_reads_dates_one_way_and_refuses_what_is_not_a_date(project: Path) -> None:
    build_history(project)
    first_revert = "2023-03-01T09:00:00Z"

    def dates(since: str) -> set[str]:
        report = cairn_json(project, "import", "git", "--dry-run", "--since", since)
        return {e["occurred_at"] for e in report["events"]}

    # a bare date is its UTC midnight (git alone would use the current time of day)
    assert first_revert in dates("2023-03-01")
    assert first_revert in dates("2023-03-01T10:30:00+02:00")  # 08:30 UTC
    assert first_revert not in dates("2023-03-01T09:30:00Z")
    assert first_revert in dates("20 years ago")
    for bad in ("notadate", "2023-13-45", "1 fortnight ago"):
        proc = cairn(project, "import", "git", "--since", bad)
        # git alone would read these as "now" and quietly import nothing
        assert proc.returncode == 2, bad
        assert proc.stderr.count("\n") == 1 and f"--since {bad!r} is not a date" in proc.stderr


def test_outside_a_repository_is_a_one_line_error(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    assert cairn(root, "init").returncode == 0
    proc = cairn(root, "import", "git")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "not a git repository" in proc.stderr
    assert "Traceback" not in proc.stderr
    for repo, says in ((root / "missing", "does not exist"), (root, "not a git repository")):
        named = cairn(root, "import", "git", "--repo", str(repo))
        assert named.returncode == 2
        assert named.stderr.count("\n") == 1 and says in named.stderr and str(repo) in named.stderr


def test_a_repository_without_commits_imports_nothing(project: Path) -> None:
    report = cairn_json(project, "import", "git")
    assert (report["imported"], report["skipped"]) == (0, 0)
