"""`cairn demo`: build a small project with a decision history, start the real server,
act as an editor, and print what the editor would show.

Runs anywhere (CI, piped output): rich falls back to plain text without a terminal.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from lsprotocol import types
from rich.console import Console, Group
from rich.markdown import Markdown
from rich.panel import Panel
from rich.text import Text

from cairn.store import EventDraft, Store, init_store
from cairn.testing.editor import Editor

FILES = {
    "db/migrations/0001_users.sql": """\
CREATE TABLE users (
    id bigserial PRIMARY KEY,
    email text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);
""",
    "db/migrations/0007_email_verified.sql": """\
-- Verify e-mail addresses at signup (again).
ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false;
""",
    "app/models.py": """\
from sqlalchemy import Boolean, Column, DateTime, Integer, String
from sqlalchemy.orm import declarative_base

Base = declarative_base()


class User(Base):
    __tablename__ = "users"

    id = Column(Integer, primary_key=True)
    email = Column(String, nullable=False, unique=True)
    created_at = Column(DateTime, nullable=False)
""",
    "app/auth.py": """\
import hashlib


def hash_password(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)


def check_password(password: str, salt: bytes, digest: bytes) -> bool:
    return hash_password(password, salt) == digest
""",
    "pyproject.toml": """\
[project]
name = "shop"
version = "1.4.0"
dependencies = [
    "sqlalchemy>=2.0",
    "stripe>=8.0",
]
""",
}

DECISIONS: list[dict[str, Any]] = [
    dict(type="add", entity="users.email_verified", author="maria",
         reasoning="Verify e-mail addresses at signup to cut fake accounts.",
         occurred_at="2026-03-02"),
    dict(type="revert", entity="users.email_verified", author="maria", reverts="@0",
         reasoning="Verification mails bounced for corporate domains (strict SPF); signups "
         "fell 30% in two days, so we rolled the column and the flow back.",
         occurred_at="2026-03-05"),
    dict(type="reject", entity="deps/stripe", author="jonas",
         alternative="take payouts through Stripe Connect",
         reasoning="Payout fees are 0.25% + 25c per payout, about 3x our bank's batch "
         "transfers at our volume.", occurred_at="2026-04-11"),
    dict(type="modify", entity="app/auth.py::hash_password", author="li",
         reasoning="Switched from bcrypt to argon2id as OWASP recommends.",
         occurred_at="2026-02-01"),
    dict(type="revert", entity="app/auth.py::hash_password", author="li", reverts="@3",
         reasoning="argon2id needed 64 MiB per hash and the login lambda ran out of memory.",
         occurred_at="2026-02-03"),
    dict(type="supersede", entity="app/auth.py::hash_password", author="li", supersedes="@4",
         reasoning="We moved login off lambdas; memory is no longer the limit. scrypt is "
         "our middle ground.", occurred_at="2026-05-20"),
]  # fmt: skip


def build_project(root: Path) -> dict[str, str]:
    """Write the sample files and log the decisions; the ids by position."""
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    init_store(root)
    ids: list[str] = []
    with Store.open(root / ".cairn") as store:
        for fields in DECISIONS:
            values = dict(fields)
            for key in ("reverts", "supersedes"):
                if str(values.get(key, "")).startswith("@"):
                    values[key] = ids[int(values[key][1:])]
            ids.append(store.append(EventDraft(**values)).event.id)
    return {"revert": ids[1], "reject": ids[2], "supersede": ids[5]}


# The re-adding migration stays uncommitted in a kept project, as it would be while you
# write it: the gate and the editor both have something to say about it.
PENDING = "db/migrations/0007_email_verified.sql"


def make_repository(root: Path) -> bool:
    """Commit the sample (all but the pending migration) so `cairn check`, `check --staged`
    and `import git` can be tried; False when git is not installed."""
    ident = ["-c", "user.name=Cairn demo", "-c", "user.email=demo@example.invalid"]

    def git(*args: str) -> None:
        subprocess.run(["git", *ident, *args], cwd=root, check=True, capture_output=True)

    try:
        git("init", "-q")
    except (OSError, subprocess.CalledProcessError):
        return False
    git("add", "--", ".", f":(exclude){PENDING}")
    git("commit", "-q", "-m", "Shop: users, models, password hashing and the decision log")
    return True


def run_demo(keep: Path | None = None, console: Console | None = None) -> None:
    """Build, serve, drive, print. With `keep`, the project stays in that folder as a git
    repository where the warning still stands: the quick fix runs on a copy."""
    out = console or Console()
    scratch = Path(tempfile.mkdtemp(prefix="cairn-demo-"))
    if keep is not None:
        keep = keep.resolve()
        if keep.exists() and any(keep.iterdir()):
            shutil.rmtree(scratch, ignore_errors=True)
            raise ValueError(f"{keep} is not empty; choose a new folder for --keep")
        keep.mkdir(parents=True, exist_ok=True)
    root = scratch / "shop"
    try:
        if keep is not None:
            build_project(keep)
            repository = make_repository(keep)
            local = shutil.ignore_patterns("index.db*", "lock")
            shutil.copytree(keep, root, ignore=local)
            ids = _ids(root)
        else:
            root.mkdir()
            ids = build_project(root)
        out.print(
            Panel(
                Text.from_markup(
                    f"A sample project with a decision history in [bold]{keep or root}[/]:\n"
                    "a migration re-adding a reverted column, a SQLAlchemy model, password "
                    "hashing that was reverted and re-opened, and a rejected dependency.\n"
                    "Starting the real language server (`cairn serve`) and acting as an "
                    "editor…"
                    + (
                        "\nThe quick fix below runs on a copy: in your folder the warning "
                        "still stands."
                        if keep is not None
                        else ""
                    )
                ),
                title="cairn demo",
                border_style="cyan",
            )
        )
        asyncio.run(_drive(root, ids, out))
        _how_to_open(keep, out)
        if keep is not None:
            _try_next(keep, repository, out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _ids(root: Path) -> dict[str, str]:
    """The ids `build_project` returned, read back from a copy's log (one writer appended
    DECISIONS in order, one line each)."""
    lines = (root / ".cairn" / "decisions.jsonl").read_text(encoding="utf-8").splitlines()
    ids = [json.loads(line)["id"] for line in lines if line.strip()]
    return {"revert": ids[1], "reject": ids[2], "supersede": ids[5]}


def _try_next(kept: Path, repository: bool, out: Console) -> None:
    lines = [
        f"[bold]cd {kept}[/], then:",
        "1. [bold]cairn check[/]: exit 1, the uncommitted migration re-adds a reverted column"
        + ("" if repository else " (needs git)"),
        "2. [bold]cairn ls[/]: the entities the log knows, with status and counts",
        '3. [bold]cairn supersede users.email_verified -r "why it is back"[/]: re-open it '
        "with a reason, and [bold]cairn check[/] passes",
    ]
    if repository:
        lines.append(
            "The folder is a git repository: the migration is not committed yet, so "
            "[bold]git add -A && cairn check --staged[/] is what the pre-commit hook runs."
        )
    out.print(Panel(Text.from_markup("\n".join(lines)), title="Try next", border_style="green"))


async def _drive(root: Path, ids: dict[str, str], out: Console) -> None:
    editor = Editor()
    await editor.start(root, options={"debounceMs": 50})
    try:
        migration = root / "db/migrations/0007_email_verified.sql"
        uri = editor.open(migration)
        diagnostics = await editor.wait_diagnostics(uri)
        out.print(_diagnostics_panel(migration, root, diagnostics))

        line = migration.read_text().splitlines()[1]
        hover = await editor.hover(uri, 1, line.index("email_verified") + 2)
        out.print(_markdown_panel("Hover on email_verified", hover))

        auth = root / "app/auth.py"
        auth_uri = editor.open(auth)
        await editor.wait_diagnostics(auth_uri)
        hover = await editor.hover(auth_uri, 3, 6)
        out.print(_markdown_panel("Hover on hash_password (reverted, then re-opened)", hover))

        lenses = Text()
        for path, lens_uri in ((migration, uri), (auth, auth_uri)):
            source = path.read_text(encoding="utf-8").splitlines()
            for lens in await editor.code_lens(lens_uri):
                title = lens.command.title if lens.command else ""
                lenses.append(f"{title}\n", style="dim italic")
                lenses.append(f"  {source[lens.range.start.line].strip()[:70]}\n")
        lenses.rstrip()
        out.print(Panel(lenses, title="Code lenses", border_style="blue"))

        manifest = root / "pyproject.toml"
        manifest_uri = editor.open(manifest)
        out.print(_diagnostics_panel(manifest, root, await editor.wait_diagnostics(manifest_uri)))

        if diagnostics:
            actions = await editor.code_actions(uri, diagnostics[0])
            titles = Text("\n".join("💡 " + action.title for action in actions))
            out.print(Panel(titles, title="Code actions on the warning", border_style="yellow"))
            fix = actions[0]
            command = fix.command if isinstance(fix, types.CodeAction) else fix
            if command is None or not command.arguments or not command.arguments[0]:
                raise ValueError("the server offered a quick fix without a command")
            arguments: dict[str, Any] = dict(command.arguments[0])
            arguments["reason"] = "The new mail provider handles strict SPF; verification is back."
            seen = editor.publishes.get(uri, 0)
            written = await editor.execute(command.command, arguments)
            try:  # the server re-analyses after the write and publishes again
                after = await editor.diagnostics_after(uri, seen, until=lambda d: not d)
            except asyncio.TimeoutError:
                after = editor.diagnostics.get(uri, [])
            out.print(
                Panel(
                    Text.from_markup(
                        f"Ran [bold]{command.command}[/] with a reason: logged "
                        f"{written['type']} [dim]{written['id'][:8]}[/] on "
                        f"{written['entity']}.\nDiagnostics in the migration now: "
                        + ("[green]none[/]" if not after else f"[red]{len(after)}[/]")
                    ),
                    title="Applying the quick fix",
                    border_style="green",
                )
            )
    finally:
        await editor.stop()


def _diagnostics_panel(path: Path, root: Path, diagnostics: list[types.Diagnostic]) -> Panel:
    rel = path.relative_to(root).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    body = Text()
    if not diagnostics:
        body.append("no diagnostics", style="green")
    for diag in diagnostics:
        warning = diag.severity == types.DiagnosticSeverity.Warning
        style = "yellow" if warning else "blue"
        start, end = diag.range.start, diag.range.end
        source = lines[start.line]
        body.append(f"{start.line + 1:>4} │ ", style="dim")
        body.append(source[: start.character])
        body.append(source[start.character : end.character], style=f"bold {style} underline")
        body.append(source[end.character :] + "\n")
        body.append("     │ " + " " * start.character, style="dim")
        body.append("^" * max(1, end.character - start.character) + "\n", style=style)
        label = "warning" if warning else "info"
        body.append(f"{label} ", style=f"bold {style}")
        body.append(f"[{diag.source} {str(diag.code)[:8]}] ", style="dim")
        body.append(diag.message + "\n")
    body.rstrip()
    return Panel(body, title=f"Diagnostics · {rel}", border_style="yellow")


def _markdown_panel(title: str, markdown: str | None) -> Panel:
    content: Any = Markdown(markdown) if markdown else Text("(no hover)", style="dim")
    return Panel(Group(content), title=title, border_style="magenta")


def _how_to_open(kept: Path | None, out: Console) -> None:
    where = str(kept) if kept else "DIR"
    text = Text.from_markup(
        ("" if kept else "Keep the project with [bold]cairn demo --keep DIR[/], then:\n")
        + f"  VS Code: install the extension from editors/vscode, then [bold]code {where}[/]\n"
        + "  Neovim:  add editors/nvim to your runtimepath, "
        + "[bold]require('cairn').setup()[/], then "
        + f"[bold]nvim {where}/db/migrations/0007_email_verified.sql[/]\n"
        + "  Any LSP client: run [bold]cairn serve[/] (stdio) for the project's files."
    )
    out.print(Panel(text, title="Open it in your editor", border_style="cyan"))
