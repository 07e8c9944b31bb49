"""The server's execution model: one worker thread, debouncing, stdin read on the loop.

The threads are counted in the real `cairn serve` process (driven by the scripted
client `cairn.testing.editor.Editor`, which the demo and the benches use too).
"""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path

import pytest
from lsp_helpers import make_sample

from cairn.lsp.scheduling import Scheduler, Worker
from cairn.lsp.transport import StdinReader
from cairn.testing.editor import Editor


def thread_names(pid: int) -> list[str]:
    """The OS threads of a process (their `comm`)."""
    tasks = Path(f"/proc/{pid}/task")
    return sorted((t / "comm").read_text().strip() for t in tasks.iterdir())


async def test_the_server_runs_on_its_loop_and_one_worker_thread(tmp_path: Path) -> None:
    sample = make_sample(tmp_path / "shop")
    editor = Editor()
    await editor.start(sample.root, options={"debounceMs": 0})
    try:
        uri = editor.open(sample.root / "db" / "migrations" / "0042_email_verified.sql")
        diagnostics = await editor.wait_diagnostics(uri)
        assert any("email_verified" in d.message for d in diagnostics)
        hover = await editor.hover(uri, 1, 30)
        assert hover is not None and "reverted" in hover
        written = await editor.execute(
            "cairn.log",
            {"entity": "users.email", "type": "modify", "reason": "Keep it.", "uri": uri},
        )
        assert written["entity"] == "users.email"
        assert editor.pid is not None
        names = thread_names(editor.pid)
    finally:
        await editor.stop()
    # The main thread (the event loop, which also reads stdin), the one worker, and the
    # stderr log writer (`server.log_to_stderr`: logging must never block the loop); no
    # reader thread, no pygls pool, no default executor for the lock probe.
    # (Python 3.11 does not name OS threads, so they are counted, not named.)
    assert len(names) == 3, names


async def test_debounce_runs_only_the_newest_work() -> None:
    failures: list[str] = []
    scheduler = Scheduler(Worker(), report=failures.append)
    ran: list[int] = []

    def work(n: int):
        async def run() -> None:
            ran.append(n)

        return run

    for n in range(5):
        scheduler.debounce("file:///a.sql", 0.02, work(n))
    scheduler.debounce("file:///b.sql", 0.02, work(9))
    await asyncio.sleep(0.1)
    assert ran == [4, 9]
    scheduler.cancel("file:///a.sql")  # nothing pending: a no-op
    assert failures == []
    scheduler.worker.shutdown()


async def test_a_failed_background_task_is_reported_not_raised() -> None:
    failures: list[str] = []
    scheduler = Scheduler(Worker(), report=failures.append)

    async def boom() -> None:
        raise RuntimeError("index locked")

    task = scheduler.spawn(boom())
    await asyncio.gather(task, return_exceptions=True)
    await asyncio.sleep(0)
    assert failures and "index locked" in failures[0]
    scheduler.worker.shutdown()


async def test_the_worker_runs_everything_on_one_named_thread() -> None:
    import threading

    worker = Worker()
    names = {await worker.run(lambda: threading.current_thread().name) for _ in range(5)}
    worker.shutdown()
    assert len(names) == 1 and names.pop().startswith("cairn-store")


async def test_stdin_from_a_pipe_is_read_when_ready_and_ends_at_eof() -> None:
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "rb", buffering=0) as source:
        reader = StdinReader(source)  # type: ignore[arg-type]
        pending = asyncio.ensure_future(reader.read_some(1024))
        await asyncio.sleep(0.05)
        assert not pending.done()  # waits for data without blocking the loop
        os.write(write_fd, b"Content-Length: 2\r\n\r\n{}")
        assert await asyncio.wait_for(pending, 5) == b"Content-Length: 2\r\n\r\n{}"
        os.close(write_fd)
        assert await asyncio.wait_for(reader.read_some(1024), 5) == b""


@pytest.mark.parametrize("kind", ["file", "devnull", "bytesio"])
async def test_stdin_that_never_blocks_is_read_directly(kind: str, tmp_path: Path) -> None:
    if kind == "file":
        path = tmp_path / "frames"
        path.write_bytes(b"abc")
        source = open(path, "rb")  # noqa: SIM115
    elif kind == "devnull":
        source = open(os.devnull, "rb")  # noqa: SIM115
    else:
        source = io.BytesIO(b"abc")  # type: ignore[assignment]
    with source:
        reader = StdinReader(source)
        first = await asyncio.wait_for(reader.read_some(10), 5)
        assert first == (b"" if kind == "devnull" else b"abc")
        assert await asyncio.wait_for(reader.read_some(10), 5) == b""
