"""The cyclic GC is held from a document's open or edit until its analysis is done, then
runs the one collection the allocations since call for; a hold never outlives
`LONGEST_S`, and a collector someone else turned off stays off. Runs in fresh
interpreters (the GC is global)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HOLD = r"""
import asyncio, gc
from cairn.lsp import gc_hold
from cairn.lsp.gc_hold import GcHold

seen = []
gc.callbacks.append(lambda phase, info: phase == "stop" and seen.append(info["generation"]))
kept = []

async def main():
    hold = GcHold()
    gc.collect(); seen.clear()
    hold.hold()
    assert not gc.isenabled()
    kept.extend([] for _ in range(5000))  # would have run collections
    assert not seen
    hold.hold()  # held already
    hold.release()
    assert gc.isenabled() and seen == [0] and hold.passes == 1, seen
    hold.release()  # nothing held
    assert gc.isenabled() and seen == [0]
    for _ in range(gc.get_threshold()[1]):  # enough young passes: the next is a middle one
        hold.hold(); kept.extend([] for _ in range(2000)); hold.release()
    assert seen[-1] == 1, seen
    hold.hold(); hold.release()  # little allocated: no pass
    assert hold.passes == gc.get_threshold()[1] + 1, hold.passes
    gc.disable()  # someone else's pause (start-up, a bulk read)
    hold.hold(); hold.release()
    assert not gc.isenabled()
    gc.enable()
    gc_hold.LONGEST_S = 0.05  # an analysis that never ends
    hold.hold()
    assert not gc.isenabled()
    await asyncio.sleep(0.15)
    assert gc.isenabled()

hold = GcHold()
hold.hold()  # no loop: nothing to release it later, so nothing is held
assert gc.isenabled()
asyncio.run(main())
print("ok")
"""

SERVER = r"""
import asyncio, gc, sys
from pathlib import Path
from cairn.lsp.server import build_server
from cairn.store import init_store

root = Path(sys.argv[1])
init_store(root)
path = root / "db" / "001.sql"
path.parent.mkdir()
text = "".join(f"ALTER TABLE t{i} ADD COLUMN c{i} integer;\n" for i in range(300))
path.write_text(text)
server = build_server()
server._settled = True  # start-up is over
gc.enable()

class Sink:
    def __init__(self): self.writes = []
    def write(self, data): self.writes.append((data, gc.isenabled()))
    def close(self): pass

sink = Sink()
server.protocol.set_writer(sink)

async def main():
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}}
    server.protocol.handle_message(server.protocol.structure_message(initialize))
    server.documents.open(path.as_uri(), text, 1)
    assert not gc.isenabled(), "held from the open"
    for _ in range(500):
        if any(b"publishDiagnostics" in data for data, _ in sink.writes):
            break
        await asyncio.sleep(0.01)
    published = [enabled for data, enabled in sink.writes if b"publishDiagnostics" in data]
    assert published == [False], published  # no collection before the publish
    for _ in range(100):
        if gc.isenabled():
            break
        await asyncio.sleep(0.01)
    assert gc.isenabled() and server.gc_hold.passes == 1, server.gc_hold.passes

try:
    asyncio.run(main())
finally:
    server.hub.shutdown()
print("ok")
"""


def run(program: str, tmp: Path, *args: str) -> None:
    env = {**os.environ, "PYTHONSAFEPATH": "1", "XDG_CACHE_HOME": str(tmp / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", program, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_a_hold_defers_collections_to_its_release(tmp_path: Path) -> None:
    run(HOLD, tmp_path)


def test_an_open_publishes_before_the_collector_runs(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    run(SERVER, tmp_path, str(tmp_path / "ws"))
