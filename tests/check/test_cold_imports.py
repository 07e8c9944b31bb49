"""A cold start that does little: what `cairn check`, `cairn status`, `cairn --version`
and the Claude Code hook import, read from `python -X importtime` of a real run. Module
sets, never times: each module named here is one a command once loaded (or could)
without using it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from check_fixtures import MIGRATION, git, make_project

REPO = Path(__file__).resolve().parents[2]
HOOK = REPO / "editors" / "claude-code" / "hooks" / "cairn_pretooluse.py"

GRAMMARS = {
    "tree_sitter_python",
    "tree_sitter_javascript",
    "tree_sitter_typescript",
    "tree_sitter_go",
    "tree_sitter_rust",
    "tree_sitter_java",
    "tree_sitter_ruby",
    "tree_sitter_toml",
    "tree_sitter_json",
    "tree_sitter_yaml",
}
# Never needed to judge an edit or answer a status: the language server and its protocol,
# the MCP SDK, the importers, the tree walk, other commands' modules, logging.
NEVER = {
    "pygls",
    "lsprotocol",
    "cattrs",
    "mcp",
    "pydantic",
    "pathspec",
    "logging",
    "cairn.lsp",
    "cairn.agents",
    "cairn.importers",
    "cairn.indexer.scan",
    "cairn.store.verify",
    "cairn.export",
    "cairn.cli.store_cmds",
    "cairn.cli.import_cmds",
    "cairn.cli.serve_cmd",
    "cairn.cli.trust_cmds",
    "cairn.cli.agent_cmds",
}
# Only a write asks git for the author of a draft that names none: a read runs no git.
WRITE_PATH = {"cairn.gitrefs"}


def imported(argv: list[str], cwd: Path, stdin: bytes = b"", **env: str) -> set[str]:
    """The modules a run of `argv` imported (its exit code is not asked here)."""
    full_env = {**os.environ, "PYTHONSAFEPATH": "1", **env}
    full_env.pop("CAIRN_DIR", None)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *argv],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        env=full_env,
        timeout=120,
    )
    names = set()
    for line in proc.stderr.decode("utf-8", "replace").splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            names.add(line.rsplit("|", 1)[1].strip())
    assert names, proc.stderr[-500:]
    return names


def among(names: set[str], packages: set[str]) -> set[str]:
    """Those of `packages` that `names` holds, or a module of."""
    return {p for p in packages if any(n == p or n.startswith(p + ".") for n in names)}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def test_check_of_a_migration_imports_the_gate_and_sql_only(project: Path) -> None:
    names = imported(
        ["-m", "cairn", "check", "--stdin-filename=db/003.sql"], project, MIGRATION.encode()
    )
    assert among(names, {"cairn.core.gate", "cairn.store.store", "tree_sitter_sql"}) == {
        "cairn.core.gate",
        "cairn.store.store",
        "tree_sitter_sql",
    }
    assert among(names, NEVER | GRAMMARS | WRITE_PATH | {"rich", "importlib.metadata"}) == set()


def test_check_of_a_diff_imports_the_one_grammar_it_parses(project: Path) -> None:
    (project / "db" / "003.sql").write_text(MIGRATION)
    git(project, "add", "db/003.sql")
    names = imported(["-m", "cairn", "check", "--diff", "HEAD", "--", "db/003.sql"], project)
    assert among(names, {"cairn.core.gate", "tree_sitter_sql", "subprocess"}) == {
        "cairn.core.gate",
        "tree_sitter_sql",
        "subprocess",  # (git, for the diff)
    }
    assert among(names, NEVER | GRAMMARS | {"rich", "importlib.metadata"}) == set()


def test_version_imports_neither_the_store_nor_the_package_metadata(project: Path) -> None:
    names = imported(["-m", "cairn", "--version"], project)
    assert "click" in names
    heavy = {"importlib.metadata", "cairn.store", "cairn.core.session", "msgspec", "rich"}
    assert among(names, NEVER | GRAMMARS | heavy | {"tree_sitter", "subprocess"}) == set()


def test_status_imports_no_parser(project: Path) -> None:
    names = imported(["-m", "cairn", "status", "users.email_verified"], project)
    assert among(names, {"cairn.store.store", "cairn.core.session"}) == {
        "cairn.store.store",
        "cairn.core.session",
    }
    parsing = {"tree_sitter", "cairn.indexer", "cairn.core.gate", "cairn.fingerprints"}
    others = NEVER - {"cairn.cli.store_cmds"}  # (where `status` is defined)
    assert among(names, others | GRAMMARS | parsing | WRITE_PATH | {"subprocess"}) == set()


def test_the_hook_judges_in_process_without_the_command_line(project: Path) -> None:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "cwd": str(project),
        "tool_input": {"file_path": str(project / "db" / "003.sql"), "content": MIGRATION},
    }
    stdin = json.dumps(payload).encode()
    names = imported([str(HOOK)], project, stdin, CAIRN_BIN="", PATH="/usr/bin:/bin")
    assert among(names, {"cairn.core.gate", "tree_sitter_sql"}) == {
        "cairn.core.gate",
        "tree_sitter_sql",
    }
    # no command line (its parsing, a second interpreter): the check runs here
    no_cli = {"click", "cairn.cli", "rich", "subprocess"}
    assert among(names, NEVER | GRAMMARS | WRITE_PATH | no_cli) == set()
