"""What the agent surface costs: tool-schema size beside Selvedge's, MCP tool latency, digest time.

    PYTHONSAFEPATH=1 .venv/bin/python bench/agents.py                  # 10k and 100k events
    PYTHONSAFEPATH=1 .venv/bin/python bench/agents.py --sizes 10000 --calls 50

1. Schema size: the `tools/list` answer of the real `cairn mcp` and of Selvedge's own MCP
   server (`selvedge-server`, installed in bench/.cache/selvedge-venv like bench/store.py
   does), both fetched with the MCP SDK's client in the same run. Tokens are estimated
   as characters / 4 (no tokenizer is downloaded); the characters are exact.
2. `cairn_why` (5 entities per call) and `cairn_check` (a 20-line migration touching
   logged columns) round trips through the SDK client to `cairn mcp`, p50/p99, on a
   store loaded with the shared workload (../shared/bench/peer_selvedge.py).
3. `cairn digest` on the same store: in process (`build_digest`) and the CLI's wall time,
   with a branch that touches three files.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ runs as scripts
from workload import REPO, load_peer, to_draft

from store import PEER_VENV, peer_python

CAIRN = Path(sys.executable).parent / "cairn"


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


# --- schema size ------------------------------------------------------------------------


async def list_tools(command: str, args: list[str], cwd: Path, env: dict[str, str]) -> list[Any]:
    import mcp_types as types
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command, args=args, cwd=cwd, env=env)
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
        info = types.Implementation(name="bench", version="1")
        async with ClientSession(read, write, client_info=info, read_timeout_seconds=120) as s:
            await s.initialize()
            listed = await s.list_tools()
    return [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed.tools]


def schema_size(tools: list[Any]) -> dict[str, Any]:
    text = json.dumps(tools, separators=(",", ":"), ensure_ascii=False)
    return {"tools": len(tools), "chars": len(text), "tokens_est": round(len(text) / 4)}


async def schema_sizes(work: Path) -> dict[str, Any]:
    project = work / "schema-project"
    project.mkdir()
    subprocess.run([str(CAIRN), "init"], cwd=project, check=True, capture_output=True)
    ours = await list_tools(str(CAIRN), ["mcp"], project, dict(os.environ))
    peer_python()  # builds bench/.cache/selvedge-venv on first use
    home = work / "selvedge-home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "SELVEDGE_DB": str(home / "selvedge.db"),
        "SELVEDGE_QUIET": "1",
        "SELVEDGE_TELEMETRY": "0",
        "CI": "1",
    }
    theirs = await list_tools(str(PEER_VENV / "bin" / "selvedge-server"), [], home, env)
    return {"cairn": schema_size(ours), "selvedge": schema_size(theirs)}


# --- latency on a loaded store ----------------------------------------------------------


def build(root: Path, n: int, seed: int) -> list[str]:
    """A git repository whose log holds the shared workload's n events; returns the paths."""
    from cairn.store import Store, init_store

    peer = load_peer()
    _git(root, "init", "-q", "-b", "main")
    store = Store.open(init_store(root))
    paths = peer.build_paths(max(1, n // 10))
    gen = peer.generate_events(
        n, paths, seed=seed, supersede_rate=0.1, reasoning_bytes=200, diff_bytes=400
    )
    ids: dict[str, tuple[str, str]] = {}
    for batch in peer.batched(gen, 5000):
        events = store.append_many([to_draft(e, ids) for e in batch])
        for e, ev in zip(batch, events, strict=True):
            ids[e["id"]] = (ev.id, ev.type.value)
    store.close()
    (root / "db").mkdir()
    (root / "db" / "001_base.sql").write_text("CREATE TABLE base (id integer primary key);\n")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "base")
    return [p for p, _kind in paths]


def migration(columns: list[str]) -> str:
    lines = []
    for path in columns:
        table, column = path.split(".", 1)
        lines.append(f"ALTER TABLE {table} ADD COLUMN {column} integer;")
    return "\n".join(lines) + "\n"


async def tool_latency(root: Path, paths: list[str], calls: int, seed: int) -> dict[str, Any]:
    import mcp_types as types
    from mcp import ClientSession, StdioServerParameters, stdio_client

    rng = random.Random(seed)
    columns = [p for p in paths if "::" not in p]
    params = StdioServerParameters(command=str(CAIRN), args=["mcp"], cwd=root, env=dict(os.environ))
    why_ms: list[float] = []
    check_ms: list[float] = []
    async with stdio_client(params) as (read, write):
        info = types.Implementation(name="bench", version="1")
        async with ClientSession(read, write, client_info=info, read_timeout_seconds=120) as s:
            await s.initialize()
            await s.call_tool("cairn_why", {"entities": rng.sample(paths, 5)})  # opens the store
            for i in range(calls):
                t0 = time.perf_counter()
                answer = await s.call_tool("cairn_why", {"entities": rng.sample(paths, 5)})
                why_ms.append((time.perf_counter() - t0) * 1000)
                assert not answer.is_error, answer
                content = migration(rng.sample(columns, 20))
                t0 = time.perf_counter()
                answer = await s.call_tool(
                    "cairn_check", {"path": f"db/{i:04d}_bench.sql", "content": content}
                )
                check_ms.append((time.perf_counter() - t0) * 1000)
                assert not answer.is_error, answer
    return {
        "why_p50_ms": round(statistics.median(why_ms), 2),
        "why_p99_ms": round(pct(why_ms, 99), 2),
        "check_p50_ms": round(statistics.median(check_ms), 2),
        "check_p99_ms": round(pct(check_ms, 99), 2),
    }


def digest_time(root: Path, paths: list[str], runs: int) -> dict[str, Any]:
    from cairn.agents.digest import build_digest
    from cairn.core.project import find_project

    _git(root, "checkout", "-q", "-b", "feature")
    columns = [p for p in paths if "::" not in p]
    (root / "db" / "002_branch.sql").write_text(migration(columns[:10]))
    (root / "db" / "003_branch.sql").write_text(migration(columns[10:20]))
    (root / "requirements.txt").write_text("requests==2.32\n")
    project = find_project(root)
    build_digest(project)  # warm the index pages
    inproc = []
    for _ in range(runs):
        t0 = time.perf_counter()
        digest = build_digest(project)
        inproc.append((time.perf_counter() - t0) * 1000)
    cli, cpu = [], []
    for _ in range(max(3, runs // 2)):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([str(CAIRN), "digest"], cwd=root, check=True, capture_output=True)
        cli.append((time.perf_counter() - t0) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cpu.append(used * 1000)
    return {
        "digest_ms": round(statistics.median(inproc), 1),
        "digest_cli_ms": round(statistics.median(cli), 1),
        "digest_cli_cpu_ms": round(statistics.median(cpu), 1),
        "digest_chars": len(digest.text),
        "digest_items": len(digest.items),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="cairn-bench-agents-"))
    try:
        results: dict[str, Any] = {"schemas": await schema_sizes(work), "sizes": {}}
        for n in args.sizes:
            root = work / f"store-{n}"
            root.mkdir()
            print(f"loading {n:,} events ...", file=sys.stderr)
            paths = build(root, n, args.seed)
            row = await tool_latency(root, paths, args.calls, args.seed)
            row.update(digest_time(root, paths, args.runs))
            results["sizes"][n] = row
        return results
    finally:
        shutil.rmtree(work, ignore_errors=True)


def table(results: dict[str, Any]) -> str:
    s = results["schemas"]
    lines = [
        "| tools/list | tools | characters | tokens (chars/4) |",
        "|---|---|---|---|",
    ]
    for name in ("cairn", "selvedge"):
        r = s[name]
        lines.append(f"| {name} | {r['tools']} | {r['chars']:,} | ~{r['tokens_est']:,} |")
    lines += [
        "",
        "| events | cairn_why p50 / p99 | cairn_check p50 / p99 | digest (in process) | "
        "`cairn digest` (CLI wall / CPU) |",
        "|---|---|---|---|---|",
    ]
    for n, r in results["sizes"].items():
        lines.append(
            f"| {int(n):,} | {r['why_p50_ms']} / {r['why_p99_ms']} ms | "
            f"{r['check_p50_ms']} / {r['check_p99_ms']} ms | {r['digest_ms']} ms | "
            f"{r['digest_cli_ms']} / {r['digest_cli_cpu_ms']} ms |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--calls", type=int, default=100, help="tool calls per size")
    parser.add_argument("--runs", type=int, default=10, help="digest runs per size")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--json-out", type=Path, default=None)
    args = parser.parse_args()
    import anyio

    results = anyio.run(run, args)
    print(table(results))
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\n(repo {REPO.name}; machine shared, medians from one run)", file=sys.stderr)


if __name__ == "__main__":
    main()
