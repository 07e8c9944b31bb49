"""Item 3: user text never reaches git as an option, and every subprocess call in the
shipped code is audited (a new one fails here until docs/threat-model.md lists it)."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.gitrev import RevisionError, verify_range, verify_revision

REPO = Path(__file__).resolve().parents[2]
CAIRN = str(Path(sys.executable).parent / "cairn")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    env = {**os.environ, "CAIRN_AUTHOR": "T <t@example.invalid>"}
    for argv in (["init"], ["log", "users.email_verified", "add", "-r", "verify"]):
        subprocess.run([CAIRN, *argv], cwd=root, env=env, check=True, capture_output=True)
    subprocess.run(
        [CAIRN, "revert", "users.email_verified", "-r", "mails bounced"],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
    )
    (root / "a.sql").write_text("CREATE TABLE t (id int);\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    (root / "b.sql").write_text("ALTER TABLE users ADD COLUMN email_verified boolean;\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "again")
    return root


def check(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CAIRN, "check", *args], cwd=root, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    "rev",
    [
        "--output={out}",
        "--output={out}..HEAD",
        "HEAD..--output={out}",
        "HEAD...--output={out}",
        "-o{out}",
        "--ext-diff",
        "HEAD\n--output={out}",
        "nosuchbranch",
        "",
    ],
)
def test_check_diff_refuses_options_posing_as_revisions(
    repo: Path, tmp_path: Path, rev: str
) -> None:
    out = tmp_path / "written-by-git"
    done = check(repo, "--diff", rev.format(out=out))
    assert done.returncode == 2, done
    assert not out.exists()
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    assert "revision" in done.stderr or "commit" in done.stderr


def test_check_diff_still_takes_real_revisions_and_ranges(repo: Path) -> None:
    for rev in ("HEAD~1", "HEAD~1..HEAD", "HEAD~1...", "main~1..main"):
        done = check(repo, "--diff", rev, "--json")
        assert done.returncode == 1, (rev, done.stderr)
        found = json.loads(done.stdout)
        assert any("email_verified" in json.dumps(f) for f in found["findings"]), rev


def test_verify_revision_returns_the_commit_id(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    assert verify_revision(repo, "HEAD") == head
    assert verify_range(repo, "HEAD~1..").endswith(".." + head)
    with pytest.raises(RevisionError):
        verify_revision(repo, "--all")
    with pytest.raises(RevisionError):
        verify_revision(repo, "HEAD:a.sql")  # a blob is not a commit


# --- the audit --------------------------------------------------------------------------

SHIPPED = ("cairn", "store", "indexer", "lsp", "editors")
_CALLS = {"run", "Popen", "call", "check_call", "check_output", "system", "popen", "execvp"}


def subprocess_call_sites() -> set[str]:
    """`path:function` of every process started by shipped code."""
    sites: set[str] = set()
    for top in SHIPPED:
        for path in sorted((REPO / top).rglob("*.py")):
            if "node_modules" in path.parts or "e2e" in path.parts:
                continue
            rel = path.relative_to(REPO).as_posix()
            _visit(ast.parse(path.read_text(encoding="utf-8")), "<module>", rel, sites)
    return sites


def _visit(node: ast.AST, function: str, rel: str, sites: set[str]) -> None:
    """Record each call under its innermost enclosing function."""
    for child in ast.iter_child_nodes(node):
        inner = function
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = child.name
        elif (
            isinstance(child, ast.Call)
            and isinstance(child.func, ast.Attribute)
            and child.func.attr in _CALLS
            and isinstance(child.func.value, ast.Name)
            and child.func.value.id in ("subprocess", "os")
        ):
            sites.add(f"{rel}:{function}")
        _visit(child, inner, rel, sites)


def audited_sites() -> set[str]:
    text = (REPO / "docs" / "threat-model.md").read_text(encoding="utf-8")
    section = text.split("## Every process Cairn starts", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([^`]+:[^`]+)` \|", section, re.MULTILINE))


def test_every_subprocess_call_is_audited() -> None:
    found = subprocess_call_sites()
    listed = audited_sites()
    missing = {s for s in found if s not in listed}
    assert not missing, f"audit these calls in docs/threat-model.md: {sorted(missing)}"
    stale = {s for s in listed if s not in found}
    assert not stale, f"no longer in the code, drop from the audit: {sorted(stale)}"
