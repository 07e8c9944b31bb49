"""The Neovim plugin's `quiet` option reaches the server as initializationOptions."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from nvim_harness import PLUGIN, nvim_binary

SCRIPT = """
vim.opt.rtp:prepend(%s)
local cairn = require("cairn")
cairn.setup(%s)
io.stdout:write(vim.json.encode({ init = cairn.init_options() or vim.NIL }))
"""


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        ("{ quiet = false, init_options = { debounceMs = 5 } }", {"quiet": False, "debounceMs": 5}),
        ("{ quiet = true }", {"quiet": True}),
        ("{ init_options = { quietMaxDecisions = 5 } }", {"quietMaxDecisions": 5}),
        ("{}", None),  # the server's default (quiet) applies
    ],
)
def test_quiet_option_is_sent_as_initialization_options(
    tmp_path: Path, setup: str, expected: object
) -> None:
    script = tmp_path / "probe.lua"
    script.write_text(SCRIPT % (json.dumps(str(PLUGIN)), setup))
    proc = subprocess.run(
        [nvim_binary(), "--headless", "--clean", "-l", str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["init"] == expected
