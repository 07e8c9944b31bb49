"""`cairn setup --yes` on a fresh repository with each tool present, then each wired
tool run for real: the pre-commit framework's hook on a real commit, the Claude Code
hook fed Claude Code's JSON by the command written in .claude/settings.json, the MCP
server started from .mcp.json by the MCP SDK's client, and `cairn doctor`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import mcp_types as types
import pytest
from check_fixtures import MIGRATION, REVERT_REASON, git, make_project
from mcp import ClientSession, StdioServerParameters, stdio_client

BIN = Path(sys.executable).parent
USER_PRE_COMMIT = """\
# our own hooks
repos:
-   repo: local
    hooks:
    -   id: no-todo
        name: no TODO in SQL
        entry: "! grep -n TODO"
        language: system
        files: \\.sql$
"""
USER_CLAUDE = (
    '{\n  "permissions": {\n    "allow": ["Bash(make test)"]\n  },\n  "model": "opus"\n}\n'
)
USER_VSCODE = '{\n  "recommendations": [\n    "ms-python.python"\n  ]\n}\n'
USER_CODEX = '# my Codex settings\nmodel = "o3"\n'
USER_GITLAB = "stages: [test]\n\ntest:\n  script:\n    - make test\n"


def env(tmp: Path) -> dict[str, str]:
    """The venv's cairn and pre-commit on PATH, as a teammate who installed them has;
    pre-commit's cache in the test's folder."""
    out = {k: v for k, v in os.environ.items() if k != "CAIRN_DIR"}
    out["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    out["PRE_COMMIT_HOME"] = str(tmp / "pre-commit-home")
    out["GIT_AUTHOR_NAME"] = out["GIT_COMMITTER_NAME"] = "Test"
    out["GIT_AUTHOR_EMAIL"] = out["GIT_COMMITTER_EMAIL"] = "test@example.invalid"
    return out


def run(cwd: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv), cwd=cwd, input=stdin, capture_output=True, text=True,
        env=env(cwd.parent), timeout=300,
    )  # fmt: skip


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file outside git's objects and Cairn's derived index, with its mode bit."""
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        skip = rel.startswith((".git/objects", ".git/logs", ".cairn/index"))
        if path.is_file() and not skip and rel not in (".git/index", ".cairn/lock"):
            out[rel] = path.read_bytes() + (b"+x" if os.access(path, os.X_OK) else b"")
    return out


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    make_project(root)
    (root / ".pre-commit-config.yaml").write_text(USER_PRE_COMMIT)
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(USER_CLAUDE)
    (root / ".vscode").mkdir()
    (root / ".vscode" / "extensions.json").write_text(USER_VSCODE)
    (root / ".github").mkdir()
    (root / ".cursor").mkdir()
    (root / ".codex").mkdir()
    (root / ".codex" / "config.toml").write_text(USER_CODEX)
    (root / ".gitlab-ci.yml").write_text(USER_GITLAB)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the team's tools")
    return root


def test_setup_wires_every_tool_once_and_each_blocks_a_re_added_column(repo: Path) -> None:
    first = run(repo, "cairn", "setup", "--yes")
    assert first.returncode == 0, first.stderr
    wired = snapshot(repo)
    for name in ("git-hooks", "pre-commit", "claude-code", "mcp", "cursor", "codex", "vscode"):
        assert f"{name}: " in first.stdout
    assert "github-actions: .github/workflows/cairn.yml" in first.stdout

    # A second run changes nothing, and says so.
    second = run(repo, "cairn", "setup", "--yes")
    assert second.returncode == 0, second.stderr
    assert snapshot(repo) == wired
    assert second.stdout.count("already wired") == 9, second.stdout
    dry = run(repo, "cairn", "setup", "--dry-run")
    assert "0 file(s) would change" in dry.stdout, dry.stdout

    # The user's own settings are kept byte for byte outside Cairn's entries.
    assert (repo / ".pre-commit-config.yaml").read_text().startswith(USER_PRE_COMMIT)
    claude = (repo / ".claude" / "settings.json").read_text()
    assert claude.startswith(USER_CLAUDE.rsplit("\n}", 1)[0])  # permissions, model untouched
    assert (repo / ".codex" / "config.toml").read_text().startswith(USER_CODEX)
    assert (repo / ".gitlab-ci.yml").read_text().startswith(USER_GITLAB)
    assert json.loads((repo / ".vscode" / "extensions.json").read_text())["recommendations"] == [
        "ms-python.python",
        "cairn.cairn",
    ]

    # cairn doctor checks each thing setup wrote, and all is well.
    doctor = run(repo, "cairn", "doctor", "--json")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    for name in ("git-hooks", "pre-commit", "claude-code", "mcp", "codex", "github-actions"):
        assert checks[f"setup: {name}"]["ok"], checks

    # Committed, the wiring travels; then a teammate re-adds the reverted column.
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "wire cairn")
    (repo / "db" / "003_verify.sql").write_text(MIGRATION)

    # 1. The pre-commit framework's hook, installed and run by a real commit.
    installed = run(repo, "pre-commit", "install")
    assert installed.returncode == 0, installed.stderr
    git(repo, "add", "db/003_verify.sql")
    commit = run(repo, "git", "commit", "-m", "bring back e-mail verification")
    said = commit.stdout + commit.stderr
    assert commit.returncode != 0, said
    assert "cairn check" in said and "users.email_verified" in said
    assert "no TODO in SQL" in said  # the user's own hook still runs
    assert "db/003_verify.sql" not in git(repo, "ls-tree", "-r", "--name-only", "HEAD")

    # 2. Claude Code's hook, as settings.json names it, fed Claude Code's PreToolUse JSON.
    settings = json.loads(claude)
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    call = {
        "session_id": "s1",
        "transcript_path": str(repo / "t.jsonl"),
        "cwd": str(repo),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(repo / "db" / "004_verify.sql"), "content": MIGRATION},
    }
    shell = {**env(repo.parent), "CLAUDE_PROJECT_DIR": str(repo)}
    hook = subprocess.run(
        ["sh", "-c", command], input=json.dumps(call), capture_output=True, text=True,
        cwd=repo, env=shell, timeout=120,
    )  # fmt: skip
    assert hook.returncode == 2, hook.stderr
    assert REVERT_REASON in hook.stderr
    # with python3 gone the gate stays shut (exit 2), never "go ahead"
    shell["PATH"] = str(repo / "no-such-dir")
    broken = subprocess.run(
        ["/bin/sh", "-c", command], input=json.dumps(call), capture_output=True, text=True,
        cwd=repo, env=shell, timeout=120,
    )  # fmt: skip
    assert broken.returncode == 2, broken.stderr
    assert "could not run" in broken.stderr

    # 3. The MCP server as .mcp.json starts it, through the MCP SDK's client.
    server = json.loads((repo / ".mcp.json").read_text())["mcpServers"]["cairn"]
    import anyio

    async def ask() -> types.CallToolResult:
        params = StdioServerParameters(
            command=server["command"], args=server["args"], cwd=repo, env=env(repo.parent)
        )
        async with stdio_client(params) as (read, write):
            info = types.Implementation(name="setup-test", version="1.0")
            async with ClientSession(read, write, client_info=info) as session:
                await session.initialize()
                return await session.call_tool(
                    "cairn_check", {"path": "db/004_verify.sql", "content": MIGRATION}
                )

    result = anyio.run(ask)
    assert not result.is_error
    assert result.structured_content is not None
    assert result.structured_content["blocking"] is True


def test_a_file_cairn_cannot_merge_stops_the_run_before_any_write(repo: Path) -> None:
    (repo / ".vscode" / "extensions.json").write_text(
        '{\n  // recommended\n  "recommendations": []\n}\n'
    )
    before = snapshot(repo)
    proc = run(repo, "cairn", "setup", "--yes")
    assert proc.returncode == 2
    assert "extensions.json is not plain JSON" in proc.stderr
    assert "nothing was written" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert snapshot(repo) == before


def test_only_and_dry_run(repo: Path) -> None:
    before = snapshot(repo)
    dry = run(repo, "cairn", "setup", "--only", "mcp", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "+++ b/.mcp.json" in dry.stdout and '"mcpServers"' in dry.stdout
    assert ".claude" not in dry.stdout
    assert snapshot(repo) == before
    unknown = run(repo, "cairn", "setup", "--only", "emacs")
    assert unknown.returncode == 2 and "unknown integration 'emacs'" in unknown.stderr
    asks = run(repo, "cairn", "setup")  # no terminal to ask on: says what to pass
    assert asks.returncode == 2 and "--yes" in asks.stderr
    assert snapshot(repo) == before


def test_doctor_notices_a_hook_someone_edited(repo: Path) -> None:
    assert run(repo, "cairn", "setup", "--yes", "--only", "git-hooks").returncode == 0
    hook = Path(git(repo, "rev-parse", "--git-path", "hooks/post-commit").strip())
    hook = hook if hook.is_absolute() else repo / hook
    hook.write_text(hook.read_text().replace("link-commit --quiet HEAD", "true"))
    doctor = run(repo, "cairn", "doctor")
    assert doctor.returncode == 1
    assert "setup: git-hooks" in doctor.stdout and "cairn setup --only git-hooks" in doctor.stdout


MANAGERS = {
    # name: (its own install step, the file that makes a repository use it, what setup says)
    "husky": (["husky"], None, "husky: .husky/pre-commit, .husky/post-commit"),
    "lefthook": (
        ["lefthook", "install"],
        ("lefthook.yml", "pre-commit:\n  commands:\n    lint:\n      run: echo linting\n"),
        "lefthook: lefthook.yml",
    ),
}


@pytest.mark.parametrize("manager", sorted(MANAGERS))
def test_a_hook_manager_runs_the_gate_and_the_commit_link(tmp_path: Path, manager: str) -> None:
    if shutil.which(manager) is None:
        if os.environ.get("CAIRN_REQUIRE_HOOK_MANAGERS"):
            pytest.fail(f"{manager} is not installed and CI requires it (.ci/run installs it)")
        pytest.skip(f"{manager} is not installed (npm install -g {manager}); CI installs it")
    install, config, said = MANAGERS[manager]
    root = tmp_path / "repo"
    root.mkdir()
    make_project(root)
    if config is not None:
        (root / config[0]).write_text(config[1])
    else:
        done = run(root, *install)  # husky: what `npm install` runs through `prepare`
        assert done.returncode == 0, done.stdout + done.stderr
    setup = run(root, "cairn", "setup", "--yes")
    assert setup.returncode == 0, setup.stderr
    assert said in setup.stdout
    assert "git-hooks" not in setup.stdout  # the manager owns the hooks
    assert run(root, "cairn", "setup", "--yes").stdout.count("already wired") == 1
    if config is not None:
        assert (root / config[0]).read_text().startswith(config[1])
        done = run(root, *install)  # lefthook writes .git/hooks from its config
        assert done.returncode == 0, done.stdout + done.stderr
    doctor = run(root, "cairn", "doctor")
    assert doctor.returncode == 0 and f"setup: {manager}" in doctor.stdout, doctor.stdout

    (root / "db" / "003_verify.sql").write_text(MIGRATION)
    git(root, "add", "db/003_verify.sql")
    blocked = run(root, "git", "commit", "-m", "bring back e-mail verification")
    assert blocked.returncode != 0
    assert "users.email_verified" in blocked.stdout + blocked.stderr

    (root / "db" / "003_verify.sql").unlink()
    logged = run(root, "cairn", "log", "orders.note", "add", "-r", "Support asked", "--json")
    decision = json.loads(logged.stdout)["id"]
    git(root, "add", "-A")
    landed = run(root, "git", "commit", "-m", "orders: a note")
    assert landed.returncode == 0, landed.stdout + landed.stderr
    head = git(root, "rev-parse", "HEAD").strip()
    status = json.loads(run(root, "cairn", "status", "orders.note", "--json").stdout)
    assert status["commits"] == {decision: head}


def test_the_github_workflow_annotates_a_pull_request(repo: Path, tmp_path: Path) -> None:
    """The workflow setup writes, its check step run as the runner would on a pull
    request: the base branch fetched as origin/<base>, the change on top."""
    assert run(repo, "cairn", "setup", "--yes", "--only", "github-actions").returncode == 0
    from ruamel.yaml import YAML

    workflow = YAML(typ="safe").load((repo / ".github" / "workflows" / "cairn.yml").read_text())
    assert "pull_request" in workflow["on"]
    steps = workflow["jobs"]["check"]["steps"]
    assert steps[0]["with"]["fetch-depth"] == 0  # the base branch's history is there
    check = steps[-1]["run"].replace("${{ github.base_ref }}", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "wire CI")
    remote = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "fetch", "-q", "origin")
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "db" / "003_verify.sql").write_text(MIGRATION)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "bring it back")
    job = run(repo, "sh", "-c", check)
    assert job.returncode == 1, job.stderr
    assert job.stdout.startswith("::error file=db/003_verify.sql,line=2,")


@pytest.mark.skipif(shutil.which("script") is None, reason="needs util-linux `script` for a tty")
def test_interactive_setup_wires_only_what_the_user_accepts(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    make_project(root)
    (root / ".vscode").mkdir()
    (root / ".github").mkdir()
    cairn = str(BIN / "cairn")
    # a terminal (script(1) gives one): no to git hooks, yes to VS Code, no to GitHub
    proc = subprocess.run(
        ["script", "-qec", f"{cairn} setup --only git-hooks --only vscode --only github-actions"
         " --ask", "/dev/null"],
        input="n\ny\nn\n", cwd=root, env=env(tmp_path), capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.count("[Y/n]") == 3
    assert (root / ".vscode" / "extensions.json").is_file()
    assert not (root / ".github" / "workflows").exists()
    hook = Path(git(root, "rev-parse", "--git-path", "hooks/post-commit").strip())
    assert not (hook if hook.is_absolute() else root / hook).exists()


def test_plain_git_hooks_block_a_commit_and_fail_closed_without_cairn(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    make_project(root)
    venv = tmp_path / "venv-bin"
    venv.mkdir()
    cairn = venv / "cairn"  # a teammate's install, which will go away
    cairn.symlink_to(BIN / "cairn")
    setup = run(root, str(cairn), "setup", "--yes", "--only", "git-hooks")
    assert setup.returncode == 0, setup.stderr
    (root / "db" / "003_verify.sql").write_text(MIGRATION)
    git(root, "add", "db/003_verify.sql")
    blocked = run(root, "git", "commit", "-m", "bring back e-mail verification")
    assert blocked.returncode == 1
    assert "users.email_verified" in blocked.stdout + blocked.stderr
    cairn.unlink()
    gone = run(root, "git", "commit", "-m", "bring back e-mail verification")
    assert gone.returncode != 0  # the gate stays shut (the hook exits 2) and says why
    assert "cannot run; reinstall Cairn and run cairn setup again" in gone.stderr
