"""The pre-commit hook in .pre-commit-hooks.yaml, run by a real `git commit`."""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
from pathlib import Path

import pytest
import tree_sitter_yaml
from check_fixtures import BIN, MIGRATION, REVERT_REASON, git, make_project
from tree_sitter import Language, Node, Parser

REPO = Path(__file__).resolve().parents[2]


def _pairs(node: Node, out: dict[str, str]) -> None:
    if node.type == "block_mapping_pair":
        key, value = node.child_by_field_name("key"), node.child_by_field_name("value")
        if key is not None and value is not None and key.text and value.text:
            out[key.text.decode()] = value.text.decode().strip('"')
    for child in node.children:
        _pairs(child, out)


def manifest() -> dict[str, str]:
    """The hook's keys, parsed with the tree-sitter YAML grammar (no YAML library needed)."""
    tree = Parser(Language(tree_sitter_yaml.language())).parse(
        (REPO / ".pre-commit-hooks.yaml").read_bytes()
    )
    assert not tree.root_node.has_error
    pairs: dict[str, str] = {}
    _pairs(tree.root_node, pairs)
    return pairs


def test_manifest_declares_the_staged_gate() -> None:
    hook = manifest()
    assert hook["id"] == "cairn-check"
    assert hook["entry"] == "cairn check --staged"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] == "false"
    assert hook["always_run"] == "true"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A project whose .git/hooks/pre-commit runs the manifest's entry, as pre-commit would."""
    project = make_project(tmp_path)
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\nexec {shlex.join(shlex.split(manifest()['entry']))}\n")
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    return project


def commit(repo: Path, message: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("CAIRN_DIR", None)
    return subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-m", message],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_commit_re_adding_a_reverted_column_is_refused(repo: Path) -> None:
    (repo / "db" / "003_verify.sql").write_text(MIGRATION)
    git(repo, "add", ".")
    proc = commit(repo, "re-add verification")
    assert proc.returncode != 0
    # git hands the hook's output to the committer on stderr
    assert "db/003_verify.sql:2:" in proc.stderr
    assert REVERT_REASON[:40] in proc.stderr
    assert git(repo, "log", "--format=%s").splitlines() == ["base"]


def test_commit_of_unrelated_changes_goes_through(repo: Path) -> None:
    (repo / "db" / "003_orders.sql").write_text("CREATE TABLE orders (id integer);\n")
    git(repo, "add", ".")
    proc = commit(repo, "orders")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cairn check: ok, 1 file checked" in proc.stderr
    assert git(repo, "log", "--format=%s").splitlines() == ["orders", "base"]
