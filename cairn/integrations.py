"""What `cairn setup` wires, and how `cairn doctor` checks it stays wired.

Each integration detects whether the repository (or the machine) uses a tool, and
plans the files to write or merge so that the tool runs Cairn: the gate before a
commit or an agent's edit, the commit link after a commit, the MCP server for agents,
the check in CI. A plan is a list of `Change`s computed before anything is written:
`--dry-run` prints them as a diff, a second run plans nothing (idempotent), and a file
Cairn cannot merge without disturbing the user's own text stops the whole run before
any write (`MergeRefused`), so nothing is left half-written.

Merges keep the user's bytes outside Cairn's entries. JSON is re-encoded only when the
file already is in the layout the encoder writes (the one JSON editors and Claude Code
write: 2-space indent); YAML goes through ruamel.yaml's round-trip mode and TOML
through tomlkit, each accepted only when the unchanged file round-trips byte for byte.
Otherwise the run stops and says which entry to add by hand.

Configs committed for a team name `cairn` by name (each teammate's own install on
PATH); git hooks live in `.git/` and are one person's, so they name the full path.
"""

from __future__ import annotations

import copy
import difflib
import io
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from cairn import git as gitcmd
from cairn.githooks import block, cairn_executable, hook_file, merged, read_block

__all__ = [
    "INTEGRATIONS",
    "Change",
    "Context",
    "Integration",
    "MergeRefused",
    "apply",
    "by_name",
    "plan",
]

VSCODE_EXTENSION = "cairn.cairn"  # editors/vscode/package.json: publisher.name
MCP_SERVER = {"command": "cairn", "args": ["mcp"]}
HOOK_TIMEOUT_S = 30
# Claude Code runs a hook's command in a shell; any exit but 0 and 2 lets the call
# through. python3 missing (127) or crashing must not open the gate: map it to 2.
_FAIL_CLOSED = (
    's=$?; [ $s -le 2 ] || {{ echo "cairn: the {what} hook could not run (exit $s); '
    'is python3 on PATH? run cairn doctor" >&2; s=2; }}; exit $s'
)
CLAUDE_HOOKS = {
    "PreToolUse": (
        "Write|Edit|MultiEdit",
        "cairn_pretooluse.py",
    ),
    "SessionStart": ("startup|resume|clear|compact", "cairn_context.py"),
}
WORKFLOW = ".github/workflows/cairn.yml"


class MergeRefused(ValueError):
    """A file Cairn will not rewrite (it cannot keep the user's bytes); says what to add."""


@dataclass(frozen=True)
class Change:
    """One file's new content (None before: the file is new)."""

    path: Path
    before: bytes | None
    after: bytes
    executable: bool = False

    def diff(self, root: Path) -> str:
        """A unified diff, paths relative to `root`."""
        rel = os.path.relpath(self.path, root)
        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = self.after.decode("utf-8", "replace").splitlines(keepends=True)
        lines = difflib.unified_diff(
            old, new, "/dev/null" if self.before is None else f"a/{rel}", f"b/{rel}"
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@dataclass
class Context:
    """Where setup looks and what it names: the project, its git top, the cairn to run."""

    root: Path  # the Cairn project (where .cairn/ is)
    git_top: Path | None
    cairn: str = field(default_factory=cairn_executable)

    @classmethod
    def for_project(cls, root: Path) -> Context:
        try:
            proc = gitcmd.run(root, "rev-parse", "--show-toplevel")
            top = Path(proc.stdout.decode().strip()) if proc.returncode == 0 else None
        except OSError:
            top = None
        return cls(root, top)

    @property
    def repo(self) -> Path:
        """Where repository-level tool configs live (the git top, else the project)."""
        return self.git_top or self.root


@dataclass(frozen=True)
class Integration:
    """One tool setup can wire."""

    name: str
    what: str
    detect: Callable[[Context], bool]
    plan: Callable[[Context], list[Change]]
    needs_cairn_on_path: bool = False  # its committed config names `cairn`, not a path


# --- merging, with the user's bytes kept -------------------------------------------------


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def _change(path: Path, after: str, *, executable: bool = False) -> list[Change]:
    before = _read(path)
    data = after.encode("utf-8")
    if before == data and (not executable or os.access(path, os.X_OK)):
        return []
    return [Change(path, before, data, executable)]


def _json_dump(value: Any, indent: int, level: int = 0) -> str:
    """`value` as the JSON encoder lays it out, nested `level` deep."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return text.replace("\n", "\n" + " " * (indent * level))


def _json_indent(text: str) -> int:
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" ")
        if stripped and len(stripped) < len(line):
            return len(line) - len(stripped)
    return 2


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _top_level_spans(text: str) -> dict[str, tuple[int, int]]:
    """Where each top-level key's value is in the text of a JSON object."""
    decoder = json.JSONDecoder()
    spans: dict[str, tuple[int, int]] = {}
    i = _skip_ws(text, 0) + 1  # past "{"
    while True:
        i = _skip_ws(text, i)
        if text[i] == "}":
            return spans
        key, i = decoder.raw_decode(text, i)
        i = _skip_ws(text, i) + 1  # past ":"
        start = _skip_ws(text, i)
        _, end = decoder.raw_decode(text, start)
        spans[str(key)] = (start, end)
        i = _skip_ws(text, end)
        if text[i] == ",":
            i += 1


def merge_json(path: Path, update: Callable[[dict[str, Any]], None], entry: str) -> list[Change]:
    """`update` applied to the JSON object in `path` (created when missing). Only the
    values of the top-level keys `update` changes are re-written, and only when they
    are laid out as the encoder lays them out: every other byte stays as it was."""
    before = _read(path)
    text = before.decode("utf-8", "replace") if before is not None else ""
    if not text.strip():
        data: dict[str, Any] = {}
        new: dict[str, Any] = {}
        update(new)
        return _change(path, _json_dump(new, 2) + "\n")
    try:
        data = json.loads(text)
    except ValueError:
        raise MergeRefused(
            f"{path} is not plain JSON (comments? trailing commas?); add {entry} by hand"
        ) from None
    if not isinstance(data, dict):
        raise MergeRefused(f"{path} does not hold a JSON object; add {entry} by hand")
    new = copy.deepcopy(data)
    update(new)
    touched = [k for k in new if k not in data or new[k] != data[k]]
    if not touched:
        return []
    if not data:
        return _change(path, _json_dump(new, 2) + ("\n" if text.endswith("\n") else ""))
    indent = _json_indent(text)
    spans = _top_level_spans(text)
    out = text
    for key in sorted(touched, key=lambda k: spans.get(k, (len(text), 0))[0], reverse=True):
        if key in spans:
            start, end = spans[key]
            if out[start:end] != _json_dump(data[key], indent, 1):
                raise MergeRefused(
                    f"{path}: {key!r} is laid out differently from what Cairn would write "
                    f"back; to keep it as it is, add {entry} by hand"
                )
            out = out[:start] + _json_dump(new[key], indent, 1) + out[end:]
        else:
            last = max(end for _, end in spans.values())
            added = f",\n{' ' * indent}{json.dumps(key)}: {_json_dump(new[key], indent, 1)}"
            out = out[:last] + added + out[last:]
    return _change(path, out)


def _yaml(text: str) -> tuple[Any, Any]:
    """(round-trip YAML loader/dumper laid out as `text` is, its document), or
    MergeRefused when no layout reproduces the file byte for byte."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    for mapping, sequence, offset in ((2, 2, 0), (2, 4, 2), (4, 4, 2), (2, 4, 0), (4, 4, 0)):
        yaml = YAML()
        yaml.preserve_quotes = True
        yaml.width = 4096
        yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
        try:
            doc = yaml.load(text)
        except YAMLError as exc:
            raise MergeRefused(f"not valid YAML: {str(exc).splitlines()[0]}") from None
        out = io.StringIO()
        yaml.dump(doc, out)
        if out.getvalue() == text:
            return yaml, doc
    raise MergeRefused("its layout does not survive a YAML round trip")


def merge_yaml(
    path: Path, update: Callable[[Any], None], entry: str, default: str = ""
) -> list[Change]:
    before = _read(path)
    text = before.decode("utf-8", "replace") if before is not None else default
    try:
        yaml, doc = _yaml(text)
    except MergeRefused as exc:
        raise MergeRefused(f"{path}: {exc}; add {entry} by hand") from None
    if doc is None:
        from ruamel.yaml.comments import CommentedMap

        doc = CommentedMap()
    update(doc)
    out = io.StringIO()
    yaml.dump(doc, out)
    return _change(path, out.getvalue())


def merge_toml(path: Path, update: Callable[[Any], None], entry: str) -> list[Change]:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    before = _read(path)
    text = before.decode("utf-8", "replace") if before is not None else ""
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise MergeRefused(f"{path} is not valid TOML ({exc}); add {entry} by hand") from None
    if tomlkit.dumps(doc) != text:
        raise MergeRefused(f"{path} does not survive a TOML round trip; add {entry} by hand")
    update(doc)
    return _change(path, tomlkit.dumps(doc))


# --- git hooks -------------------------------------------------------------------------


def _hook_changes(path: Path, hook: str, cairn: str) -> list[Change]:
    before = _read(path)
    text = before.decode("utf-8", "replace") if before is not None else None
    return _change(path, merged(text, block(hook, cairn)), executable=True)


def _uses_husky(ctx: Context) -> bool:
    return (ctx.repo / ".husky").is_dir()


def _uses_lefthook(ctx: Context) -> bool:
    return any((ctx.repo / n).is_file() for n in ("lefthook.yml", ".lefthook.yml"))


def _uses_pre_commit(ctx: Context) -> bool:
    return (ctx.repo / ".pre-commit-config.yaml").is_file()


def _detect_git_hooks(ctx: Context) -> bool:
    return ctx.git_top is not None and not _uses_husky(ctx) and not _uses_lefthook(ctx)


def _plan_git_hooks(ctx: Context) -> list[Change]:
    """post-commit (the commit link) always; pre-commit (the gate) unless the pre-commit
    framework owns that hook (it wires the gate from its own config)."""
    changes: list[Change] = []
    hooks = ["post-commit"] if _uses_pre_commit(ctx) else ["pre-commit", "post-commit"]
    for hook in hooks:
        path = hook_file(ctx.repo, hook)
        if path is not None:
            changes += _hook_changes(path, hook, ctx.cairn)
    return changes


def _plan_husky(ctx: Context) -> list[Change]:
    """husky (v9) runs `.husky/<hook>` from its own wrapper: Cairn's block goes there."""
    changes: list[Change] = []
    for hook in ("pre-commit", "post-commit"):
        changes += _hook_changes(ctx.repo / ".husky" / hook, hook, ctx.cairn)
    return changes


PRE_COMMIT_HOOKS = [
    {
        "id": "cairn-check",
        "name": "cairn check",
        "entry": "cairn check --staged",
        "language": "system",
        "pass_filenames": False,
        "always_run": True,
    }
]


def _plan_pre_commit(ctx: Context) -> list[Change]:
    """A `local` repo with the gate: it runs the `cairn` each teammate installed."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    def update(doc: Any) -> None:
        repos = doc.setdefault("repos", CommentedSeq())
        for repo in repos:
            hooks = repo.get("hooks") or []
            if repo.get("repo") == "local" and any(h.get("id") == "cairn-check" for h in hooks):
                return
        entry = CommentedMap()
        entry["repo"] = "local"
        entry["hooks"] = CommentedSeq([CommentedMap(h) for h in PRE_COMMIT_HOOKS])
        repos.append(entry)

    return merge_yaml(
        ctx.repo / ".pre-commit-config.yaml", update, "a `repo: local` hook `cairn-check`"
    )


def _plan_lefthook(ctx: Context) -> list[Change]:
    from ruamel.yaml.comments import CommentedMap

    name = next(n for n in ("lefthook.yml", ".lefthook.yml") if (ctx.repo / n).is_file())

    def update(doc: Any) -> None:
        for hook, run in (
            ("pre-commit", "cairn check --staged"),
            ("post-commit", "cairn link-commit --quiet HEAD"),
        ):
            section = doc.setdefault(hook, CommentedMap())
            commands = section.setdefault("commands", CommentedMap())
            if "cairn" not in commands:
                commands["cairn"] = CommentedMap(run=run)

    return merge_yaml(ctx.repo / name, update, "`cairn` commands under pre-commit and post-commit")


# --- agents ------------------------------------------------------------------------------


def _hook_script(name: str) -> str:
    """A Claude Code hook script as this Cairn ships it (editors/claude-code/hooks)."""
    return resources.files("cairn.claude_code").joinpath(name).read_text(encoding="utf-8")


def _claude_command(script: str) -> str:
    what = "PreToolUse" if "pretooluse" in script else "SessionStart"
    # -S: the gate's warm path (a socket to `cairn gate-daemon`) needs no site-packages,
    # which cost it a third of its instructions; its cold path adds them back itself.
    python = "python3 -S" if what == "PreToolUse" else "python3"
    return f'{python} "$CLAUDE_PROJECT_DIR/.claude/hooks/{script}"; ' + _FAIL_CLOSED.format(
        what=what
    )


def _detect_claude(ctx: Context) -> bool:
    return (
        (ctx.repo / ".claude").is_dir()
        or (ctx.repo / "CLAUDE.md").is_file()
        or shutil.which("claude") is not None
    )


def _plan_claude(ctx: Context) -> list[Change]:
    """The hook scripts copied into `.claude/hooks/` (committed: the team gets them), and
    the project settings naming them."""
    changes: list[Change] = []
    for _, script in CLAUDE_HOOKS.values():
        changes += _change(ctx.repo / ".claude" / "hooks" / script, _hook_script(script))

    def update(settings: dict[str, Any]) -> None:
        hooks = settings.setdefault("hooks", {})
        for event, (matcher, script) in CLAUDE_HOOKS.items():
            ours = {"type": "command", "command": _claude_command(script)}
            ours["timeout"] = HOOK_TIMEOUT_S  # type: ignore[assignment]
            groups = hooks.setdefault(event, [])
            if not _replace_ours(groups, script, ours):
                groups.append({"matcher": matcher, "hooks": [ours]})

    changes += merge_json(
        ctx.repo / ".claude" / "settings.json", update, "the hooks in editors/claude-code"
    )
    return changes


def _replace_ours(groups: list[dict[str, Any]], script: str, ours: dict[str, Any]) -> bool:
    """Bring an older form of our hook (found by its script's name) up to date; False
    when there is none. (Each event's, not only the first's: `python3 -S` came later.)"""
    for group in groups:
        for i, hook in enumerate(group.get("hooks", [])):
            if script in str(hook.get("command", "")):
                group["hooks"][i] = ours
                return True
    return False


def _mcp_update(key: str, value: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def update(config: dict[str, Any]) -> None:
        servers = config.setdefault(key, {})
        if servers.get("cairn") != value:
            servers["cairn"] = value

    return update


def _plan_mcp_json(ctx: Context) -> list[Change]:
    return merge_json(
        ctx.repo / ".mcp.json", _mcp_update("mcpServers", MCP_SERVER), "`mcpServers.cairn`"
    )


def _plan_cursor(ctx: Context) -> list[Change]:
    return merge_json(
        ctx.repo / ".cursor" / "mcp.json",
        _mcp_update("mcpServers", MCP_SERVER),
        "`mcpServers.cairn`",
    )


def _plan_opencode(ctx: Context) -> list[Change]:
    server = {"type": "local", "command": ["cairn", "mcp"], "enabled": True}
    return merge_json(ctx.repo / "opencode.json", _mcp_update("mcp", server), "`mcp.cairn`")


def _plan_codex(ctx: Context) -> list[Change]:
    import tomlkit

    def update(doc: Any) -> None:
        servers = doc.setdefault("mcp_servers", tomlkit.table(is_super_table=True))
        if "cairn" not in servers:
            if doc.body:
                doc.add(tomlkit.nl())
            table = tomlkit.table()
            table["command"] = "cairn"
            table["args"] = ["mcp"]
            servers["cairn"] = table

    return merge_toml(ctx.repo / ".codex" / "config.toml", update, "`[mcp_servers.cairn]`")


# --- editors and CI ----------------------------------------------------------------------


def _plan_vscode(ctx: Context) -> list[Change]:
    def update(config: dict[str, Any]) -> None:
        recs = config.setdefault("recommendations", [])
        if VSCODE_EXTENSION not in recs:
            recs.append(VSCODE_EXTENSION)

    return merge_json(
        ctx.repo / ".vscode" / "extensions.json", update, f'"{VSCODE_EXTENSION}" in recommendations'
    )


def workflow_text() -> str:
    """The GitHub Actions workflow `setup` writes: the gate on every pull request, with
    annotations on the diff. Cairn installs from the URL in the CAIRN_GIT variable."""
    return """\
# Written by `cairn setup`: Cairn's gate on every pull request. A change that re-adds
# something the team reverted or rejected is annotated on the diff and fails the job.
name: cairn
on:
  pull_request:
permissions:
  contents: read
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      # Cairn is on no package index: set the repository variable CAIRN_GIT to the URL
      # you install Cairn from (a clone URL; pin a commit with @<sha>).
      - run: pip install "cairn-lsp @ git+${{ vars.CAIRN_GIT }}"
      - run: cairn check --diff "origin/${{ github.base_ref }}" --format github
"""


def _plan_github(ctx: Context) -> list[Change]:
    path = ctx.repo / WORKFLOW
    before = _read(path)
    if before is not None and b"Written by `cairn setup`" not in before:
        raise MergeRefused(f"{path} exists and is not Cairn's; rename it, then run setup again")
    return _change(path, workflow_text())


GITLAB_JOB = {
    "stage": "test",
    "image": "python:3.12",
    "rules": [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}],
    "script": [
        'pip install "cairn-lsp @ git+$CAIRN_GIT"',
        'git fetch origin "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"',
        'cairn check --diff "origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME" --format gitlab'
        " > gl-code-quality-report.json",
    ],
    "artifacts": {"when": "always", "reports": {"codequality": "gl-code-quality-report.json"}},
}


def _plan_gitlab(ctx: Context) -> list[Change]:
    def update(doc: Any) -> None:
        if "cairn" not in doc:
            doc["cairn"] = copy.deepcopy(GITLAB_JOB)

    return merge_yaml(ctx.repo / ".gitlab-ci.yml", update, "a `cairn` job")


INTEGRATIONS: tuple[Integration, ...] = (
    Integration(
        "git-hooks",
        "plain git hooks: the gate before a commit, the commit link after it",
        _detect_git_hooks,
        _plan_git_hooks,
    ),
    Integration(
        "pre-commit",
        "the pre-commit framework: a local `cairn-check` hook",
        _uses_pre_commit,
        _plan_pre_commit,
        needs_cairn_on_path=True,
    ),
    Integration(
        "husky",
        "husky: Cairn's blocks in .husky/pre-commit and post-commit",
        _uses_husky,
        _plan_husky,
    ),
    Integration(
        "lefthook",
        "lefthook: `cairn` commands under pre-commit and post-commit",
        _uses_lefthook,
        _plan_lefthook,
        needs_cairn_on_path=True,
    ),
    Integration(
        "claude-code",
        "Claude Code: the edit gate and the digest as project hooks (.claude/)",
        _detect_claude,
        _plan_claude,
        needs_cairn_on_path=True,
    ),
    Integration(
        "mcp",
        "the MCP server in .mcp.json (Claude Code and other MCP clients)",
        lambda ctx: _detect_claude(ctx) or (ctx.repo / ".mcp.json").is_file(),
        _plan_mcp_json,
        needs_cairn_on_path=True,
    ),
    Integration(
        "cursor",
        "Cursor: the MCP server in .cursor/mcp.json",
        lambda ctx: (ctx.repo / ".cursor").is_dir(),
        _plan_cursor,
        needs_cairn_on_path=True,
    ),
    Integration(
        "opencode",
        "OpenCode: the MCP server in opencode.json",
        lambda ctx: (ctx.repo / "opencode.json").is_file() or (ctx.repo / ".opencode").is_dir(),
        _plan_opencode,
        needs_cairn_on_path=True,
    ),
    Integration(
        "codex",
        "Codex: the MCP server in .codex/config.toml",
        lambda ctx: (ctx.repo / ".codex").is_dir(),
        _plan_codex,
        needs_cairn_on_path=True,
    ),
    Integration(
        "vscode",
        "VS Code: the Cairn extension in the workspace's recommendations",
        lambda ctx: (ctx.repo / ".vscode").is_dir(),
        _plan_vscode,
    ),
    Integration(
        "github-actions",
        f"GitHub Actions: {WORKFLOW}, the gate with annotations on each pull request",
        lambda ctx: (ctx.repo / ".github").is_dir(),
        _plan_github,
    ),
    Integration(
        "gitlab-ci",
        "GitLab CI: a `cairn` job with a Code Quality report",
        lambda ctx: (ctx.repo / ".gitlab-ci.yml").is_file(),
        _plan_gitlab,
    ),
)


def by_name(name: str) -> Integration:
    for integration in INTEGRATIONS:
        if integration.name == name:
            return integration
    names = ", ".join(i.name for i in INTEGRATIONS)
    raise ValueError(f"unknown integration {name!r}; expected one of {names}")


def plan(ctx: Context, integrations: list[Integration]) -> dict[str, list[Change]]:
    """Every change, planned before any write; MergeRefused names the first file that
    cannot be merged (then nothing is written)."""
    return {i.name: i.plan(ctx) for i in integrations}


def apply(changes: list[Change]) -> None:
    """Write the planned files (each whole, through a temporary file and a rename)."""
    for change in changes:
        change.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = change.path.with_name(change.path.name + ".cairn-tmp")
        tmp.write_bytes(change.after)
        if change.path.exists():
            os.chmod(tmp, change.path.stat().st_mode & 0o7777)
        if change.executable:
            mode = tmp.stat().st_mode
            os.chmod(tmp, mode | ((mode & 0o444) >> 2) | 0o100)
        os.replace(tmp, change.path)


def wired(ctx: Context, integration: Integration) -> bool:
    """Cairn's entry is in the integration's config (to tell doctor what to check)."""
    if integration.name in ("git-hooks", "husky"):
        paths = [hook_file(ctx.repo, "post-commit")] if integration.name == "git-hooks" else []
        paths += [ctx.repo / ".husky" / "post-commit"] if integration.name == "husky" else []
        return any(
            p is not None and p.is_file() and read_block(p.read_text("utf-8", "replace"))
            for p in paths
        )
    probes = {
        "pre-commit": (".pre-commit-config.yaml", "cairn-check"),
        "lefthook": ("lefthook.yml", "cairn link-commit"),
        "claude-code": (".claude/settings.json", "cairn_pretooluse.py"),
        "mcp": (".mcp.json", '"cairn"'),
        "cursor": (".cursor/mcp.json", '"cairn"'),
        "opencode": ("opencode.json", '"cairn"'),
        "codex": (".codex/config.toml", "mcp_servers.cairn"),
        "vscode": (".vscode/extensions.json", VSCODE_EXTENSION),
        "github-actions": (WORKFLOW, "Written by `cairn setup`"),
        "gitlab-ci": (".gitlab-ci.yml", "cairn check"),
    }
    name, needle = probes[integration.name]
    path = ctx.repo / name
    if integration.name == "lefthook" and not path.is_file():
        path = ctx.repo / ".lefthook.yml"
    return path.is_file() and needle in path.read_text("utf-8", "replace")
