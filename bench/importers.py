#!/usr/bin/env python3
"""Benchmark the importers, side by side with Selvedge's own importers.

  1. `cairn import git` on a synthetic 10,000-commit history (built with
     `git fast-import`): every 20th commit reverts the one before it, every 100th
     re-applies a revert (a revert of a revert).
  2. `cairn import sql` on 1,000 Flyway migration files (3 statements each).

Each is timed end to end through the real CLI (process start included), then run
again to time the idempotent no-op. The peer is Selvedge 0.3.17 on the same input
(`collect_revert_events` + `log_event_batch`; `import_path` + `log_event_batch`),
installed into bench/.cache/ without its MCP server dependencies, which its
importers and storage do not use. Selvedge's git import is file-level; Cairn's
indexes each reverted commit's post-image to name symbols, so the event counts
differ and are printed.

Usage: python bench/importers.py [--commits 10000] [--migrations 1000] [--no-peer]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from cairn.testing.gitenv import isolated_env

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / ".cache"
CAIRN = ROOT / ".venv" / "bin" / "cairn"
PEER_VENV = CACHE / "selvedge-0.3.17"
MODULES = 500  # small modules keep fast-import quick; each revert touches one

PEER_SCRIPT = r"""
import json, sys, time
from pathlib import Path
from selvedge.storage import SelvedgeStorage
kind, source, db = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
t0 = time.perf_counter()
store = SelvedgeStorage(db)
if kind == "git":
    from selvedge.gitimport import collect_revert_events, GIT_IMPORT_AGENT
    events = collect_revert_events(source)
    done = store.get_agent_event_keys(GIT_IMPORT_AGENT)
    events = [e for e in events if (e.git_commit, e.entity_path) not in done]
else:
    from selvedge.importers import import_path
    events = import_path(source)  # Selvedge's SQL import has no idempotency key
store.log_event_batch(events)
print(json.dumps({"events": len(events), "seconds": time.perf_counter() - t0}))
"""


def env() -> dict[str, str]:
    return isolated_env("Bench", "bench@example.com", PYTHONSAFEPATH="1")


def build_git_history(repo: Path, commits: int) -> int:
    """A history of small features, reverts and re-applications; returns the revert count."""
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    modules: dict[int, list[str]] = {m: [] for m in range(MODULES)}
    chunks: list[bytes] = []
    reverts = 0
    subjects: dict[int, str] = {}

    def blob(path: str, text: str) -> None:
        data = text.encode()
        chunks.append(f"M 644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    # Folders of ~100 entries: git rewrites a changed folder's whole tree object on
    # every commit, so one flat folder of 10,000 migrations makes the build quadratic.
    def mig(n: int) -> str:
        return f"db/migrate/{n // 100:03d}/{n:05d}_add_c{n}.sql"

    def mod(m: int) -> str:
        return f"src/pkg{m // 50:02d}/mod{m}.py"

    def module_text(m: int) -> str:
        return "".join(modules[m]) or "# empty\n"

    for i in range(1, commits + 1):
        when = 1_600_000_000 + i * 600
        if i % 100 == 0 and (i - 20) % 20 == 0 and (i - 20) in subjects:
            # re-apply: revert the revert committed 20 commits ago (i-20 was a revert)
            j = i - 21
            subject = f'Revert "{subjects[i - 20]}"'
            m = j % MODULES
            modules[m].append(f"def feature_{j}(x):\n    return x + {j}\n\n")
            files = [
                (
                    mig(j),
                    f"ALTER TABLE t{j % 100} ADD COLUMN c{j} integer;\n",
                ),
                (mod(m), module_text(m)),
            ]
            deletes: list[str] = []
            reverts += 1
        elif i % 20 == 0 and (i - 1) in subjects and subjects[i - 1].startswith("Add"):
            j = i - 1
            subject = f'Revert "{subjects[j]}"'
            m = j % MODULES
            modules[m] = [f for f in modules[m] if f"feature_{j}(" not in f]
            files = [(mod(m), module_text(m))]
            deletes = [mig(j)]
            reverts += 1
        else:
            subject = f"Add c{i} to t{i % 100}"
            m = i % MODULES
            modules[m].append(f"def feature_{i}(x):\n    return x + {i}\n\n")
            files = [
                (
                    mig(i),
                    f"ALTER TABLE t{i % 100} ADD COLUMN c{i} integer;\n",
                ),
                (mod(m), module_text(m)),
            ]
            deletes = []
        subjects[i] = subject
        message = subject.encode() + b"\n"
        chunks.append(
            b"commit refs/heads/main\n"
            + f"mark :{i}\ncommitter Bench <bench@example.com> {when} +0000\n".encode()
            + f"data {len(message)}\n".encode()
            + message
            + (f"from :{i - 1}\n".encode() if i > 1 else b"")
        )
        for path in deletes:
            chunks.append(f"D {path}\n".encode())
        for path, text in files:
            blob(path, text)
        chunks.append(b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(chunks), check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, check=True)
    return reverts


def build_migrations(folder: Path, count: int) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for i in range(1, count + 1):
        (folder / f"V{i}__change_{i}.sql").write_text(
            f"-- migration {i}: widen table t{i % 50}\n"
            f"ALTER TABLE t{i % 50} ADD COLUMN c{i} integer;\n"
            f"ALTER TABLE t{i % 50} ALTER COLUMN c{i} TYPE bigint;\n"
            f"CREATE INDEX ix_{i} ON t{i % 50} (c{i});\n"
        )


def run_cairn(cwd: Path, *args: str) -> tuple[float, dict]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(CAIRN), *args, "--json"], cwd=cwd, env=env(), capture_output=True, text=True
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"cairn {' '.join(args)} failed: {proc.stderr.strip()}")
    return elapsed, json.loads(proc.stdout)


def peer_python() -> Path | None:
    python = PEER_VENV / "bin" / "python"
    if not python.exists():
        try:
            subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
            subprocess.run(
                [str(python), "-m", "pip", "install", "-q", "--no-deps", "selvedge==0.3.17"],
                check=True,
                capture_output=True,
            )
        except (subprocess.CalledProcessError, OSError) as exc:
            print(f"(peer unavailable: {exc})")
            return None
    return python


def run_peer(python: Path, kind: str, source: Path, db: Path) -> dict:
    db.unlink(missing_ok=True)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(python), "-c", PEER_SCRIPT, kind, str(source), str(db)],
        capture_output=True,
        text=True,
        env={**env(), "HOME": str(CACHE)},
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1]}
    out = json.loads(proc.stdout)
    out["wall"] = elapsed
    return out


def fresh_project(root: Path) -> None:
    shutil.rmtree(root / ".cairn", ignore_errors=True)
    subprocess.run([str(CAIRN), "init"], cwd=root, env=env(), check=True, capture_output=True)


def row(label: str, items: int, events: int, seconds: float, peer: dict | None) -> str:
    per = seconds / items * 1000
    line = f"| {label} | {items:,} | {events:,} | {seconds:.2f} s | {per:.3f} ms |"
    if peer is None:
        return line + " – | – |"
    if "error" in peer:
        return line + f" error: {peer['error'][:40]} | – |"
    return (
        line
        + f" {peer['wall']:.2f} s ({peer['events']:,} events) | {seconds / peer['wall']:.2f}× |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--migrations", type=int, default=1_000)
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()
    CACHE.mkdir(exist_ok=True)
    peer = None if args.no_peer else peer_python()

    repo = CACHE / f"git-{args.commits}"
    t0 = time.perf_counter()
    reverts = build_git_history(repo, args.commits)
    print(
        f"built {args.commits:,} commits ({reverts} reverts) in "
        f"{time.perf_counter() - t0:.1f} s with git fast-import"
    )
    fresh_project(repo)
    git_first, git_report = run_cairn(repo, "import", "git")
    git_again, again_report = run_cairn(repo, "import", "git")
    assert again_report["imported"] == 0, "second git import was not a no-op"
    peer_git = run_peer(peer, "git", repo, CACHE / "peer-git.db") if peer else None

    folder = CACHE / f"migrations-{args.migrations}"
    build_migrations(folder / "db", args.migrations)
    fresh_project(folder)
    sql_first, sql_report = run_cairn(folder, "import", "sql", "db")
    sql_again, sql_again_report = run_cairn(folder, "import", "sql", "db")
    assert sql_again_report["imported"] == 0, "second sql import was not a no-op"
    peer_sql = run_peer(peer, "sql", folder / "db", CACHE / "peer-sql.db") if peer else None

    print()
    print("| workload | items | Cairn events | Cairn time | per item | Selvedge 0.3.17 | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(
        row(
            f"git import, {args.commits:,} commits",
            args.commits,
            git_report["imported"],
            git_first,
            peer_git,
        )
    )
    print(row("git import again (no-op)", args.commits, 0, git_again, None))
    print(
        row(
            f"sql import, {args.migrations:,} files",
            args.migrations,
            sql_report["imported"],
            sql_first,
            peer_sql,
        )
    )
    print(row("sql import again (no-op)", args.migrations, 0, sql_again, None))
    print()
    print("ratio = Cairn time / Selvedge time (lower is faster for Cairn); times are wall")
    print("clock including process start; per item = time / commits or files.")


if __name__ == "__main__":
    main()
