#!/usr/bin/env python3
"""The CPU time of `cairn import git` on the tracking bench's Java projects, one build
against another (issue 30: the import stays within 1.5x of the release before it).

Each project `bench/tracking.py` prepared under `--work` (a clone with a `cairn init`,
its seeded `reject` decisions, then the import it ran) is copied afresh for each run,
with the log cut back to the seeded decisions and no index, and imported by each
`--build` in turn, alternating, for `--rounds` rounds. CPU is the import's own and its
children's (git) from `os.wait4`. Printed: per project each build's CPU per round and
its faster round, then the sums and the ratio of every build to the first.

`--keep DIR` writes each build's resulting log to `DIR/<build>/<project>.jsonl`, with
what differs between two runs of the same import taken out (`id`, `recorded_at`; the
ids in `parents` and `supersedes` replaced by line numbers), so that two builds'
outputs compare with `diff -r`.

Usage:
  PYTHONSAFEPATH=1 .venv/bin/python bench/import_time.py --work /tmp/cairn-tracking \
      --build old=/work/wt/old0c0/.venv/bin/cairn --build new=.venv/bin/cairn \
      [--rounds 2] [--project okhttp] [--keep /tmp/import-logs]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SEEDED_BY = "bench"  # the author of bench/tracking.py's seeded decisions


def seeded_log(log: Path) -> str:
    """The log's leading seeded decisions (the import's own come after them)."""
    keep: list[str] = []
    for line in log.read_text().splitlines():
        if json.loads(line).get("author") != SEEDED_BY:
            break
        keep.append(line + "\n")
    return "".join(keep)


def fresh_copy(project: Path, into: Path) -> Path:
    """A copy of a prepared project with its seeded decisions only and no index."""
    dest = into / project.name
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(project, dest, symlinks=True)
    cairn_dir = dest / ".cairn"
    (cairn_dir / "decisions.jsonl").write_text(seeded_log(project / ".cairn" / "decisions.jsonl"))
    derived = ("index.db", "index.db-wal", "index.db-shm", "index.db-search", "index.db-search-wal")
    for name in (*derived, "index.db-search-shm", "import.json", "import.err"):
        (cairn_dir / name).unlink(missing_ok=True)
    return dest


def cpu_of_import(cairn: str, repo: Path) -> float:
    """CPU seconds of one `cairn import git`, git's children included."""
    with open(os.devnull, "wb") as sink, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [cairn, "import", "git", "--json"], cwd=repo, stdout=sink, stderr=err
        )
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            raise SystemExit(f"{cairn} import git failed in {repo}: {err.read()[-500:]!r}")
    return usage.ru_utime + usage.ru_stime


def comparable(log: Path) -> str:
    """The log without what differs between two runs of one import (ids, record times)."""
    events = [json.loads(line) for line in log.read_text().splitlines()]
    number = {e["id"]: i for i, e in enumerate(events)}
    out: list[str] = []
    for e in events:
        e.pop("id", None)
        e.pop("recorded_at", None)
        for key in ("parents", "supersedes"):  # a list of ids, or one
            if isinstance(e.get(key), list):
                e[key] = [number.get(i, i) for i in e[key]]
            elif isinstance(e.get(key), str):
                e[key] = number.get(e[key], e[key])
        out.append(json.dumps(e, sort_keys=True) + "\n")
    return "".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="bench/tracking.py's --work")
    ap.add_argument("--build", action="append", required=True, help="NAME=path/to/cairn")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--project", action="append", default=[], help="name prefix to keep")
    ap.add_argument("--keep", type=Path, help="write each build's comparable log here")
    args = ap.parse_args()
    builds: list[tuple[str, str]] = []
    for spec in args.build:
        name, sep, path = spec.partition("=")
        if not sep or not Path(path).is_file():
            print(f"--build {spec!r}: expected NAME=path/to/cairn", file=sys.stderr)
            return 2
        builds.append((name, str(Path(path).absolute())))  # run from each copy
    projects = sorted(
        p
        for p in args.work.iterdir()
        if (p / ".cairn" / "decisions.jsonl").is_file()
        and (not args.project or any(p.name.startswith(x) for x in args.project))
    )
    if not projects or args.rounds < 1:
        print(f"no prepared project under {args.work} (run bench/tracking.py)", file=sys.stderr)
        return 2
    cpu: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="import-time-") as scratch:
        for project in projects:
            for _ in range(args.rounds):
                for name, cairn in builds:
                    repo = fresh_copy(project, Path(scratch))
                    cpu.setdefault((project.name, name), []).append(cpu_of_import(cairn, repo))
                    if args.keep is not None:
                        (args.keep / name).mkdir(parents=True, exist_ok=True)
                        log = repo / ".cairn" / "decisions.jsonl"
                        (args.keep / name / f"{project.name}.jsonl").write_text(comparable(log))
                    shutil.rmtree(repo)
            cells = "  ".join(
                f"{name} {'/'.join(f'{s:.2f}' for s in cpu[project.name, name])}"
                for name, _ in builds
            )
            print(f"{project.name:28} {cells}", flush=True)
    first = builds[0][0]
    rows = [("faster round", lambda times: min(times))]
    rows += [(f"round {r + 1}", lambda times, r=r: times[r]) for r in range(args.rounds)]
    for how, pick in rows:
        sums = {name: sum(pick(cpu[p.name, name]) for p in projects) for name, _ in builds}
        ratios = "  ".join(
            f"{name} {sums[name]:.1f} s ({sums[name] / sums[first]:.2f}x)" for name, _ in builds
        )
        print(f"sum, {how:12} {ratios}")
    print(f"per project, faster rounds, against {first}:")
    for p in projects:
        base = min(cpu[p.name, first])
        ratios = "  ".join(f"{n} {min(cpu[p.name, n]) / base:.2f}x" for n, _ in builds[1:])
        print(f"  {p.name:28} {ratios}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
