"""The install story is one story: the same words everywhere, nothing that does not exist
(no registry package, no release tag), a LICENSE, and a git hook that works without the
virtualenv on PATH."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from usability.helpers import flask_app, git, ok

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
INSTALL = (
    'Install Cairn so `cairn` is on your PATH: `pip install "git+$CAIRN_GIT"`, or from a clone '
    '`make venv` and `ln -s "$PWD/.venv/bin/cairn" ~/.local/bin/cairn`'
)


def documents() -> list[Path]:
    found = [REPO / "README.md", REPO / ".pre-commit-hooks.yaml"]
    found += sorted((REPO / "docs").rglob("*.md"))
    for ext in ("md", "lua", "ts", "rs", "json", "el"):
        found += [p for p in (REPO / "editors").rglob(f"*.{ext}") if "node_modules" not in p.parts]
    return found


def test_no_document_promises_what_does_not_exist() -> None:
    tags = subprocess.run(["git", "tag"], cwd=REPO, capture_output=True, text=True).stdout.split()
    for path in documents():
        text = path.read_text(encoding="utf-8")
        for phrase in (
            "pipx install cairn-lsp",
            "pip install cairn-lsp",
            "pip install 'cairn-lsp[",  # the extra from an index: no index has Cairn
            "repository's git URL",
        ):
            assert phrase not in text, (path, phrase)
        for rev in re.findall(r"^\s*rev:\s*(\S+)", text, flags=re.M):
            assert rev in tags, (path, rev)


def test_every_install_instruction_says_the_same_thing() -> None:
    readmes = [REPO / "README.md"] + [
        REPO / "editors" / name / "README.md"
        for name in ("nvim", "vscode", "zed", "helix", "sublime")
    ]
    for path in readmes:
        assert INSTALL in " ".join(path.read_text(encoding="utf-8").split()), path


def test_license_is_the_apache_2_text_pyproject_names() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert meta["license"] == "Apache-2.0"  # an SPDX expression: no setuptools warning
    assert meta["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text()
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text and len(text.splitlines()) > 150


def test_the_documented_git_hook_runs_without_the_venv_on_path(tmp_path: Path) -> None:
    # The hook is documented with the gate (docs/editors.md), which the README links.
    assert "(docs/editors.md#cairn-check-a-gate-for-ci-pre-commit-and-agents)" in (
        REPO / "README.md"
    ).read_text(encoding="utf-8")
    page = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
    [block] = [
        b for b in re.findall(r"```sh\n(.*?)```", page, flags=re.S) if ".git/hooks/pre-commit" in b
    ]
    root = flask_app(tmp_path / "app")
    git(root, "init", "-q", "-b", "main")
    ok(root, "init")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    ok(root, "reject", "deps/celery", "-r", "we don't want to run a broker")
    # Installing the hook: `cairn` is on PATH in the shell that runs the snippet.
    with_venv = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["sh", "-c", block], cwd=root, env=with_venv, check=True)
    # Committing: a PATH without the virtualenv, as a GUI client or a fresh shell has.
    bare = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    (root / "requirements.txt").write_text("flask==3.0\ncelery==5.3\nredis==5.0\n")
    git(root, "add", "requirements.txt")
    fine = subprocess.run(
        ["git", "commit", "-qm", "redis"], cwd=root, env=bare, capture_output=True, text=True
    )
    assert fine.returncode == 0, fine.stderr
    assert "cairn check: ok" in fine.stderr
    (root / "requirements-worker.txt").write_text("celery==5.3\n")
    git(root, "add", "requirements-worker.txt")
    refused = subprocess.run(
        ["git", "commit", "-qm", "worker"], cwd=root, env=bare, capture_output=True, text=True
    )
    assert refused.returncode != 0
    assert "deps/celery was rejected" in refused.stderr
