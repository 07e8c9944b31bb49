"""The quiet rule's settings are spelled the same in the server and every editor plugin."""

from __future__ import annotations

import json
from pathlib import Path

from cairn.lsp.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def test_server_vscode_and_neovim_agree_on_the_quiet_settings() -> None:
    settings, problems = Settings.from_options({"quiet": False, "quietMaxDecisions": 7})
    assert problems == []
    assert settings.attention.quiet is False and settings.attention.busy_after == 7
    _, problems = Settings.from_options({"quiet": "no"})
    assert problems == [
        "cairn setting 'quiet': expected true or false, got 'no'; keeping the default"
    ]

    contributed = json.loads((REPO / "editors/vscode/package.json").read_text())
    properties = contributed["contributes"]["configuration"]["properties"]
    assert properties["cairn.quiet"]["default"] is True
    assert properties["cairn.quietMaxDecisions"]["default"] == Settings().quiet_max_decisions
    forwarded = (REPO / "editors/vscode/src/settings.ts").read_text()
    assert '"quiet",' in forwarded and '"quietMaxDecisions",' in forwarded
    assert "quiet = false" in (REPO / "editors/nvim/doc/cairn.txt").read_text()
    assert "`quiet`" in (REPO / "docs/lsp.md").read_text()
