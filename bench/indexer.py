"""Indexer throughput and incremental re-index latency, side by side with peers.

    PYTHONSAFEPATH=1 .venv/bin/python bench/indexer.py [--repeat 3] [--cpu]
        [--source DIR | --git GIT_DIR]

Indexes a real public code base: by default the sympy sdist, about 26 MB of Python only,
fetched the way a user would (`pip download`, into bench/.cache/indexer/; never
committed); `--git` exports the newest commit of a local git repository (a bare one
works) into bench/.cache/indexer/<name>/ instead, which is how a tree of several
languages is measured (e.g. redash: Python, JavaScript, JSX, TypeScript, TSX, JSON,
YAML); blobs a partial clone lacks are left out. Then times over the same files:

* bare parse: read + tree-sitter parse, nothing else (the physical limit), of the
  files the scan indexes;
* scan: what `cairn scan` does per file (read + the minified/generated check + parse +
  queries + entity paths); the two are timed file by file in alternation, so load from
  other processes hits both alike, each going first for every other file (the second
  pass over the same bytes runs with warm caches); `--cpu` times both in this
  process's CPU seconds, which other processes on a shared machine disturb less;
* what the files a scan skips (bundles, source maps, generated code) would cost;
* the `cairn scan --json` command end to end (once);
* `ctags -R` (Universal Ctags), when installed;

and, on a 5,000-line file cut from the code base, a one-character edit followed by the
re-index (`Document.edit` + `Document.symbols`) against a fresh full index. Prints
medians and ratios.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from cairn.indexer import Document, index_text, iter_files, language_for
from cairn.indexer.languages import GRAMMARS, parser
from cairn.indexer.scan import relative_name
from cairn.indexer.skip import content_reason

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache" / "indexer"
PACKAGE = "sympy==1.13.3"


def fetch(cache: Path) -> Path:
    """The unpacked sdist, downloaded with pip on first use."""
    cache.mkdir(parents=True, exist_ok=True)
    found = sorted(p for p in cache.iterdir() if p.is_dir() and p.name.startswith("sympy-"))
    if found:
        return found[-1]
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
         PACKAGE, "-d", str(cache), "-q"],
        check=True,
    )  # fmt: skip
    archive = next(cache.glob("sympy-*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(cache, filter="data") if sys.version_info >= (3, 12) else tar.extractall(
            cache
        )
    return fetch(cache)


def export_git(git_dir: Path, cache: Path) -> Path:
    """The files of `git_dir`'s HEAD written under `cache/<name>/` (once per commit)."""
    git = ["git", "--git-dir", str(git_dir)]
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip
    name = git_dir.resolve().name
    if name in ("repo", ".git"):  # /work/.mirror/<owner>+<name>/repo, a worktree's .git
        name = git_dir.resolve().parent.name
    out = cache / f"{name}-{head[:12]}"
    if (out / ".exported").exists():
        return out
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", "HEAD"], capture_output=True,
                             check=True).stdout  # fmt: skip
    blobs: list[tuple[str, str]] = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.decode().split()
        if kind == "blob" and mode in ("100644", "100755"):
            blobs.append((sha, path.decode("utf-8", "surrogateescape")))
    with subprocess.Popen([*git, "cat-file", "--batch"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE) as batch:  # fmt: skip
        assert batch.stdin is not None and batch.stdout is not None
        for sha, path in blobs:
            batch.stdin.write(sha.encode() + b"\n")
            batch.stdin.flush()
            header = batch.stdout.readline().split()
            if header[1] == b"missing":
                continue
            data = batch.stdout.read(int(header[2]))
            batch.stdout.read(1)  # the newline after the contents
            target = out / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    (out / ".exported").write_text(head + "\n")
    return out


def median_time(run: Callable[[], object], repeat: int) -> float:
    """Median wall time of `repeat` runs, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


CPU = {"clock": time.perf_counter}  # --cpu: this process's CPU time instead of wall time


def parse_and_scan(files: list[Path], root: Path) -> tuple[float, float, int, list[Path]]:
    """Seconds to bare-parse and to scan the files a scan indexes, measured file by file
    in alternation so that a busy machine slows both sides alike; the symbol count; and
    the files the scan's content check skipped (minified, generated), whose check is
    counted in the scan's time but whose parse is not in the bare-parse time."""
    clock = CPU["clock"]
    parse_s = scan_s = 0.0
    symbols = 0
    skipped: list[Path] = []
    for n, path in enumerate(files):
        language = language_for(path.name) or language_for(str(path))

        def bare(language: str | None = language, path: Path = path) -> float:
            start = clock()
            if language in GRAMMARS:
                parser(language).parse(path.read_bytes())
            return clock() - start

        # The second of two passes over the same bytes finds them in the CPU's caches:
        # every other file is parsed first, so neither side always gets the warm run.
        if n % 2 and content_reason(path.read_bytes()) is None:
            parse_s += bare()
        start = clock()
        data = path.read_bytes()
        # what scan_paths does for each file: the content check, then the index
        if content_reason(data) is not None:
            skipped.append(path)
            scan_s += clock() - start
            continue
        symbols += len(index_text(data, relative_name(path, root)))
        scan_s += clock() - start
        if not n % 2:
            parse_s += bare()
    return parse_s, scan_s, symbols, skipped


def unskipped(files: list[Path], root: Path) -> tuple[float, float]:
    """(bare parse, full index) seconds of files a scan skips: what they would cost."""
    parse_s = index_s = 0.0
    for path in files:
        data = path.read_bytes()
        language = language_for(path.name) or language_for(str(path))
        start = time.perf_counter()
        if language in GRAMMARS:
            parser(language).parse(data)
        middle = time.perf_counter()
        index_text(data, path.relative_to(root).as_posix())
        index_s += time.perf_counter() - middle
        parse_s += middle - start
    return parse_s, index_s


def five_thousand_lines(files: list[Path]) -> str:
    """A 5,000-line slice of real hand-written code: the biggest library modules (not
    tests, not generated benchmark data), concatenated."""
    lines: list[str] = []
    for path in sorted(files, key=lambda p: p.stat().st_size, reverse=True):
        if path.suffix == ".py" and not {"tests", "benchmarks"} & set(path.parts):
            lines.extend(path.read_text("utf-8", "replace").splitlines())
        if len(lines) >= 5000:
            break
    return "\n".join(lines[:5000]) + "\n"


def incremental(text: str, repeat: int) -> dict[str, float]:
    """Medians (ms) for a one-character edit + re-index versus full work."""
    doc = Document("bench/big.py", text)
    baseline = len(doc.symbols)
    lines = text.split("\n")
    row = next(i for i in range(2500, 5000) if lines[i].lstrip().startswith("def "))
    column = lines[row].index("def ") + 4
    state = {"inserted": False}

    def edit() -> None:
        if state["inserted"]:
            doc.edit(row, column, row, column + 1, "")
        else:
            doc.edit(row, column, row, column, "x")
        state["inserted"] = not state["inserted"]
        doc.symbols  # noqa: B018 - the re-index is what is measured

    edits = [median_time(edit, 1) for _ in range(max(20, repeat * 10))]
    assert abs(len(doc.symbols) - baseline) <= 1
    data = text.encode()
    ts_parser = parser("python")
    tree = ts_parser.parse(data)

    def reparse_only() -> None:
        tree.edit(0, 0, 0, (0, 0), (0, 0), (0, 0))
        ts_parser.parse(data, tree)

    # alternate full parses and full indexes so that load hits both alike
    parses: list[float] = []
    fulls: list[float] = []
    for _ in range(max(5, repeat * 3)):
        parses.append(median_time(lambda: ts_parser.parse(data), 1))
        fulls.append(median_time(lambda: index_text(text, "bench/big.py"), 1))
    return {
        "edit": statistics.median(edits) * 1000,
        "full": statistics.median(fulls) * 1000,
        "parse": statistics.median(parses) * 1000,
        "reparse": median_time(reparse_only, max(20, repeat * 10)) * 1000,
    }


def _options() -> argparse.Namespace:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    where = args.add_mutually_exclusive_group()
    where.add_argument("--source", type=Path, help="scan this folder instead of sympy")
    where.add_argument(
        "--git",
        type=Path,
        help="scan the newest commit of this git repository (exported into the cache)",
    )
    args.add_argument(
        "--cpu",
        action="store_true",
        help="time parse and scan in this process's CPU seconds, not wall seconds (less "
        "sensitive to other processes on a shared machine; the CLI and ctags rows stay wall)",
    )
    return args.parse_args()


def _tool_rows(root: Path, repeat: int) -> list[tuple[str, float]]:
    """The CLI's scan, once, and Universal Ctags over the same tree when installed."""
    rows = []
    cairn = Path(sys.executable).with_name("cairn")
    with tempfile.TemporaryFile() as sink:
        start = time.perf_counter()
        subprocess.run([str(cairn), "scan", "--json", str(root)], stdout=sink, check=True,
                       cwd=root, env={**os.environ, "PYTHONSAFEPATH": "1"})  # fmt: skip
        rows.append(("`cairn scan --json` (CLI, once)", time.perf_counter() - start))

    ctags = shutil.which("ctags")
    if ctags:
        version = subprocess.run([ctags, "--version"], capture_output=True, text=True).stdout
        if "Universal Ctags" in version:
            rows.append(
                (
                    "ctags -R (Universal Ctags)",
                    median_time(
                        lambda: subprocess.run(
                            [ctags, "-R", "--languages=Python", "-f", os.devnull, str(root)],
                            check=True,
                        ),
                        repeat,
                    ),
                )
            )
    return rows


def main() -> None:
    """Run the benchmark and print the table."""
    opts = _options()
    if opts.cpu:
        CPU["clock"] = time.process_time
    if opts.git is not None:
        root = export_git(opts.git, CACHE).resolve()
    else:
        root = (opts.source or fetch(CACHE)).resolve()
    by_name: list[tuple[Path, str]] = []
    files = list(iter_files([root], by_name))
    size = sum(p.stat().st_size for p in files) / 1e6
    print(f"code base: {root.name}: {len(files)} files, {size:.1f} MB; median of {opts.repeat}")
    languages: dict[str, int] = {}
    for path in files:
        language = language_for(path.name) or language_for(str(path)) or "?"
        languages[language] = languages.get(language, 0) + 1
    print(
        "languages: "
        + ", ".join(f"{k} {v}" for k, v in sorted(languages.items(), key=lambda kv: -kv[1]))
    )
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("parse and scan rows in " + ("CPU seconds" if opts.cpu else "wall seconds"))

    runs = [parse_and_scan(files, root) for _ in range(opts.repeat)]
    parse_s = statistics.median(r[0] for r in runs)
    scan_s = statistics.median(r[1] for r in runs)
    symbols = runs[0][2]
    by_content = runs[0][3]
    rows = [
        ("bare parse, files scan indexes", parse_s),
        ("cairn indexer (scan)", scan_s),
    ]
    skipped_files = [p for p, _ in by_name if p.is_file()] + by_content
    whole_tree = parse_s
    if skipped_files:
        skipped_mb = sum(p.stat().st_size for p in skipped_files) / 1e6
        cost_parse, cost_index = unskipped(skipped_files, root)
        whole_tree = parse_s + cost_parse
        print(
            f"skipped: {len(by_name)} by name or .gitattributes, {len(by_content)} by content "
            f"({skipped_mb:.1f} MB); indexing them would add {cost_index:.2f} s "
            f"(a bare parse of them alone: {cost_parse:.2f} s)"
        )
        rows.insert(1, ("bare parse, every file (bundles too)", whole_tree))

    rows += _tool_rows(root, opts.repeat)

    print(f"\n{'':34} {'seconds':>8} {'MB/s':>7} {'vs bare parse':>14}")
    for name, seconds in rows:
        print(f"{name:34} {seconds:8.2f} {size / seconds:7.2f} {parse_s / seconds:13.2f}x")
    print(f"symbols found: {symbols}")
    print(
        f"target: scan at least 0.50x bare-parse speed -> {parse_s / scan_s:.2f}x of a parse "
        f"of the files it indexes, {whole_tree / scan_s:.2f}x of a parse of the whole tree"
    )

    inc = incremental(five_thousand_lines(files), opts.repeat)
    print("\n5,000-line file (ms)")
    print(f"  bare full parse               {inc['parse']:8.2f}")
    print(f"  full index                    {inc['full']:8.2f}")
    print(f"  tree-sitter reparse, no edit  {inc['reparse']:8.2f}")
    print(f"  one-char edit + re-index      {inc['edit']:8.2f}   (target < 10 ms)")
    print(f"  re-index vs full index        {inc['full'] / inc['edit']:8.1f}x faster")


if __name__ == "__main__":
    main()
