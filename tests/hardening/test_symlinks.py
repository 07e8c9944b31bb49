"""Item 7: links that leave the project are not written through; redact never replaces
a link (the erased text must not survive in its target)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cairn.store import init_store

from .cli import Run

LINKED = ["decisions.jsonl", "index.db", "lock", "decisions.jsonl.quarantine", ".gitattributes"]


@pytest.mark.parametrize("name", LINKED)
def test_a_link_out_of_the_project_is_refused(
    run: Run, project: Path, tmp_path: Path, name: str
) -> None:
    outside = tmp_path / "victim"
    outside.write_bytes(b"precious\n")
    link = project / ".cairn" / name
    if link.exists():
        link.unlink()
    link.symlink_to(outside)
    for argv in (["log", "users.email", "add", "-r", "x"], ["status", "users.email"]):
        code, _, err = run(*argv)
        assert code == 2, (argv, err)
        assert "symbolic link" in err and "outside the project" in err
        assert err.count("\n") == 1 and "Traceback" not in err
    assert outside.read_bytes() == b"precious\n"
    assert link.is_symlink()


def test_the_cairn_folder_itself_linked_out_is_refused(
    run: Run, project: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    init_store(elsewhere)
    real = project / ".cairn"
    for child in sorted(real.rglob("*"), reverse=True):
        child.rmdir() if child.is_dir() else child.unlink()
    real.rmdir()
    real.symlink_to(elsewhere / ".cairn")
    code, _, err = run("log", "users.email", "add", "-r", "x")
    assert code == 2 and "outside the project" in err
    assert (elsewhere / ".cairn" / "decisions.jsonl").read_bytes() == b""
    code, _, err = run("init", "--nested")
    assert code == 2 and "outside the project" in err


def test_a_link_inside_the_project_is_followed_and_redact_keeps_it(run: Run, project: Path) -> None:
    shared = project / "shared"
    shared.mkdir()
    log = project / ".cairn" / "decisions.jsonl"
    os.replace(log, shared / "decisions.jsonl")
    log.symlink_to(Path("..") / "shared" / "decisions.jsonl")
    code, out, err = run("log", "users.email", "add", "-r", "the secret plan", "--json")
    assert code == 0, err
    event_id = json.loads(out)["id"]
    assert "the secret plan" in (shared / "decisions.jsonl").read_text()
    code, _, err = run("redact", event_id, "-r", "pasted by mistake")
    assert code == 0, err
    assert log.is_symlink()  # not replaced by a regular file
    assert "the secret plan" not in (shared / "decisions.jsonl").read_text()
    assert run("verify")[0] == 0
