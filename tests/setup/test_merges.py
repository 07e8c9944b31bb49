"""Setup's merges keep the user's bytes: what it may re-write and what it refuses."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cairn.githooks import BEGIN, END, block, merged
from cairn.integrations import Context, MergeRefused, by_name, merge_json, merge_toml, merge_yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def add_server(config: dict) -> None:  # type: ignore[type-arg]
    config.setdefault("mcpServers", {})["cairn"] = {"command": "cairn", "args": ["mcp"]}


def test_json_gains_a_key_and_keeps_every_other_byte(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    user = '{\n    "permissions": {"allow": ["Bash(ls)", "Read"]},\n    "model": "opus"\n}'
    path.write_text(user)  # 4-space indent, an inline object, no final newline
    [change] = merge_json(path, add_server, "mcpServers.cairn")
    text = change.after.decode()
    assert text.startswith(user[:-2])  # everything up to the closing brace, unchanged
    assert text.endswith("\n    }\n}")  # its indent, still no final newline
    assert json.loads(text)["mcpServers"]["cairn"]["args"] == ["mcp"]
    assert json.loads(text)["permissions"] == json.loads(user)["permissions"]


def test_json_already_holding_the_entry_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text('{"mcpServers": {"cairn": {"command": "cairn", "args": ["mcp"]}}}')
    assert merge_json(path, add_server, "mcpServers.cairn") == []


def test_json_whose_touched_value_is_laid_out_by_hand_is_refused(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text('{\n  "mcpServers": {"other": {"command": "x"}}\n}\n')
    with pytest.raises(MergeRefused, match=r"laid out differently.*by hand"):
        merge_json(path, add_server, "mcpServers.cairn")


def test_json_with_comments_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "extensions.json"
    path.write_text('{\n  // mine\n  "recommendations": []\n}\n')
    with pytest.raises(MergeRefused, match="not plain JSON"):
        merge_json(path, add_server, "mcpServers.cairn")


def test_yaml_keeps_comments_and_refuses_a_layout_a_round_trip_changes(tmp_path: Path) -> None:
    path = tmp_path / ".gitlab-ci.yml"
    user = "# CI\nstages: [test]  # one stage\n\ntest:\n  script:\n    - make test\n"
    path.write_text(user)
    [change] = merge_yaml(path, lambda doc: doc.setdefault("cairn", {"script": ["x"]}), "job")
    assert change.after.decode().startswith(user)
    path.write_text("test:\n  script:   [make,   test]\n")  # spacing a dump would change
    with pytest.raises(MergeRefused, match="round trip"):
        merge_yaml(path, lambda doc: doc.setdefault("cairn", {}), "a `cairn` job")


def test_codex_toml_keeps_comments_and_tables(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    user = '# mine\nmodel = "o3"  # fast\n\n[profiles.x]\nmodel = "o4"\n'
    path.write_text(user)
    ctx = Context(tmp_path, None, "/x/cairn")
    [change] = by_name("codex").plan(ctx)
    text = change.after.decode()
    assert text.startswith(user)
    assert tomllib.loads(text)["mcp_servers"]["cairn"] == {"command": "cairn", "args": ["mcp"]}
    path.write_bytes(change.after)
    assert by_name("codex").plan(ctx) == []  # idempotent
    path.write_text('model = "o3"\nmodel = "o4"\n')  # not TOML (a key twice)
    with pytest.raises(MergeRefused, match="not valid TOML"):
        merge_toml(path, lambda doc: None, "x")


def test_a_hook_keeps_the_users_lines_and_only_cairns_block_is_replaced() -> None:
    user = "#!/bin/bash\nset -e\nnpm run lint\n"
    once = merged(user, block("pre-commit", "/old/cairn"))
    assert once.startswith(user) and once.count(BEGIN) == 1 and once.rstrip().endswith(END)
    again = merged(once + "echo after\n", block("pre-commit", "/new/cairn"))
    assert again == user + block("pre-commit", "/new/cairn") + "echo after\n"
    assert "`" not in block("post-commit", "/x/cairn").split("\n", 1)[1]  # no command substitution
