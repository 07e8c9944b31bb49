"""Renames and moves in a real git history become `rename` events, and a reverted change
that comes back under the new name is caught by the real `cairn check --diff HEAD`."""

from __future__ import annotations

from pathlib import Path

from real_cli import cairn, cairn_json, check_diff, commit, git

from cairn.store import Store

AUTH = """\
def login(user):
    return check_password(user)
"""

LEGACY = """\


def legacy_token(user):
    token = base64_encode(user.id, user.secret)
    audit_log.write("legacy token", user.id)
    return token
"""

TOKENS = """\
def make_token(user):
    payload = {"sub": user.id, "name": user.name}
    headers = {"alg": "HS256", "typ": "JWT"}
    return encode(payload, headers, secret=SECRET)
"""

CRIT = '    headers["crit"] = ["b64"]\n'


def revert_head(root: Path, date: str) -> str:
    git(root, "revert", "--no-edit", "HEAD", date=date)
    return git(root, "rev-parse", "HEAD")


def renames(root: Path) -> list[tuple[str, str, dict]]:
    with Store.open(root / ".cairn") as store:
        events = [e for ent in store.entities() for e in store.history(ent)]
    return sorted((e.entity, e.commit, e.metadata) for e in events if e.type == "rename")


def test_a_file_rename_carries_a_revert_to_the_new_file(project: Path) -> None:
    commit(project, "Auth", "2024-01-01T10:00:00Z", {"src/auth.py": AUTH})
    commit(project, "Legacy tokens", "2024-01-02T10:00:00Z", {"src/auth.py": AUTH + LEGACY})
    revert_head(project, "2024-01-03T10:00:00Z")
    git(project, "mv", "src/auth.py", "src/session.py")
    git(project, "commit", "-q", "-m", "Auth becomes session", date="2024-02-01T10:00:00Z")
    moved = git(project, "rev-parse", "HEAD")
    # An unrelated rename of a file without history is not recorded: nothing to carry.
    commit(project, "Docs", "2024-02-02T10:00:00Z", {"docs/a.md": "# A\n"})
    git(project, "mv", "docs/a.md", "docs/b.md")
    git(project, "commit", "-q", "-m", "Rename docs", date="2024-02-03T10:00:00Z")

    report = cairn_json(project, "import", "git")
    assert renames(project) == [
        (
            "src/auth.py",
            moved,
            # what the old file declared, and what has history in it: the link carries
            # back only those (the reverted function is there once, so it follows)
            {
                "renamed_to": "src/session.py",
                "found_by": "git",
                "members": {"legacy_token": "", "login": "(user)"},
            }
            | _key(moved, "src/auth.py", "src/session.py", "from"),
        ),
        (
            "src/session.py",
            moved,
            {
                "renamed_from": "src/auth.py",
                "found_by": "git",
                "members": {"legacy_token": "", "login": "(user)"},
            }
            | _key(moved, "src/auth.py", "src/session.py", "to"),
        ),
    ]
    assert report["imported"] == 3  # the revert and the two halves of the rename
    again = cairn_json(project, "import", "git")
    assert again["imported"] == 0

    status = cairn_json(project, "status", "src/session.py::legacy_token")
    assert status["status"] == "reverted"
    assert status["formerly"] == ["src/auth.py::legacy_token"]

    # The reverted function comes back in the renamed file.
    (project / "src/session.py").write_text(AUTH + LEGACY)
    code, found = check_diff(project)
    assert code == 1
    [verdict] = [f for f in found["findings"] if f["kind"] == "verdict"]
    assert verdict["entity"] == "src/session.py::legacy_token" and verdict["blocking"]
    assert "(formerly `src/auth.py::legacy_token`) was reverted" in verdict["message"]


def test_a_symbol_moved_under_a_new_name_keeps_its_revert(project: Path) -> None:
    """A one-line body revert counts only inside the reverted entity: after the move,
    the new name is that entity."""
    commit(project, "Tokens", "2024-01-01T10:00:00Z", {"src/tokens.py": TOKENS})
    crit = TOKENS.replace("    return encode", CRIT + "    return encode")
    commit(project, "Add crit header", "2024-01-02T10:00:00Z", {"src/tokens.py": crit})
    revert_head(project, "2024-01-03T10:00:00Z")
    issued = TOKENS.replace("def make_token", "def issue_token")
    move = commit(
        project,
        "Tokens move to jwt",
        "2024-02-01T10:00:00Z",
        {"src/tokens.py": "SECRET = load_secret()\n", "src/jwt.py": issued},
    )

    cairn_json(project, "import", "git")
    assert [(e, c, m["found_by"], m["change"]) for e, c, m in renames(project)] == [
        ("src/jwt.py::issue_token", move, "declaration", "rename"),
        ("src/tokens.py::make_token", move, "declaration", "rename"),
    ]
    status = cairn_json(project, "status", "src/jwt.py::issue_token")
    assert status["status"] == "reverted"
    assert status["formerly"] == ["src/tokens.py::make_token"]

    (project / "src/jwt.py").write_text(
        issued.replace("    return encode", CRIT + "    return encode")
    )
    code, found = check_diff(project)
    assert code == 1, found
    [back] = [f for f in found["findings"] if f["kind"] == "fingerprint"]
    assert back["entity"] == "src/jwt.py::issue_token" and back["blocking"]
    assert "brings back 1 of the 1 lines reverted" in back["message"]


def _key(sha: str, old: str, new: str, half: str) -> dict[str, str]:
    return {"source_key": f"git:rename/{sha}:{old}>{new}:{half}"}


def test_a_rename_of_a_file_the_log_already_has_decisions_on_is_recorded(
    project: Path,
) -> None:
    commit(project, "Pay", "2024-01-01T10:00:00Z", {"src/pay.py": AUTH})

    def reject(when: str, alternative: str) -> None:
        proc = cairn(
            project, "reject", "src/pay.py::login", "--alternative", alternative,
            "-r", "SSO first", "--occurred-at", when,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr

    reject("2024-02-01", "OAuth only")
    git(project, "mv", "src/pay.py", "src/billing.py")
    git(project, "commit", "-q", "-m", "Billing", date="2024-03-01T10:00:00Z")
    reject("2024-04-01", "magic links")  # a later src/pay.py is another file
    cairn_json(project, "import", "git")
    assert [e for e, _c, _m in renames(project)] == ["src/billing.py", "src/pay.py"]
    status = cairn_json(project, "status", "src/billing.py::login")
    assert status["formerly"] == ["src/pay.py::login"]
    assert status["status"] == "rejected"
    assert [v["alternative"] for v in status["open_verdicts"]] == ["OAuth only"]
