"""A raw LSP client over the real `cairn serve`: frames are bytes we write ourselves,
so a test can send what no well-behaved client would."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from cairn.store import EventDraft, Store, init_store

CAIRN = str(Path(sys.executable).parent / "cairn")
MIGRATION = "ALTER TABLE users ADD COLUMN email_verified boolean;\n"
REASON = "verification mails bounced for corporate domains"


def make_project(root: Path) -> Path:
    """A project whose users.email_verified was added then reverted, and a migration
    that re-adds it (line 0; the column name starts at character 29)."""
    root.mkdir(parents=True, exist_ok=True)
    init_store(root)
    with Store.open(root / ".cairn") as store:
        added = store.append(EventDraft(type="add", entity="users.email_verified", reasoning="v"))
        store.append(
            EventDraft(
                type="revert",
                entity="users.email_verified",
                reasoning=REASON,
                reverts=added.event.id,
            )
        )
    (root / "db").mkdir(exist_ok=True)
    (root / "db" / "001.sql").write_text(MIGRATION, encoding="utf-8")
    return root


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawServer:
    """`cairn serve` on stdio; responses and notifications collected by a thread."""

    def __init__(self, root: Path, settings: dict[str, Any] | None = None) -> None:
        self.root = root
        env = {**os.environ, "PYTHONSAFEPATH": "1", "CAIRN_AUTHOR": "alice"}
        env.pop("CAIRN_DIR", None)
        self.proc = subprocess.Popen(
            [CAIRN, "serve"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.notes: list[dict[str, Any]] = []
        self._next = 1000
        threading.Thread(target=self._read, daemon=True).start()
        self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {},
                "initializationOptions": settings or {},
            },
        )
        self.notify("initialized", {})
        self.uri = (root / "db" / "001.sql").as_uri()
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": self.uri,
                    "languageId": "sql",
                    "version": 1,
                    "text": MIGRATION,
                }
            },
        )

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
                elif line in (b"\r\n", b"\n"):
                    break
            assert length is not None
            message = json.loads(out.read(length))
            self.messages.put(message)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    def request(self, method: str, params: Any, timeout: float = 60) -> dict[str, Any]:
        self._next += 1
        ident = self._next
        self.send(frame({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to {method} (the server is deaf or dead)")
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if message.get("id") == ident and "method" not in message:
                return message
            if "method" in message and "id" in message:  # a request from the server
                self.send(frame({"jsonrpc": "2.0", "id": message["id"], "result": None}))
            else:
                self.notes.append(message)

    def hover(self) -> str:
        """The hover card on users.email_verified ('' when there is none)."""
        answer = self.request(
            "textDocument/hover",
            {"textDocument": {"uri": self.uri}, "position": {"line": 0, "character": 33}},
        )
        result = answer.get("result") or {}
        contents = result.get("contents") or {}
        return contents.get("value", "") if isinstance(contents, dict) else str(contents)

    def logged(self) -> str:
        return "\n".join(
            str(n.get("params", {}).get("message", ""))
            for n in self.notes
            if n.get("method") == "window/logMessage"
        )

    def close(self) -> str:
        """Stop the server; its stderr (once: later calls return "")."""
        if self.proc.returncode is not None:
            return ""
        try:
            self.request("shutdown", None, timeout=20)
            self.notify("exit", None)
        except (TimeoutError, BrokenPipeError, OSError, ValueError):
            pass
        try:
            _, err = self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err.decode("utf-8", "replace")
