"""OpenCode and Copilot CLI: the MCP server in their configs, and OpenCode's plugin (its
session-start equivalent) driven in Node with the hook inputs OpenCode passes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "check"))
from check_fixtures import CAIRN, REVERT_REASON, cairn, git, make_project  # noqa: E402

EDITORS = REPO / "editors"
PLUGIN = EDITORS / "opencode" / "plugins" / "cairn.js"

# Loads the plugin as OpenCode does (an ES module exporting a Plugin function), then calls
# its hooks with OpenCode's (input, output) pairs and prints the outputs.
DRIVER = """
import { pathToFileURL } from "node:url";
const [plugin, directory] = process.argv.slice(2);
const mod = await import(pathToFileURL(plugin).href);
const context = { directory, worktree: directory, project: {}, client: {}, $: null };
const hooks = await mod.CairnPlugin(context);
const system = hooks["experimental.chat.system.transform"];
const turn = { sessionID: "ses_1", model: { providerID: "anthropic", modelID: "claude" } };
const first = { system: ["You are OpenCode."] };
await system(turn, first);
const again = { system: [] };
await system(turn, again);
const compacting = { context: [] };
await hooks["experimental.session.compacting"]({ sessionID: "ses_1" }, compacting);
console.log(JSON.stringify({ first, again, compacting, names: Object.keys(hooks).sort() }));
"""


def load_json(path: Path) -> Any:
    return json.loads(path.read_text())


def test_opencode_registers_the_mcp_server_and_keeps_the_language_server() -> None:
    config = load_json(EDITORS / "opencode" / "opencode.json")
    assert config["mcp"]["cairn"] == {"type": "local", "command": ["cairn", "mcp"], "enabled": True}
    assert config["lsp"]["cairn"]["command"] == ["cairn", "serve"]


def test_copilot_cli_registers_the_mcp_server() -> None:
    servers = load_json(EDITORS / "copilot-cli" / "mcp-config.json")["mcpServers"]
    assert servers["cairn"] == {
        "type": "local",
        "command": "cairn",
        "args": ["mcp"],
        "tools": ["*"],
    }


def test_the_docs_say_which_hosts_have_a_session_start_hook() -> None:
    copilot = (EDITORS / "copilot-cli" / "README.md").read_text()
    assert "sessionStart" in copilot and "not processed" in copilot
    opencode = (EDITORS / "opencode" / "README.md").read_text()
    assert "experimental.chat.system.transform" in opencode
    assert "experimental.session.compacting" in opencode


def run_plugin(tmp_path: Path, directory: Path, env: dict[str, str]) -> dict[str, Any]:
    node = shutil.which("node")
    assert node, "Node.js is needed to load the OpenCode plugin (CI installs it)"
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    proc = subprocess.run(
        [node, str(driver), str(PLUGIN), str(directory)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "shop").mkdir()
    root = make_project(tmp_path / "shop")
    git(root, "checkout", "-q", "-b", "feature")
    (root / "db" / "003_verify.sql").write_text(
        "ALTER TABLE users ADD COLUMN email_verified bool;\n"
    )
    return root


def test_opencode_plugin_puts_the_digest_in_the_system_prompt_and_the_compaction(
    tmp_path: Path, project: Path
) -> None:
    expected = cairn(project, "digest", "--max-chars", "4000")
    assert expected.returncode == 0, expected.stderr
    digest = expected.stdout.rstrip("\n")
    assert REVERT_REASON in digest
    result = run_plugin(tmp_path, project, {"CAIRN_BIN": CAIRN})
    assert result == {
        "first": {"system": ["You are OpenCode.", digest]},
        "again": {"system": [digest]},
        "compacting": {"context": [digest]},
        "names": ["experimental.chat.system.transform", "experimental.session.compacting"],
    }


def test_opencode_plugin_adds_nothing_outside_a_project(tmp_path: Path) -> None:
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    result = run_plugin(tmp_path, empty, {"CAIRN_BIN": CAIRN, "CAIRN_DIR": ""})
    assert result["first"] == {"system": ["You are OpenCode."]}
    assert result["compacting"] == {"context": []}
    missing = run_plugin(tmp_path, empty, {"CAIRN_BIN": "/nonexistent/cairn"})
    assert missing["again"] == {"system": []}
