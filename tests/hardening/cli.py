"""The real `cairn` entry point, run in-process."""

from __future__ import annotations

import pytest

from cairn.cli import main


class Run:
    """Run `cairn ARGV...` through the real entry point: (exit code, stdout, stderr)."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        try:
            main(list(argv))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        out, err = self.capsys.readouterr()
        return code, out, err
