"""The gate fails closed (issue 35, items 4-6): what it cannot read or judge in time
blocks the edit with one line saying why, through the real hook and the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from real_cli import CAIRN, cairn, one_line_error

from cairn.core.gate import changed_lines
from cairn.store import EventDraft, Store, init_store

REPO = Path(__file__).resolve().parents[2]
HOOK = REPO / "editors" / "claude-code" / "hooks" / "cairn_pretooluse.py"
LIMIT = 4_000_000


def functions(count: int, op: str) -> str:
    return "".join(f"def f{i}(x):\n    return x {op} {i}\n\n" for i in range(count))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    init_store(root)
    with Store.open(root / ".cairn") as store:
        store.append(EventDraft(type="reject", entity="app.py::f5", reasoning="f5 leaks PII"))
        store.append(EventDraft(type="revert", entity="users.email_verified", reasoning="bounced"))
    return root


def hook(data: bytes | str | object, **env: str) -> subprocess.CompletedProcess[bytes]:
    stdin = data if isinstance(data, bytes) else (
        data.encode() if isinstance(data, str) else json.dumps(data).encode()
    )  # fmt: skip
    full_env = {**os.environ, "CAIRN_BIN": CAIRN, **env}
    full_env.pop("CAIRN_DIR", None)
    if "CAIRN_HOOK_FAIL_OPEN" not in env:
        full_env.pop("CAIRN_HOOK_FAIL_OPEN", None)
    return subprocess.run(
        [sys.executable, str(HOOK)], input=stdin, capture_output=True, timeout=60,
        env=full_env, cwd="/",
    )  # fmt: skip


def call(project: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"cwd": str(project), "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input}  # fmt: skip


def blocked_with_one_line(proc: subprocess.CompletedProcess[bytes], words: str) -> None:
    err = proc.stderr.decode()
    assert proc.returncode == 2, (proc.returncode, err)
    assert err.count("\n") == 1 and err.startswith("cairn hook: edit blocked"), err
    assert words in err and "Traceback" not in err, err


# --- the hook's input ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("stdin", "words"),
    [
        ("[]", "JSON list, not an object"),
        ("null", "JSON NoneType, not an object"),
        (b"\xff\xfe{}", "not UTF-8"),
        ("{not json", "invalid hook input"),
        ({"tool_name": "Write", "tool_input": []}, "tool_input is not an object"),
        ({"tool_name": "Edit", "tool_input": {"old_string": "a", "new_string": "b"}},
         "file_path is missing"),
        ({"tool_name": "Write", "cwd": 5, "tool_input": {"file_path": "a.py", "content": ""}},
         "cwd is missing or not a string"),
        ({"tool_name": "Write", "tool_input": {"file_path": "/tmp/a\u0000.py", "content": ""}},
         "holds a NUL"),
        ('{"tool_name": "Write", "tool_input": {"file_path": "/tmp/\\ud800.py", "content": ""}}',
         "lone surrogate"),
        ('{"tool_name": "Write", "tool_input": {"file_path": "/tmp/a.py", "content": "\\udc00"}}',
         "lone surrogate"),
        ({"tool_name": "Write", "tool_input": {"file_path": "/tmp/a.py", "content": 7}},
         "content is not a string"),
    ],
)  # fmt: skip
def test_input_the_hook_cannot_read_blocks_with_one_line(stdin: object, words: str) -> None:
    blocked_with_one_line(hook(stdin), words)


def test_other_tools_still_pass_and_failing_open_is_an_explicit_choice(project: Path) -> None:
    assert hook(call(project, "Read", {"file_path": "x"})).returncode == 0
    opened = hook("[]", CAIRN_HOOK_FAIL_OPEN="1")
    assert opened.returncode == 1 and b"edit not checked" in opened.stderr


# --- files that must not be read ----------------------------------------------------


def test_a_fifo_and_a_device_are_refused_without_being_read(project: Path) -> None:
    fifo = project / "pipe.py"
    os.mkfifo(fifo)
    for target, words in ((fifo, "not a regular file"), (Path("/dev/zero"), "not a regular")):
        edit = {"file_path": str(target), "old_string": "a", "new_string": "b"}
        started = time.monotonic()
        proc = hook(call(project, "Edit", edit))  # a read would hang or fill memory
        assert time.monotonic() - started < 30
        blocked_with_one_line(proc, words)


def test_an_edit_of_a_file_over_the_limit_is_refused(project: Path) -> None:
    big = project / "big.py"
    big.write_text("x = 1\n" * (LIMIT // 6 + 10))
    edit = {"file_path": str(big), "old_string": "x = 1", "new_string": "x = 2"}
    blocked_with_one_line(hook(call(project, "Edit", edit)), "over the 4,000,000-byte limit")


def test_content_over_the_limit_is_refused_not_passed(project: Path) -> None:
    content = "import os\n" * (LIMIT // 10 + 1)
    proc = cairn(project, "check", "--json", "--stdin-filename=gen.py", stdin=content)
    one_line_error(proc)
    assert "over the 4,000,000-byte limit" in proc.stderr
    write = {"file_path": str(project / "gen.py"), "content": content}
    blocked_with_one_line(hook(call(project, "Write", write)), "over the 4,000,000-byte limit")
    binary = cairn(project, "check", "--stdin-filename=x.sql", stdin="\0" + "ALTER TABLE users")
    one_line_error(binary)


def test_named_and_changed_files_over_the_limit_are_named_not_passed_in_silence(
    project: Path,
) -> None:
    # `cairn check PATH`/`--diff` (the pre-commit gate) do not fail on a big generated
    # file, but they say they did not read it, in text and in JSON
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "small.sql").write_text("SELECT 1;\n")
    (project / "big.sql").write_text("-- generated\n" * (LIMIT // 13 + 10))
    said = "big.sql: skipped: over the 4,000,000-byte limit: not checked"
    text = cairn(project, "check", "small.sql", "big.sql")
    assert text.returncode == 0, text.stderr
    assert said in text.stdout
    assert "1 file checked (1 file skipped, named above)" in text.stdout
    as_json = json.loads(cairn(project, "check", "--json", "big.sql", "small.sql").stdout)
    assert as_json["files_checked"] == 1
    assert as_json["files_skipped"] == [
        {"file": "big.sql", "reason": "over the 4,000,000-byte limit: not checked"}
    ]
    # the working tree's change (`cairn check` alone) and `--diff` say the same
    for args in ((), ("--diff", "HEAD")):
        if args:
            subprocess.run(["git", "add", "-A"], cwd=project, check=True)
            subprocess.run(
                ["git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "x"],
                cwd=project, check=True,
            )  # fmt: skip
            (project / "big.sql").write_text("-- regenerated\n" * (LIMIT // 15 + 10))
        proc = cairn(project, "check", *args)
        assert proc.returncode == 0, proc.stderr
        assert said in proc.stdout, (args, proc.stdout)


def test_a_check_that_cannot_run_blocks(project: Path) -> None:
    fake = project / "fake-cairn"
    fake.write_text("#!/bin/sh\necho 'cairn: error: the log is locked' >&2\nexit 2\n")
    fake.chmod(0o755)
    write = call(project, "Write", {"file_path": str(project / "a.py"), "content": "x = 1\n"})
    blocked_with_one_line(hook(write, CAIRN_BIN=str(fake)), "the log is locked")
    blocked_with_one_line(hook(write, CAIRN_BIN=str(project / "none")), "check did not run")


# --- linear in the file's symbols ---------------------------------------------------


def test_changed_lines_are_linear_on_repetitive_text() -> None:
    started = time.monotonic()
    lines = changed_lines(functions(8000, "+"), functions(8000, "*"))
    assert time.monotonic() - started < 5  # difflib alone: 21 s at 500 functions
    assert lines == frozenset(range(2, 24000, 3))


def test_checking_an_edit_of_8000_functions_finishes_in_the_hooks_time(project: Path) -> None:
    (project / "app.py").write_text(functions(8000, "+"))
    edit = {"file_path": str(project / "app.py"), "old_string": "x + ", "new_string": "x * ",
            "replace_all": True}  # fmt: skip
    started = time.monotonic()
    proc = hook(call(project, "Edit", edit))
    took = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr.decode()  # a body edit is shown, not blocked
    assert took < 25, f"{took:.1f} s: the hook would time out and let the edit through"
    report = json.loads(
        cairn(project, "check", "--json", "--stdin-filename=app.py",
              stdin=functions(8000, "*")).stdout
    )  # fmt: skip
    assert [f["entity"] for f in report["findings"]] == ["app.py::f5"]


def test_one_sweep_answers_what_asking_line_by_line_answers() -> None:
    """`innermost_by_line` against `innermost_symbol` on random nested, overlapping,
    equal and non-defining ranges."""
    import random

    from cairn.indexer import Role
    from cairn.indexer.enclosing import innermost_by_line, innermost_symbol
    from cairn.indexer.model import Range, Symbol

    rng = random.Random(35)
    for _ in range(300):
        symbols = []
        for k in range(rng.randint(0, 25)):
            start = rng.randint(0, 40)
            end = start + rng.choice((0, 0, 1, 3, 10, 30))
            role = rng.choice((Role.INTRODUCE, Role.INTRODUCE, Role.REFERENCE))
            kind = rng.choice(("function", "class", "file", "column"))
            r = Range(start, 0, end, 1)
            symbols.append(Symbol("a.py", f"a.py::s{k}", kind, role, r, r))
        if symbols and rng.random() < 0.3:
            symbols.append(symbols[rng.randrange(len(symbols))])  # an equal range again
        lines = rng.sample(range(0, 80), rng.randint(0, 30))
        swept = innermost_by_line(symbols, lines)
        for line in lines:
            assert swept.get(line) is innermost_symbol(symbols, line), (line, symbols)
