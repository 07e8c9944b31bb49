"""Start-up: the GC is paused from `prepare` until the server's first diagnostics are
out, then frozen and resumed once. Runs in a fresh interpreter (the GC is global)."""

from __future__ import annotations

import os
import subprocess
import sys

PROGRAM = r"""
import gc, io
from cairn.lsp.startup import prepare
prepare()
assert not gc.isenabled(), "paused for the imports"
from cairn.lsp.server import build_server
server = build_server()
assert not gc.isenabled(), "still paused: no diagnostics yet"

class Sink:
    def __init__(self): self.data = b""
    def write(self, data): self.data += data
    def close(self): pass

sink = Sink()
server.protocol.set_writer(sink)
server.documents._publish("file:///x.sql", 1, [])
assert b"textDocument/publishDiagnostics" in sink.data
assert gc.isenabled(), "the first publish settles"
frozen = gc.get_freeze_count()
assert frozen > 1000, frozen
gc.disable()  # someone else's choice later on: a second settle must not undo it
server.settle()
server.documents._publish("file:///x.sql", 2, [])
assert not gc.isenabled() and gc.get_freeze_count() == frozen
print("ok")
"""


def test_the_gc_resumes_once_the_first_diagnostics_are_out(tmp_path: object) -> None:
    env = {**os.environ, "PYTHONSAFEPATH": "1", "XDG_CACHE_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
