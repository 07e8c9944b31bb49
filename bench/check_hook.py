"""How long an agent waits per edit: `cairn check` and the Claude Code hook, side by side
with the floor they cannot beat (starting Python) and with `git diff` as a familiar gate.

Run: PYTHONSAFEPATH=1 .venv/bin/python bench/check_hook.py [--events N] [--runs N]
Prints the median wall time of each command and its ratio to a bare interpreter start.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cairn.store import EventDraft, Store, init_store

BIN = Path(sys.executable).parent
HOOK = (
    Path(__file__).resolve().parents[1]
    / "editors"
    / "claude-code"
    / "hooks"
    / "cairn_pretooluse.py"
)
MIGRATION = "ALTER TABLE users ADD COLUMN email_verified boolean;\n"
CLEAN = "CREATE TABLE orders (id integer primary key, total numeric);\n"


def build(root: Path, events: int) -> None:
    """A git repository whose log holds `events` decisions over distinct columns."""
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    init_store(root)
    with Store.open(root / ".cairn") as store:
        drafts = [
            EventDraft(type="add", entity=f"t{i % 500}.c{i}", reasoning=f"decision {i}")
            for i in range(events)
        ]
        store.append_many(drafts)
        store.append(EventDraft(type="add", entity="users.email_verified", reasoning="verify"))
        store.append(EventDraft(type="revert", entity="users.email_verified", reasoning="bounced"))
    (root / "db").mkdir()
    (root / "db" / "001.sql").write_text(CLEAN)


def median_ms(cmd: list[str], cwd: Path, stdin: str, runs: int, expect: int) -> float:
    env = {  # the cold path: bench/gate.py measures the warm one
        **os.environ,
        "PYTHONSAFEPATH": "1",
        "CAIRN_BIN": str(BIN / "cairn"),
        "CAIRN_GATE_DAEMON": "0",
    }
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, input=stdin.encode(), capture_output=True, env=env)
        times.append((time.perf_counter() - start) * 1000)
        if proc.returncode != expect:
            raise SystemExit(f"{cmd} exited {proc.returncode}: {proc.stderr.decode()[:300]}")
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, args.events)
        cairn = str(BIN / "cairn")
        write = json.dumps(
            {
                "hook_event_name": "PreToolUse",
                "cwd": str(root),
                "tool_name": "Write",
                "tool_input": {"file_path": str(root / "db" / "002.sql"), "content": MIGRATION},
            }
        )
        rows = [
            ("python -c pass (floor)", [sys.executable, "-c", "pass"], "", 0),
            ("git diff --quiet (a familiar gate)", ["git", "diff", "--quiet"], "", 0),
            ("cairn --version (CLI start)", [cairn, "--version"], "", 0),
            (
                "cairn check, clean edit",
                [cairn, "check", "--stdin-filename", "db/002.sql"],
                CLEAN,
                0,
            ),
            (
                "cairn check, blocked edit",
                [cairn, "check", "--stdin-filename", "db/002.sql"],
                MIGRATION,
                1,
            ),
            ("Claude Code hook, blocked Write", [sys.executable, str(HOOK)], write, 2),
        ]
        results = [
            (name, median_ms(cmd, root, stdin, args.runs, rc)) for name, cmd, stdin, rc in rows
        ]
    floor = results[0][1]
    print(f"{args.events} events in the log, median of {args.runs} runs")
    print(f"{'command':<36} {'ms':>8} {'x floor':>8}")
    for name, ms in results:
        print(f"{name:<36} {ms:>8.1f} {ms / floor:>8.1f}")


if __name__ == "__main__":
    main()
