"""What the post-commit hook adds to a commit, and what the CI formats add to a check.

Run: PYTHONSAFEPATH=1 .venv/bin/python bench/commit_link.py [--events N] [--runs N]

A git repository whose log holds N decisions; each run records one decision, commits
it, and times `git commit` with Cairn's post-commit block (`cairn link-commit`) and
without it, then `cairn check` of one file as text and as SARIF. Prints medians (wall
and the children's CPU time), and the load average, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cairn.githooks import block, hook_file, make_executable, merged
from cairn.store import EventDraft, Store, init_store
from cairn.testing.gitenv import isolated_env

BIN = Path(sys.executable).parent
CAIRN = str(BIN / "cairn")
ENV = isolated_env("B", "b@example.invalid")


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall ms, children's CPU ms) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=ENV, check=False, capture_output=True)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        init_store(root)
        with Store.open(root / ".cairn") as store:
            store.append_many(
                EventDraft(type="add", entity=f"t{i % 500}.c{i}", reasoning=f"decision {i}")
                for i in range(args.events)
            )
            store.append(EventDraft(type="revert", entity="t1.c1", reasoning="bounced"))
        (root / "db.sql").write_text("ALTER TABLE t1 ADD COLUMN c1 int;\n")
        subprocess.run(["git", "add", "-A"], cwd=root, env=ENV, check=True)
        subprocess.run(["git", "commit", "-qm", "base"], cwd=root, env=ENV, check=True)
        hook = hook_file(root, "post-commit")
        assert hook is not None
        rows: dict[str, list[tuple[float, float]]] = {}
        for i in range(args.runs):
            for label, wired in (("git commit, no hook", False), ("git commit + link", True)):
                if wired:
                    hook.write_text(merged(None, block("post-commit", CAIRN)))
                    make_executable(hook)
                else:
                    hook.unlink(missing_ok=True)
                subprocess.run(
                    [CAIRN, "log", f"bench.c{label[0]}{i}", "add", "-r", "why"],
                    cwd=root, env=ENV, check=True, capture_output=True,
                )  # fmt: skip
                subprocess.run(["git", "add", "-A"], cwd=root, env=ENV, check=True)
                rows.setdefault(label, []).append(timed(["git", "commit", "-qm", "x"], root))
            for label, fmt in (("check, text", "text"), ("check, sarif", "sarif")):
                argv = [CAIRN, "check", "--format", fmt, "db.sql"]
                rows.setdefault(label, []).append(timed(argv, root))
        print(f"{args.events:,} events, {args.runs} runs; load average {os.getloadavg()}")
        for label, samples in rows.items():
            wall = statistics.median(s[0] for s in samples)
            cpu = statistics.median(s[1] for s in samples)
            print(f"{label:22} wall {wall:8.1f} ms   cpu {cpu:8.1f} ms")


if __name__ == "__main__":
    main()
