"""The shipped configs for other editors and agent harnesses: each parses, launches
`cairn serve`, and covers the file types the indexer understands."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
EDITORS = REPO / "editors"
# Extensions the indexer reads (DESIGN section 4); every agent config must route them.
EXTENSIONS = {".sql", ".py", ".js", ".jsx", ".ts", ".tsx", ".go", ".rs", ".java", ".rb"}
EXTENSIONS |= {".toml", ".json", ".yaml", ".yml"}


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_helix_languages_toml() -> None:
    config = tomllib.loads((EDITORS / "helix" / "languages.toml").read_text())
    server = config["language-server"]["cairn"]
    assert [server["command"], *server["args"]] == ["cairn", "serve"]
    by_name = {lang["name"]: lang["language-servers"] for lang in config["language"]}
    assert set(by_name) >= {"sql", "python", "javascript", "typescript", "tsx", "go", "rust"}
    assert set(by_name) >= {"java", "ruby", "toml", "json", "yaml", "jsx"}
    # Helix replaces the list, so cairn comes in addition to each language's own server.
    assert all(servers[-1] == "cairn" for servers in by_name.values())
    assert all(len(servers) == 2 for name, servers in by_name.items() if name != "sql")


def test_zed_extension_manifest_and_source() -> None:
    manifest = tomllib.loads((EDITORS / "zed" / "extension.toml").read_text())
    assert manifest["id"] == "cairn" and manifest["schema_version"] == 1
    languages = set(manifest["language_servers"]["cairn"]["languages"])
    assert {"SQL", "Python", "JavaScript", "TypeScript", "TSX", "Go", "Rust"} <= languages
    cargo = tomllib.loads((EDITORS / "zed" / "Cargo.toml").read_text())
    assert cargo["lib"]["crate-type"] == ["cdylib"]
    assert "zed_extension_api" in cargo["dependencies"]
    source = (EDITORS / "zed" / "src" / "lib.rs").read_text()
    assert 'worktree.which("cairn")' in source
    assert 'vec!["serve".to_string()]' in source
    assert "register_extension!(Cairn)" in source


def test_sublime_lsp_client() -> None:
    client = load_json(EDITORS / "sublime" / "LSP.sublime-settings")["clients"]["cairn"]
    assert client["enabled"] is True
    assert client["command"] == ["cairn", "serve"]
    scopes = {s.strip() for s in client["selector"].split("|")}
    assert {"source.sql", "source.python", "source.ts", "source.go", "source.rust"} <= scopes


def test_claude_code_plugin() -> None:
    root = EDITORS / "claude-code"
    manifest = load_json(root / ".claude-plugin" / "plugin.json")
    assert manifest["name"] == "cairn"
    server = load_json(root / ".lsp.json")["cairn"]
    assert [server["command"], *server["args"]] == ["cairn", "serve"]
    assert set(server["extensionToLanguage"]) >= EXTENSIONS
    assert server["extensionToLanguage"][".sql"] == "sql"
    assert manifest["mcpServers"]["cairn"] == {"command": "cairn", "args": ["mcp"]}
    events = load_json(root / "hooks" / "hooks.json")["hooks"]
    assert set(events) == {"SessionStart", "PreCompact", "PreToolUse"}
    starts = events["SessionStart"][0]
    assert set(starts["matcher"].split("|")) == {"startup", "resume", "clear", "compact"}
    assert set(events["PreCompact"][0]["matcher"].split("|")) == {"manual", "auto"}
    for group in (starts, events["PreCompact"][0]):
        found = re.search(r"\$\{CLAUDE_PLUGIN_ROOT\}/(\S+?)\"?$", group["hooks"][0]["command"])
        assert found is not None and (root / found.group(1)).is_file()
    hooks = events["PreToolUse"]
    assert len(hooks) == 1
    assert set(hooks[0]["matcher"].split("|")) == {"Write", "Edit", "MultiEdit"}
    command = hooks[0]["hooks"][0]["command"]
    script = re.search(r"\$\{CLAUDE_PLUGIN_ROOT\}/(\S+?)\"?$", command)
    assert script is not None and (root / script.group(1)).is_file()


def test_opencode_config() -> None:
    config = load_json(EDITORS / "opencode" / "opencode.json")
    server = config["lsp"]["cairn"]
    assert server["command"] == ["cairn", "serve"]
    assert set(server["extensions"]) >= EXTENSIONS


def test_copilot_cli_config() -> None:
    servers = load_json(EDITORS / "copilot-cli" / "lsp-config.json")["lspServers"]
    # Copilot CLI accepts only alphanumerics, underscores and hyphens in server names.
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", name) for name in servers)
    server = servers["cairn"]
    assert [server["command"], *server["args"]] == ["cairn", "serve"]
    assert set(server["fileExtensions"]) >= EXTENSIONS


def test_emacs_registers_cairn_serve_for_sql() -> None:
    source = (EDITORS / "emacs" / "cairn.el").read_text()
    assert source.count("(") == source.count(")")
    assert '(defcustom cairn-command \'("cairn" "serve")' in source
    assert "(defcustom cairn-major-modes '(sql-mode)" in source
    assert "(provide 'cairn)" in source


def test_every_editor_folder_has_a_readme() -> None:
    for name in ("nvim", "helix", "zed", "emacs", "sublime", "claude-code", "opencode"):
        readme = EDITORS / name / "README.md"
        assert readme.is_file(), name
        assert "cairn" in readme.read_text().lower()
    assert (EDITORS / "copilot-cli" / "README.md").is_file()
