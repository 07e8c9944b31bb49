"""Decisions follow renames in the editor, through the real `cairn serve`: a revert
imported from git before the file was renamed warns and shows in the hover of the new
file ("formerly …"), and renaming a file with decisions in the editor offers — never
silently writes — a `rename` event."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsp_helpers import (
    cairn_diagnostics,
    capabilities,
    hover_text,
    lens_titles,
    open_doc,
    wait_for,
)
from lsprotocol import types
from pytest_lsp import LanguageClient
from real_cli import env as real_env

from cairn.store import EventDraft, Store, init_store

AUTH = """\
def login(user):
    return check_password(user)
"""
LEGACY = """\


def legacy_token(user):
    token = base64_encode(user.id, user.secret)
    audit_log.write("legacy token", user.id)
    return token
"""


def _run(root: Path, *args: str, date: str = "2024-02-01T10:00:00Z") -> None:
    env = real_env(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(args, cwd=root, env=env, check=True, capture_output=True)


async def _start(client: LanguageClient, root: Path) -> types.InitializeResult:
    caps = capabilities()
    assert caps.workspace is not None
    caps.workspace.file_operations = types.FileOperationClientCapabilities(did_rename=True)
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options={"debounceMs": 20},
        )
    )


async def _until(predicate: Any, timeout: float = 15.0) -> None:
    """Poll until `predicate` holds (what the server does here publishes nothing)."""

    async def loop() -> None:
        while not predicate():
            await asyncio.sleep(0.05)

    await asyncio.wait_for(loop(), timeout)


async def _hover(client: LanguageClient, uri: str, line: int, character: int) -> str:
    return await hover_text(client, uri, line, character)


async def test_a_revert_from_before_a_git_rename_warns_in_the_new_file(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    _run(root, "git", "init", "-q", "-b", "main")
    for text, message, date in (
        (AUTH, "Auth", "2024-01-01T10:00:00Z"),
        (AUTH + LEGACY, "Legacy tokens", "2024-01-02T10:00:00Z"),
    ):
        (root / "src/auth.py").write_text(text)
        _run(root, "git", "add", "-A")
        _run(root, "git", "commit", "-q", "-m", message, date=date)
    _run(root, "git", "revert", "--no-edit", "HEAD", date="2024-01-03T10:00:00Z")
    _run(root, "git", "mv", "src/auth.py", "src/session.py")
    _run(root, "git", "commit", "-q", "-m", "Auth becomes session", date="2024-02-01T10:00:00Z")
    cairn = str(Path(sys.executable).parent / "cairn")
    _run(root, cairn, "init")
    _run(root, cairn, "import", "git")
    (root / "src/session.py").write_text(AUTH + LEGACY)  # the reverted function is back

    await _start(client, root)
    uri = open_doc(client, root / "src/session.py", "python")
    await wait_for(
        lambda: any(d.data["kind"] == "verdict" for d in cairn_diagnostics(client, uri)), client
    )
    [diag] = [d for d in cairn_diagnostics(client, uri) if d.data["kind"] == "verdict"]
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert diag.data["entity"] == "src/session.py::legacy_token"
    assert "(formerly `src/auth.py::legacy_token`) was reverted on 2024-01-03" in diag.message
    assert diag.range.start.line == 4  # the name that comes back

    card = await _hover(client, uri, 4, 6)
    assert "**`src/session.py::legacy_token`** · reverted" in card
    assert "formerly `src/auth.py::legacy_token`" in card
    assert "Revert" in card

    # the lens counts the history under its old path too (`cairn.core.aliases`)
    titled = await lens_titles(client, uri)
    assert titled.get(4) == "1 decision · reverted 2024-01-03", titled


async def test_renaming_a_file_with_decisions_offers_to_move_its_history(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    (root / "src/auth.py").write_text(AUTH)
    (root / "src/plain.py").write_text("X = 1\n")
    init_store(root)
    with Store.open(root / ".cairn") as store:
        store.append(
            EventDraft(
                type="revert",
                entity="src/auth.py::legacy_token",
                reasoning="legacy tokens leaked into the logs",
                occurred_at="2024-01-03",
            )
        )
    asked: list[types.ShowMessageRequestParams] = []
    answers = ["Move its history", "Not now"]

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def ask(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        asked.append(params)
        return types.MessageActionItem(title=answers[len(asked) - 1])

    result = await _start(client, root)
    ops = result.capabilities.workspace.file_operations  # type: ignore[union-attr]
    assert ops is not None and ops.did_rename is not None
    assert ops.did_rename.filters[0].scheme == "file"

    def renamed(old: str, new: str) -> None:
        (root / old).rename(root / new)
        client.workspace_did_rename_files(
            types.RenameFilesParams(
                files=[
                    types.FileRename(old_uri=(root / old).as_uri(), new_uri=(root / new).as_uri())
                ]
            )
        )

    def renames() -> list[tuple[str, Any]]:
        with Store.open(root / ".cairn") as store:
            events = [e for ent in store.entities() for e in store.history(ent)]
        found = [(e.entity, e.metadata) for e in events if str(e.type) == "rename"]
        return sorted(found, key=lambda pair: (pair[0], str(pair[1])))

    # A file without decisions: no question.
    renamed("src/plain.py", "src/simple.py")
    # One with decisions: asked, and moved on "yes".
    renamed("src/auth.py", "src/session.py")
    await _until(lambda: len(asked) == 1)
    assert asked[0].message == (
        "Cairn: src/auth.py has 1 decision. Move its history to src/session.py?"
    )
    await _until(lambda: len(renames()) == 2)
    assert renames() == [
        ("src/auth.py", {"renamed_to": "src/session.py"}),
        ("src/session.py", {"renamed_from": "src/auth.py"}),
    ]
    (root / "src/session.py").write_text(AUTH + LEGACY)
    uri = open_doc(client, root / "src/session.py", "python")
    await wait_for(lambda: bool(cairn_diagnostics(client, uri)), client)
    [diag] = cairn_diagnostics(client, uri)
    assert "src/session.py::legacy_token (formerly `src/auth.py::legacy_token`)" in diag.message

    # "Not now": nothing is written.
    renamed("src/session.py", "src/tokens.py")
    await _until(lambda: len(asked) == 2)
    await asyncio.sleep(0.5)
    assert len(renames()) == 2

    # The command records one directly; bad input is refused, nothing written.
    command = {"from": "src/session.py", "to": "src/tokens.py", "reason": "split", "key": "k1"}
    written = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="cairn.rename", arguments=[command])
    )
    assert [e["entity"] for e in written["events"]] == ["src/session.py", "src/tokens.py"]
    again = await client.workspace_execute_command_async(  # a retry: nothing written twice
        types.ExecuteCommandParams(command="cairn.rename", arguments=[command])
    )
    assert [e["id"] for e in again["events"]] == [e["id"] for e in written["events"]]
    for bad in (
        {"from": "src/a.py"},
        {"from": "src/a.py", "to": "src/a.py"},
        {"from": "src/a.py", "to": "src/b.py", "force": True},
    ):
        try:
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="cairn.rename", arguments=[bad])
            )
        except Exception as exc:  # the server answers an InvalidParams error
            assert "cairn.rename" in str(exc)
        else:
            raise AssertionError(f"{bad} was accepted")
    assert len(renames()) == 4


async def test_a_folder_and_several_files_renamed_at_once_ask_once(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "app"
    for name in ("pkg/a.py", "b.py", "c.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("def f():\n    return 1\n")
    init_store(root)
    with Store.open(root / ".cairn") as store:
        for entity in ("pkg/a.py::f", "b.py::f", "c.py::f"):
            store.append(EventDraft(type="reject", entity=entity, reasoning="no", alternative="x"))
    asked: list[str] = []

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def ask(params: types.ShowMessageRequestParams) -> types.MessageActionItem:
        asked.append(params.message)
        return types.MessageActionItem(title="Move its history")

    await _start(client, root)

    def notify(*pairs: tuple[str, str]) -> None:
        for old, new in pairs:
            (root / old).rename(root / new)
        client.workspace_did_rename_files(
            types.RenameFilesParams(
                files=[
                    types.FileRename(old_uri=(root / o).as_uri(), new_uri=(root / n).as_uri())
                    for o, n in pairs
                ]
            )
        )

    notify(("pkg", "core"))
    await _until(lambda: len(asked) == 1)
    assert asked[0] == "Cairn: pkg/ has 1 decision. Move its history to core/?"
    notify(("b.py", "b2.py"), ("c.py", "c2.py"))
    await _until(lambda: len(asked) == 2)
    assert asked[1] == (
        "Cairn: 2 renamed paths have decisions (b.py -> b2.py, c.py -> c2.py). Move their history?"
    )

    def status(entity: str) -> tuple[str, tuple[str, ...]]:
        from cairn.core.project import find_project
        from cairn.core.session import Session

        with Session.open(find_project(root, env={})) as session:
            found = session.status(entity)
        return found.status.value, found.formerly

    await _until(lambda: status("c2.py::f")[0] == "rejected")
    assert status("core/a.py::f") == ("rejected", ("pkg/a.py::f",))
    assert status("b2.py::f") == ("rejected", ("b.py::f",))


TOKENS = """\
def make_token(user):
    payload = {"sub": user.id, "name": user.name, "iat": now()}
    headers = {"alg": "HS256", "typ": "JWT"}
    signed = encode(payload, headers, secret=SECRET)
    audit_log.write("token issued", user.id)
    return signed


def helper(user):
    return user.name.strip().lower()
"""


async def test_renaming_a_symbol_in_the_editor_offers_to_move_its_history(
    client: LanguageClient, tmp_path: Path
) -> None:
    """No notification reaches Cairn when the language's own server renames a symbol:
    the save is compared with the text as opened, and the declaration with decisions
    that left is matched with the one the edit added (body edited too)."""
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    (root / "src/tokens.py").write_text(TOKENS)
    init_store(root)
    with Store.open(root / ".cairn") as store:
        store.append(
            EventDraft(
                type="revert",
                entity="src/tokens.py::make_token",
                reasoning="tokens without expiry leaked",
                occurred_at="2024-01-03",
            )
        )
    asked: list[types.ShowMessageRequestParams] = []

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def ask(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        asked.append(params)
        return types.MessageActionItem(title="Move its history")

    def renames() -> list[tuple[str, Any]]:
        with Store.open(root / ".cairn") as store:
            events = [e for ent in store.entities() for e in store.history(ent)]
        return sorted((e.entity, e.metadata) for e in events if str(e.type) == "rename")

    await _start(client, root)
    uri = open_doc(client, root / "src/tokens.py", "python")
    # Both renamed, one body edited; only the one with a decision is asked about.
    edited = (
        TOKENS.replace("def make_token", "def issue_token")
        .replace("user.id)\n    return", 'user.id, level="info")\n    return')
        .replace("def helper", "def display_name")
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)],
        )
    )
    (root / "src/tokens.py").write_text(edited)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await _until(lambda: len(asked) == 1)
    assert asked[0].message == (
        "Cairn: src/tokens.py::make_token has 1 decision. "
        "Move its history to src/tokens.py::issue_token?"
    )
    await _until(lambda: len(renames()) == 2)
    assert renames() == [
        ("src/tokens.py::issue_token", {"renamed_from": "src/tokens.py::make_token"}),
        ("src/tokens.py::make_token", {"renamed_to": "src/tokens.py::issue_token"}),
    ]
    # The revert now speaks at the new name.
    await wait_for(
        lambda: any(
            d.data["entity"] == "src/tokens.py::issue_token" for d in cairn_diagnostics(client, uri)
        ),
        client,
    )

    # Saving again without a change asks nothing more.
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await asyncio.sleep(0.5)
    assert len(asked) == 1
