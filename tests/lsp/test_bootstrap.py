"""The start-up bootstrap (`cairn.lsp.bootstrap`) says exactly what the server would say.

Its initialize result equals the real server's for several clients; its first publish
and its first pull answer equal the server's (the same `cairn serve` with
`CAIRN_LSP_BOOTSTRAP=0`); every way it gives up (a request before the first document,
shutdown, a malformed frame, a first message that is not initialize...) leaves the
client with the transcript the server alone produces; and after the handover the
server carries on with the state the bootstrap read (hover, code actions, an edit sent
right after the open, a second document), without publishing the first answer twice.
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from lsp_helpers import SERVER_ENV, make_sample
from lsprotocol import types

from cairn.lsp.bootstrap import Bootstrap, Handover
from cairn.lsp.server import build_server
from cairn.testing.editor import Editor

MIGRATION = Path("db") / "migrations" / "0042_email_verified.sql"


def frame(message: dict[str, Any] | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def messages(data: bytes) -> list[dict[str, Any]]:
    """The JSON bodies of the frames in `data`."""
    out = []
    while data:
        header, _, rest = data.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in header.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        out.append(json.loads(rest[:length]))
        data = rest[length:]
    return out


def initialize(params: dict[str, Any], request_id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def notification(method: str, params: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        out["params"] = params
    return out


def request(request_id: int, method: str, params: Any = None) -> dict[str, Any]:
    return {**notification(method, params), "id": request_id}


def did_open(path: Path, version: int = 1) -> dict[str, Any]:
    item = {"uri": path.as_uri(), "languageId": "sql", "version": version, "text": path.read_text()}
    return notification("textDocument/didOpen", {"textDocument": item})


def run_bootstrap(data: bytes, tmp_path: Path) -> tuple[list[dict[str, Any]], Handover]:
    """The bootstrap in this process over `data` (then end of input)."""
    source = tmp_path / "stdin"
    source.write_bytes(data)
    out = io.BytesIO()
    with source.open("rb") as stdin:
        handover = Bootstrap(stdin.fileno(), out).run()
    for session in handover.sessions.values():
        session.close()
    return messages(out.getvalue()), handover


def run_server(data: bytes) -> list[dict[str, Any]]:
    """The server in this process over `data` (then end of input)."""
    server = build_server()
    out = io.BytesIO()
    try:
        server.start_io(io.BytesIO(data), out)
    finally:
        server.hub.shutdown()
    return messages(out.getvalue())


# --- initialize: the same result as the server's, client by client ---------------------

EDITOR = {  # cairn.testing.editor's client
    "window": {"showDocument": {"support": True}},
    "workspace": {"codeLens": {"refreshSupport": True}},
    "textDocument": {
        "hover": {"contentFormat": ["markdown"]},
        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}},
        "publishDiagnostics": {"versionSupport": True},
    },
}
VSCODE = {  # pulls, can be asked to re-pull, sends file operations, will-save
    "general": {"positionEncodings": ["utf-16"]},
    "workspace": {
        "configuration": True,
        "workspaceFolders": True,
        "diagnostics": {"refreshSupport": True},
        "fileOperations": {"didRename": True, "willRename": True, "didCreate": True},
        "codeLens": {"refreshSupport": True},
    },
    "textDocument": {
        "synchronization": {"willSave": True, "willSaveWaitUntil": True, "didSave": True},
        "diagnostic": {"dynamicRegistration": True, "relatedDocumentSupport": False},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
    },
    "notebookDocument": {"synchronization": {"dynamicRegistration": True}},
}
NEOVIM = {  # offers utf-8 first, pulls but cannot be asked to re-pull
    "general": {"positionEncodings": ["utf-8", "utf-16", "utf-32"]},
    "workspace": {"configuration": True, "didChangeWatchedFiles": {"dynamicRegistration": True}},
    "textDocument": {
        "synchronization": {"willSave": False, "willSaveWaitUntil": False, "didSave": True},
        "diagnostic": {"dynamicRegistration": False},
    },
}


PULLING = {  # the editor's client, pulling (and refreshable)
    **EDITOR,
    "workspace": {"diagnostics": {"refreshSupport": True}},
    "textDocument": {**EDITOR["textDocument"], "diagnostic": {}},
}


@pytest.mark.parametrize(
    "capabilities", [{}, EDITOR, VSCODE, NEOVIM], ids=["bare", "editor", "vscode", "neovim"]
)
@pytest.mark.parametrize(
    "options",
    [None, {"diagnosticMode": "push"}, {"cairn": {"diagnosticMode": "pull"}}, {"nonsense": 1}],
    ids=["none", "push", "pull", "unknown"],
)
def test_the_initialize_result_is_the_servers(
    tmp_path: Path, capabilities: dict[str, Any], options: Any
) -> None:
    params = {
        "processId": None,
        "rootUri": tmp_path.as_uri(),
        "capabilities": capabilities,
        "initializationOptions": options,
    }
    data = frame(initialize(params))
    answered, handover = run_bootstrap(data, tmp_path)
    served = [m for m in run_server(data) if m.get("id") == 1]
    assert len(answered) == 1 and len(served) == 1
    assert answered[0] == served[0]
    assert answered[0]["result"]["capabilities"]["positionEncoding"] == "utf-16"
    # The server reads the initialize again, and drops its own answer (the same one).
    assert handover.preread == data and handover.answered == {1: served[0]["result"]}


# --- the first diagnostics: the same as the server's -----------------------------------


class RawClient:
    """`python -m cairn.lsp` over pipes, driven frame by frame."""

    def __init__(self, bootstrap: bool) -> None:
        self.env = {**SERVER_ENV, "CAIRN_LSP_BOOTSTRAP": "1" if bootstrap else "0"}
        self.process: asyncio.subprocess.Process | None = None
        self.received: list[dict[str, Any]] = []

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "cairn.lsp",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=self.env,
        )

    def send(self, *frames: dict[str, Any] | bytes) -> None:
        assert self.process is not None and self.process.stdin is not None
        for message in frames:
            self.process.stdin.write(message if isinstance(message, bytes) else frame(message))

    async def next(self) -> dict[str, Any] | None:
        assert self.process is not None and self.process.stdout is not None
        stdout = self.process.stdout
        try:
            header = await stdout.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return None
        length = next(
            int(line.split(b":")[1])
            for line in header.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        message: dict[str, Any] = json.loads(await stdout.readexactly(length))
        self.received.append(message)
        return message

    async def until(self, wanted: Any) -> dict[str, Any]:
        async def loop() -> dict[str, Any]:
            while True:
                message = await self.next()
                assert message is not None, f"the server ended; it said {self.received}"
                if wanted(message):
                    return message

        return await asyncio.wait_for(loop(), 60)  # a hang fails instead of blocking

    async def finish(self) -> int:
        """Close stdin; read everything until the server exits; its exit code."""
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.close()

        async def drain() -> None:
            while await self.next() is not None:
                pass

        await asyncio.wait_for(drain(), 60)
        return await asyncio.wait_for(self.process.wait(), 60)


def is_publish(message: dict[str, Any]) -> bool:
    return message.get("method") == "textDocument/publishDiagnostics"


def workspace_init(root: Path, capabilities: dict[str, Any], request_id: int = 1) -> dict[str, Any]:
    return initialize(
        {
            "processId": None,
            "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": capabilities,
            "initializationOptions": {"debounceMs": 0},
        },
        request_id,
    )


async def first_publish(
    root: Path, bootstrap: bool, before: list[dict[str, Any]] | None = None, path: Path = MIGRATION
) -> dict[str, Any]:
    """The first publish for `path` after initialize, initialized, `before`, didOpen."""
    client = RawClient(bootstrap)
    await client.start()
    client.send(workspace_init(root, EDITOR))
    await client.until(lambda m: m.get("id") == 1)
    uri = (root / path).as_uri()
    client.send(notification("initialized", {}), *(before or []), did_open(root / path))
    published = await client.until(lambda m: is_publish(m) and m["params"]["uri"] == uri)
    client.send(request(9, "shutdown"), notification("exit"))
    assert await client.finish() == 0
    return published


async def test_the_first_publish_is_the_servers(tmp_path: Path) -> None:
    sample = make_sample(tmp_path / "shop")
    fast = await first_publish(sample.root, bootstrap=True)
    slow = await first_publish(sample.root, bootstrap=False)
    assert fast == slow
    (warning,) = [d for d in fast["params"]["diagnostics"] if d["data"]["kind"] == "verdict"]
    assert warning["code"] == sample.ids["revert"] and warning["severity"] == 2


async def test_settings_sent_before_the_document_shape_the_first_publish(tmp_path: Path) -> None:
    """A client that cannot be asked for configuration pushes it (Neovim does, right
    after initialized): the bootstrap applies it as the server would."""
    sample = make_sample(tmp_path / "shop")
    loud = {"settings": {"cairn": {"severity": {"introduce": "error", "reference": "off"}}}}
    before = [notification("workspace/didChangeConfiguration", loud)]
    fast = await first_publish(sample.root, bootstrap=True, before=before)
    slow = await first_publish(sample.root, bootstrap=False, before=before)
    assert fast == slow
    (warning,) = [d for d in fast["params"]["diagnostics"] if d["data"]["kind"] == "verdict"]
    assert warning["severity"] == 1
    # ... and it is the bootstrap's own publish (the server would be equal anyway).
    frames = [workspace_init(sample.root, EDITOR), notification("initialized", {}), *before]
    data = b"".join(frame(m) for m in [*frames, did_open(sample.root / MIGRATION)])
    sent, handover = run_bootstrap(data, tmp_path)
    assert handover.reason == "published the first diagnostics" and sent[1] == fast


@pytest.mark.parametrize(
    "path",
    [Path("..") / "elsewhere.sql", Path(".cairn") / "drafts" / "d.md"],
    ids=["outside the project", "a decision draft"],
)
async def test_documents_it_leaves_to_the_server_get_the_servers_publish(
    tmp_path: Path, path: Path
) -> None:
    sample = make_sample(tmp_path / "shop")
    (sample.root / path).parent.mkdir(parents=True, exist_ok=True)
    (sample.root / path).write_text("ALTER TABLE users ADD COLUMN email_verified boolean;\n")
    fast = await first_publish(sample.root, bootstrap=True, path=path)
    slow = await first_publish(sample.root, bootstrap=False, path=path)
    assert fast == slow


async def first_pull(root: Path, bootstrap: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    client = RawClient(bootstrap)
    await client.start()
    client.send(workspace_init(root, PULLING))
    await client.until(lambda m: m.get("id") == 1)
    path = root / MIGRATION
    asked = {"textDocument": {"uri": path.as_uri()}}
    client.send(
        notification("initialized", {}),
        did_open(path),
        request(3, "textDocument/codeLens", asked),  # as VS Code does, before its pull
        request(2, "textDocument/diagnostic", asked),
    )
    answered = lambda i: [m for m in client.received if m.get("id") == i and "method" not in m]  # noqa: E731
    await client.until(lambda _: bool(answered(2) and answered(3)))  # in either order
    ((report,), (lenses,)) = answered(2), answered(3)
    client.send(request(9, "shutdown"), notification("exit"))
    assert await client.finish() == 0
    assert not any(is_publish(m) for m in client.received)  # a pulling client is not pushed to
    return report, lenses


async def test_the_first_pull_is_answered_as_the_server_would(tmp_path: Path) -> None:
    sample = make_sample(tmp_path / "shop")
    fast, lenses = await first_pull(sample.root, bootstrap=True)
    slow, same_lenses = await first_pull(sample.root, bootstrap=False)
    assert fast == slow
    assert fast["result"]["kind"] == "full"
    assert any(d["code"] == sample.ids["revert"] for d in fast["result"]["items"])
    # The code lens request it left to the server was answered as without a bootstrap.
    assert lenses == same_lenses and lenses["result"]


@pytest.mark.parametrize("pull", [False, True], ids=["push", "pull"])
def test_it_is_the_bootstrap_that_answers(tmp_path: Path, pull: bool) -> None:
    """The equality tests above would also pass if the server answered: here the
    bootstrap alone (in this process) answers, and hands over every byte it read."""
    sample = make_sample(tmp_path / "shop")
    path = sample.root / MIGRATION
    asked = {"textDocument": {"uri": path.as_uri()}}
    frames = [
        workspace_init(sample.root, PULLING if pull else EDITOR),
        notification("initialized", {}),
        did_open(path),
        request(3, "textDocument/codeLens", asked),
        request(2, "textDocument/diagnostic", asked),
    ]
    data = b"".join(frame(m) for m in frames)
    sent, handover = run_bootstrap(data, tmp_path)
    assert handover.preread == data
    if pull:
        assert handover.reason == "answered the first pull"
        assert [m.get("id") for m in sent] == [1, 2] and set(handover.answered) == {1, 2}
        assert sent[1]["result"]["items"] and not handover.published
    else:
        assert handover.reason == "published the first diagnostics"
        assert [m.get("method") for m in sent] == [None, "textDocument/publishDiagnostics"]
        assert handover.published == {path.as_uri(): sent[1]["params"]}
    assert set(handover.sessions) == {sample.root / ".cairn"}  # for the server's store thread


async def test_an_index_to_rebuild_is_left_to_the_server(tmp_path: Path) -> None:
    """A rebuild (here: an index of another schema) can take a minute: the server does it
    on its store thread, answering meanwhile; the bootstrap does not start it."""
    from cairn.store.index import write_meta

    sample = make_sample(tmp_path / "shop")
    cairn_dir = sample.root / ".cairn"
    frames = [workspace_init(sample.root, EDITOR), notification("initialized", {})]
    data = b"".join(frame(m) for m in [*frames, did_open(sample.root / MIGRATION)])
    assert write_meta(cairn_dir, {"schema": "0"})
    sent, handover = run_bootstrap(data, tmp_path)
    assert handover.reason == "the index must be rebuilt or caught up far first"
    assert [m.get("id") for m in sent] == [1] and not handover.sessions
    published = []
    for bootstrap in (True, False):
        assert write_meta(cairn_dir, {"schema": "0"})
        published.append(await first_publish(sample.root, bootstrap=bootstrap))
    assert published[0] == published[1]
    assert any(d["code"] == sample.ids["revert"] for d in published[0]["params"]["diagnostics"])


# --- giving up: the client hears what the server alone would say -----------------------


def normalised(received: list[dict[str, Any]]) -> list[str]:
    """The transcript as a sorted list (what the bootstrap answered comes first; the
    server's log lines later), with the server's own request ids blanked."""
    out = []
    for message in received:
        if "method" in message and "id" in message:
            message = {**message, "id": "*"}
        out.append(json.dumps(message, sort_keys=True))
    return sorted(out)


def scripts(root: Path) -> dict[str, list[dict[str, Any] | bytes]]:
    init = workspace_init(root, EDITOR)
    hover = {
        "textDocument": {"uri": (root / MIGRATION).as_uri()},
        "position": {"line": 1, "character": 31},
    }
    bye = [request(9, "shutdown"), notification("exit")]
    return {
        "shutdown during the bootstrap": [init, notification("initialized", {}), *bye],
        "a request before the first document": [
            init,
            notification("initialized", {}),
            request(2, "textDocument/hover", hover),
            request(3, "workspace/symbol", {"query": "users"}),
            *bye,
        ],
        "a malformed body": [init, b"Content-Length: 5\r\n\r\n{oops", *bye],
        "not JSON-RPC": [init, frame(b'{"id": 4, "method": "initialized"}'), *bye],
        "a header that is not one": [init, b"Hello there\r\n\r\n", *bye],
        "an oversized frame": [init, b"Content-Length: 99999999999\r\n\r\n", *bye],
        "initialize is not first": [request(1, "shutdown"), notification("exit")],
        "initialize params the server refuses": [
            initialize({"processId": "me", "capabilities": {}}),
            request(2, "shutdown"),
            notification("exit"),
        ],
        "initialize twice": [init, workspace_init(root, EDITOR, 2), *bye],
        "end of input after initialize": [init],
    }


SCRIPTS = list(scripts(Path("/")))


@pytest.mark.parametrize("script", SCRIPTS)
async def test_giving_up_leaves_the_transcript_of_the_server_alone(
    tmp_path: Path, script: str
) -> None:
    sample = make_sample(tmp_path / "shop")
    heard = []
    for bootstrap in (True, False):
        client = RawClient(bootstrap)
        await client.start()
        client.send(*scripts(sample.root)[script])
        code = await client.finish()
        heard.append((code, normalised(client.received)))
    assert heard[0] == heard[1]
    assert heard[0][1], "the server said something"


# --- after the handover: the server carries on with what the bootstrap read -------------


async def test_the_server_carries_on_after_the_first_answer(tmp_path: Path) -> None:
    sample = make_sample(tmp_path / "shop")
    migration = sample.root / MIGRATION
    editor = Editor(env=SERVER_ENV)
    await editor.start(sample.root, options={"debounceMs": 0})
    try:
        uri = editor.open(migration)
        # An edit sent at once, before any answer: the server must apply it to the
        # document the bootstrap read (the reverted column's line becomes a comment).
        version = editor.change(uri, (1, 0), (1, 0), "-- ")
        edited = await editor.wait_diagnostics(uri, version=version)
        assert not any(d.code == sample.ids["revert"] for d in edited)
        first = editor.published[uri][0]
        assert any(d.code == sample.ids["revert"] for d in first)  # the bootstrap's answer
        # Each version was published once: the server's copy of the first was dropped.
        assert len(editor.published[uri]) == 2

        models = editor.open(sample.root / "app" / "models.py")  # a second document
        await editor.wait_diagnostics(models)
        assert editor.publishes[models] == 1
        version = editor.change(uri, (1, 0), (1, 3), "")  # the column is back
        again = await editor.wait_diagnostics(uri, version=version)
        (warning,) = [d for d in again if d.code == sample.ids["revert"]]
        actions = await editor.code_actions(uri, warning)
        assert actions, "the server's code actions for the bootstrap's document"
    finally:
        await editor.stop()


async def test_hover_and_actions_right_after_the_first_answer(tmp_path: Path) -> None:
    sample = make_sample(tmp_path / "shop")
    editor = Editor(env=SERVER_ENV)
    await editor.start(sample.root, options={"debounceMs": 0})
    try:
        uri = editor.open(sample.root / MIGRATION)
        found = await editor.wait_diagnostics(uri)
        (warning,) = [d for d in found if d.code == sample.ids["revert"]]
        card = await editor.hover(uri, 1, 31)  # on `email_verified`
        assert card is not None and "bounced" in card
        actions = await editor.code_actions(uri, warning)
        assert any(isinstance(a, types.CodeAction) for a in actions)
        assert editor.publishes[uri] == 1
    finally:
        await editor.stop()
