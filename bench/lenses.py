#!/usr/bin/env python3
"""Code lenses per 1,000 lines on real projects, before and after the quiet rule.

For each repository: a local clone at a pinned commit (from a git directory on disk:
nothing is downloaded), `cairn init`, `cairn import alembic` of its migrations, then
the real `cairn serve` opens every Python file that holds an entity with history and
asks for its code lenses twice: with `quiet: false` (every entity with history, the
behaviour before the rule) and with the default quiet rule. Printed: files, lines,
lenses, lenses per 1,000 lines, and why the remaining lenses are there.

    PYTHONSAFEPATH=1 .venv/bin/python bench/lenses.py \\
        --repo CTFd/CTFd=/path/to/CTFd.git --repo getredash/redash=/path/to/redash.git

A repository is NAME=GITDIR; the commit and the migrations folder come from PINNED
(reproducible numbers), or NAME=GITDIR@COMMIT:MIGRATIONS for another one.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.core.attention import attention
from cairn.indexer import scan_paths
from cairn.store import Store
from cairn.testing.editor import Editor

# name -> (commit, migrations folder): what the README's numbers were measured on
PINNED = {
    "CTFd/CTFd": ("91ced62d44d3ec3142a0948ee96ed19947cfc979", "migrations"),
    "getredash/redash": ("ca79fe988d81cdac9675b412f3dfcab107bc1fbc", "migrations"),
}
CAIRN = str(Path(sys.executable).with_name("cairn"))


@dataclass
class Result:
    name: str
    commit: str
    events: int = 0
    files: int = 0
    lines: int = 0
    before: int = 0
    after: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    per_file: list[tuple[str, int, int, int]] = field(default_factory=list)


def run(*args: str, cwd: Path) -> str:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {proc.stderr.strip()[-500:]}")
    return proc.stdout


def checkout(gitdir: Path, commit: str, into: Path) -> Path:
    """A working copy of `commit` from a local git directory (no network)."""
    run("git", "clone", "--quiet", "--no-checkout", str(gitdir), str(into), cwd=into.parent)
    run("git", "-c", "advice.detachedHead=false", "checkout", "--quiet", commit, cwd=into)
    return into


def files_with_history(root: Path) -> list[Path]:
    """Python files that introduce or reference an entity with history in the log."""
    found = list(scan_paths([root], root))
    with Store.open(root / ".cairn") as store:
        known = set(store.entities())
    out = []
    for item in found:
        path = root / item.file
        if path.suffix == ".py" and any(s.entity in known for s in item.symbols):
            out.append(path)
    return sorted(out)


async def lenses(root: Path, files: list[Path], quiet: bool) -> dict[Path, list[Any]]:
    editor = Editor()
    await editor.start(root, options={"quiet": quiet, "debounceMs": 0})
    try:
        out = {}
        for path in files:
            uri = editor.open(path)
            out[path] = await editor.code_lens(uri)
        return out
    finally:
        await editor.stop()


def why(root: Path, entities: list[str]) -> Counter[str]:
    """The rule's reasons for the lenses that stay (one entity may have several)."""
    counts: Counter[str] = Counter()
    with Store.open(root / ".cairn") as store:
        for entity in entities:
            status = store.status(entity)
            for reason in attention(status, store.history(entity)).reasons:
                counts[reason.value] += 1
    return counts


def measure(name: str, gitdir: Path, commit: str, migrations: str, work: Path) -> Result:
    root = checkout(gitdir, commit, work / name.replace("/", "+"))
    run(CAIRN, "init", cwd=root)
    run(CAIRN, "import", "alembic", migrations, cwd=root)
    result = Result(name, commit)
    with Store.open(root / ".cairn") as store:
        result.events = len(store)
    files = files_with_history(root)
    before = asyncio.run(lenses(root, files, quiet=False))
    after = asyncio.run(lenses(root, files, quiet=True))
    kept: list[str] = []
    for path in files:
        lines = len(path.read_text(encoding="utf-8", errors="replace").splitlines())
        result.files += 1
        result.lines += lines
        result.before += len(before[path])
        result.after += len(after[path])
        kept += [lens.command.arguments[0]["entity"] for lens in after[path] if lens.command]
        result.per_file.append(
            (str(path.relative_to(root)), lines, len(before[path]), len(after[path]))
        )
    result.reasons = why(root, kept)
    return result


def per_kloc(count: int, lines: int) -> str:
    return f"{1000 * count / lines:.1f}" if lines else "-"


def report(results: list[Result]) -> None:
    print(
        "\n| repository | commit | events imported | files | lines | lenses before | "
        "per 1,000 lines | lenses after | per 1,000 lines |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| {r.name} | {r.commit[:12]} | {r.events} | {r.files} | {r.lines} | {r.before} | "
            f"{per_kloc(r.before, r.lines)} | {r.after} | {per_kloc(r.after, r.lines)} |"
        )
    for r in results:
        print(
            f"\n{r.name}: why the remaining lenses are there: "
            + (", ".join(f"{n} {reason}" for reason, n in r.reasons.most_common()) or "none")
        )
        for file, lines, before, after in sorted(r.per_file, key=lambda f: -f[2])[:5]:
            print(f"  {file}: {lines} lines, {before} -> {after} lenses")


def parse_repo(raw: str) -> tuple[str, Path, str, str]:
    name, sep, rest = raw.partition("=")
    if not sep:
        raise SystemExit(f"--repo {raw!r}: expected NAME=GITDIR[@COMMIT:MIGRATIONS]")
    gitdir, _, pin = rest.partition("@")
    if pin:
        commit, _, migrations = pin.partition(":")
        return name, Path(gitdir), commit, migrations or "migrations"
    if name not in PINNED:
        raise SystemExit(f"--repo {name}: not pinned; give NAME=GITDIR@COMMIT:MIGRATIONS")
    commit, migrations = PINNED[name]
    return name, Path(gitdir), commit, migrations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", action="append", required=True, help="NAME=GITDIR[@COMMIT:DIR]")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="cairn-lenses-") as tmp:
        for raw in args.repo:
            name, gitdir, commit, migrations = parse_repo(raw)
            print(
                f"{name} @ {commit[:12]}: importing {migrations}/ and asking for lenses...",
                file=sys.stderr,
            )
            results.append(measure(name, gitdir, commit, migrations, Path(tmp)))
    report(results)


if __name__ == "__main__":
    main()
