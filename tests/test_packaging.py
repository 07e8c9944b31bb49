"""The one-namespace layout works for the tools people run on it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_mypy_resolves_the_mapped_folders_in_the_editable_install(tmp_path: Path) -> None:
    # Run from a folder outside the checkout, as an editor's type checker would see
    # the installed package: the strict editable link tree must expose cairn.store etc.
    snippet = (
        "from cairn.store import Store\n"
        "from cairn.indexer import index_text\n"
        "from cairn.lsp.server import build_server\n"
        "reveal_type(Store.open)\n"
        "reveal_type(index_text)\n"
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-incremental",
            "--follow-imports=silent",
            "-c",
            snippet,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert "cairn.store.store.Store" in out.stdout, out.stdout + out.stderr
    assert "cairn.indexer" in out.stdout, out.stdout
    assert "Cannot find implementation or library stub" not in out.stdout, out.stdout
    assert out.returncode == 0, out.stdout


def test_every_mapped_package_ships_its_typed_marker() -> None:
    import cairn
    import cairn.indexer
    import cairn.lsp
    import cairn.store

    for package in (cairn, cairn.store, cairn.indexer, cairn.lsp):
        assert (Path(package.__file__).parent / "py.typed").exists(), package.__name__
