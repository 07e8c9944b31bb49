#!/usr/bin/env python3
"""How well `cairn import git` follows methods through refactorings, scored against
CodeTracker's method oracle (issue 30).

The oracle is CodeTracker's own (repository jodavimehran/code-tracker,
`src/main/resources/oracle/method/{training,test}/*.json`): per method, every commit
where it was renamed, moved, or its class/file changed. CodeTracker is GPL-3.0, so its
oracle is NOT copied here: it is read from the checkout (or bare mirror) named by
`--codetracker`. The Java projects come from local mirrors (`--mirror-root`, holding
`<owner>+<name>/repo`), cloned `--shared` (no object copied) under `--work`; nothing is
fetched.

Per (project, start commit) of the oracle:
  1. A fresh clone at the oracle's start commit, `cairn init`, and a `reject` on each
     earlier name a tracked method had (the log "knows" them, so the import follows them).
  2. `cairn import git`, timed (wall and CPU) with the peak RSS of the process.
  3. Scoring, at the change level as CodeTracker scores itself:
     - method renames and moves (`rename`, `moved`) and class/file moves
       (`container change`) linked: the rename links recorded at that commit carry the
       name before to the name after (`cairn.core.aliases`, the rule every surface uses);
     - precision: each step of the former-path walk back from today's name is a claimed
       change; it is right when the oracle has that change (same commit, before, after;
       a method merge or split the oracle records counts); `*_shown_right` counts only
       the steps to former paths a status shows; each wrong step is counted by why:
       `wrong_never_existed` (a file's or class's link covers a member added after it),
       `wrong_sibling_overload` (the path existed, but the oracle method appeared at or
       after that commit: another overload shared its name), `wrong_other`;
     - a decision on the oldest name reaches today's name (it is among its former paths);
     - former paths shown that really existed: the file indexed at the parent of the
       commit that renamed it away holds that element. A status shows the former paths
       something is logged on (`formers_existed`); `all_covered_existed` counts every
       path the links cover, shown or not (a file's rename covers methods added later).
  A change whose two names are one Cairn path (a parameter change of a method whose
  name is not overloaded, a package rename that kept the file) is not counted: there
  is nothing to link. An oracle method is named by its overload path (`C.m(int)`)
  where the file names it so at that commit (its name overloaded there), else bare;
  a step to a bare former path is right when the oracle's change is from one of its
  overloads (to the path the step reached, or to its bare name when the name gained
  a sibling after that commit), and the oldest name reaches today's when it reaches
  today's path or, for an overload, its bare name (what a surface reads there too).

Usage:
  PYTHONSAFEPATH=1 .venv/bin/python bench/tracking.py \
      --codetracker /work/.mirror/jodavimehran+code-tracker/repo \
      [--project okhttp] [--work /tmp/cairn-tracking] [--json out.json] [--verbose]

CodeTracker's published figures on its own oracle (Jodavi & Tsantalis, FSE 2022): method
tracking precision 99.5%, recall 99.8% at the change level.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The `cairn` beside the interpreter: run with another checkout's venv to measure it.
CAIRN = Path(sys.executable).parent / "cairn"
ORACLE = "src/main/resources/oracle/method"
METHOD_CHANGES = ("rename", "moved")
CLASS_CHANGES = ("container change",)


@dataclass(frozen=True)
class Change:
    commit: str
    parent: str
    kind: str  # "method" (rename/move) or "class" (container change)
    before: str  # Cairn entity paths
    after: str


@dataclass
class Method:
    name: str  # the oracle file's name
    today: str
    oldest: str
    names: list[str]
    changes: list[Change]
    # Every oracle change that renames the path (a merge or split too): a walk step
    # matching one is right, whatever its type.
    claimable: set[tuple[str, str, str]] = field(default_factory=set)
    introduced: str = ""  # the commit the oracle says the method appeared in


@dataclass
class Run:
    project: str
    start: str
    mirror: Path
    methods: list[Method] = field(default_factory=list)


def cairn_path(file: str, key: str, at: Exists | None = None, rev: str = "") -> str | None:
    """CodeTracker's `src/dir/pkg.Outer.Inner#name(Types)` -> `file::Outer.Inner.name`,
    or `file::Outer.Inner.name(Types)` when the file declares that overload by its own
    path at `rev` (the indexer names a method so only when its name is overloaded there).
    The classes start at the file's own class (Java's rule: the file is named after it)."""
    qualified, _, rest = key.partition("#")
    name, paren, params = rest.partition("(")
    bare = _bare_path(file, qualified, name)
    if bare is None or at is None or not paren:
        return bare
    from cairn.store.paths import EntityPathError, canonicalise

    try:
        own = canonicalise(f"{bare}({params}")
    except EntityPathError:
        return bare
    return own if at(rev, own) else bare


def _bare_path(file: str, qualified: str, name: str) -> str | None:
    parts = qualified.rsplit("/", 1)[-1].split(".")
    stem = Path(file).stem
    if stem not in parts:
        return None
    classes = parts[parts.index(stem) :]
    from cairn.store.paths import EntityPathError, canonicalise

    try:  # a method of an anonymous class (`new Foo`) has no Cairn path
        return canonicalise(f"{file}::{'.'.join([*classes, name])}")
    except EntityPathError:
        return None


def _oracle_files(codetracker: Path) -> dict[str, str]:
    """name -> JSON text, from a checkout or a bare mirror."""
    out: dict[str, str] = {}
    tree = codetracker / ORACLE
    if tree.is_dir():
        for p in sorted(tree.glob("*/*.json")):
            out[p.name] = p.read_text()
        return out
    names = _git(codetracker, "ls-tree", "-r", "--name-only", "HEAD", ORACLE).split()
    for n in names:
        if n.endswith(".json"):
            out[Path(n).name] = _git(codetracker, "show", f"HEAD:{n}")
    return out


def load_runs(codetracker: Path, mirror_root: Path, only: set[str]) -> list[Run]:
    runs: dict[tuple[str, str], Run] = {}
    overloads: dict[Path, Exists] = {}  # the indexer names an overload so only where it is one
    for name, text in _oracle_files(codetracker).items():
        d = json.loads(text)
        url = d["repositoryWebURL"].removesuffix(".git").rstrip("/")
        owner, repo = url.split("/")[-2:]
        if only and repo not in only and d["repositoryName"] not in only:
            continue
        mirror = mirror_root / f"{owner}+{repo}" / "repo"
        if not mirror.is_dir():
            continue
        at = overloads.setdefault(mirror, Exists(mirror))
        today = cairn_path(d["filePath"], d["functionKey"], at, d["startCommitId"])
        if today is None:
            continue
        changes: list[Change] = []
        claimable: set[tuple[str, str, str]] = set()
        names = [today]
        oldest = today
        introduced = ""
        for c in sorted(d["expectedChanges"], key=lambda c: c["commitTime"]):
            after = cairn_path(c["elementFileAfter"], c["elementNameAfter"], at, c["commitId"])
            before = cairn_path(
                c["elementFileBefore"], c["elementNameBefore"], at, c["parentCommitId"]
            )
            if c["changeType"] == "introduced":
                if after is not None and oldest == today:
                    oldest = after
                    introduced = c["commitId"]
                continue
            if before is None or after is None:
                continue
            if before != after:
                claimable.add((c["commitId"], before, after))
            for n in (before, after):
                if n not in names:
                    names.append(n)
            kind = (
                "method"
                if c["changeType"] in METHOD_CHANGES
                else "class"
                if c["changeType"] in CLASS_CHANGES
                else ""
            )
            if kind and before != after:
                changes.append(Change(c["commitId"], c["parentCommitId"], kind, before, after))
        key = (repo, d["startCommitId"])
        run = runs.setdefault(key, Run(repo, d["startCommitId"], mirror))
        dedup = list(dict.fromkeys(changes))
        run.methods.append(
            Method(name.removesuffix(".json"), today, oldest, names, dedup, claimable, introduced)
        )
    return sorted(runs.values(), key=lambda r: (r.project, r.start))


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def prepare(run: Run, work: Path) -> Path:
    dest = work / f"{run.project}-{run.start[:8]}"
    if dest.exists():
        shutil.rmtree(dest)
    subprocess.run(
        ["git", "clone", "-q", "--shared", "--no-checkout", str(run.mirror), str(dest)],
        check=True,
    )
    _git(dest, "checkout", "-q", "--detach", run.start)
    init = subprocess.run([str(CAIRN), "init", str(dest)], capture_output=True, text=True)
    if init.returncode != 0:
        raise SystemExit(f"cairn init failed in {dest}: {init.stderr.strip()}")
    from cairn.store import EventDraft, Store

    drafts = [
        EventDraft(
            type="reject",
            entity=n,
            reasoning=f"bench/tracking.py: a decision on a name {m.name} had",
            alternative="bench",
            author="bench",
        )
        for m in run.methods
        for n in dict.fromkeys([m.oldest, *m.names])
        if n != m.today
    ]
    store = Store.open(dest / ".cairn")
    try:
        store.append_many(drafts)
    finally:
        store.close()
    return dest


def run_import(dest: Path) -> dict[str, Any]:
    out_file, err_file = dest / ".cairn" / "import.json", dest / ".cairn" / "import.err"
    t0 = time.perf_counter()
    # Output goes to files: a pipe nobody reads while waiting fills and blocks the import.
    with out_file.open("w") as out, err_file.open("w") as err:
        proc = subprocess.Popen(
            [str(CAIRN), "import", "git", "--json"], cwd=dest, stdout=out, stderr=err
        )
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"cairn import git failed in {dest}: {err_file.read_text()[-500:]}")
    try:
        summary = json.loads(out_file.read_text())
    except ValueError:
        summary = {}
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "summary": summary,
    }


@dataclass(frozen=True)
class Edge:
    old: str
    new: str
    at_ms: int
    commit: str
    members: dict[str, str] | None = None  # a container link's (`Link.members`)


def rename_edges(dest: Path) -> list[Edge]:
    from cairn.core.aliases import LINK_KEYS, members_of
    from cairn.store.times import to_ms

    out: list[Edge] = []
    for line in (dest / ".cairn" / "decisions.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e.get("type") != "rename":
            continue
        meta = e.get("metadata") or {}
        when = e.get("occurred_at") or e.get("recorded_at")
        at = to_ms(when) // 1000 * 1000 + 999
        for key, forward in zip(LINK_KEYS, (True, False), strict=True):
            other = meta.get(key)
            if isinstance(other, str):
                old, new = (e["entity"], other) if forward else (other, e["entity"])
                members = members_of(meta.get("members"))
                out.append(Edge(old, new, at, e.get("commit") or "", dict(members or {}) or None))
    return out


def _aliases(edges: list[Edge]) -> Any:
    from cairn.core.aliases import Aliases, Link

    return Aliases(Link(e.old, e.new, e.at_ms, e.members) for e in edges)


class Exists:
    """Whether an element existed in its file at a commit (the file indexed there)."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._cache: dict[tuple[str, str], set[str]] = {}

    def __call__(self, rev: str, entity: str) -> bool:
        from cairn.indexer import index_text

        file = entity.partition("::")[0]
        if (rev, file) not in self._cache:
            proc = subprocess.run(
                ["git", "-C", str(self.repo), "show", f"{rev}:{file}"],
                capture_output=True,
            )
            text = proc.stdout if proc.returncode == 0 else None
            self._cache[(rev, file)] = (
                {s.entity for s in index_text(text, file)} if text is not None else set()
            )
        return entity in self._cache[(rev, file)]


def former_of(link: Any, suffix: str) -> str | None:
    """The product's rule for what a link makes of a path (`cairn.core.aliases`)."""
    from cairn.core.aliases import former_of as rule

    return rule(link, suffix)


def walk_formers(aliases: Any, edges: list[Edge], today: str) -> list[tuple[str, str, Edge]]:
    """(former, the name it became, the link) for each former path shown for `today`:
    the same walk as `Aliases.formerly`, keeping which link (and so which commit) gave
    each path."""
    by_key = {(e.old, e.new, e.at_ms): e for e in edges}
    shown = {f.path for f in aliases.formerly(today)}
    out: list[tuple[str, str, Edge]] = []
    seen = {today}
    queue = [today]
    while queue:
        path = queue.pop(0)
        for new in aliases._covering(path):
            suffix = path[len(new) :]
            for link in aliases._by_new[new]:
                former = former_of(link, suffix)
                if former is None or former in seen or former not in shown:
                    continue
                seen.add(former)
                out.append((former, path, by_key[(link.old, link.new, link.at_ms)]))
                queue.append(former)
    return out


def _bare(path: str) -> str:
    from cairn.store.paths import split_overload

    return split_overload(path)[0]


def read_at(today: str) -> list[str]:
    """The paths a surface reads at a method: its own, and for an overload its bare
    name too (`cairn.indexer.overloads`: a decision on the bare name is about every
    overload, whatever it was called before)."""
    from cairn.store.paths import split_overload

    bare = split_overload(today)[0]
    return [today] if bare == today else [today, bare]


def logged_paths(dest: Path) -> set[str]:
    """The paths any event is on: the former paths a status shows are those of them."""
    lines = (dest / ".cairn" / "decisions.jsonl").read_text().splitlines()
    return {json.loads(line)["entity"] for line in lines if line.strip()}


def score(run: Run, dest: Path, edges: list[Edge], verbose: bool) -> dict[str, Any]:
    by_commit: dict[str, list[Edge]] = defaultdict(list)
    for e in edges:
        by_commit[e.commit].append(e)
    aliases = _aliases(edges)
    exists = Exists(dest)
    linked = {"method": [0, 0], "class": [0, 0]}
    claims = {"method": [0, 0], "class": [0, 0]}
    shown_claims = {"method": [0, 0], "class": [0, 0]}  # of the steps to shown paths
    reach = [0, 0]
    # Why wrong steps are wrong: the former path never existed (a file's or class's link
    # covers a member added after it); it held a sibling overload (the oracle method
    # appeared later, the path is shared: an overload not told apart by its suffix); other.
    wrong = {"never existed": 0, "sibling overload": 0, "other": 0}
    real = [0, 0]  # of the former paths a status shows (those something is logged on)
    real_all = [0, 0]  # of every path the rename links cover, shown or not
    logged = logged_paths(dest)
    misses: list[str] = []
    for m in run.methods:
        for ch in m.changes:
            here = _aliases(by_commit.get(ch.commit, []))
            ok = ch.before in {f.path for f in here.formerly(ch.after)}
            linked[ch.kind][0] += ok
            linked[ch.kind][1] += 1
            if not ok:
                misses.append(f"  miss {ch.kind} {ch.commit[:10]} {ch.before} -> {ch.after}")
        formers = walk_formers(aliases, edges, m.today)
        oracle = {(c.commit, c.before, c.after): c.kind for c in m.changes}
        for former, became, link in formers:
            kind = oracle.get((link.commit, former, became))
            right = (link.commit, former, became) in m.claimable or any(
                # a bare former path is every overload of it, the oracle's among them;
                # and a step may reach past the commit where the name gained a sibling
                # (the oracle's change is to the bare name, the walk's to the overload)
                c == link.commit
                and _bare(b) == former
                and (became in (a, _bare(a)) or _bare(became) == a)
                for c, b, a in m.claimable
            )
            if kind is None:
                kind = "class" if former.split("::")[-1] == became.split("::")[-1] else "method"
            there = exists(f"{link.commit}^", former)
            if not right:
                why = (
                    "never existed"
                    if not there
                    else "sibling overload"
                    if m.introduced and _not_after(dest, link.commit, m.introduced)
                    else "other"
                )
                wrong[why] += 1
                misses.append(f"  false {kind} ({why}) {link.commit[:10]} {former} -> {became}")
            claims[kind][0] += right
            claims[kind][1] += 1
            if former in logged:
                shown_claims[kind][0] += right
                shown_claims[kind][1] += 1
            real_all[0] += there
            real_all[1] += 1
            if former in logged:
                real[0] += there
                real[1] += 1
            if not there:
                shown = "shown" if former in logged else "not shown"
                misses.append(f"  never-existed ({shown}) {link.commit[:10]} {former}")
        if m.oldest != m.today:
            got = any(m.oldest in {f.path for f in aliases.formerly(p)} for p in read_at(m.today))
            got = got or m.oldest in read_at(m.today)
            reach[0] += got
            reach[1] += 1
            if not got:
                misses.append(f"  unreached {m.oldest} -> {m.today}")
    if verbose:
        print("\n".join(misses))
    return {
        "method_linked": linked["method"],
        "class_linked": linked["class"],
        "method_claims_right": claims["method"],
        "class_claims_right": claims["class"],
        "method_shown_right": shown_claims["method"],
        "class_shown_right": shown_claims["class"],
        "oldest_reaches_today": reach,
        "formers_existed": real,
        "all_covered_existed": real_all,
        "wrong_never_existed": [wrong["never existed"], 0],
        "wrong_sibling_overload": [wrong["sibling overload"], 0],
        "wrong_other": [wrong["other"], 0],
    }


def _not_after(repo: Path, commit: str, introduced: str) -> bool:
    """Whether `commit` is `introduced` or one of its ancestors: the method was not
    there yet."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "merge-base", "--is-ancestor", commit, introduced],
        capture_output=True,
    )
    return proc.returncode == 0


def _pct(key: str, pair: list[int]) -> str:
    if key.startswith("wrong_"):
        return str(pair[0])  # a count of wrong steps, not a share
    return f"{pair[0]}/{pair[1]}" + (f" ({100 * pair[0] / pair[1]:.0f}%)" if pair[1] else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--codetracker", type=Path, required=True)
    ap.add_argument("--mirror-root", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--work", type=Path, default=Path("/tmp/cairn-tracking"))
    ap.add_argument("--project", action="append", default=[])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    runs = load_runs(args.codetracker, args.mirror_root, set(args.project))
    if not runs:
        print("no oracle project has a mirror under --mirror-root", file=sys.stderr)
        return 2
    args.work.mkdir(parents=True, exist_ok=True)
    results: list[dict[str, Any]] = []
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for run in runs:
        dest = prepare(run, args.work)
        timing = run_import(dest)
        print(
            f"{run.project} @{run.start[:8]}: {len(run.methods)} methods, "
            f"import {timing['wall_s']} s wall, {timing['cpu_s']} s CPU, "
            f"peak RSS {timing['peak_rss_mb']} MB",
            flush=True,
        )
        scores = score(run, dest, rename_edges(dest), args.verbose)
        for k, v in scores.items():
            totals[k][0] += v[0]
            totals[k][1] += v[1]
            print(f"  {k:22} {_pct(k, v)}")
        for s in timing["summary"].get("skipped_items") or []:
            if s.get("item") in ("symbol moves", "renames"):
                print(f"  skipped: {s['item']}: {s['reason']}")
        results.append({"project": run.project, "start": run.start, **timing, **scores})
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end")
    print("all projects:")
    for k, v in totals.items():
        print(f"  {k:22} {_pct(k, v)}")
    if args.json:
        args.json.write_text(json.dumps({"runs": results, "totals": totals}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
