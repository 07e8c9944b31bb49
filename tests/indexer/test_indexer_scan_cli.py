"""`cairn scan`, run as the real command on real folders and git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CAIRN = str(Path(sys.executable).with_name("cairn"))


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CAIRN_DIR"}
    return subprocess.run(
        [CAIRN, "scan", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


def git_repo(root: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("build/\n*.gen.py\n")
    (root / "db").mkdir()
    (root / "db" / "001.sql").write_text("CREATE TABLE users (id int, email text);\n")
    (root / "db" / ".gitignore").write_text("local.sql\n")
    (root / "db" / "local.sql").write_text("CREATE TABLE scratch (x int);\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("import os\n\ndef main():\n    os.getenv('PORT')\n")
    (root / "src" / "models.gen.py").write_text("def generated(): pass\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("def built(): pass\n")
    (root / "README.md").write_text("# not indexed\n")
    return root


def test_scan_walks_honouring_gitignore_with_paths_from_the_git_root(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")
    result = run("--json", ".", cwd=root / "src")
    assert result.returncode == 0, result.stderr
    symbols = json.loads(result.stdout)
    assert [(s["file"], s["entity"], s["kind"], s["role"]) for s in symbols] == [
        ("src/app.py", "src/app.py::main", "function", "introduce"),
        ("src/app.py", "env/PORT", "env", "reference"),
    ]
    assert symbols[0]["name_range"] == {
        "start": {"line": 2, "character": 4},
        "end": {"line": 2, "character": 8},
    }
    assert symbols[0]["range"]["end"] == {"line": 3, "character": 21}

    everything = json.loads(run("--json", cwd=root).stdout)
    files = sorted({s["file"] for s in everything})
    assert files == ["db/001.sql", "src/app.py"]  # build/, *.gen.py and db/local.sql ignored
    assert [s["entity"] for s in everything if s["file"] == "db/001.sql"] == [
        "users",
        "users.id",
        "users.email",
    ]


def test_explicit_files_are_scanned_even_if_ignored(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")
    result = run("--json", "build/out.py", cwd=root)
    assert [s["entity"] for s in json.loads(result.stdout)] == ["build/out.py::built"]


def test_an_ignored_folder_named_explicitly_is_scanned(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")
    (root / "build" / ".gitignore").write_text("skip.py\n")
    (root / "build" / "skip.py").write_text("def skipped(): pass\n")
    result = run("--json", "build", cwd=root)
    assert [s["entity"] for s in json.loads(result.stdout)] == ["build/out.py::built"]


def test_human_output_lists_position_role_kind_entity(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")
    result = run("db", cwd=root)
    assert result.returncode == 0
    assert result.stdout.splitlines() == [
        "db/001.sql",
        "  1:14      introduce table      users",
        "  1:21      introduce column     users.id",
        "  1:29      introduce column     users.email",
    ]
    assert result.stderr == ""


def test_root_is_the_nearest_cairn_folder_and_its_queries_apply(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")
    project = root / "src"
    (project / ".cairn" / "queries").mkdir(parents=True)
    (project / ".cairn" / "queries" / "python.scm").write_text(
        "((call function: (attribute attribute: (identifier) @_f)\n"
        '   arguments: (argument_list . (string) @env.reference)) (#eq? @_f "getenv"))\n'
        "(oops\n"
    )
    result = run("--json", "app.py", cwd=project)
    assert result.returncode == 0
    assert [s["file"] for s in json.loads(result.stdout)] == ["app.py", "app.py"]
    query_file = project / ".cairn" / "queries" / "python.scm"
    assert result.stderr.startswith(f"cairn: warning: {query_file}:3:")
    assert len(result.stderr.strip().splitlines()) == 1


def test_outside_any_repository_paths_are_relative_to_the_current_folder(tmp_path: Path) -> None:
    (tmp_path / "schema.sql").write_text("DROP TABLE old;\n")
    result = run("--json", cwd=tmp_path)
    assert [(s["file"], s["entity"], s["role"]) for s in json.loads(result.stdout)] == [
        ("schema.sql", "old", "remove")
    ]


def test_missing_path_is_a_one_line_error_with_exit_2(tmp_path: Path) -> None:
    result = run("nope/", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == "cairn: error: nope: no such file or directory\n"


def test_scan_this_repository() -> None:
    result = run("--json", "pyproject.toml", "indexer", cwd=REPO)
    assert result.returncode == 0, result.stderr
    found = {(s["entity"], s["role"]) for s in json.loads(result.stdout)}
    assert ("deps/tree-sitter", "introduce") in found
    assert ("indexer/document.py::Document.edit", "introduce") in found
    assert ("indexer/extract.py::extract", "introduce") in found


def test_missing_queries_folder_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "a.sql").write_text("DROP TABLE old;\n")
    result = run("--queries", "nowhere", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "'nowhere' does not exist" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    import pty

    root = git_repo(tmp_path / "repo")
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "CAIRN_DIR"}
    env.update({"TERM": "xterm", "COLUMNS": "80"})
    with subprocess.Popen(
        [CAIRN, "scan", "."], cwd=root, stdout=subprocess.PIPE, stderr=follower, env=env
    ) as proc:
        os.close(follower)
        stdout, _ = proc.communicate(timeout=120)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # the terminal closed: everything was read
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    terminal = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0
    assert "scanning" in terminal and "2/2" in terminal
    assert stdout.decode().splitlines()[0] == "db/001.sql"  # the bar stays off stdout
