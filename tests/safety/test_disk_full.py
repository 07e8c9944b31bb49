"""A full disk during a write (issue 35, item 12): one line saying the disk is full,
exit 2, and nothing half-written: not a partial event at the log's end, not a partial
export. The disk fills at the write seam (an injected ENOSPC after part of the bytes
went in, as a real full disk does), with the real CLI run in this process."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path
from typing import Any

import pytest

import cairn.export
import cairn.store.log
from cairn.cli.app import main
from cairn.store import EventDraft, Store, init_store


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    init_store(root)
    with Store.open(root / ".cairn") as store:
        store.append(EventDraft(type="add", entity="app.py::pay", reasoning="first"))
    monkeypatch.chdir(root)
    monkeypatch.setenv("CAIRN_AUTHOR", "Ada <ada@example.com>")
    monkeypatch.setenv("NO_COLOR", "1")
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as done:
        main(list(args))
    return int(done.value.code or 0), capsys.readouterr().err


def assert_disk_full(code: int, err: str) -> None:
    """One line naming the real cause (it used to blame permissions), exit 2."""
    assert code == 2, err
    assert err.startswith("cairn: error: "), err
    assert "the disk is full" in err or "No space left on device" in err, err
    assert "writable" not in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_full_disk_mid_append_leaves_the_log_as_it_was(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = project / ".cairn" / "decisions.jsonl"
    before = log.read_bytes()

    def half_then_full(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])  # part of the line lands, as on a real disk
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(cairn.store.log, "_write_all", half_then_full)
    code, err = run(capsys, "log", "app.py::pay", "modify", "-r", "second thoughts")
    assert_disk_full(code, err)
    assert "nothing was written" in err
    assert log.read_bytes() == before
    monkeypatch.undo()
    monkeypatch.chdir(project)
    # the disk has room again: the next write works and `verify` finds nothing wrong
    code, err = run(capsys, "log", "app.py::pay", "modify", "-r", "second thoughts")
    assert code == 0, err
    code, err = run(capsys, "verify")
    assert code == 0, err
    assert not (project / ".cairn" / "decisions.jsonl.quarantine").exists()


class _FullDisk(io.StringIO):
    """A file that takes part of what is written, then reports the disk full."""

    def __init__(self, real: Any) -> None:
        super().__init__()
        self.real = real

    def write(self, text: str) -> int:
        self.real.write(text[: len(text) // 2])
        self.real.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __exit__(self, *exc: object) -> None:
        self.real.close()


@pytest.mark.parametrize("fmt", ["markdown", "jsonl"])
def test_a_full_disk_mid_export_leaves_no_file(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fmt: str,
) -> None:
    real_fdopen = os.fdopen
    monkeypatch.setattr(cairn.export.os, "fdopen", lambda *a, **k: _FullDisk(real_fdopen(*a, **k)))
    out = project / "out" / "decisions.txt"
    out.parent.mkdir()
    code, err = run(capsys, "export", fmt, "-o", str(out))
    assert_disk_full(code, err)
    assert list(out.parent.iterdir()) == []  # no export, no temporary file left behind
